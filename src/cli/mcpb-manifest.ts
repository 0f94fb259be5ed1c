/**
 * The manifest of an MCP Bundle (`.mcpb`, manifest_version 0.3): a stdio server that a desktop
 * client installs in one click, run with the client's own Node, its settings asked in a form.
 * The form (`user_config`) is generated from the settings schema: each setting is a field with
 * its title, description, type (a folder picker for a `*_ROOT`/`*_DIR` path), default, whether
 * it is required, and `sensitive` for a secret, so the client stores it in the OS keychain and
 * never shows it. Each field reaches the server as its `MCP_*` variable (`${user_config.key}`).
 */
import type { SettingInput } from './setting-inputs.ts';

/** The manifest version written (the newest the packer's schemas accept for every field used). */
export const MANIFEST_VERSION = '0.3';

export interface ManifestSource {
  /** package.json name, e.g. `@acme/weather-mcp`. */
  packageName: string;
  displayName?: string;
  version: string;
  description: string;
  author: { name: string; email?: string; url?: string };
  homepage?: string;
  license?: string;
  /** The toolkit's command, relative to the bundle root (`bin/mcp-toolkit.js`). */
  entryPoint: string;
  /** The settings shown as the form. */
  settings: readonly SettingInput[];
  /** Variables fixed by the bundle (MCP_PLUGINS, MCP_TRANSPORT). */
  fixed: Readonly<Record<string, string>>;
  /** The Node versions the server runs on (package.json `engines.node`). */
  node?: string;
}

/** `MCP_WEATHER_API_KEY` → `mcp_weather_api_key` (the form's key). */
export function configKey(name: string): string {
  return name.toLowerCase();
}

/** `MCP_WEATHER_API_KEY` → `Weather api key`. */
function titleOf(name: string): string {
  const words = name.replace(/^MCP_/, '').toLowerCase().replaceAll('_', ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function field(s: SettingInput): Record<string, unknown> {
  const folder = s.format === 'string' && /_(ROOT|DIR)$/.test(s.name);
  const type = folder ? 'directory' : s.format;
  const choices = s.choices ? ` One of: ${s.choices.join(', ')}.` : '';
  const out: Record<string, unknown> = {
    type,
    title: titleOf(s.name),
    description: `${s.description || s.name}${choices} (${s.name})`,
    required: s.required,
  };
  if (s.secret && type === 'string') out.sensitive = true;
  if (s.defaultValue !== undefined) {
    out.default =
      type === 'number'
        ? Number(s.defaultValue)
        : type === 'boolean'
          ? s.defaultValue === 'true'
          : s.defaultValue;
  }
  return out;
}

/**
 * @example
 * const manifest = buildManifest({ packageName: 'notes', version: '1.0.0', description: 'Notes',
 *   author: { name: 'Me' }, entryPoint: 'bin/mcp-toolkit.js', settings, fixed: { MCP_PLUGINS: 'notes' } });
 */
export function buildManifest(source: ManifestSource): Record<string, unknown> {
  const userConfig: Record<string, unknown> = {};
  const env: Record<string, string> = { ...source.fixed };
  for (const s of source.settings) {
    if (s.name in source.fixed) continue;
    userConfig[configKey(s.name)] = field(s);
    env[s.name] = `\${user_config.${configKey(s.name)}}`;
  }
  const name = source.packageName.replace(/^@/, '').replace(/[^a-zA-Z0-9._-]+/g, '-');
  return {
    manifest_version: MANIFEST_VERSION,
    name,
    ...(source.displayName ? { display_name: source.displayName } : {}),
    version: source.version,
    description: source.description,
    author: source.author,
    ...(source.homepage ? { homepage: source.homepage } : {}),
    ...(source.license ? { license: source.license } : {}),
    server: {
      type: 'node',
      entry_point: source.entryPoint,
      mcp_config: {
        command: 'node',
        // --cwd: plugin names and relative settings resolve inside the unpacked bundle.
        args: [`\${__dirname}/${source.entryPoint}`, 'run', '--transport', 'stdio', '--cwd', `\${__dirname}`],
        env,
      },
    },
    ...(Object.keys(userConfig).length > 0 ? { user_config: userConfig } : {}),
    compatibility: {
      platforms: ['darwin', 'win32', 'linux'],
      runtimes: { node: source.node ?? '>=22.18' },
    },
  };
}
