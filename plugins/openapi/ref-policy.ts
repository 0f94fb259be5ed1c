/**
 * Which `$ref`s the document loader may follow. Whoever controls a document (or the host it
 * comes from) must not make the server read local files or reach other hosts: a `$ref`
 * resolves inside the document, relative to its own origin when it was fetched, or to its own
 * folder when it is a local file; never to `file:` from a fetched document, and never to
 * another host unless `MCP_OPENAPI_ALLOW_REFS` lists it. Built on the `$ref` parser's own
 * resolver extension point: a first resolver claims every URL the policy refuses and fails
 * with the reason, the library's own file resolver reads only what it allows (a failing
 * resolver falls through to the next one that can read, so it must not claim it), and URLs are
 * read by `fetch` here, so that every redirect is checked against the policy too and a body
 * longer than MAX_DOCUMENT_BYTES is cut off while it arrives. Local files over that size are
 * refused before they are read.
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';

export interface RefPolicy {
  /** Why the loader may not read `url`, or undefined when it may. */
  refusal(url: string): string | undefined;
}

const HTTP = /^https?:\/\//i;
/** The largest document (or `$ref`d file) the loader reads: big public APIs are under 15 MB. */
export const MAX_DOCUMENT_BYTES = 32 * 1024 * 1024;
/** Redirects followed for one URL, each checked against the policy. */
const MAX_REDIRECTS = 5;

/** An allowed entry: a host (`schemas.example.com`, any port) or an origin (`https://h:8443`). */
function allows(entries: readonly string[], url: URL): boolean {
  return entries.some((entry) =>
    HTTP.test(entry) ? new URL(entry).origin === url.origin : entry.toLowerCase() === url.hostname,
  );
}

/**
 * @param source the document's URL or absolute file path
 * @param allowRefs `MCP_OPENAPI_ALLOW_REFS`: further hosts or origins `$ref`s may name
 *
 * @example
 * const policy = createRefPolicy('https://api.example.com/openapi.yaml', []);
 * policy.refusal('file:///etc/passwd'); // 'a fetched document may not name a local file'
 */
export function createRefPolicy(source: string, allowRefs: readonly string[]): RefPolicy {
  const remote = HTTP.test(source) ? new URL(source) : undefined;
  const folder = remote ? undefined : path.dirname(source);
  return {
    refusal(url) {
      if (url === source) return undefined;
      if (HTTP.test(url)) {
        const target = new URL(url);
        if (remote && target.origin === remote.origin) return undefined;
        if (allows(allowRefs, target)) return undefined;
        return `${target.origin} is not the document's own origin and MCP_OPENAPI_ALLOW_REFS does not list it`;
      }
      if (remote) return 'a fetched document may not name a local file';
      const file = url.startsWith('file:') ? fileURLToPath(url) : path.resolve(url);
      const relative = path.relative(folder ?? '/', file);
      if (relative.startsWith('..') || path.isAbsolute(relative))
        return "the file is outside the document's folder";
      return undefined;
    },
  };
}

/** Why a local file may not be read for its size, or undefined. */
function tooLarge(url: string): string | undefined {
  if (HTTP.test(url)) return undefined;
  try {
    const size = statSync(url.startsWith('file:') ? fileURLToPath(url) : url).size;
    return size > MAX_DOCUMENT_BYTES
      ? `${size} bytes, more than the ${MAX_DOCUMENT_BYTES} the loader reads`
      : undefined;
  } catch {
    return undefined; // the file resolver reports a missing file in its own words
  }
}

export interface FetchOptions {
  readonly timeoutMs: number;
  readonly headers: Readonly<Record<string, string>>;
}

/**
 * Reads `url` with `fetch`, following at most MAX_REDIRECTS redirects, each one checked
 * against `policy`, and at most MAX_DOCUMENT_BYTES of body, all within `timeoutMs`.
 */
async function fetchDocument(url: string, policy: RefPolicy, options: FetchOptions): Promise<Buffer> {
  const signal = AbortSignal.timeout(options.timeoutMs);
  let current = url;
  for (let hop = 0; ; hop++) {
    const res = await fetch(current, { headers: options.headers, redirect: 'manual', signal });
    const location = res.headers.get('location');
    if (res.status >= 300 && res.status < 400 && location !== null) {
      await res.body?.cancel();
      if (hop >= MAX_REDIRECTS) throw new Error(`${url}: more than ${MAX_REDIRECTS} redirects`);
      const next = new URL(location, current).href;
      const why = policy.refusal(next);
      if (why !== undefined) throw new Error(`${current} redirects to ${next}, refused: ${why}`);
      current = next;
      continue;
    }
    if (!res.ok) {
      await res.body?.cancel();
      throw new Error(`${current} answered HTTP ${res.status}`);
    }
    const chunks: Uint8Array[] = [];
    let length = 0;
    const reader = res.body?.getReader();
    for (let read = await reader?.read(); read && !read.done; read = await reader?.read()) {
      length += read.value.byteLength;
      if (length > MAX_DOCUMENT_BYTES) {
        await reader?.cancel().catch(() => {});
        throw new Error(`${current} is larger than the ${MAX_DOCUMENT_BYTES} bytes the loader reads`);
      }
      chunks.push(read.value);
    }
    return Buffer.concat(chunks);
  }
}

/** The `$ref` parser's options that apply `policy`, and read YAML with aliases bounded. */
export function refPolicyOptions(policy: RefPolicy, fetchOptions: FetchOptions) {
  const refusal = (url: string) => policy.refusal(url) ?? tooLarge(url);
  return {
    resolve: {
      refused: {
        order: 0,
        canRead: (file: { url: string }) => refusal(file.url) !== undefined,
        read: (file: { url: string }) => {
          throw new Error(`$ref ${file.url} refused: ${refusal(file.url)}`);
        },
      },
      file: {
        canRead: (file: { url: string }) => !HTTP.test(file.url) && refusal(file.url) === undefined,
      },
      fetched: {
        order: 1,
        canRead: (file: { url: string }) => HTTP.test(file.url) && refusal(file.url) === undefined,
        read: (file: { url: string }) => fetchDocument(file.url, policy, fetchOptions),
      },
      // URLs are read by `fetched` alone: the library's resolver would follow redirects unchecked.
      http: false,
    },
    parse: {
      // The `yaml` package refuses more than 100 alias expansions by default (maxAliasCount):
      // a few hundred bytes of nested aliases cannot expand into a billion nodes.
      yaml: {
        order: 200,
        canParse: ['.yaml', '.yml', '.json'],
        parse: (file: { data: string | Buffer }) => {
          const text = typeof file.data === 'string' ? file.data : file.data.toString('utf8');
          return parseYaml(text, { maxAliasCount: 100 });
        },
      },
    },
  };
}
