/**
 * What the test kit can point at: a URL (streamable HTTP), a command it spawns (line-delimited
 * JSON over stdio), or a server started with `createServer()`, driven in-process. One shape for `check`, `test` and the
 * programmatic API, so every check runs the same way whatever the transport.
 */
import type { Readable, Writable } from 'node:stream';
import type { RunningServer } from '../../index.ts';
import type { ClientAnswers, ClientCapability } from './client-answers.ts';

/** A stdio server the kit spawns: `-- <command> [args...]` on the command line. */
export interface CommandTarget {
  command: string;
  args?: readonly string[];
  /** Environment of the child (default: this process's environment). */
  env?: Readonly<Record<string, string | undefined>>;
  cwd?: string;
}

/** A streamable HTTP endpoint, e.g. `http://127.0.0.1:3000/mcp` (a bare origin tries `/mcp`). */
export interface UrlTarget {
  url: string;
}

/**
 * A stdio server wired up by the caller (e.g. an SDK server on a pair of PassThrough streams):
 * the kit writes line-delimited JSON to `toServer` and reads `fromServer`.
 */
export interface StreamsTarget {
  streams: { toServer: Writable; fromServer: Readable; label?: string };
}

/** `RunningServer` is the handle `createServer()` gives, driven in-process (no sockets, no child process). */
export type Target = string | UrlTarget | CommandTarget | StreamsTarget | RunningServer;

export type ResolvedTarget =
  | { kind: 'url'; url: string }
  | { kind: 'command'; command: string; args: readonly string[]; env?: CommandTarget['env']; cwd?: string }
  | { kind: 'streams'; toServer: Writable; fromServer: Readable; label: string }
  | { kind: 'server'; server: RunningServer };

export type WireChoice = '2025' | '2026' | 'auto';

/** How to reach the target; shared by `conformanceReport`, `registerLiveTests` and `runLiveTests`. */
export interface ConnectOptions {
  /** Protocol generation: `2025` (initialize), `2026` (server/discover), `auto` (2026 first). Default auto. */
  wire?: WireChoice;
  /** Extra HTTP headers (auth): `{ authorization: 'Bearer ...' }`, `{ 'x-api-key': '...' }`. */
  headers?: Readonly<Record<string, string>>;
  /** Longest wait for a protocol request (listing, probes), in milliseconds. Default 10 000. */
  requestTimeoutMs?: number;
  /** Longest wait for one tool call, in milliseconds. Default 30 000. */
  callTimeoutMs?: number;
  /** Quiet period after a notification in which no response may arrive (streams). Default 300. */
  notificationWaitMs?: number;
  /** Longest wait for the first answer of a stdio server (it may still be starting). Default 30 000. */
  startupTimeoutMs?: number;
  /**
   * Client capabilities the kit declares and answers for (`--client-capabilities`): tools a
   * server offers only to such clients get listed and called. Default none.
   */
  clientCapabilities?: readonly ClientCapability[];
  /** The canned answers to sampling, elicitation and roots requests (`--client-answers FILE`). */
  clientAnswers?: ClientAnswers;
}

/** The handle `createServer()` and `serve()` give: it connects in-process. */
function isRunningServer(value: unknown): value is RunningServer {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Partial<RunningServer>).connect === 'function' &&
    typeof (value as Partial<RunningServer>).close === 'function'
  );
}

/** Normalises any accepted target form; throws a TypeError naming what is accepted. */
export function resolveTarget(target: Target): ResolvedTarget {
  if (typeof target === 'string') return { kind: 'url', url: checkUrl(target) };
  if (isRunningServer(target)) return { kind: 'server', server: target };
  if ('url' in target && typeof target.url === 'string') return { kind: 'url', url: checkUrl(target.url) };
  if ('streams' in target && typeof target.streams === 'object' && target.streams !== null) {
    const { toServer, fromServer, label } = target.streams;
    return { kind: 'streams', toServer, fromServer, label: label ?? 'stdio streams' };
  }
  if ('command' in target && typeof target.command === 'string' && target.command !== '') {
    return {
      kind: 'command',
      command: target.command,
      args: [...(target.args ?? [])],
      ...(target.env !== undefined ? { env: target.env } : {}),
      ...(target.cwd !== undefined ? { cwd: target.cwd } : {}),
    };
  }
  throw new TypeError(
    'A target is a URL, { url }, { command, args }, { streams } or the server createServer() returns: got ' +
      JSON.stringify(target),
  );
}

function checkUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TypeError(`Not a URL: ${url} (expected http://host:port/path, or -- <command> for stdio)`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new TypeError(`Unsupported URL scheme ${parsed.protocol} (expected http: or https:)`);
  }
  return parsed.href;
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/**
 * Whether the target runs on this machine: a command the kit spawns, a server in-process, or
 * a loopback URL. Only there does the kit suggest calling tools that could write.
 */
export function isLocalTarget(target: ResolvedTarget): boolean {
  if (target.kind !== 'url') return true;
  const host = new URL(target.url).hostname;
  return LOOPBACK.has(host) || host.startsWith('127.') || host.endsWith('.localhost');
}

/** A short human label: the URL, the command line, or `in-process`. */
export function describeTarget(target: ResolvedTarget): string {
  if (target.kind === 'url') return target.url;
  if (target.kind === 'server') return 'in-process server';
  if (target.kind === 'streams') return target.label;
  return [target.command, ...target.args].map((a) => (/[\s"']/.test(a) ? JSON.stringify(a) : a)).join(' ');
}

export const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;
export const DEFAULT_CALL_TIMEOUT_MS = 30_000;
export const DEFAULT_NOTIFICATION_WAIT_MS = 300;
export const DEFAULT_STARTUP_TIMEOUT_MS = 30_000;
