/**
 * The capable client: `--client-capabilities sampling,elicitation,roots` declares them (in
 * initialize and in every 2026 envelope) and answers the server's requests with canned answers
 * (`--client-answers FILE`), so tools that need them are called and judged instead of skipped,
 * on both wires; the official everything server lists the tools it offers only to such clients.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { conformancePlugin } from '../../plugins/conformance/index.ts';
import type { RunningServer } from '../../src/index.ts';
import {
  answerFor,
  ClientAnswersError,
  DEFAULT_ANSWERS,
  parseCapabilityList,
  parseClientAnswers,
} from '../../src/testing/client/client-answers.ts';
import { connect } from '../../src/testing/client/connect.ts';
import { resolveTarget } from '../../src/testing/client/targets.ts';
import { startServer } from '../helpers/client.ts';
import { FAST, REPO_ROOT, runCli, runPlan } from './helpers/fixtures.ts';

const ALL = ['sampling', 'elicitation', 'roots'] as const;

describe('canned answers', () => {
  test('capability lists and answer files are checked', () => {
    assert.deepEqual(parseCapabilityList('sampling, roots,sampling'), ['sampling', 'roots']);
    assert.throws(() => parseCapabilityList('sampling,telepathy'), ClientAnswersError);
    assert.throws(() => parseClientAnswers({ roots: [{ uri: 'http://x' }] }), /roots\.0\.uri/);
    assert.throws(() => parseClientAnswers({ sampling: { txt: 'x' } }), ClientAnswersError);
  });

  test('each request gets its answer only when declared; elicitation fills the requested schema', () => {
    const answers = parseClientAnswers({
      elicitation: { content: { name: 'Ada' } },
      roots: [{ uri: 'file:///w' }],
    });
    assert.equal(answerFor('sampling/createMessage', {}, ['roots'], answers), undefined);
    assert.deepEqual(answerFor('sampling/createMessage', {}, ['sampling'], DEFAULT_ANSWERS), {
      role: 'assistant',
      content: { type: 'text', text: 'mcp-toolkit test: a canned sampling answer' },
      model: 'mcp-toolkit-test',
      stopReason: 'endTurn',
    });
    assert.deepEqual(answerFor('roots/list', {}, ['roots'], answers), { roots: [{ uri: 'file:///w' }] });
    const requestedSchema = {
      type: 'object',
      properties: {
        name: { type: 'string' },
        age: { type: 'integer', minimum: 18 },
        note: { type: 'string' },
      },
      required: ['name', 'age'],
    };
    assert.deepEqual(answerFor('elicitation/create', { requestedSchema }, ['elicitation'], answers), {
      action: 'accept',
      content: { name: 'Ada', age: 18 },
    });
    const decline = parseClientAnswers({ elicitation: { action: 'decline' } });
    assert.deepEqual(answerFor('elicitation/create', { requestedSchema }, ['elicitation'], decline), {
      action: 'decline',
    });
  });
});

describe('tools that need the client are called when it declares them', () => {
  let server: RunningServer;
  before(async () => {
    server = await startServer({ plugins: [conformancePlugin as never] });
  });
  after(() => server.close());

  for (const wire of ['2025', '2026'] as const) {
    test(`wire ${wire}: sampling, elicitation and roots tools pass instead of being skipped`, async () => {
      // Side by side: most of each run is waiting on the fixture's slow tools.
      const [bare, capable] = await Promise.all([
        runPlan(server, { wire }),
        runPlan(server, { wire, clientCapabilities: ALL }),
      ]);
      const names =
        wire === '2025'
          ? ['test_test_sampling_schema_0', 'test_test_elicitation_schema_0']
          : [
              'test_test_input_required_result_sampling_schema_0',
              'test_test_input_required_result_elicitation_schema_0',
              'test_test_input_required_result_list_roots_schema_0',
              'test_test_input_required_result_multi_round_schema_0',
            ];
      for (const name of names) {
        assert.match(bare.skipped.get(name) ?? '', /--client-capabilities/, `${name} without capabilities`);
        const v = capable.verdicts.get(name);
        assert.equal(v?.status, 'pass', `${name}: ${JSON.stringify(v)}`);
      }
      assert.deepEqual(Object.fromEntries(capable.failed), Object.fromEntries(bare.failed));
    });

    test(`wire ${wire}: the configured answer is the one the tool receives`, async () => {
      const probe = await connect(resolveTarget(server), {
        ...FAST,
        wire,
        clientCapabilities: ['sampling'],
        clientAnswers: parseClientAnswers({ sampling: { text: 'canned reply from the kit' } }),
      });
      try {
        const name = wire === '2025' ? 'test_sampling' : 'test_input_required_result_sampling';
        const answer = await probe.callTool(name, { prompt: 'hi' });
        assert.equal(answer.kind, 'result', JSON.stringify(answer));
        assert.match(
          JSON.stringify(answer.kind === 'result' ? answer.result.content : ''),
          /canned reply from the kit/,
        );
      } finally {
        await probe.close();
      }
    });
  }
});

const EVERYTHING = path.join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');

describe('the official everything server over stdio', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'mcp-kit-capable-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  test('lists and calls its sampling, elicitation and roots tools only for a capable client', async () => {
    const answers = path.join(dir, 'answers.json');
    await writeFile(answers, JSON.stringify({ sampling: { text: 'canned reply from the kit' } }));
    const args = (extra: string[]) => [
      'test',
      '--reporter',
      'tap',
      '--concurrency',
      '4',
      '--request-timeout',
      '2',
      '--call-timeout',
      '5',
      '--allow-writes',
      ...extra,
      '--',
      process.execPath,
      EVERYTHING,
      'stdio',
    ];
    const env = { GZIP_ALLOWED_DOMAINS: '127.0.0.1' };
    // Side by side: most of each run is waiting on the server's slow tools.
    const [bare, capable] = await Promise.all([
      runCli(args([]), { env }),
      runCli(args(['--client-capabilities', 'sampling,elicitation,roots', '--client-answers', answers]), {
        env,
      }),
    ]);
    const gated = ['get-roots-list', 'trigger-sampling-request', 'trigger-elicitation-request'];
    for (const tool of gated) {
      assert.doesNotMatch(bare.stdout, new RegExp(`test_${tool}_schema_0`), tool);
      assert.match(capable.stdout, new RegExp(`^\\s*ok \\d+ - test_${tool}_schema_0$`, 'm'), tool);
    }
    const count = (out: string) => Number(/# (\d+) tools/.exec(out)?.[1] ?? Number.NaN);
    assert.equal(count(capable.stdout) - count(bare.stdout), gated.length, capable.stdout.slice(0, 400));
  });

  test('a malformed answers file is a usage mistake', async () => {
    const bad = path.join(dir, 'bad.json');
    await writeFile(bad, '{"elicitation": {"action": "maybe"}}');
    const r = await runCli(['check', '--client-answers', bad, '--', process.execPath, EVERYTHING, 'stdio']);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /--client-answers: .*elicitation\.action/);
  });
});
