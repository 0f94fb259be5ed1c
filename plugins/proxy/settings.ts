/**
 * The proxy plugin's settings, `MCP_PROXY_*`, parsed by the core with this zod schema. An
 * upstream is either a command run over stdio (`MCP_PROXY_COMMAND`, `_ARGS`, `_ENV`, `_CWD`)
 * or a streamable-HTTP URL (`MCP_PROXY_URL`, with its own credentials). The secrets
 * (`MCP_PROXY_BEARER_TOKEN`, `MCP_PROXY_API_KEY`, `MCP_PROXY_SECRET_ENV`) carry names the core
 * masks wherever settings are printed.
 */
import { setting } from '@mcp-toolkit/server';
import { z } from 'zod';
import {
  HEADER_NAME,
  jsonSetting,
  PREFIX,
  parseSecrets,
  parseUpstreams,
  secretProblems,
  type UpstreamEntry,
  type UpstreamSecret,
} from './upstream-list.ts';
import { upstreamUrlProblem } from './upstream-url.ts';

const NEVER_SHOWN = 'never logged, printed masked';

/** What a proxy needs: one upstream. */
export const NEEDS_ONE_UPSTREAM =
  'set MCP_PROXY_COMMAND (a stdio upstream), MCP_PROXY_URL (a streamable-HTTP upstream) or MCP_PROXY_UPSTREAMS (several): one of them';

/**
 * Splits a command line as a POSIX shell would split words (no expansion): blanks separate
 * words, single quotes keep everything, double quotes keep everything but `\"` and `\\`, a
 * backslash outside quotes escapes the next character. Throws on an unclosed quote.
 *
 * @example
 * shellWords(`--root '/my files' -v`); // ['--root', '/my files', '-v']
 */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  let quote: "'" | '"' | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i] as string;
    if (quote === "'") {
      if (c === "'") quote = undefined;
      else word = (word ?? '') + c;
    } else if (quote === '"') {
      if (c === '"') quote = undefined;
      else if (c === '\\' && (line[i + 1] === '"' || line[i + 1] === '\\')) word = (word ?? '') + line[++i];
      else word = (word ?? '') + c;
    } else if (/\s/.test(c)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (c === "'" || c === '"') {
      quote = c;
      word ??= '';
    } else if (c === '\\' && i + 1 < line.length) {
      word = (word ?? '') + line[++i];
    } else {
      word = (word ?? '') + c;
    }
  }
  if (quote !== undefined) throw new Error(`unclosed ${quote} quote`);
  if (word !== undefined) words.push(word);
  return words;
}

/** `MCP_PROXY_ARGS`: a JSON array of strings, or shell words. */
const args = z
  .string()
  .optional()
  .transform((v, ctx) => {
    if (v === undefined || v.trim() === '') return [];
    const trimmed = v.trim();
    try {
      if (trimmed.startsWith('[')) {
        const parsed = JSON.parse(trimmed) as unknown;
        if (Array.isArray(parsed) && parsed.every((a) => typeof a === 'string')) return parsed as string[];
        throw new Error('a JSON array must hold strings only');
      }
      return shellWords(trimmed);
    } catch (err) {
      ctx.addIssue({
        code: 'custom',
        message: `expected a JSON array of strings or shell words (${(err as Error).message})`,
      });
      return z.NEVER;
    }
  });

/** A JSON object whose values are all of one kind, e.g. `{"NAME":"value"}`. */
function jsonObject<T>(what: string, value: z.ZodType<T>) {
  const schema = z.record(z.string(), value);
  return z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v.trim() === '') return {} as Record<string, T>;
      try {
        const r = schema.safeParse(JSON.parse(v));
        if (r.success) return r.data;
      } catch {
        // fall through to the one message
      }
      ctx.addIssue({ code: 'custom', message: `expected a JSON object ${what}` });
      return z.NEVER;
    });
}

const url = setting.text().superRefine((v, ctx) => {
  const problem = v === undefined ? undefined : upstreamUrlProblem(v);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

export const proxySettings = z
  .object({
    command: setting
      .text()
      .describe(
        'The upstream MCP server to run over stdio: an executable (found on PATH) such as `npx` or `node`. Set this or MCP_PROXY_URL.',
      ),
    args: args.describe(
      'Arguments of MCP_PROXY_COMMAND: a JSON array of strings (`["-y","@modelcontextprotocol/server-memory"]`) or shell words (`-y @modelcontextprotocol/server-memory`).',
    ),
    env: jsonObject('of strings, e.g. {"MEMORY_FILE_PATH":"/data/memory.jsonl"}', z.string()).describe(
      "Environment of the upstream command, as a JSON object of strings, on top of a minimal inherited one (PATH, HOME, ...); the server's own MCP_* settings are never passed on.",
    ),
    secretEnv: jsonObject('of strings', z.string()).describe(
      `Like MCP_PROXY_ENV, for values that are secrets (an upstream's API token) (${NEVER_SHOWN}).`,
    ),
    cwd: setting.text().describe('Working folder of the upstream command. Default: the server’s own.'),
    url: url.describe(
      'The upstream MCP server over streamable HTTP, e.g. `https://mcp.example.com/mcp`. Set this or MCP_PROXY_COMMAND.',
    ),
    bearerToken: setting
      .text()
      .describe(
        `Sent to MCP_PROXY_URL as \`Authorization: Bearer <token>\`; the clients' own credentials are never passed on (${NEVER_SHOWN}).`,
      ),
    forwardUpstreamToken: setting
      .bool(false)
      .describe(
        "When true, each caller's own token at the identity provider they signed in with (`MCP_AUTH=oauth-proxy`, `ctx.upstreamToken()`) is sent to MCP_PROXY_URL as `Authorization: Bearer`, on the upstream connection of that caller's session only: needs MCP_PROXY_ISOLATION=per-session (a shared connection would carry one caller's token for everyone). The shared connection (the lists, doctor) keeps MCP_PROXY_BEARER_TOKEN; a request without a session (the 2026 wire) answers an error.",
      ),
    apiKey: setting
      .text()
      .describe(`Sent to MCP_PROXY_URL in the header MCP_PROXY_API_KEY_HEADER (${NEVER_SHOWN}).`),
    apiKeyHeader: setting
      .text()
      .refine((v) => v === undefined || HEADER_NAME.test(v), { error: 'expected an HTTP header name' })
      .describe('The header that carries MCP_PROXY_API_KEY. Default: `X-API-Key`.'),
    prefix: setting
      .text()
      .refine((v) => v === undefined || PREFIX.test(v), {
        error:
          'expected 1 to 63 characters of a tool name (A-Z a-z 0-9 _ . / -), leaving room for the name in its 64',
      })
      .describe(
        'Put before every upstream tool and prompt name (`mem_` makes `read_graph` `mem_read_graph`).',
      ),
    include: setting
      .list()
      .describe(
        'Upstream items to serve (default all), by upstream name for tools and prompts and by URI or URI template for resources (`*` matches any run of characters). Only the kinds an entry names are narrowed.',
      ),
    exclude: setting
      .list()
      .describe('Upstream items not to serve, in the same forms as MCP_PROXY_INCLUDE; wins over it.'),
    scopes: jsonObject(
      'of string arrays by upstream tool name, e.g. {"delete_entities":["admin"]}',
      z.array(z.string()),
    ).describe(
      'OAuth scopes a caller needs per tool, by upstream name (`"*"`: every tool without its own entry), as with `scopes` on our own tools.',
    ),
    upstreams: jsonSetting<UpstreamEntry[]>(parseUpstreams, []).describe(
      'Several upstreams in one server: a JSON array of `{"name", "command", "args", "env", "cwd"}` or `{"name", "url", "apiKeyHeader"}` entries, each with its own `prefix` (required when there are several; unique), `include`, `exclude`, `scopes`, `isolation`, `optional` and `tools` transforms (`{"<tool>": {"rename", "description", "hide": {"<arg>": <value>}}}`); or the path of a JSON file holding it. Replaces MCP_PROXY_COMMAND and MCP_PROXY_URL. See docs/proxy.md, "Several upstreams".',
    ),
    upstreamSecrets: jsonSetting<Record<string, UpstreamSecret>>(parseSecrets, {}).describe(
      `Credentials of the MCP_PROXY_UPSTREAMS entries, by upstream name: \`{"<name>": {"bearerToken", "apiKey", "env"}}\` (bearerToken and apiKey for a url upstream, env for a command), or the path of a JSON file holding it (${NEVER_SHOWN}).`,
    ),
    connectTimeoutMs: setting
      .int(30_000, 100, 600_000)
      .describe(
        'How long the upstream gets to answer its initialize (and the first lists) at start-up and after a restart.',
      ),
    waitMs: setting
      .int(5_000, 0, 600_000)
      .describe(
        'How long a call waits for an upstream that is restarting before it answers with a tool error.',
      ),
    restartDelayMs: setting
      .int(500, 10, 600_000)
      .describe(
        'First wait before the upstream is started (or connected) again after it went away; doubled on each failure.',
      ),
    restartMaxDelayMs: setting.int(30_000, 10, 3_600_000).describe('Longest wait between two restarts.'),
    isolation: z
      .enum(['shared', 'per-session'], { error: 'expected shared or per-session' })
      .optional()
      .transform((v) => v ?? 'shared')
      .describe(
        "`shared`: one upstream (one process, for a command) for every client. `per-session`: one per 2025-wire client session, stopped when the session ends; requests without a session (the 2026 wire) use the shared one. `{session}` in MCP_PROXY_ARGS, _ENV, _SECRET_ENV and _CWD is replaced by each upstream's own name (`shared`, or a random id).",
      ),
    maxSessions: setting
      .int(16, 1, 10_000)
      .describe(
        'With MCP_PROXY_ISOLATION=per-session: how many per-session upstreams may run at once; a further session gets a tool error until one ends.',
      ),
    maxMessageBytes: setting
      .int(16 * 1024 * 1024, 65_536, 1024 * 1024 * 1024)
      .describe(
        'The largest message read from a stdio upstream (a line of JSON). A result over it fails that call alone with a tool error; the connection and the other calls go on. Default 16 MiB.',
      ),
    inputTimeoutMs: setting
      .int(300_000, 100, 86_400_000)
      .describe(
        "How long an upstream tool call that asked our client for input (elicitation, sampling, roots) is held for the client's answer before it is cancelled.",
      ),
    maxParked: setting
      .int(1_000, 1, 1_000_000)
      .describe(
        'How many upstream tool calls may wait for their clients’ input at once (all clients together); a call past it is cancelled with a tool error.',
      ),
    maxParkedPerClient: setting
      .int(100, 1, 1_000_000)
      .describe(
        'How many upstream tool calls one client (its API key or token, else its 2025 session; every unauthenticated 2026-wire caller counts as one) may have waiting for its input at once; a call past it is cancelled with a tool error.',
      ),
    maxParkedBytes: setting
      .int(256 * 1024 * 1024, 65_536, 2 ** 40)
      .describe(
        'The estimated memory of the upstream tool calls waiting for client input (arguments, the upstream’s questions, 2 KiB each besides), all clients together. Default 256 MiB.',
      ),
    maxParkedBytesPerClient: setting
      .int(32 * 1024 * 1024, 65_536, 2 ** 40)
      .describe('Like MCP_PROXY_MAX_PARKED_BYTES, for the calls of one client. Default 32 MiB.'),
  })
  // Neither is fine here (the plugin is bundled without being loaded); register() refuses it.
  .refine((s) => s.command === undefined || s.url === undefined, {
    error: NEEDS_ONE_UPSTREAM,
    path: ['command'],
  })
  .refine((s) => s.upstreams.length === 0 || (s.command === undefined && s.url === undefined), {
    error:
      'MCP_PROXY_UPSTREAMS lists the upstreams: leave MCP_PROXY_COMMAND and MCP_PROXY_URL unset (put that upstream in the list)',
    path: ['upstreams'],
  })
  .superRefine((s, ctx) => {
    if (s.upstreams.length > 0) {
      // Each entry has its own: a single-upstream setting beside the list would be ignored.
      const beside = (
        [
          ['args', s.args.length > 0],
          ['env', Object.keys(s.env).length > 0],
          ['secretEnv', Object.keys(s.secretEnv).length > 0],
          ['cwd', s.cwd !== undefined],
          ['prefix', s.prefix !== undefined],
          ['include', s.include.length > 0],
          ['exclude', s.exclude.length > 0],
          ['scopes', Object.keys(s.scopes).length > 0],
          ['bearerToken', s.bearerToken !== undefined],
          ['apiKey', s.apiKey !== undefined],
          ['forwardUpstreamToken', s.forwardUpstreamToken],
        ] as const
      ).filter(([, set]) => set);
      for (const [key] of beside) {
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message:
            'is for a single upstream; with MCP_PROXY_UPSTREAMS, give it in each entry (or MCP_PROXY_UPSTREAM_SECRETS)',
        });
      }
    }
    const named = Object.keys(s.upstreamSecrets).length > 0;
    if (named && s.upstreams.length === 0) {
      ctx.addIssue({
        code: 'custom',
        path: ['upstreamSecrets'],
        message:
          'MCP_PROXY_UPSTREAM_SECRETS holds credentials of MCP_PROXY_UPSTREAMS entries, and that is unset',
      });
      return;
    }
    for (const message of secretProblems(s.upstreams, s.upstreamSecrets))
      ctx.addIssue({ code: 'custom', path: ['upstreamSecrets'], message });
  })
  .refine((s) => s.url !== undefined || (s.bearerToken === undefined && s.apiKey === undefined), {
    error:
      'MCP_PROXY_BEARER_TOKEN and MCP_PROXY_API_KEY are sent to MCP_PROXY_URL only; a stdio upstream takes MCP_PROXY_SECRET_ENV',
    path: ['bearerToken'],
  })
  // A caller's upstream token goes on the connection of that caller's session, never a shared one.
  .refine((s) => !s.forwardUpstreamToken || s.url !== undefined, {
    error:
      "MCP_PROXY_FORWARD_UPSTREAM_TOKEN=true sends each caller's upstream token to MCP_PROXY_URL; a stdio upstream (MCP_PROXY_COMMAND) has no HTTP connection to carry it",
    path: ['forwardUpstreamToken'],
  })
  .refine((s) => !s.forwardUpstreamToken || s.url === undefined || s.isolation === 'per-session', {
    error:
      "MCP_PROXY_FORWARD_UPSTREAM_TOKEN=true needs MCP_PROXY_ISOLATION=per-session: with MCP_PROXY_ISOLATION=shared one upstream connection serves every caller, and it would carry one caller's token for all the others",
    path: ['forwardUpstreamToken'],
  });

export type ProxySettings = z.output<typeof proxySettings>;
