/**
 * `mcp-toolkit dev` as a client hears it, counted per list over a real process: a reload sends
 * one `notifications/<list>/list_changed` for each list whose listing changed, and none for a
 * list that lists as before (nor for a save that changes no listing at all); and a plugin that
 * does not compile at start is reported and watched instead of stopping the loop, the server
 * answering meanwhile, and taking the plugin in once it is fixed.
 *
 * The client is plain HTTP: the notification stream (GET) counts as open once its response
 * headers arrive, and the stream is ordered, so the notification awaited for one reload proves
 * every one of the reloads before it has arrived. Every wait is bounded; none is a fixed sleep.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { CLI, childEnv, REPO_ROOT } from '../helpers/spawn-server.ts';

// Inside the repository (under the ignored .cache/), so `@mcp-toolkit/server` resolves.
const root = path.join(REPO_ROOT, '.cache', `dev-notifications-${process.pid}`);
const children: ChildProcess[] = [];
after(() => {
  for (const child of children) child.kill('SIGKILL');
  rmSync(root, { recursive: true, force: true });
});

const INDEX = `import { definePlugin } from '@mcp-toolkit/server';
import { defs } from './defs.ts';
export default definePlugin({ name: 'dev-lists', register(app) { app.add(...defs()); } });
`;

interface Lists {
  tools?: string[];
  resources?: string[];
  prompts?: string[];
  /** What the tools answer: changes no listing. */
  answer?: string;
  /** Appended verbatim (a syntax error). */
  extra?: string;
}

function defsFile({ tools = [], resources = [], prompts = [], answer = 'hi', extra = '' }: Lists): string {
  return `import { definePrompt, defineResource, defineTool } from '@mcp-toolkit/server';
export const defs = () => [
${tools.map((n) => `  defineTool({ name: '${n}', description: 'Says ${n}' }, async () => '${answer}'),`).join('\n')}
${resources.map((n) => `  defineResource({ uri: 'dev://${n}', name: '${n}' }, async () => '${answer}'),`).join('\n')}
${prompts.map((n) => `  definePrompt({ name: '${n}', description: 'Asks ${n}' }, async () => '${answer}'),`).join('\n')}
];
${extra}`;
}

/** A plugin folder of its own, and `mcp-toolkit dev` running on it. */
function startDev(name: string, lists: Lists) {
  const dir = path.join(root, name);
  const defs = path.join(dir, 'lists', 'defs.ts');
  mkdirSync(path.dirname(defs), { recursive: true });
  writeFileSync(path.join(dir, 'lists', 'index.ts'), INDEX);
  writeFileSync(defs, defsFile(lists));
  const child = spawn(process.execPath, [CLI, 'dev', '--port', '0'], {
    cwd: dir,
    env: childEnv({ MCP_PLUGINS: './lists/index.ts', MCP_LOG_LEVEL: 'info' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  const log = { text: '', exited: undefined as number | null | undefined };
  child.stderr?.setEncoding('utf8').on('data', (c: string) => {
    log.text += c;
  });
  child.on('exit', (code) => {
    log.exited = code;
  });
  /** Polls until `check` holds (bounded), then returns its value. */
  const until = async <T>(what: string, check: () => T | undefined | false, ms = 30_000): Promise<T> => {
    for (const start = Date.now(); Date.now() - start < ms; await sleep(25)) {
      const value = check();
      if (value) return value;
      if (log.exited !== undefined)
        assert.fail(`mcp-toolkit dev exited (${log.exited}) before ${what}:\n${log.text}`);
    }
    return assert.fail(`${what} within ${ms} ms; stderr:\n${log.text}`);
  };
  const write = (next: Lists) => writeFileSync(defs, defsFile(next));
  const reloads = () => log.text.match(/plugins reloaded/g)?.length ?? 0;
  return { log, until, write, reloads };
}

/** An MCP session over plain HTTP, with its notification stream open and counted per method. */
async function connect(url: string) {
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  let id = 0;
  let session: Record<string, string> = {};
  const send = async (method: string, params: Record<string, unknown>, request: boolean) => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { ...headers, ...session },
      body: JSON.stringify({ jsonrpc: '2.0', method, params, ...(request ? { id: ++id } : {}) }),
    });
    const sid = res.headers.get('mcp-session-id');
    if (sid) session = { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' };
    const body = await res.text();
    return res.headers.get('content-type')?.includes('text/event-stream')
      ? (body.split('\n').find((l) => l.startsWith('data: ')) ?? '').slice(6)
      : body;
  };
  /** A request; resolves with its result. */
  const post = async (method: string, params: Record<string, unknown> = {}) =>
    (JSON.parse(await send(method, params, true)) as { result: Record<string, unknown> }).result;
  await post('initialize', {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'dev-notifications-test', version: '1.0.0' },
  });
  await send('notifications/initialized', {}, false);

  const counts: Record<string, number> = {};
  const stream = new AbortController();
  const res = await fetch(url, {
    headers: { accept: 'text/event-stream', ...session },
    signal: stream.signal,
  });
  assert.equal(res.status, 200, 'the notification stream opens');
  // Reading in the background: every `data:` line is one message.
  void (async () => {
    const decoder = new TextDecoder();
    let buffered = '';
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffered += decoder.decode(chunk, { stream: true });
        let nl = buffered.indexOf('\n');
        for (; nl >= 0; nl = buffered.indexOf('\n')) {
          const line = buffered.slice(0, nl);
          buffered = buffered.slice(nl + 1);
          // A priming event (for resumption) carries no message.
          if (!line.startsWith('data: ') || line.length === 6) continue;
          const method = (JSON.parse(line.slice(6)) as { method?: string }).method;
          if (method) counts[method] = (counts[method] ?? 0) + 1;
        }
      }
    } catch {
      // aborted at the end of the test
    }
  })();
  const names = async (list: 'tools' | 'resources' | 'prompts') =>
    ((await post(`${list}/list`))[list] as { name: string }[]).map((i) => i.name);
  const listChanged = (list: string) => counts[`notifications/${list}/list_changed`] ?? 0;
  return { post, names, counts, listChanged, close: () => stream.abort() };
}

test('a reload sends one list_changed per list that changed, none for the others', {
  timeout: 120_000,
}, async () => {
  const dev = startDev('counts', { tools: ['t1'], resources: ['r1'], prompts: ['p1'] });
  const url = await dev.until(
    'the summary line',
    () => /mcp-toolkit listening on (http:\/\/[^\s"]+)/.exec(dev.log.text)?.[1],
  );
  const client = await connect(url);
  try {
    assert.deepEqual(await client.names('tools'), ['t1']);
    const seen = () => ({
      tools: client.listChanged('tools'),
      resources: client.listChanged('resources'),
      prompts: client.listChanged('prompts'),
    });

    // Only the tools change: one tools notification.
    dev.write({ tools: ['t1', 't2'], resources: ['r1'], prompts: ['p1'] });
    await dev.until('tools/list_changed', () => client.listChanged('tools') >= 1);
    assert.deepEqual(await client.names('tools'), ['t1', 't2']);

    // A save that changes no listing (what the tools answer): a reload, and no notification.
    const before = dev.reloads();
    dev.write({ tools: ['t1', 't2'], resources: ['r1'], prompts: ['p1'], answer: 'hello' });
    await dev.until('the reload of a change no list shows', () => dev.reloads() > before);
    assert.equal(
      ((await client.post('tools/call', { name: 't1', arguments: {} })) as { content: { text: string }[] })
        .content[0]?.text,
      'hello',
      'the new version serves',
    );

    // Only the prompts change: the one prompts notification; it arriving proves that nothing
    // else of the reloads before it is still on its way (the stream is ordered).
    dev.write({ tools: ['t1', 't2'], resources: ['r1'], prompts: ['p1', 'p2'], answer: 'hello' });
    await dev.until('prompts/list_changed', () => client.listChanged('prompts') >= 1);
    assert.deepEqual(seen(), { tools: 1, resources: 0, prompts: 1 });

    // Tools and resources at once: one of each.
    dev.write({ tools: ['t2'], resources: ['r1', 'r2'], prompts: ['p1', 'p2'], answer: 'hello' });
    await dev.until('resources/list_changed', () => client.listChanged('resources') >= 1);
    await dev.until('the second tools/list_changed', () => client.listChanged('tools') >= 2);
    // And a last prompts change, to flush the stream up to here.
    dev.write({ tools: ['t2'], resources: ['r1', 'r2'], prompts: ['p2'], answer: 'hello' });
    await dev.until('the second prompts/list_changed', () => client.listChanged('prompts') >= 2);
    assert.deepEqual(seen(), { tools: 2, resources: 1, prompts: 2 });
    assert.deepEqual(await client.names('resources'), ['r1', 'r2']);
    assert.deepEqual(await client.names('prompts'), ['p2']);
  } finally {
    client.close();
  }
});

test('a plugin that does not compile at start is reported and watched, and taken in once fixed', {
  timeout: 120_000,
}, async () => {
  const dev = startDev('broken-at-start', { tools: ['first'], extra: 'const broken = ;\n' });
  const url = await dev.until(
    'the summary line',
    () => /mcp-toolkit listening on (http:\/\/[^\s"]+)/.exec(dev.log.text)?.[1],
  );
  await dev.until('the compile error with file and line', () =>
    /failed to load: [^\n]*lists\/defs\.ts:\d+:\d+: SyntaxError[\s\S]*serving no plugin until it is fixed/.test(
      dev.log.text,
    ),
  );
  const client = await connect(url);
  try {
    assert.deepEqual(await client.names('tools'), [], 'the server answers, with nothing to list');

    // Still broken: reported again, still serving.
    const failures = () => dev.log.text.match(/plugins not reloaded/g)?.length ?? 0;
    dev.write({ tools: ['first', 'second'], extra: 'const still = ;\n' });
    await dev.until('the compile error of the second save', () => failures() >= 1);
    assert.deepEqual(await client.names('tools'), []);

    // Fixed: the plugin loads, and the client is told once.
    dev.write({ tools: ['first', 'second'] });
    await dev.until('tools/list_changed', () => client.listChanged('tools') >= 1);
    assert.deepEqual(await client.names('tools'), ['first', 'second']);
    assert.equal(
      (
        (await client.post('tools/call', { name: 'second', arguments: {} })) as {
          content: { text: string }[];
        }
      ).content[0]?.text,
      'hi',
    );
    assert.equal(dev.log.exited, undefined, 'mcp-toolkit dev kept running');
  } finally {
    client.close();
  }
});
