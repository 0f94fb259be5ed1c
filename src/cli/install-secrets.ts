/**
 * Secrets kept out of a client's configuration file by `mcp-toolkit install`: a credential
 * header and an `--env` whose name looks secret become the client's own placeholder (an
 * environment variable, or a VS Code input), and the output says what to set.
 */
import type { ClientInfo, ServerSpec } from './clients.ts';

type Json = Record<string, unknown>;

/** An `--env` name that holds a secret; a header that carries credentials. */
const SECRET_ENV_RE = /KEY|TOKEN|SECRET|PASSWORD/;
const SECRET_HEADER_RE = /^(?:authorization|proxy-authorization|cookie)$|key|token|secret|password|auth/i;
/** `Bearer abc`: the scheme stays in the file, the credential becomes the placeholder. */
const SCHEME_RE = /^([A-Za-z][A-Za-z0-9._~+-]*)\s+(\S.*)$/;

/** A value kept out of the file: where it was given, and the variable (or VS Code input) that holds it. */
export interface Secret {
  given: string;
  variable: string;
  /** The part of the value the variable holds, when not all of it (after `Bearer `). */
  part?: string;
}

/**
 * The variable that holds a header's secret: `my-notes` + `X-API-Key` → `MY_NOTES_X_API_KEY`.
 * Never `MCP_*`: that is the server's own namespace, where a name that is not a setting is
 * warned about (`mcp-toolkit` + `Authorization` → `TOOLKIT_AUTHORIZATION`).
 */
function variableName(server: string, header: string): string {
  const name = `${server}_${header}`
    .toUpperCase()
    .replace(/[^A-Z0-9_]/g, '_')
    .replace(/^MCP_/, '');
  return /^[0-9]/.test(name) ? `_${name}` : name;
}

/** A VS Code input id: `mcp-toolkit` + `MCP_API_KEYS` → `mcp-toolkit-mcp-api-keys`. */
function inputId(server: string, what: string): string {
  return `${server}-${what}`.toLowerCase().replace(/[^a-z0-9.-]/g, '-');
}

/**
 * The spec with every secret replaced by the client's placeholder, the secrets, and the VS
 * Code `inputs` entries they need. A value already holding `${` is the user's own placeholder.
 */
export function placeholders(
  spec: ServerSpec,
  client: ClientInfo,
  name: string,
): { spec: ServerSpec; secrets: Secret[]; inputs: Json[] } {
  const secrets: Secret[] = [];
  const inputs: Json[] = [];
  const style = client.secrets;
  /** `variable`: the environment variable; `id`: the VS Code input. */
  const replace = (given: string, variable: string, id: string, value: string, description: string) => {
    const scheme = given.startsWith('--header') ? SCHEME_RE.exec(value) : null;
    const part = scheme ? { part: `after "${scheme[1]} "` } : {};
    if (!style) {
      secrets.push({ given, variable });
      return value;
    }
    if (style.kind === 'env') {
      secrets.push({ given, variable, ...part });
      return scheme ? `${scheme[1]} ${style.ref(variable)}` : style.ref(variable);
    }
    secrets.push({ given, variable: id, ...part });
    inputs.push({ type: 'promptString', id, description, password: true });
    return scheme ? `${scheme[1]} \${input:${id}}` : `\${input:${id}}`;
  };
  if (spec.kind === 'http') {
    const headers: Record<string, string> = {};
    for (const [header, value] of Object.entries(spec.headers)) {
      headers[header] =
        SECRET_HEADER_RE.test(header) && value !== '' && !value.includes('${')
          ? replace(
              `--header ${header}`,
              variableName(name, header),
              inputId(name, header),
              value,
              `${header} header for the MCP server "${name}"`,
            )
          : value;
    }
    return { spec: { ...spec, headers }, secrets, inputs };
  }
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(spec.env)) {
    env[key] =
      SECRET_ENV_RE.test(key) && value !== '' && !value.includes('${')
        ? replace(`--env ${key}`, key, inputId(name, key), value, `${key} for the MCP server "${name}"`)
        : value;
  }
  return { spec: { ...spec, env }, secrets, inputs };
}

/** What to tell the user about the secrets kept out of the file. */
export function secretNotes(client: ClientInfo, secrets: Secret[], plain: boolean, file: string): string {
  if (secrets.length === 0) return '';
  if (plain) {
    return `--plain-secret: ${secrets.map((s) => s.given).join(', ')} written as given into ${file} (readable by you alone, mode 600).\n`;
  }
  if (client.secrets?.kind === 'input') {
    return (
      `${client.label} asks for each secret the first time it starts the server, and keeps it in its secret storage (not in the file):\n` +
      secrets
        .map((s) => `  input "${s.variable}": the value of ${s.given}${s.part ? `, ${s.part}` : ''}\n`)
        .join('')
    );
  }
  return (
    `The file names these variables, not their values: set them in the environment ${client.label} starts from:\n` +
    secrets.map((s) => `  ${s.variable}: the value of ${s.given}${s.part ? `, ${s.part}` : ''}\n`).join('')
  );
}
