/**
 * Which `$ref`s the document loader may follow. Whoever controls a document (or the host it
 * comes from) must not make the server read local files or reach other hosts: a `$ref`
 * resolves inside the document, relative to its own origin when it was fetched, or to its own
 * folder when it is a local file; never to `file:` from a fetched document, and never to
 * another host unless `MCP_OPENAPI_ALLOW_REFS` lists it. Built on the `$ref` parser's own
 * resolver extension point: a first resolver claims every URL the policy refuses and fails
 * with the reason, and the library's own file and HTTP resolvers read only what it allows (a
 * failing resolver falls through to the next one that can read, so they must not claim it).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';

export interface RefPolicy {
  /** Why the loader may not read `url`, or undefined when it may. */
  refusal(url: string): string | undefined;
}

const HTTP = /^https?:\/\//i;

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

/** The `$ref` parser's options that apply `policy`, and read YAML with aliases bounded. */
export function refPolicyOptions(policy: RefPolicy) {
  return {
    resolve: {
      refused: {
        order: 0,
        canRead: (file: { url: string }) => policy.refusal(file.url) !== undefined,
        read: (file: { url: string }) => {
          throw new Error(`$ref ${file.url} refused: ${policy.refusal(file.url)}`);
        },
      },
      file: {
        canRead: (file: { url: string }) => !HTTP.test(file.url) && policy.refusal(file.url) === undefined,
      },
      http: {
        canRead: (file: { url: string }) => HTTP.test(file.url) && policy.refusal(file.url) === undefined,
      },
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
