/**
 * The names the 2026-07-28 wire and the extensions put on messages: the request envelope's
 * `params._meta` keys (docs/internals/conformance-fixture.md §1), the server identity a result carries,
 * and the tasks extension's id (SEP-2663). Plain names, so the server and the test kit that
 * checks it spell them once.
 */

export const META = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  logLevel: 'io.modelcontextprotocol/logLevel',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
  subscriptionId: 'io.modelcontextprotocol/subscriptionId',
} as const;

/** The tasks extension (SEP-2663), as declared in capabilities and extension lists. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
