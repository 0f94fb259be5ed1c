/**
 * The conformance plugin against the fixture contract (../shared/conformance/fixture-contract.md
 * §5-§6), in-process on both wires: everything the suite names is there, the header tool is
 * listed first, schemas are published verbatim, and contents have the required shapes.
 * Every message is checked against the spec schema of its revision.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import conformancePlugin from '../../plugins/conformance/index.ts';
import type { JsonObject } from '../../src/index.ts';
import { startClient } from '../helpers/client.ts';

const TOOLS = [
  'test_x_mcp_header',
  'test_simple_text',
  'test_image_content',
  'test_audio_content',
  'test_embedded_resource',
  'test_multiple_content_types',
  'test_tool_with_logging',
  'test_tool_with_progress',
  'test_error_handling',
  'test_sampling',
  'test_elicitation',
  'test_elicitation_sep1034_defaults',
  'test_elicitation_sep1330_enums',
  'test_reconnection',
  'json_schema_2020_12_tool',
  'test_missing_capability',
  'test_streaming_elicitation',
  'test_logging_tool',
  'test_trigger_tool_change',
  'test_trigger_prompt_change',
  'test_input_required_result_elicitation',
  'test_input_required_result_sampling',
  'test_input_required_result_list_roots',
  'test_input_required_result_request_state',
  'test_input_required_result_multiple_inputs',
  'test_input_required_result_multi_round',
  'test_input_required_result_tampered_state',
  'test_input_required_result_capabilities',
  // The tasks fixtures (SEP-2663 scenarios): plugins/conformance/task-tools.ts.
  'greet',
  'slow_compute',
  'failing_job',
  'protocol_error_job',
  'confirm_delete',
  'multi_input',
  'test_tool_with_task',
];

const PROMPTS = [
  'test_simple_prompt',
  'test_prompt_with_arguments',
  'test_prompt_with_embedded_resource',
  'test_prompt_with_image',
  'test_input_required_result_prompt',
];

for (const wire of ['2025', '2026'] as const) {
  describe(`the conformance fixture on the ${wire} wire`, () => {
    test('lists every tool, resource, template and prompt of the contract', async () => {
      const client = await startClient({ plugins: [conformancePlugin], wire });
      const tools = await client.listTools();
      assert.equal(tools[0]?.name, 'test_x_mcp_header', 'the header tool is listed first');
      assert.deepEqual(tools.map((t) => t.name).sort(), [...TOOLS].sort());
      const header = tools[0]?.inputSchema as { properties: Record<string, JsonObject>; required?: unknown };
      assert.equal(header.properties.region?.['x-mcp-header'], 'Region');
      assert.equal(header.required, undefined);
      const schema = tools.find((t) => t.name === 'json_schema_2020_12_tool')?.inputSchema as JsonObject;
      assert.equal(schema.$schema, 'https://json-schema.org/draft/2020-12/schema');
      assert.equal((schema.$defs as { address: JsonObject }).address.$anchor, 'addressDef');
      assert.deepEqual(schema.else, { required: ['email'] });
      const resources = (await client.request('resources/list')).resources as JsonObject[];
      assert.deepEqual(
        resources.map((r) => r.uri),
        ['test://static-text', 'test://static-binary', 'test://watched-resource'],
      );
      const templates = (await client.request('resources/templates/list')).resourceTemplates as JsonObject[];
      assert.deepEqual(
        templates.map((t) => t.uriTemplate),
        ['test://template/{id}/data'],
      );
      const prompts = (await client.request('prompts/list')).prompts as JsonObject[];
      assert.deepEqual(
        prompts.map((p) => p.name),
        PROMPTS,
      );
      assert.ok(prompts.every((p) => typeof p.description === 'string' && p.description !== ''));
      await client.close();
    });

    test('content tools return the content kinds the suite checks', async () => {
      const client = await startClient({ plugins: [conformancePlugin], wire });
      const kinds = async (name: string) =>
        ((await client.callTool(name)).content as JsonObject[]).map((c) => c.type);
      assert.deepEqual(await kinds('test_simple_text'), ['text']);
      assert.deepEqual(await kinds('test_image_content'), ['image']);
      assert.deepEqual(await kinds('test_audio_content'), ['audio']);
      assert.deepEqual(await kinds('test_embedded_resource'), ['resource']);
      assert.deepEqual(await kinds('test_multiple_content_types'), ['text', 'image', 'resource']);
      const audio = ((await client.callTool('test_audio_content')).content as JsonObject[])[0];
      assert.equal(audio?.mimeType, 'audio/wav');
      assert.ok(Buffer.from(String(audio?.data), 'base64').subarray(0, 4).equals(Buffer.from('RIFF')));
      const failed = await client.callTool('test_error_handling');
      assert.equal(failed.isError, true);
      assert.equal(
        await client.callText('test_x_mcp_header', { region: 'eu' }),
        'x-mcp-header test: region=eu, level=(none)',
      );
      await client.close();
    });

    test('resources, the template, prompts and completion answer as the contract says', async () => {
      const client = await startClient({ plugins: [conformancePlugin], wire });
      const text = (await client.readResource('test://static-text')).contents as JsonObject[];
      assert.equal(text[0]?.text, 'This is the content of the static text resource.');
      const binary = (await client.readResource('test://static-binary')).contents as JsonObject[];
      assert.equal(binary[0]?.mimeType, 'image/png');
      assert.equal(typeof binary[0]?.blob, 'string');
      const data = (await client.readResource('test://template/123/data')).contents as JsonObject[];
      assert.deepEqual(JSON.parse(String(data[0]?.text)), {
        id: '123',
        templateTest: true,
        data: 'Data for ID: 123',
      });
      const args = await client.getPrompt('test_prompt_with_arguments', { arg1: 'one', arg2: 'two' });
      assert.match(JSON.stringify(args.messages), /one.*two/);
      const embedded = await client.getPrompt('test_prompt_with_embedded_resource', {
        resourceUri: 'test://x',
      });
      const first = (embedded.messages as { content: JsonObject }[])[0]?.content;
      assert.equal((first?.resource as JsonObject | undefined)?.uri, 'test://x');
      const completion = await client.request('completion/complete', {
        ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' },
        argument: { name: 'arg1', value: 'test' },
      });
      assert.ok(Array.isArray((completion.completion as JsonObject).values));
      await client.close();
    });
  });
}

test('progress and log notifications reach a 2025 client while the tool runs', async () => {
  const client = await startClient({ plugins: [conformancePlugin] });
  await client.request('logging/setLevel', { level: 'debug' });
  await client.request('tools/call', {
    name: 'test_tool_with_progress',
    arguments: {},
    _meta: { progressToken: 'tok' },
  });
  await client.callTool('test_tool_with_logging');
  const progress = client.notifications
    .filter((n) => n.method === 'notifications/progress')
    .map((n) => n.params as JsonObject);
  assert.deepEqual(
    progress.map((p) => [p.progressToken, p.progress, p.total]),
    [
      ['tok', 0, 100],
      ['tok', 50, 100],
      ['tok', 100, 100],
    ],
  );
  const logs = client.notifications.filter((n) => n.method === 'notifications/message');
  assert.equal(logs.length, 3);
  await client.close();
});

test('2026: test_logging_tool logs only when the request asked for a level', async () => {
  const client = await startClient({ plugins: [conformancePlugin], wire: '2026' });
  await client.callTool('test_logging_tool');
  assert.equal(client.notifications.filter((n) => n.method === 'notifications/message').length, 0);
  await client.request('tools/call', {
    name: 'test_logging_tool',
    arguments: {},
    _meta: { 'io.modelcontextprotocol/logLevel': 'info' },
  });
  const logs = client.notifications.filter((n) => n.method === 'notifications/message');
  assert.deepEqual(
    logs.map((l) => (l.params as JsonObject).level),
    ['info'],
  );
  await client.close();
});
