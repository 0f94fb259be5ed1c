/**
 * stdio transport: newline-delimited JSON-RPC on stdin/stdout. stdout carries protocol
 * messages only: anything else that tries to write there (a plugin's console.log) is sent
 * to stderr instead. A malformed line gets -32700, an over-long line an error, and the
 * stream goes on; stdin EOF ends the connection once pending answers are written.
 */
import type { Readable, Writable } from 'node:stream';
import { parseMessage } from '../base/json-ids.ts';
import { encodeMessage, errorResponse, type JsonRpcMessage, logEncodeFailure } from '../base/jsonrpc.ts';
import { createLineReader } from '../base/line-reader.ts';
import { Refusal } from '../base/refusals.ts';
import { createConnection } from './connection.ts';
import type { ConnectionDeps } from './deps.ts';

export interface StdioOptions {
  input?: Readable;
  output?: Writable;
  /** Largest accepted line in bytes (MCP_MAX_BODY_BYTES). */
  maxLineBytes: number;
  /** Redirect process.stdout writes to stderr so stray writes cannot corrupt the stream. */
  guardStdout?: boolean;
  /** The protocol writer when stdout was guarded earlier (see guardProcessStdout). */
  write?: (chunk: string) => boolean;
}

export interface StdioHandle {
  /** Resolves when stdin has ended and every answer has been written. */
  readonly closed: Promise<void>;
  close(): void;
}

/**
 * Routes `process.stdout.write` to stderr and returns the real writer for protocol output.
 * console.log goes through process.stdout.write, so this covers it too.
 */
export function guardProcessStdout(): (chunk: string) => boolean {
  const stdout = process.stdout;
  const realWrite = stdout.write.bind(stdout) as (chunk: string) => boolean;
  const toStderr = process.stderr.write.bind(process.stderr);
  stdout.write = ((chunk: unknown, ...rest: unknown[]) =>
    (toStderr as (...a: unknown[]) => boolean)(chunk, ...rest)) as typeof stdout.write;
  return realWrite;
}

export function serveStdio(server: ConnectionDeps, options: StdioOptions): StdioHandle {
  const input = options.input ?? process.stdin;
  let write: (chunk: string) => boolean;
  if (options.write) {
    write = options.write;
  } else if (options.output) {
    const out = options.output;
    write = (chunk) => out.write(chunk);
  } else if (options.guardStdout !== false) {
    write = guardProcessStdout();
  } else {
    write = (chunk) => process.stdout.write(chunk);
  }
  const encodeFailed = logEncodeFailure(server.logger);
  const send = (message: JsonRpcMessage | JsonRpcMessage[]) => {
    const line = encodeMessage(message, encodeFailed);
    if (line !== undefined) write(`${line}\n`);
  };
  const connection = createConnection(server, send);
  const max = options.maxLineBytes;

  const tooLarge = () => send(errorResponse(null, Refusal.lineTooLarge(max)));
  const reader = createLineReader({
    maxLineBytes: max,
    onOversize: tooLarge,
    onLine(line) {
      let value: unknown;
      try {
        value = parseMessage(line);
      } catch {
        send(errorResponse(null, Refusal.lineParseError()));
        return;
      }
      void connection.receive(value);
    },
  });
  input.setEncoding('utf8');
  input.on('data', (chunk: string) => reader.push(chunk));

  const closed = new Promise<void>((resolve) => {
    input.on('end', () => {
      reader.end();
      connection.clientGone();
      void connection.drain().then(() => {
        connection.close();
        resolve();
      });
    });
  });

  return {
    closed,
    close() {
      connection.close();
      input.pause();
    },
  };
}
