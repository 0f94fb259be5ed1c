/**
 * The input API over real HTTP, on both wires: on 2026 a missing client capability is HTTP
 * 400 with -32021 and `requiredCapabilities` as an object, and a tampered `requestState` is
 * -32602; on 2025 the same handler's request goes out on the call's SSE stream and the
 * client's POSTed answer completes the call.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ErrorCode } from '../../src/index.ts';
import { assertValidServerMessage } from '../helpers/spec-schema.ts';
import {
  type Fixture,
  type Message,
  openSession,
  post,
  post2026,
  request,
  SseReader,
  sessionHeaders,
  startFixture,
  V2025,
  V2026,
} from './http-fixture.ts';

let fixture: Fixture;
before(async () => {
  fixture = await startFixture();
});
after(async () => {
  await fixture.close();
});

async function json(res: Response, method?: string): Promise<Message> {
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  const body = (await res.json()) as Message;
  assertValidServerMessage(V2026, body, method);
  return body;
}

describe('2026 wire over HTTP', () => {
  test('a tool needing a capability the client lacks: 400, -32021, requiredCapabilities object', async () => {
    const res = await post2026(
      fixture.url,
      41,
      'tools/call',
      { name: 'test_missing_capability', arguments: {} },
      { capabilities: {} },
    );
    assert.equal(res.status, 400);
    const body = await json(res);
    assert.equal(body.id, 41);
    const error = body.error as { code: number; data: { requiredCapabilities: unknown } };
    assert.equal(error.code, ErrorCode.MissingRequiredClientCapability);
    assert.deepEqual(error.data.requiredCapabilities, { sampling: {} });
  });

  test('requests are built from the declared capabilities: sampling only, no elicitation', async () => {
    const res = await post2026(
      fixture.url,
      42,
      'tools/call',
      { name: 'test_input_required_result_capabilities', arguments: {} },
      { capabilities: { sampling: {} } },
    );
    assert.equal(res.status, 200);
    const result = (await json(res, 'tools/call')).result as Message;
    assert.equal(result.resultType, 'input_required');
    const methods = Object.values(result.inputRequests as Record<string, { method: string }>).map(
      (r) => r.method,
    );
    assert.deepEqual(methods, ['sampling/createMessage']);
  });

  test('a tampered requestState is -32602; the intact one completes', async () => {
    const first = (
      await json(
        await post2026(fixture.url, 43, 'tools/call', {
          name: 'test_input_required_result_tampered_state',
          arguments: {},
        }),
        'tools/call',
      )
    ).result as Message;
    assert.equal(first.resultType, 'input_required');
    assert.equal(typeof first.requestState, 'string');
    const inputResponses = { user_name: { action: 'accept', content: { name: 'Alice' } } };
    const retry = (requestState: string) =>
      post2026(fixture.url, 44, 'tools/call', {
        name: 'test_input_required_result_tampered_state',
        arguments: {},
        inputResponses,
        requestState,
      });
    const tampered = await json(await retry(`${first.requestState}-TAMPERED`));
    assert.equal((tampered.error as { code: number }).code, ErrorCode.InvalidParams);
    const intact = (await json(await retry(first.requestState as string), 'tools/call')).result as Message;
    assert.equal(intact.resultType, 'complete');
  });
});

describe('2025 wire over HTTP', () => {
  test('the same handler sends sampling/createMessage on the call stream and finishes with the answer', async () => {
    const session = await openSession(fixture.url, { sampling: {} });
    const res = await post(
      fixture.url,
      request(5, 'tools/call', { name: 'test_sampling', arguments: { prompt: 'Hi?' } }),
      sessionHeaders(session),
    );
    const reader = new SseReader(res, V2025, 'tools/call');
    let event = await reader.next();
    while (event && !event.message) event = await reader.next();
    const ask = event?.message;
    assert.equal(ask?.method, 'sampling/createMessage');
    assert.ok(ask.id !== undefined, 'a request: it has an id');
    const answer = await post(
      fixture.url,
      {
        jsonrpc: '2.0',
        id: ask.id,
        result: {
          role: 'assistant',
          content: { type: 'text', text: 'Hello!' },
          model: 'm',
          stopReason: 'endTurn',
        },
      },
      sessionHeaders(session),
    );
    assert.equal(answer.status, 202);
    const rest = await reader.rest();
    const final = rest.at(-1)?.message;
    assert.equal(final?.id, 5);
    assert.deepEqual((final?.result as Message | undefined)?.content, [
      { type: 'text', text: 'LLM response: Hello!' },
    ]);
  });
});
