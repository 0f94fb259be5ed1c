/**
 * The plugins' HTTP routes (`app.httpRoute(...)`), checked as they are declared: a method the
 * transports serve, a path, a handler; and no route declared twice, by one plugin or two
 * (the error names both plugins and stops start-up). A clash with the transport's own paths
 * is the transport's to check (src/transports/http/plugin-routes.ts): only it knows them.
 * Every handler is counted while it runs, whichever transport calls it, so a shutdown can
 * wait for the ones in flight before the plugins' onClose hooks let go of what they use.
 */

import { InternalCode, ToolkitError } from '../base/errors.ts';
import {
  HTTP_ROUTE_METHODS,
  type HttpRoute,
  type HttpRouteHandler,
  type PluginHttpRoute,
} from '../base/http-route.ts';

export interface RouteTable {
  /** Adds one plugin's route; throws naming the plugin when it is malformed or taken. */
  add(plugin: string, route: HttpRoute): void;
  readonly routes: readonly PluginHttpRoute[];
  /** Route handlers running now (a shutdown waits for 0 before the onClose hooks). */
  readonly inflightCount: number;
}

const PATH_RE = /^\/[^\s?#*]*$/;

function invalid(plugin: string, problem: string): ToolkitError {
  return new ToolkitError(InternalCode.PluginInvalid, `Plugin "${plugin}": app.httpRoute ${problem}`);
}

/**
 * @example
 * const table = createRouteTable();
 * table.add('github', { method: 'POST', url: '/hooks/github', auth: false, handler });
 */
export function createRouteTable(): RouteTable {
  const routes: PluginHttpRoute[] = [];
  let inflight = 0;
  /** The handler, counted from its call until it returns or its promise settles. */
  const counted =
    (handler: HttpRouteHandler): HttpRouteHandler =>
    async (req) => {
      inflight++;
      try {
        return await handler(req);
      } finally {
        inflight--;
      }
    };
  return {
    routes,
    get inflightCount() {
      return inflight;
    },
    add(plugin, route) {
      if (typeof route !== 'object' || route === null)
        throw invalid(plugin, 'takes { method, url, handler }');
      const method = typeof route.method === 'string' ? route.method.toUpperCase() : route.method;
      if (!(HTTP_ROUTE_METHODS as readonly unknown[]).includes(method)) {
        throw invalid(
          plugin,
          `method ${JSON.stringify(route.method)}: use one of ${HTTP_ROUTE_METHODS.join(', ')}`,
        );
      }
      if (typeof route.url !== 'string' || !PATH_RE.test(route.url)) {
        throw invalid(
          plugin,
          `url ${JSON.stringify(route.url)}: a path starting with "/", without a query or "*"`,
        );
      }
      if (typeof route.handler !== 'function')
        throw invalid(plugin, `${method} ${route.url}: handler must be a function`);
      if (route.auth !== undefined && typeof route.auth !== 'boolean') {
        throw invalid(plugin, `${method} ${route.url}: auth must be true or false`);
      }
      const taken = routes.find((r) => r.method === method && r.url === route.url);
      if (taken) {
        const detail =
          taken.plugin === plugin
            ? `plugin "${plugin}" declares it twice`
            : `declared by plugin "${taken.plugin}" and again by plugin "${plugin}"; change one url, or leave one plugin out of MCP_PLUGINS`;
        throw new ToolkitError(
          InternalCode.DuplicateName,
          `Duplicate HTTP route ${method} ${route.url}: ${detail}`,
        );
      }
      routes.push(
        Object.freeze({
          method: method as PluginHttpRoute['method'],
          url: route.url,
          auth: route.auth !== false,
          handler: counted(route.handler),
          plugin,
        }),
      );
    },
  };
}
