/**
 * The servers under test and how each one starts. Ours is the real CLI with the bench
 * plugin; the baselines live in `bench/servers/`. Paths are relative to the repository
 * root, the harness's working directory.
 */

export interface ServerSpec {
  /** Stable key in the JSON results. */
  id: string;
  label: string;
  /** Arguments to `node`. */
  args: string[];
  env: Record<string, string>;
}

export const OURS_ENV = { MCP_PLUGINS: './bench/add-plugin.ts', MCP_LOG_LEVEL: 'warn' } as const;

export function oursHttp(env: Record<string, string> = {}): Omit<ServerSpec, 'id' | 'label'> {
  return {
    args: ['bin/mcp-toolkit.js', 'run', '--transport', 'http', '--port', '0'],
    env: { ...OURS_ENV, ...env },
  };
}

export const OURS_STDIO: ServerSpec = {
  id: 'ours',
  label: 'mcp-toolkit (stdio)',
  args: ['bin/mcp-toolkit.js', 'run', '--transport', 'stdio'],
  env: { ...OURS_ENV },
};

export const OURS_HTTP: ServerSpec = { id: 'ours', label: 'mcp-toolkit', ...oursHttp() };

export const SDK_HTTP: ServerSpec = {
  id: 'sdk',
  label: 'SDK v2 createMcpHandler',
  args: ['bench/servers/sdk-http.ts', '--port', '0'],
  env: {},
};

/** Peer: tmcp, the fastest TypeScript MCP framework by its published benchmarks. */
export const TMCP_HTTP: ServerSpec = {
  id: 'tmcp',
  label: 'tmcp (@tmcp/transport-http)',
  args: ['bench/servers/tmcp-http.ts', '--port', '0'],
  env: {},
};

export const SDK_SESSION_HTTP: ServerSpec = {
  id: 'sdk-session',
  label: 'SDK v2 sessionful transport',
  args: ['bench/servers/sdk-session-http.ts', '--port', '0'],
  env: {},
};

export const RAW_HTTP: ServerSpec = {
  id: 'raw',
  label: 'raw Fastify route',
  args: ['bench/servers/raw-fastify.ts', '--port', '0'],
  env: {},
};

/** The anchor of scenario 4: the raw route under the OpenTelemetry Node SDK's standard instrumentation. */
export const RAW_OTEL_HTTP: ServerSpec = {
  id: 'raw-otel',
  label: 'raw Fastify route + OTel Node SDK, http and fastify instrumentation',
  args: ['--import', './bench/servers/otel-preload.ts', 'bench/servers/raw-fastify.ts', '--port', '0'],
  env: {},
};

export const SDK_STDIO: ServerSpec = {
  id: 'sdk',
  label: 'SDK v2 serveStdio',
  args: ['bench/servers/sdk-stdio.ts'],
  env: {},
};

export const ECHO_STDIO: ServerSpec = {
  id: 'echo',
  label: 'bare line echo',
  args: ['bench/servers/echo-stdio.ts'],
  env: {},
};
