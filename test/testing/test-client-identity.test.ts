/**
 * TestClient's `identity` option, as docs/testing.md describes it: the tool's `ctx.identity`
 * is that identity, items whose `scopes` it lacks are hidden (`MCP_SCOPE_VISIBILITY=hide`, the
 * default) or listed and refused with Forbidden (`challenge`), `visible` rules see it, and
 * without it every item is open. On both wires.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ErrorCode } from '../../src/base/errors.ts';
import { TestClient, TestClientError } from '../../src/testing/index.ts';
import hiddenItems from '../fixtures/hidden-items-plugin.ts';
import scopedNotes from '../fixtures/scoped-notes-plugin.ts';

const plugins = [scopedNotes, hiddenItems];
const reader = { clientId: 'reader', scopes: ['notes:read'] };
const names = async (client: TestClient) => (await client.listTools()).map((t) => String(t.name)).sort();

async function refusal(fn: () => Promise<unknown>): Promise<TestClientError> {
  try {
    await fn();
  } catch (err) {
    assert.ok(err instanceof TestClientError, String(err));
    return err;
  }
  assert.fail('expected a refusal');
}

for (const wire of ['2025', '2026'] as const) {
  describe(`TestClient identity (${wire} wire)`, () => {
    it('reaches ctx.identity, and a scope it lacks hides the item (the default)', async () => {
      const client = await TestClient.start({ plugins, wire, identity: { ...reader, clientName: 'Reader' } });
      try {
        assert.deepEqual(await names(client), ['read_notes']);
        assert.equal(await client.callText('read_notes'), 'notes read by reader (Reader)');
        const hidden = await refusal(() => client.callTool('write_notes', { text: 'n' }));
        assert.equal(hidden.code, ErrorCode.InvalidParams);
        assert.equal(hidden.message, 'Unknown tool: write_notes');
      } finally {
        await client.close();
      }
    });

    it('with MCP_SCOPE_VISIBILITY=challenge the item is listed and a call is Forbidden', async () => {
      const client = await TestClient.start({
        plugins,
        wire,
        env: { MCP_SCOPE_VISIBILITY: 'challenge' },
        identity: reader,
      });
      try {
        assert.deepEqual(await names(client), ['read_notes', 'write_notes']);
        const refused = await refusal(() => client.callTool('write_notes', { text: 'n' }));
        assert.equal(refused.code, ErrorCode.Forbidden);
        assert.deepEqual(refused.data, { requiredScopes: ['notes:write'] });
      } finally {
        await client.close();
      }
    });

    it('a visible(identity) rule sees the identity; with the scope, the call runs', async () => {
      const client = await TestClient.start({
        plugins,
        wire,
        identity: { clientId: 'admin', scopes: ['notes:read', 'notes:write'] },
      });
      try {
        assert.deepEqual(await names(client), ['read_notes', 'secret_tool', 'write_notes']);
        assert.equal(await client.callText('write_notes', { text: 'n' }), '"n" written by admin');
      } finally {
        await client.close();
      }
    });

    it('without an identity every item is open, as over stdio', async () => {
      const client = await TestClient.start({ plugins, wire });
      try {
        assert.deepEqual(await names(client), ['read_notes', 'secret_tool', 'write_notes']);
        assert.equal(await client.callText('write_notes', { text: 'n' }), '"n" written by anonymous');
      } finally {
        await client.close();
      }
    });
  });
}
