/**
 * The utility checks of the conformance report, each run when the server declares what it
 * needs: ping (always, on the 2025 wire), logging/setLevel with a valid and an invalid level (the `logging` capability),
 * completion/complete (`completions`, against a prompt argument or a resource template
 * variable), and resources/subscribe with unsubscribe (`resources.subscribe`). Rules: MCP
 * 2025-11-25 "Ping", "Logging", "Completion" and "Resources §Subscriptions".
 */
import { ErrorCode } from '../../base/errors.ts';
import { isObject, type JsonObject } from '../../base/jsonrpc.ts';
import type { Answer } from '../client/answer.ts';
import { describeAnswer, type ProbeClient } from '../client/probe-client.ts';
import type { Recorder } from './recorder.ts';

/** The 2026 wire has no ping, logging/setLevel or subscribe (they are 2025-wire methods). */
const NOT_ON_2026 = 'not on the 2026 wire (ping, logging/setLevel and subscriptions are 2025-wire methods)';

/** A value outside RFC 5424's eight levels. */
const BAD_LEVEL = 'not-a-level';

/**
 * `logging/setLevel` with a level that is none of the eight: Logging §Error Handling says
 * servers SHOULD answer -32602 (Invalid params). Another error (the SDK v1 answers -32603 with
 * its validator's dump as the message) or a result is the SHOULD finding.
 */
function judgeInvalidLevel(answer: Answer): { status: 'pass' | 'warn'; reason?: string } {
  if (answer.kind === 'error' && answer.error.code === ErrorCode.InvalidParams) return { status: 'pass' };
  const what = `logging/setLevel "${BAD_LEVEL}" got`;
  if (answer.kind === 'error') {
    const message = answer.error.message;
    const dump =
      /^\s*[[{]/.test(message) || message.includes('"code"') ? ' (the message is a raw validation dump)' : '';
    return {
      status: 'warn',
      reason: `${what} error ${answer.error.code}${dump}; an invalid log level SHOULD get -32602 (Invalid params)`,
    };
  }
  return {
    status: 'warn',
    reason: `${what} ${describeAnswer(answer)}; an invalid log level SHOULD get -32602 (Invalid params)`,
  };
}

/** The first `{name}` variable of an RFC 6570 template (`file:///{path}` gives `path`). */
function firstVariable(template: string): string | undefined {
  const m = /\{[+#./;?&]?([A-Za-z0-9_]+)/.exec(template);
  return m?.[1];
}

/** A completion target the server lists: a prompt argument, else a resource template variable. */
async function completionTarget(c: ProbeClient, capabilities: JsonObject): Promise<JsonObject | undefined> {
  if (isObject(capabilities.prompts)) {
    const prompts = await c.listAll('prompts/list', 'prompts');
    for (const p of prompts.items) {
      const arg = Array.isArray(p.arguments)
        ? p.arguments.find((a) => isObject(a) && typeof a.name === 'string')
        : undefined;
      if (typeof p.name === 'string' && isObject(arg))
        return {
          ref: { type: 'ref/prompt', name: p.name },
          argument: { name: arg.name as string, value: '' },
        };
    }
  }
  if (isObject(capabilities.resources)) {
    const templates = await c.request('resources/templates/list', {});
    const list = templates.kind === 'result' ? templates.result.resourceTemplates : undefined;
    for (const t of Array.isArray(list) ? list : []) {
      const variable =
        isObject(t) && typeof t.uriTemplate === 'string' ? firstVariable(t.uriTemplate) : undefined;
      if (variable !== undefined)
        return {
          ref: { type: 'ref/resource', uri: (t as JsonObject).uriTemplate as string },
          argument: { name: variable, value: '' },
        };
    }
  }
  return undefined;
}

export async function checkUtilities(c: ProbeClient, rec: Recorder, capabilities: JsonObject): Promise<void> {
  const on2025 = c.wire === '2025';
  if (!on2025) rec.notRun('utilities.ping', NOT_ON_2026);
  else {
    const pong = await c.request('ping', undefined);
    rec.expect(
      'utilities.ping',
      pong.kind === 'result' && Object.keys(pong.result).filter((k) => k !== '_meta').length === 0
        ? []
        : [
            `ping got ${pong.kind === 'result' ? `a non-empty result ${JSON.stringify(pong.result).slice(0, 80)}` : describeAnswer(pong)}`,
          ],
    );
  }

  if (!isObject(capabilities.logging)) {
    for (const id of ['logging.set-level', 'logging.invalid-level'] as const)
      rec.notRun(id, 'the server declares no logging capability');
  } else if (!on2025) {
    for (const id of ['logging.set-level', 'logging.invalid-level'] as const) rec.notRun(id, NOT_ON_2026);
  } else {
    const set = await c.request('logging/setLevel', { level: 'warning' });
    rec.expect(
      'logging.set-level',
      set.kind === 'result' ? [] : [`logging/setLevel "warning" got ${describeAnswer(set)}`],
    );
    rec.judge(
      'logging.invalid-level',
      judgeInvalidLevel(await c.request('logging/setLevel', { level: BAD_LEVEL })),
    );
  }

  if (!isObject(capabilities.completions)) {
    rec.notRun('completions.complete', 'the server declares no completions capability');
  } else {
    const target = await completionTarget(c, capabilities);
    if (target === undefined)
      rec.notRun('completions.complete', 'no prompt argument or template variable to complete');
    else {
      const got = await c.request('completion/complete', target);
      const problems: string[] = [];
      const what = `completion/complete for ${JSON.stringify(target.ref)}`;
      if (got.kind !== 'result') problems.push(`${what} got ${describeAnswer(got)}`);
      else {
        const completion = got.result.completion;
        const values = isObject(completion) ? completion.values : undefined;
        if (!Array.isArray(values) || values.some((v) => typeof v !== 'string'))
          problems.push(`${what}: completion.values is not a list of strings`);
        else if (values.length > 100) problems.push(`${what}: ${values.length} values (at most 100)`);
      }
      rec.expect('completions.complete', problems, JSON.stringify(target.ref));
    }
  }

  const resources = capabilities.resources;
  if (!isObject(resources) || resources.subscribe !== true) {
    rec.notRun('resources.subscribe', 'the server declares no resources.subscribe capability');
    return;
  }
  if (!on2025) {
    rec.notRun('resources.subscribe', NOT_ON_2026);
    return;
  }
  const listed = await c.listAll('resources/list', 'resources');
  const first = listed.items.find((r) => typeof r.uri === 'string');
  if (first === undefined) {
    rec.notRun('resources.subscribe', 'no resource listed to subscribe to');
    return;
  }
  const uri = first.uri as string;
  const problems: string[] = [];
  const sub = await c.request('resources/subscribe', { uri });
  if (sub.kind !== 'result') problems.push(`resources/subscribe ${uri} got ${describeAnswer(sub)}`);
  const unsub = await c.request('resources/unsubscribe', { uri });
  if (unsub.kind !== 'result') problems.push(`resources/unsubscribe ${uri} got ${describeAnswer(unsub)}`);
  rec.expect('resources.subscribe', problems, uri);
}
