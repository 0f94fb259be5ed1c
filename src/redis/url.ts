/**
 * What `MCP_REDIS_URL` names: one Redis server, a Sentinel set, or a Redis Cluster. One
 * server is a `redis://` or `rediss://` URL as Redis documents it. The other two list their
 * nodes, comma-separated, in the host part (as Lettuce and redis-py spell them), with `+tls`
 * for TLS spelled `rediss+`:
 *
 * - `redis+sentinel://[user:password@]host:port[,host:port...]/<master name>[/<db>][?sentinelUsername=...&sentinelPassword=...]`:
 *   the sentinels to ask (port 26379 unless given) and the name of the master they watch; the
 *   user and password are the data nodes'; the sentinels' own, when they require one, go in
 *   the query.
 * - `redis+cluster://[user:password@]host:port[,host:port...]`: some of the cluster's nodes
 *   (port 6379 unless given); the client learns the rest.
 */

export interface RedisNode {
  readonly host: string;
  readonly port: number;
}

/** What a `MCP_REDIS_URL` names. */
export type RedisTarget =
  | { readonly kind: 'server'; readonly url: string }
  | {
      readonly kind: 'sentinel';
      readonly sentinels: readonly RedisNode[];
      readonly masterName: string;
      readonly db: number;
      readonly username?: string;
      readonly password?: string;
      readonly sentinelUsername?: string;
      readonly sentinelPassword?: string;
      readonly tls: boolean;
    }
  | {
      readonly kind: 'cluster';
      readonly nodes: readonly RedisNode[];
      readonly username?: string;
      readonly password?: string;
      readonly tls: boolean;
    };

/** The forms `MCP_REDIS_URL` takes, for error messages. */
export const REDIS_URL_FORMS =
  'redis://host:port, rediss://..., redis+sentinel://host:port[,host:port]/<master name> or redis+cluster://host:port[,host:port]';

const SCHEME = /^(rediss?)\+(sentinel|cluster):\/\/(.*)$/i;

/** `host:port`, `[v6]:port`, or either without the port; undefined when malformed. */
function parseNode(text: string, defaultPort: number): RedisNode | undefined {
  const m = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(?::(\d{1,5}))?$/.exec(text);
  if (!m) return undefined;
  const port = m[2] === undefined ? defaultPort : Number(m[2]);
  if (!(port >= 1 && port <= 65_535)) return undefined;
  const host = m[1] as string;
  return { host: host.startsWith('[') ? host.slice(1, -1) : host, port };
}

function decode(part: string | undefined, what: string): string | undefined {
  if (part === undefined || part === '') return undefined;
  try {
    return decodeURIComponent(part);
  } catch {
    throw new RangeError(`the ${what} is not percent-encoded correctly`);
  }
}

/**
 * Reads a `MCP_REDIS_URL`; throws a RangeError saying what is wrong (never echoing a password).
 *
 * @example
 * parseRedisUrl('redis+sentinel://10.0.0.1:26379,10.0.0.2:26379/mymaster');
 * // { kind: 'sentinel', sentinels: [...], masterName: 'mymaster', db: 0, tls: false }
 */
export function parseRedisUrl(url: string): RedisTarget {
  const m = SCHEME.exec(url);
  if (!m) {
    if (/^rediss?:\/\//i.test(url)) return { kind: 'server', url };
    throw new RangeError(`expected ${REDIS_URL_FORMS}`);
  }
  const tls = (m[1] as string).toLowerCase() === 'rediss';
  const kind = (m[2] as string).toLowerCase() as 'sentinel' | 'cluster';
  let rest = m[3] as string;
  let query = '';
  const q = rest.indexOf('?');
  if (q >= 0) {
    query = rest.slice(q + 1);
    rest = rest.slice(0, q);
  }
  const at = rest.lastIndexOf('@');
  const userinfo = at >= 0 ? rest.slice(0, at) : undefined;
  rest = at >= 0 ? rest.slice(at + 1) : rest;
  const slash = rest.indexOf('/');
  const hosts = slash >= 0 ? rest.slice(0, slash) : rest;
  const path = slash >= 0 ? rest.slice(slash + 1) : '';
  const colon = userinfo?.indexOf(':') ?? -1;
  const username = decode(colon >= 0 ? userinfo?.slice(0, colon) : userinfo, 'user name');
  const password = decode(colon >= 0 ? userinfo?.slice(colon + 1) : undefined, 'password');
  const defaultPort = kind === 'sentinel' ? 26_379 : 6379;
  const nodes: RedisNode[] = [];
  for (const part of hosts.split(',')) {
    const node = parseNode(part.trim(), defaultPort);
    if (!node) throw new RangeError(`${kind} node "${part.trim()}" is not host:port`);
    nodes.push(node);
  }
  const params = new URLSearchParams(query);
  if (kind === 'cluster') {
    if (path !== '') throw new RangeError('a redis+cluster:// URL has no path (a cluster has one database)');
    if ([...params.keys()].length > 0) throw new RangeError('a redis+cluster:// URL takes no query');
    return { kind, nodes, username, password, tls };
  }
  const [name, db, ...extra] = path.split('/');
  if (!name)
    throw new RangeError('a redis+sentinel:// URL names the master after the nodes: .../<master name>');
  if (extra.length > 0 || (db !== undefined && db !== '' && !/^\d{1,2}$/.test(db))) {
    throw new RangeError('after the master name a redis+sentinel:// URL takes only a database number');
  }
  for (const key of params.keys()) {
    if (key !== 'sentinelUsername' && key !== 'sentinelPassword') {
      throw new RangeError(
        `unknown query parameter "${key}" (sentinelUsername and sentinelPassword are known)`,
      );
    }
  }
  return {
    kind,
    sentinels: nodes,
    masterName: decode(name, 'master name') as string,
    db: db ? Number(db) : 0,
    username,
    password,
    sentinelUsername: params.get('sentinelUsername') ?? undefined,
    sentinelPassword: params.get('sentinelPassword') ?? undefined,
    tls,
  };
}
