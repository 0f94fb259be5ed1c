import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { access, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { FileErrorCode } from '../../../plugins/filesystem/errors.ts';
import { MAX_FILE_BYTES, MAX_LIST_ENTRIES } from '../../../plugins/filesystem/files.ts';
import { filesystemPlugin, filesystemSettings } from '../../../plugins/filesystem/index.ts';
import { ErrorCode, InternalCode, ProtocolError, type ToolDefinition } from '../../../src/index.ts';
import {
  callHandler,
  type Loaded,
  loadPlugin,
  makeTree,
  rejection,
  stubContext,
  type Tree,
} from './helpers.ts';

let tree: Tree;
let rw: Loaded;
let ro: Loaded;
const messages: string[] = [];

before(async () => {
  tree = await makeTree('mcp-fs-tools-');
  rw = await loadPlugin({ root: tree.root });
  ro = await loadPlugin({ root: tree.root, readOnly: 'true' });
});
after(() => tree.cleanup());

function tool(loaded: Loaded, name: string): ToolDefinition {
  const def = loaded.tools.get(name);
  assert.ok(def, `tool ${name} is registered`);
  return def;
}

/** Calls a tool and checks its result against the declared output schema. */
async function call(loaded: Loaded, name: string, args: Record<string, unknown>): Promise<unknown> {
  const def = tool(loaded, name);
  const out = await callHandler(def, args);
  const checked = def.output?.validate(out);
  assert.ok(checked?.ok, `output of ${name} matches its schema: ${JSON.stringify(checked)}`);
  return out;
}

async function failure(loaded: Loaded, name: string, args: Record<string, unknown>, code: string) {
  const err = await rejection(callHandler(tool(loaded, name), args));
  messages.push(err.message);
  assert.equal(err.code, code, `code of "${err.message}"`);
  return err;
}

describe('settings and registration', () => {
  test('settings parse raw environment strings', () => {
    assert.deepEqual(filesystemSettings.parse({}), {
      root: './workspace',
      readOnly: false,
      allowHardlinks: false,
    });
    assert.equal(filesystemSettings.parse({ allowHardlinks: 'true' }).allowHardlinks, true);
    assert.equal(filesystemSettings.safeParse({ allowHardlinks: 'sometimes' }).success, false);
    assert.equal(filesystemSettings.parse({ readOnly: 'true' }).readOnly, true);
    assert.equal(filesystemSettings.parse({ readOnly: 'FALSE' }).readOnly, false);
    assert.equal(filesystemSettings.safeParse({ readOnly: 'maybe' }).success, false);
    assert.equal(filesystemSettings.safeParse({ root: '' }).success, false);
  });

  test('read-only mode does not register write_file', () => {
    assert.deepEqual([...rw.tools.keys()], ['list_files', 'read_file', 'write_file']);
    assert.deepEqual([...ro.tools.keys()], ['list_files', 'read_file']);
    assert.equal(ro.template.listing.uriTemplate, 'file:///{+path}');
    assert.equal(ro.template.listing.name, 'file');
    assert.equal(ro.template.listing.mimeType, 'text/plain');
    assert.equal(ro.prompt.name, 'summarise_file');
    assert.deepEqual(ro.prompt.listing.arguments, [
      { name: 'path', description: 'File to summarise, relative to the workspace root', required: true },
    ]);
  });

  test('every tool has a title, full annotations, described inputs, examples and an output schema', () => {
    for (const def of rw.tools.values()) {
      const listing = def.listing as {
        title?: string;
        annotations?: Record<string, unknown>;
        inputSchema: { properties: Record<string, { description?: string }>; examples?: unknown[] };
        outputSchema?: { type?: string };
      };
      assert.ok(listing.title, `${def.name} has a title`);
      const a = listing.annotations ?? {};
      assert.equal(a.title, listing.title);
      assert.equal(a.openWorldHint, false);
      for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint']) {
        assert.equal(typeof a[hint], 'boolean', `${def.name} ${hint}`);
      }
      assert.equal(a.readOnlyHint, def.name !== 'write_file');
      for (const [field, schema] of Object.entries(listing.inputSchema.properties)) {
        assert.ok(schema.description, `${def.name}.${field} is described`);
      }
      assert.ok((listing.inputSchema.examples ?? []).length > 0, `${def.name} has examples`);
      for (const example of listing.inputSchema.examples ?? []) {
        assert.ok(def.input.validate(example).ok, `${def.name} example is valid`);
      }
      assert.equal(listing.outputSchema?.type, 'object');
    }
  });

  test('register creates a missing root with a README, and the examples work there', async () => {
    const root = path.join(tree.base, 'fresh', 'workspace');
    const fresh = await loadPlugin({ root });
    assert.deepEqual(await readdir(root), ['README.md']);
    for (const def of fresh.tools.values()) {
      for (const example of (def.listing.inputSchema as { examples: Record<string, unknown>[] }).examples) {
        await call(fresh, def.name, example);
      }
    }
  });

  test('register refuses a root that is a file', async () => {
    const err = await rejection(loadPlugin({ root: path.join(tree.root, 'a.txt') }));
    assert.equal(err.code, InternalCode.InvalidSetting);
    assert.ok(!err.message.includes(tree.base));
  });
});

describe('list_files', () => {
  test('lists the root sorted by name, without following links', async () => {
    const out = (await call(ro, 'list_files', {})) as {
      path: string;
      entries: { name: string; type: string; size: number }[];
      truncated: boolean;
    };
    assert.equal(out.path, '.');
    assert.equal(out.truncated, false);
    assert.deepEqual(
      out.entries.map((e) => e.name),
      out.entries.map((e) => e.name).sort(),
    );
    const byName = Object.fromEntries(out.entries.map((e) => [e.name, e]));
    assert.deepEqual(byName['a.txt'], { name: 'a.txt', type: 'file', size: 5 });
    assert.deepEqual(byName.sub, { name: 'sub', type: 'directory', size: 0 });
    assert.equal(byName['link-out-dir']?.type, 'symlink');
  });

  test('lists a subfolder and a folder reached through an inside link', async () => {
    const sub = (await call(ro, 'list_files', { path: 'sub' })) as { entries: { name: string }[] };
    assert.ok(sub.entries.some((e) => e.name === 'b.txt'));
    const linked = (await call(ro, 'list_files', { path: 'link-in-dir' })) as { path: string };
    assert.equal(linked.path, 'link-in-dir');
  });

  test('caps a long listing and says so', async () => {
    const big = path.join(tree.root, 'many');
    await mkdir(big);
    await Promise.all(
      Array.from({ length: MAX_LIST_ENTRIES + 5 }, (_, i) =>
        writeFile(path.join(big, `f${String(i).padStart(4, '0')}`), ''),
      ),
    );
    const out = (await call(ro, 'list_files', { path: 'many' })) as {
      entries: { name: string }[];
      truncated: boolean;
    };
    assert.equal(out.entries.length, MAX_LIST_ENTRIES);
    assert.equal(out.truncated, true);
    assert.equal(out.entries[0]?.name, 'f0000');
    await rm(big, { recursive: true });
  });

  test('refuses escapes, files and missing folders', async () => {
    await failure(ro, 'list_files', { path: '..' }, InternalCode.PathOutsideRoot);
    await failure(ro, 'list_files', { path: 'link-out-dir' }, InternalCode.PathOutsideRoot);
    await failure(ro, 'list_files', { path: 'a.txt' }, FileErrorCode.NotFolder);
    await failure(ro, 'list_files', { path: 'nope' }, FileErrorCode.NotFound);
  });
});

describe('read_file', () => {
  test('reads text with its size, also through an inside link', async () => {
    assert.deepEqual(await call(ro, 'read_file', { path: 'a.txt' }), {
      path: 'a.txt',
      content: 'alpha',
      size: 5,
    });
    assert.deepEqual(await call(ro, 'read_file', { path: 'link-in' }), {
      path: 'link-in',
      content: 'bravo',
      size: 5,
    });
  });

  test('refuses folders, escapes, oversized and binary files', async () => {
    await failure(ro, 'read_file', { path: 'sub' }, FileErrorCode.IsFolder);
    await failure(ro, 'read_file', { path: 'link-out-file' }, InternalCode.PathOutsideRoot);
    await failure(ro, 'read_file', { path: '../outside/secret.txt' }, InternalCode.PathOutsideRoot);
    await failure(
      ro,
      'read_file',
      { path: path.join(tree.outside, 'secret.txt') },
      InternalCode.PathOutsideRoot,
    );
    await writeFile(path.join(tree.root, 'big.txt'), Buffer.alloc(MAX_FILE_BYTES + 1, 'x'));
    await failure(ro, 'read_file', { path: 'big.txt' }, FileErrorCode.TooLarge);
    await writeFile(path.join(tree.root, 'blob.bin'), Buffer.from([0xff, 0xfe, 0x00, 0xc3]));
    await failure(ro, 'read_file', { path: 'blob.bin' }, FileErrorCode.NotText);
    await rm(path.join(tree.root, 'big.txt'));
    await rm(path.join(tree.root, 'blob.bin'));
  });

  test('a named pipe is refused without blocking', async (t) => {
    const fifo = path.join(tree.root, 'pipe');
    try {
      execFileSync('mkfifo', [fifo]);
    } catch {
      t.skip('mkfifo is not available');
      return;
    }
    await failure(ro, 'read_file', { path: 'pipe' }, FileErrorCode.NotFile);
    await rm(fifo);
  });

  test('a file of exactly the cap is read', async () => {
    await writeFile(path.join(tree.root, 'cap.txt'), Buffer.alloc(MAX_FILE_BYTES, 'y'));
    const out = (await call(ro, 'read_file', { path: 'cap.txt' })) as { size: number };
    assert.equal(out.size, MAX_FILE_BYTES);
    await rm(path.join(tree.root, 'cap.txt'));
  });

  test('stops when the call is cancelled', async () => {
    const controller = new AbortController();
    controller.abort();
    const err = await rejection(
      Promise.resolve(tool(ro, 'read_file').handler({ path: 'a.txt' }, stubContext(controller.signal))),
    );
    assert.equal(err.name, 'AbortError');
  });
});

describe('write_file', () => {
  test('writes, creating folders, then reads back and overwrites', async () => {
    assert.deepEqual(await call(rw, 'write_file', { path: 'notes/day/one.md', content: 'héllo' }), {
      path: 'notes/day/one.md',
      bytes: 6,
    });
    assert.equal(
      ((await call(rw, 'read_file', { path: 'notes/day/one.md' })) as { content: string }).content,
      'héllo',
    );
    await call(rw, 'write_file', { path: 'notes/day/one.md', content: 'x' });
    assert.equal(await readFile(path.join(tree.root, 'notes', 'day', 'one.md'), 'utf8'), 'x');
  });

  test('writes through a link that stays inside to its target', async () => {
    await writeFile(path.join(tree.root, 'sub', 'c.txt'), 'c');
    await call(rw, 'write_file', { path: 'link-in-dir/c.txt', content: 'changed' });
    assert.equal(await readFile(path.join(tree.root, 'sub', 'c.txt'), 'utf8'), 'changed');
  });

  test('refuses escapes and leaves the outside untouched', async () => {
    const refused = [
      '../outside/new.txt',
      'sub/../../outside/new.txt',
      path.join(tree.outside, 'new.txt'),
      'link-out-file',
      'link-out-dir/new.txt',
      'link-out-dir/made/new.txt',
      // Links out are refused without a look at their target, present or missing.
      'dangling-out',
      'dangling-dir/new.txt',
    ];
    for (const p of refused)
      await failure(rw, 'write_file', { path: p, content: 'pwned' }, InternalCode.PathOutsideRoot);
    await failure(rw, 'write_file', { path: 'nul\0.txt', content: 'pwned' }, FileErrorCode.InvalidPath);
    assert.deepEqual(await readdir(tree.outside), ['secret.txt']);
    assert.equal(await readFile(path.join(tree.outside, 'secret.txt'), 'utf8'), 'top secret');
  });

  test('refuses folders and oversized content', async () => {
    await failure(rw, 'write_file', { path: 'sub', content: 'x' }, FileErrorCode.IsFolder);
    await failure(rw, 'write_file', { path: 'a.txt/b.txt', content: 'x' }, FileErrorCode.NotFolder);
    await failure(
      rw,
      'write_file',
      { path: 'huge.txt', content: 'x'.repeat(MAX_FILE_BYTES + 1) },
      FileErrorCode.TooLarge,
    );
    await assert.rejects(access(path.join(tree.root, 'huge.txt')));
  });
});

describe('resource template and prompt', () => {
  test('reads a file by URI, with names that need percent-encoding', async () => {
    const ctx = stubContext();
    assert.deepEqual(await ro.template.read('file:///sub/b.txt', { path: 'sub/b.txt' }, ctx), {
      text: 'bravo',
      mimeType: 'text/plain',
    });
    await writeFile(path.join(tree.root, 'odd #1?.txt'), 'odd');
    const uri = 'file:///odd%20%231%3F.txt';
    const match = ro.template.template.match(uri);
    assert.ok(match);
    assert.deepEqual(await ro.template.read(uri, match, ctx), { text: 'odd', mimeType: 'text/plain' });
    // Failures are client errors (-32602), not "Internal error"; a missing file names its URI.
    for (const bad of ['file:///../outside/secret.txt', 'file:///link-out-file', 'file:///sub']) {
      const err = await rejection(Promise.resolve(ro.template.read(bad, {}, ctx)));
      assert.ok(err instanceof ProtocolError);
      assert.equal(err.code, ErrorCode.InvalidParams);
      assert.deepEqual(err.data, { uri: bad });
      messages.push(err.message);
    }
    const missing = await rejection(Promise.resolve(ro.template.read('file:///nope.txt', {}, ctx)));
    assert.ok(missing instanceof ProtocolError);
    assert.equal(missing.code, ErrorCode.InvalidParams);
    assert.match(missing.message, /^Resource not found/);
  });

  test('completes the path variable from the typed folder and prefix', async () => {
    const complete = ro.template.spec.complete?.path;
    assert.ok(complete);
    const run = (value: string) => complete(value, { arguments: {}, ctx: stubContext() });
    assert.deepEqual(await run('su'), ['sub/']);
    assert.ok((await run('sub/')).includes('sub/b.txt'));
    assert.deepEqual(await run('link-in'), ['link-in', 'link-in-dir']);
    assert.ok(!(await run('')).includes('.hidden'), 'hidden entries need a typed dot');
    assert.deepEqual(await run('.h'), ['.hidden']);
    assert.deepEqual(await run('../'), []);
    assert.deepEqual(await run('link-out-dir/'), []);
  });

  test('summarise_file embeds the file as a resource, then asks for the summary', async () => {
    const result = (await ro.prompt.get({ path: 'sub/b.txt' }, stubContext())) as {
      messages: { role: string; content: { type: string; text?: string; resource?: unknown } }[];
    };
    assert.equal(result.messages.length, 2);
    assert.deepEqual(result.messages[0], {
      role: 'user',
      content: {
        type: 'resource',
        resource: { uri: 'file:///sub/b.txt', mimeType: 'text/plain', text: 'bravo' },
      },
    });
    assert.equal(result.messages[1]?.role, 'user');
    assert.equal(result.messages[1]?.content.type, 'text');
    const err = await rejection(Promise.resolve(ro.prompt.get({ path: 'link-out-file' }, stubContext())));
    assert.ok(err instanceof ProtocolError);
    assert.equal(err.code, ErrorCode.InvalidParams);
    messages.push(err.message);
  });
});

describe('doctor', () => {
  const doctor = (raw: Record<string, string>) => {
    assert.ok(filesystemPlugin.doctor);
    return filesystemPlugin.doctor(filesystemSettings.parse(raw));
  };

  test('a readable, writable folder passes every check', async () => {
    const checks = await doctor({ root: tree.root });
    assert.ok(checks.length >= 4);
    assert.ok(
      checks.every((c) => c.ok),
      JSON.stringify(checks),
    );
  });

  test('reports a missing root and a root that is a file, without host paths', async () => {
    const missing = await doctor({ root: path.join(tree.base, 'nowhere') });
    assert.ok(missing.some((c) => !c.ok));
    const file = await doctor({ root: path.join(tree.root, 'a.txt') });
    assert.ok(file.some((c) => !c.ok));
    for (const c of [...missing, ...file]) assert.ok(!(c.detail ?? '').includes(tree.base));
  });

  test('says how the sandbox opens paths here, and the hard-link rule', async () => {
    const [strict] = (await doctor({ root: tree.root })).filter((c) => c.name === 'filesystem sandbox');
    const [lenient] = (await doctor({ root: tree.root, allowHardlinks: 'true' })).filter(
      (c) => c.name === 'filesystem sandbox',
    );
    assert.equal(strict?.ok, true);
    if (process.platform === 'linux') assert.match(strict?.detail ?? '', /\/proc\/self\/fd.*cannot redirect/);
    else assert.match(strict?.detail ?? '', /could still redirect one operation/);
    assert.match(strict?.detail ?? '', /several hard links are refused/);
    assert.match(lenient?.detail ?? '', /MCP_FILESYSTEM_ALLOW_HARDLINKS=true/);
  });

  test('read-only mode does not need a writable root', async () => {
    await mkdir(path.join(tree.base, 'ro'), { recursive: true });
    const checks = await doctor({ root: path.join(tree.base, 'ro'), readOnly: 'true' });
    assert.ok(checks.every((c) => c.ok));
    assert.ok(checks.some((c) => (c.detail ?? '').includes('read-only')));
  });
});

test('no error message names a host path', () => {
  assert.ok(messages.length >= 15, `collected ${messages.length} messages`);
  for (const message of messages) assert.ok(!message.includes(tree.base), `host path leaked: ${message}`);
});
