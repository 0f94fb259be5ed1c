/**
 * The report names the features MCP 2026-07-28 deprecates (SEP-2577) that it saw the server
 * use, as a note that never fails the run: our own server declares `logging`, and a server
 * asking for sampling or roots (a 2025 server-to-client request, a 2026 input request) is
 * named with how it was seen.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { definePlugin, defineTool } from '../../src/index.ts';
import { deprecatedUses } from '../../src/testing/conformance/deprecations.ts';
import { conformanceReport, formatReport } from '../../src/testing/index.ts';
import { startServer } from '../helpers/client.ts';

test('the report of a server that declares logging says it is deprecated, and still passes', async () => {
  const plugin = definePlugin({
    name: 'plain',
    register(app) {
      app.add(defineTool({ name: 'noop', description: 'Does nothing' }, async () => 'ok'));
    },
  });
  const server = await startServer({ plugins: [plugin] });
  try {
    const report = await conformanceReport(server, { wire: '2025' });
    assert.equal(report.ok, true, formatReport(report));
    assert.deepEqual(report.deprecated, [
      { feature: 'logging', evidence: 'the server declares the logging capability' },
    ]);
    const text = formatReport(report);
    assert.match(
      text,
      /\nDeprecated in MCP 2026-07-28 \(SEP-2577\), still served to clients that use them:\n {2}Logging: the server declares the logging capability\n\n\d+ passed, 0 failed/,
    );
    assert.match(
      text,
      /logging\.set-level: logging\/setLevel is served \(servers that declare logging, deprecated in 2026-07-28\)/,
    );
  } finally {
    await server.close();
  }
});

test('sampling and roots are named from server-to-client requests and 2026 input requests', () => {
  const uses = deprecatedUses({
    capabilities: { tools: {} },
    serverRequests: [{ jsonrpc: '2.0', id: 1, method: 'sampling/createMessage', params: {} }],
    notifications: [],
    responses: [
      {
        wire: '2026',
        request: { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'where' } },
        response: {
          jsonrpc: '2.0',
          id: 7,
          result: {
            resultType: 'input_required',
            inputRequests: { r: { method: 'roots/list', params: {} }, e: { method: 'elicitation/create' } },
          },
        },
      },
    ],
  });
  assert.deepEqual(uses, [
    { feature: 'sampling', evidence: 'the server sent sampling/createMessage to the client' },
    { feature: 'roots', evidence: 'an input-required result asked for roots/list (tool where)' },
  ]);
});

test('nothing deprecated seen: no note', () => {
  assert.deepEqual(
    deprecatedUses({ capabilities: { tools: {} }, serverRequests: [], notifications: [], responses: [] }),
    [],
  );
  assert.deepEqual(
    deprecatedUses({
      capabilities: undefined,
      serverRequests: [],
      notifications: [
        { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } },
      ],
      responses: [],
    }),
    [{ feature: 'logging', evidence: 'the server sent notifications/message' }],
  );
});
