/**
 * One raw HTTP exchange for the transport checks, through node:http rather than fetch: the
 * checks send what fetch refuses to (a foreign `Host`) and what a client never sends (a
 * foreign `Origin`, a body that is not JSON), and read no more than they need (the headers
 * of a GET stream, the first JSON-RPC message of an SSE reply).
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface ProbeReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  contentType: string;
  /** The body's JSON-RPC messages (a JSON body, or the data of SSE events), parsed. */
  messages: unknown[];
  /** The body as text when it was not JSON-RPC (at most 500 characters). */
  text: string;
}

export interface ProbeRequest {
  method: 'GET' | 'POST' | 'DELETE';
  headers?: Readonly<Record<string, string>>;
  body?: string;
  timeoutMs: number;
  /** GET streams: stop after the status line and headers. */
  headersOnly?: boolean;
}

function parseBody(contentType: string, text: string): unknown[] {
  const out: unknown[] = [];
  const add = (raw: string) => {
    try {
      const v = JSON.parse(raw) as unknown;
      for (const m of Array.isArray(v) ? v : [v]) out.push(m);
    } catch {
      // not JSON: the caller looks at `text`
    }
  };
  if (contentType.includes('text/event-stream')) {
    for (const block of text.split(/\r?\n\r?\n/)) {
      const data = block
        .split(/\r?\n/)
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).replace(/^ /, ''))
        .join('\n');
      if (data.trim() !== '') add(data);
    }
  } else if (text.trim() !== '') add(text);
  return out;
}

/** Sends one request; resolves with what came back, or undefined when nothing did in time. */
export function probe(url: string, req: ProbeRequest): Promise<ProbeReply | undefined> {
  const u = new URL(url);
  const send = u.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    let settled = false;
    const done = (reply: ProbeReply | undefined) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(reply);
    };
    const r = send(
      u,
      {
        method: req.method,
        headers: {
          ...(req.body !== undefined ? { 'content-length': Buffer.byteLength(req.body) } : {}),
          ...req.headers,
        },
      },
      (res) => {
        const contentType = String(res.headers['content-type'] ?? '');
        const base = { status: res.statusCode ?? 0, headers: res.headers, contentType };
        if (req.headersOnly) {
          done({ ...base, messages: [], text: '' });
          res.destroy();
          return;
        }
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
          // An SSE reply ends with the response; stop at the first complete message anyway.
          if (contentType.includes('text/event-stream') && parseBody(contentType, text).some(isResponse)) {
            done({ ...base, messages: parseBody(contentType, text), text: text.slice(0, 500) });
            res.destroy();
          }
        });
        res.on('end', () =>
          done({ ...base, messages: parseBody(contentType, text), text: text.slice(0, 500) }),
        );
        res.on('error', () =>
          done({ ...base, messages: parseBody(contentType, text), text: text.slice(0, 500) }),
        );
      },
    );
    const timer = setTimeout(() => {
      r.destroy();
      done(undefined);
    }, req.timeoutMs);
    r.on('error', () => done(undefined));
    r.end(req.body);
  });
}

function isResponse(m: unknown): boolean {
  return typeof m === 'object' && m !== null && !('method' in m) && ('result' in m || 'error' in m);
}

/** The first JSON-RPC error in a reply, if any. */
export function replyError(reply: ProbeReply | undefined): { code: number; id: unknown } | undefined {
  for (const m of reply?.messages ?? []) {
    if (typeof m !== 'object' || m === null) continue;
    const e = (m as { error?: { code?: unknown } }).error;
    if (typeof e === 'object' && e !== null && typeof e.code === 'number')
      return { code: e.code, id: (m as { id?: unknown }).id };
  }
  return undefined;
}

/** `HTTP 200 (application/json): {...}` for failure messages. */
export function describeReply(reply: ProbeReply | undefined): string {
  if (reply === undefined) return 'no reply';
  const err = replyError(reply);
  const what = err ? `, error ${err.code}` : reply.messages.length > 0 ? ', a JSON-RPC result' : '';
  return `HTTP ${reply.status}${reply.contentType ? ` (${reply.contentType.split(';')[0]})` : ''}${what}`;
}
