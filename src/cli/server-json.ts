/**
 * `server.json` for the official MCP Registry, built from the project's package.json and the
 * settings of the plugins it serves, and checked against the registry's published JSON Schema
 * (a copy in registry/server.schema.json, its version in its `$id`). The registry lists a
 * server by this document: its name (the package.json `mcpName` the registry checks against
 * the npm package), version, the npm package and how it runs, any hosted endpoints, and every
 * environment variable with its description, whether it is required and whether it is secret.
 */
import { readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { SettingInput } from './setting-inputs.ts';

// ajv-formats is CommonJS; its default export arrives wrapped depending on the loader.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv,
) => void;

/** The registry's schema as kept in this package (registry/server.schema.json). */
export const REGISTRY_SCHEMA = JSON.parse(
  readFileSync(new URL('./registry/server.schema.json', import.meta.url), 'utf8'),
) as { $id: string; definitions: Record<string, unknown> };

/** The schema's version, from its `$id` (`…/schemas/<version>/server.schema.json`). */
export const REGISTRY_SCHEMA_VERSION = /\/schemas\/([^/]+)\/server\.schema\.json$/.exec(
  REGISTRY_SCHEMA.$id,
)?.[1] as string;

/** What server.json is built from: package.json's fields and the flags. */
export interface ServerJsonSource {
  /** Reverse-DNS name with one slash (`io.github.you/weather`): package.json `mcpName`. */
  name: string;
  version: string;
  description: string;
  title?: string;
  /** The npm package, when the server is published to npm (package.json `name`). */
  npmPackage?: string;
  /** Arguments after the package's command (`run` for @mcp-toolkit/server itself). */
  packageArguments?: readonly string[];
  repositoryUrl?: string;
  websiteUrl?: string;
  /** Hosted streamable-HTTP endpoints. */
  remotes?: readonly string[];
  /** Remotes need `Authorization: Bearer <key>` (MCP_AUTH=api_key or oauth). */
  remoteAuth?: boolean;
  /** The settings, each one an environment variable of the npm package. */
  settings: readonly SettingInput[];
  /** Values fixed by the publisher, not asked of the user (MCP_PLUGINS, MCP_TRANSPORT). */
  fixed?: Readonly<Record<string, string>>;
}

/** `git+https://github.com/a/b.git` → `{ url: https://github.com/a/b, source: github }`. */
export function repositoryOf(url: string): { url: string; source: string } | undefined {
  const clean = url.replace(/^git\+/, '').replace(/\.git$/, '');
  const short = /^github:([^/]+\/[^/]+)$/.exec(clean) ?? /^([\w.-]+\/[\w.-]+)$/.exec(clean);
  const full = short ? `https://github.com/${short[1]}` : clean;
  let host: string;
  try {
    host = new URL(full).hostname;
  } catch {
    return undefined;
  }
  const source = host === 'github.com' ? 'github' : host === 'gitlab.com' ? 'gitlab' : host;
  return { url: full, source };
}

function variable(s: SettingInput, fixed: string | undefined): Record<string, unknown> {
  return {
    name: s.name,
    description: s.description,
    ...(fixed !== undefined ? { value: fixed } : {}),
    isRequired: fixed === undefined && s.required,
    isSecret: s.secret,
    format: s.format,
    ...(s.defaultValue !== undefined && fixed === undefined ? { default: s.defaultValue } : {}),
    ...(s.choices && fixed === undefined ? { choices: [...s.choices] } : {}),
  };
}

/**
 * The document, in the registry's field order.
 *
 * @example
 * const doc = buildServerJson({ name: 'io.github.me/notes', version: '1.0.0', description: 'Notes',
 *   npmPackage: '@me/notes', settings: coreSettingInputs() });
 */
export function buildServerJson(source: ServerJsonSource): Record<string, unknown> {
  const repository = source.repositoryUrl ? repositoryOf(source.repositoryUrl) : undefined;
  const env = source.settings.map((s) => variable(s, source.fixed?.[s.name]));
  const packages =
    source.npmPackage === undefined
      ? []
      : [
          {
            registryType: 'npm',
            identifier: source.npmPackage,
            version: source.version,
            runtimeHint: 'npx',
            transport: { type: 'stdio' },
            ...(source.packageArguments && source.packageArguments.length > 0
              ? { packageArguments: source.packageArguments.map((value) => ({ type: 'positional', value })) }
              : {}),
            environmentVariables: env,
          },
        ];
  const remotes = (source.remotes ?? []).map((url) => ({
    type: 'streamable-http',
    url,
    ...(source.remoteAuth
      ? {
          headers: [
            {
              name: 'Authorization',
              description: 'Bearer followed by your API key or access token',
              isRequired: true,
              isSecret: true,
            },
          ],
        }
      : {}),
  }));
  return {
    $schema: REGISTRY_SCHEMA.$id,
    name: source.name,
    ...(source.title ? { title: source.title } : {}),
    description: source.description,
    ...(repository ? { repository } : {}),
    version: source.version,
    ...(source.websiteUrl ? { websiteUrl: source.websiteUrl } : {}),
    ...(packages.length > 0 ? { packages } : {}),
    ...(remotes.length > 0 ? { remotes } : {}),
  };
}

let validator: ValidateFunction | undefined;

/** The registry schema's complaints about a document (`/packages/0/version: must …`); empty when valid. */
export function registrySchemaProblems(doc: unknown): string[] {
  if (validator === undefined) {
    // strict off: the registry's schema carries OpenAPI keywords (discriminator, example).
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(ajv);
    validator = ajv.compile(REGISTRY_SCHEMA);
  }
  if (validator(doc)) return [];
  return (validator.errors ?? []).map((e) => `${e.instancePath || '/'}: ${e.message ?? 'is invalid'}`);
}
