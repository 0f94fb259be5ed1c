/**
 * MCP_PROXY_INCLUDE and MCP_PROXY_EXCLUDE: entries with `://` name resources (by URI or URI
 * template), the others tools and prompts (by upstream name); `*` matches any run of
 * characters. An include list narrows only the kinds its entries name: a list of tool names
 * leaves every resource served. Exclude wins over include.
 */

export interface Filter {
  /** Whether a tool or prompt (by its upstream name) is served. */
  name(name: string): boolean;
  /** Whether a resource (by URI) or template (by its template) is served. */
  uri(uri: string): boolean;
}

function glob(pattern: string): RegExp {
  const escaped = pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replaceAll('*', '.*');
  return new RegExp(`^${escaped}$`);
}

/**
 * @example
 * makeFilter(['read_*'], ['read_secret']).name('read_graph'); // true
 */
export function makeFilter(include: readonly string[], exclude: readonly string[]): Filter {
  const split = (entries: readonly string[]) => ({
    names: entries.filter((e) => !e.includes('://')).map(glob),
    uris: entries.filter((e) => e.includes('://')).map(glob),
  });
  const inc = split(include);
  const exc = split(exclude);
  const test = (value: string, includes: RegExp[], excludes: RegExp[]) =>
    (includes.length === 0 || includes.some((r) => r.test(value))) && !excludes.some((r) => r.test(value));
  return {
    name: (name) => test(name, inc.names, exc.names),
    uri: (uri) => test(uri, inc.uris, exc.uris),
  };
}
