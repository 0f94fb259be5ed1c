/**
 * Several upstreams in one server: `MCP_PROXY_UPSTREAMS`, a JSON array of upstream entries
 * (inline, or the path of a JSON file holding it), and `MCP_PROXY_UPSTREAM_SECRETS`, their
 * credentials by upstream name (a setting of its own, so that doctor prints it masked and the
 * list itself holds no secret). Each entry is checked by a zod schema; a bad one is an error
 * naming the entry's index, its name and the field (`upstreams[1] ("everything").prefix: ...`),
 * which stops start-up with exit code 2 like any bad setting.
 */
import { readFileSync, statSync } from 'node:fs';
import { z } from 'zod';
import { upstreamUrlProblem } from './upstream-url.ts';

/** The largest MCP_PROXY_UPSTREAMS (inline or its file) and MCP_PROXY_UPSTREAM_SECRETS, in bytes. */
export const MAX_CONFIG_BYTES = 1024 * 1024;
/** The most upstreams one server takes. */
export const MAX_UPSTREAMS = 64;

// RFC 9110 field-name (token) characters.
export const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** A prefix leaves room for a name in a tool name's 64 characters. */
export const PREFIX = /^[A-Za-z0-9_./-]{1,63}$/;
/**
 * An upstream's name is also the scheme label of its resource URIs (`<name>+<uri>`, RFC 3986
 * §3.1 scheme characters), so it is lower-case letters, digits and `-`.
 */
const NAME = /^[a-z][a-z0-9-]{0,31}$/;
const TOOL_NAME = /^[A-Za-z0-9_./-]{1,64}$/;

/** What one upstream tool becomes (`tools` of an entry, by the upstream's own tool name). */
const toolTransform = z.strictObject({
  rename: z
    .string()
    .regex(TOOL_NAME, 'expected 1 to 64 characters of a tool name (A-Z a-z 0-9 _ . / -)')
    .optional(),
  description: z.string().min(1).max(10_000).optional(),
  hide: z
    .record(z.string().min(1).max(200), z.json())
    .refine((h) => Object.keys(h).length <= 100, 'at most 100 hidden arguments')
    .optional(),
});

export type ToolTransform = z.output<typeof toolTransform>;

const entry = z
  .strictObject({
    name: z.string().regex(NAME, 'expected 1 to 32 of a-z 0-9 -, starting with a letter'),
    command: z.string().min(1).max(4096).optional(),
    args: z.array(z.string().max(65_536)).max(1000).default([]),
    cwd: z.string().min(1).max(4096).optional(),
    env: z.record(z.string(), z.string()).default({}),
    url: z
      .string()
      .superRefine((v, ctx) => {
        const problem = upstreamUrlProblem(v);
        if (problem) ctx.addIssue({ code: 'custom', message: problem });
      })
      .optional(),
    apiKeyHeader: z.string().regex(HEADER_NAME, 'expected an HTTP header name').optional(),
    prefix: z
      .string()
      .regex(PREFIX, 'expected 1 to 63 characters of a tool name (A-Z a-z 0-9 _ . / -)')
      .optional(),
    include: z.array(z.string().max(1000)).max(10_000).default([]),
    exclude: z.array(z.string().max(1000)).max(10_000).default([]),
    scopes: z.record(z.string(), z.array(z.string())).default({}),
    isolation: z.enum(['shared', 'per-session']).default('shared'),
    optional: z.boolean().default(false),
    tools: z.record(z.string(), toolTransform).default({}),
  })
  .refine((e) => (e.command === undefined) !== (e.url === undefined), {
    error: 'give exactly one of command (a stdio upstream) and url (a streamable-HTTP upstream)',
    path: ['command'],
  });

/** One entry of MCP_PROXY_UPSTREAMS, defaults filled in. */
export type UpstreamEntry = z.output<typeof entry>;
/** One entry as written (MCP_PROXY_UPSTREAMS, `proxyPluginWith`). */
export type UpstreamEntryInput = z.input<typeof entry>;

const secret = z.strictObject({
  bearerToken: z.string().min(1).optional(),
  apiKey: z.string().min(1).optional(),
  env: z.record(z.string(), z.string()).default({}),
});

/** One upstream's credentials, from MCP_PROXY_UPSTREAM_SECRETS. */
export type UpstreamSecret = z.output<typeof secret>;
/** One upstream's credentials as written. */
export type UpstreamSecretInput = z.input<typeof secret>;

/** `upstreams[1] ("everything").tools.x.rename` from a zod issue's path. */
function where(list: readonly unknown[], path: readonly PropertyKey[]): string {
  const [index, ...rest] = path;
  if (typeof index !== 'number') return 'the list';
  const item = list[index] as { name?: unknown } | undefined;
  const name = typeof item?.name === 'string' ? ` (${JSON.stringify(item.name.slice(0, 40))})` : '';
  return `upstreams[${index}]${name}${rest.map((p) => `.${String(p)}`).join('')}`;
}

/**
 * The JSON text of a setting given inline (starting with `[` or `{`) or as a file's path. The
 * messages name the path, except for a secret (the value may be a secret mistyped).
 */
function jsonText(value: string, what: string, secret = false): string {
  const trimmed = value.trim();
  if (trimmed.startsWith('[') || trimmed.startsWith('{')) {
    if (Buffer.byteLength(trimmed) > MAX_CONFIG_BYTES)
      throw new Error(`${what} is larger than ${MAX_CONFIG_BYTES} bytes`);
    return trimmed;
  }
  let size: number;
  try {
    size = statSync(trimmed).size;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new Error(
      `${what} is neither JSON (starting with [ or {) nor a readable file: ${code}${secret ? '' : ` for ${trimmed}`}`,
    );
  }
  const file = secret ? 'its file' : `the file ${trimmed}`;
  if (size > MAX_CONFIG_BYTES) throw new Error(`${file} is larger than ${MAX_CONFIG_BYTES} bytes`);
  return readFileSync(trimmed, 'utf8');
}

function parseJson(text: string, what: string, secret = false): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    // JSON.parse quotes the text near the fault: not for a secret.
    throw new Error(`${what} is not valid JSON${secret ? '' : `: ${(err as Error).message}`}`);
  }
}

/** Checks that hold between entries: names and prefixes unique, a prefix on each when there are several. */
function crossProblems(entries: readonly UpstreamEntry[]): string[] {
  const problems: string[] = [];
  const names = new Map<string, number>();
  const prefixes = new Map<string, number>();
  entries.forEach((e, i) => {
    const at = `upstreams[${i}] (${JSON.stringify(e.name)})`;
    const sameName = names.get(e.name);
    if (sameName !== undefined) problems.push(`${at}.name: upstreams[${sameName}] has the same name`);
    names.set(e.name, i);
    if (entries.length > 1 && e.prefix === undefined) {
      problems.push(`${at}.prefix: required when there is more than one upstream (e.g. "${e.name}_")`);
    }
    if (e.prefix !== undefined) {
      const samePrefix = prefixes.get(e.prefix);
      if (samePrefix !== undefined)
        problems.push(
          `${at}.prefix: upstreams[${samePrefix}] has the same prefix ${JSON.stringify(e.prefix)}`,
        );
      prefixes.set(e.prefix, i);
    }
  });
  return problems;
}

/**
 * Parses MCP_PROXY_UPSTREAMS; throws an Error whose message lists the problems (at most 5).
 *
 * @example
 * parseUpstreams('[{"name":"memory","command":"npx","args":["-y","@modelcontextprotocol/server-memory"]}]');
 */
export function parseUpstreams(value: string): UpstreamEntry[] {
  const raw = parseJson(jsonText(value, 'MCP_PROXY_UPSTREAMS'), 'MCP_PROXY_UPSTREAMS');
  if (!Array.isArray(raw)) throw new Error('expected a JSON array of upstreams, [{"name": ..., ...}, ...]');
  if (raw.length === 0) throw new Error('the list of upstreams is empty');
  if (raw.length > MAX_UPSTREAMS) throw new Error(`${raw.length} upstreams, more than ${MAX_UPSTREAMS}`);
  const parsed = z.array(entry).safeParse(raw);
  const problems = parsed.success
    ? crossProblems(parsed.data)
    : parsed.error.issues.map((i) => `${where(raw, i.path)}: ${i.message}`);
  if (problems.length > 0) {
    const more = problems.length > 5 ? ` (and ${problems.length - 5} more)` : '';
    throw new Error(`${problems.slice(0, 5).join('; ')}${more}`);
  }
  return parsed.data as UpstreamEntry[];
}

/**
 * Parses MCP_PROXY_UPSTREAM_SECRETS (by upstream name); throws naming the upstream and field.
 * Its messages never hold a value.
 */
export function parseSecrets(value: string): Record<string, UpstreamSecret> {
  const raw = parseJson(
    jsonText(value, 'MCP_PROXY_UPSTREAM_SECRETS', true),
    'MCP_PROXY_UPSTREAM_SECRETS',
    true,
  );
  const parsed = z.record(z.string(), secret).safeParse(raw);
  if (!parsed.success) {
    const [first] = parsed.error.issues;
    const at = (first?.path ?? []).map(String).join('.');
    // The message of a type mismatch names types, never the value.
    throw new Error(
      `expected {"<upstream name>": {"bearerToken"?, "apiKey"?, "env"?}}${at ? ` (at ${at}: ${first?.message})` : ''}`,
    );
  }
  return parsed.data;
}

/** Secrets for upstreams the list does not name, or of the wrong kind: a message each. */
export function secretProblems(
  entries: readonly UpstreamEntry[],
  secrets: Readonly<Record<string, UpstreamSecret>>,
): string[] {
  const problems: string[] = [];
  for (const [name, s] of Object.entries(secrets)) {
    const e = entries.find((x) => x.name === name);
    if (e === undefined) {
      problems.push(
        `MCP_PROXY_UPSTREAM_SECRETS names ${JSON.stringify(name)}, which no upstream in MCP_PROXY_UPSTREAMS is`,
      );
    } else if (e.url === undefined && (s.bearerToken !== undefined || s.apiKey !== undefined)) {
      problems.push(
        `MCP_PROXY_UPSTREAM_SECRETS.${name}: bearerToken and apiKey are sent to a url upstream only; ${JSON.stringify(name)} is a command (give its secrets in env)`,
      );
    } else if (e.url !== undefined && Object.keys(s.env).length > 0) {
      problems.push(
        `MCP_PROXY_UPSTREAM_SECRETS.${name}.env: ${JSON.stringify(name)} is a url upstream, with no environment`,
      );
    }
  }
  return problems;
}

/** A setting read with `parse`: unset or blank is `empty`; a throw is the setting's message. */
export function jsonSetting<T>(parse: (v: string) => T, empty: T) {
  return z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v.trim() === '') return empty;
      try {
        return parse(v);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
        return z.NEVER;
      }
    });
}
