/**
 * Real upstreams for the proxy plugin's tests: the official memory server (its knowledge
 * graph in a temporary file) and the official "everything" server, each run over stdio with
 * this Node, as MCP_PROXY_* settings.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { REPO_ROOT, type SpawnedHttpServer } from '../../helpers/spawn-server.ts';

const MEMORY = path.join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-memory/dist/index.js');
const EVERYTHING = path.join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
/** The upstream that sends what a hostile server may (fixtures/hostile-server.ts). */
export const HOSTILE = path.join(REPO_ROOT, 'test/plugins/proxy/fixtures/hostile-server.ts');

/** A fresh temporary folder and its removal. */
export function scratch(): { dir: string; remove(): void } {
  const dir = mkdtempSync(path.join(tmpdir(), 'mcp-proxy-'));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Settings for the memory server, its graph kept in `dir`. */
export function memoryUpstream(dir: string): Record<string, string> {
  return {
    MCP_PROXY_COMMAND: process.execPath,
    MCP_PROXY_ARGS: JSON.stringify([MEMORY]),
    MCP_PROXY_ENV: JSON.stringify({ MEMORY_FILE_PATH: path.join(dir, 'memory.jsonl') }),
  };
}

/** Settings for the everything server over stdio (args as shell words). */
export function everythingUpstream(): Record<string, string> {
  return { MCP_PROXY_COMMAND: process.execPath, MCP_PROXY_ARGS: `'${EVERYTHING}' stdio` };
}

/** The pids of a process's descendants (Linux /proc). */
function descendants(pid: number): number[] {
  const out: number[] = [];
  for (const task of readOr(() => readdirSync(`/proc/${pid}/task`), [])) {
    const children = readOr(() => readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim(), '');
    for (const child of children === '' ? [] : children.split(' ').map(Number))
      out.push(child, ...descendants(child));
  }
  return out;
}

/** A /proc read, or `fallback` when the process (or thread) exited between listing and reading. */
function readOr<T>(read: () => T, fallback: T): T {
  try {
    return read();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ESRCH')
      return fallback;
    throw err;
  }
}

/** The pid of the server's one upstream process whose command line holds `needle`. */
export function upstreamPid(server: SpawnedHttpServer, needle: string): number {
  const [pid] = upstreamPids(server, needle);
  assert.ok(pid !== undefined, `no upstream process matching ${needle}`);
  return pid;
}

/** The pids of the server's upstream processes whose command line holds `needle`. */
export function upstreamPids(server: SpawnedHttpServer, needle: string): number[] {
  return descendants(server.child.pid as number).filter((p) => {
    try {
      return readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(needle);
    } catch {
      return false;
    }
  });
}

/** The upstream that records what is passed upstream (fixtures/relay-server.ts). */
export const RELAY = path.join(REPO_ROOT, 'test/plugins/proxy/fixtures/relay-server.ts');

/** An MCP_PROXY_UPSTREAMS entry for the memory server, its graph kept in `dir`. */
export function memoryEntry(dir: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'memory',
    command: process.execPath,
    args: [MEMORY],
    env: { MEMORY_FILE_PATH: path.join(dir, 'memory.jsonl') },
    prefix: 'mem_',
    ...extra,
  };
}

/** An MCP_PROXY_UPSTREAMS entry for the everything server over stdio. */
export function everythingEntry(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'everything',
    command: process.execPath,
    args: [EVERYTHING, 'stdio'],
    prefix: 'ev_',
    ...extra,
  };
}

/** An MCP_PROXY_UPSTREAMS entry for fixtures/relay-server.ts, serving `note://a` as `note`. */
export function relayEntry(
  name: string,
  note: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    name,
    command: process.execPath,
    args: [RELAY],
    env: { NOTE: note },
    prefix: `${name}_`,
    ...extra,
  };
}
