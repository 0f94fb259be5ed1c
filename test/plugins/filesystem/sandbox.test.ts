import assert from 'node:assert/strict';
import {
  link,
  lstat,
  mkdir,
  readdir,
  readFile,
  realpath,
  rm,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { FileAccessError, FileErrorCode } from '../../../plugins/filesystem/errors.ts';
import {
  createSandbox,
  descriptorPathsWork,
  type Sandbox,
  type SandboxMode,
} from '../../../plugins/filesystem/sandbox.ts';
import { InternalCode, ToolkitError } from '../../../src/index.ts';
import { makeTree, rejection, type Tree } from './helpers.ts';

const OUT = InternalCode.PathOutsideRoot;

test('descriptor mode is the default wherever /proc/self/fd works (Linux)', async () => {
  const tree = await makeTree('mcp-fs-mode-');
  try {
    const expected = process.platform === 'linux' ? 'descriptor' : 'path';
    assert.equal(descriptorPathsWork(tree.root), process.platform === 'linux');
    assert.equal(createSandbox(tree.root).mode, expected);
  } finally {
    await tree.cleanup();
  }
});

test('createSandbox wants an absolute root', () => {
  assert.throws(
    () => createSandbox('relative/root'),
    (err: unknown) => err instanceof ToolkitError && err.code === InternalCode.InvalidSetting,
  );
});

// One suite, run against both ways of opening paths (the `path` mode is what platforms
// without /proc/self/fd get).
for (const mode of ['descriptor', 'path'] as const satisfies readonly SandboxMode[]) {
  describe(`sandbox, ${mode} mode`, { skip: mode === 'descriptor' && process.platform !== 'linux' }, () => {
    let tree: Tree;
    let sandbox: Sandbox;
    let lenient: Sandbox;
    const messages: string[] = [];

    before(async () => {
      tree = await makeTree(`mcp-fs-sandbox-${mode}-`);
      sandbox = createSandbox(tree.root, { mode });
      lenient = createSandbox(tree.root, { mode, allowHardlinks: true });
    });
    after(() => tree.cleanup());

    async function refused(promise: Promise<unknown>, code: string): Promise<Error & { code?: unknown }> {
      const err = await rejection(promise);
      messages.push(err.message);
      assert.equal(err.code, code, `code of "${err.message}"`);
      if (code === OUT) assert.ok(err instanceof ToolkitError);
      else assert.ok(err instanceof FileAccessError, String(err));
      return err;
    }

    /** Opens `userPath` and checks it is the very file `real` names, shown as `shown`. */
    async function opens(userPath: string, real: string, shown: string, box = sandbox): Promise<void> {
      const entry = await box.open(userPath);
      try {
        assert.equal(entry.path, shown);
        assert.equal(entry.stats.ino, (await stat(real)).ino, `${userPath} opens ${real}`);
      } finally {
        await entry.close();
      }
    }

    const write = (userPath: string, content = 'pwned') => sandbox.writeFile(userPath, Buffer.from(content));
    const read = (p: string) => readFile(path.join(tree.root, p), 'utf8');

    describe('open', () => {
      test('refuses ../ traversal, lexically and through a folder', async () => {
        await refused(sandbox.open('../outside/secret.txt'), OUT);
        await refused(sandbox.open('..'), OUT);
        await refused(sandbox.open('sub/../../outside/secret.txt'), OUT);
        const err = await refused(sandbox.open('a/../../x'), OUT);
        assert.ok(err.message.includes('a/../../x'), 'the message names the path as the client typed it');
      });

      test('refuses absolute paths, outside and even inside the root', async () => {
        await refused(sandbox.open('/etc/passwd'), OUT);
        await refused(sandbox.open(path.join(tree.outside, 'secret.txt')), OUT);
        await refused(sandbox.open(path.join(tree.root, 'a.txt')), OUT);
      });

      test('refuses links out of the root, and anything under them', async () => {
        await refused(sandbox.open('link-out-file'), OUT);
        await refused(sandbox.open('link-out-dir'), OUT);
        await refused(sandbox.open('link-out-dir/secret.txt'), OUT);
        await refused(sandbox.open('sub/../link-out-dir/secret.txt'), OUT);
        await refused(sandbox.open('dangling-out'), OUT);
        await refused(sandbox.open('dangling-dir/x'), OUT);
      });

      test('refuses NUL bytes', async () => {
        await refused(sandbox.open('a.txt\0.png'), FileErrorCode.InvalidPath);
      });

      test('maps missing files and files used as folders to clean errors', async () => {
        await refused(sandbox.open('missing.txt'), FileErrorCode.NotFound);
        await refused(sandbox.open('missing/x.txt'), FileErrorCode.NotFound);
        await refused(sandbox.open('a.txt/child'), FileErrorCode.NotFolder);
      });

      test('opens paths inside, including links that stay inside', async () => {
        await opens('a.txt', path.join(tree.root, 'a.txt'), 'a.txt');
        await opens('sub/./b.txt', path.join(tree.root, 'sub', 'b.txt'), 'sub/b.txt');
        await opens('sub/../a.txt', path.join(tree.root, 'a.txt'), 'a.txt');
        await opens('link-in', path.join(tree.root, 'sub', 'b.txt'), 'link-in');
        await opens('link-in-dir/b.txt', path.join(tree.root, 'sub', 'b.txt'), 'link-in-dir/b.txt');
        await opens('.', tree.root, '.');
        await opens('', tree.root, '.');
      });

      test("follows a link's `..` up the folders walked, and absolute links into the root", async () => {
        await symlink('../a.txt', path.join(tree.root, 'sub', 'up'));
        await symlink(path.join(tree.root, 'sub', 'b.txt'), path.join(tree.root, 'abs-in'));
        await symlink('link-in-dir/..', path.join(tree.root, 'round-trip'));
        await symlink('../../outside/secret.txt', path.join(tree.root, 'sub', 'up-out'));
        await opens('sub/up', path.join(tree.root, 'a.txt'), 'sub/up');
        await opens('abs-in', path.join(tree.root, 'sub', 'b.txt'), 'abs-in');
        await opens('round-trip/a.txt', path.join(tree.root, 'a.txt'), 'round-trip/a.txt');
        await refused(sandbox.open('sub/up-out'), OUT);
        await refused(sandbox.open('link-in-dir/up-out'), OUT);
      });

      test('a symbolic link loop is a clean error', async () => {
        await symlink('loop', path.join(tree.root, 'loop'));
        await refused(sandbox.open('loop'), FileErrorCode.Loop);
        await refused(write('loop'), FileErrorCode.Loop);
      });
    });

    describe('a link out answers the same whether or not its target exists', () => {
      const probes: [string, string][] = [];
      before(async () => {
        // The same names first lead to missing targets, then to present ones.
        for (const [name, target] of [
          ['probe-file', path.join(tree.outside, 'maybe.txt')],
          ['probe-dir', path.join(tree.outside, 'maybe-dir')],
          ['probe-rel', '../outside/maybe.txt'],
          ['probe-etc', '/etc/mcp-toolkit-no-such-file'],
        ] as const) {
          await symlink(target, path.join(tree.root, name));
          probes.push([name, target]);
        }
      });

      const answers = async (): Promise<string[]> => {
        const out: string[] = [];
        for (const [name] of probes) {
          for (const p of [name, `${name}/x.txt`]) {
            for (const attempt of [() => sandbox.open(p), () => write(p)]) {
              const err = await refused(attempt(), OUT);
              out.push(`${p}: ${String(err.code)} ${err.message}`);
            }
          }
        }
        return out;
      };

      test('missing, then present: identical codes and messages, nothing created outside', async () => {
        const missing = await answers();
        assert.deepEqual((await readdir(tree.outside)).sort(), ['secret.txt']);
        await writeFile(path.join(tree.outside, 'maybe.txt'), 'maybe');
        await mkdir(path.join(tree.outside, 'maybe-dir'));
        await writeFile(path.join(tree.outside, 'maybe-dir', 'x.txt'), 'x');
        await rm(path.join(tree.root, 'probe-etc'));
        await symlink('/etc/passwd', path.join(tree.root, 'probe-etc'));
        const present = await answers();
        assert.deepEqual(present, missing);
        assert.equal(await readFile(path.join(tree.outside, 'maybe.txt'), 'utf8'), 'maybe');
      });
    });

    describe('hard links', () => {
      const outsideFile = () => path.join(tree.outside, 'linked.txt');
      before(async () => {
        await writeFile(outsideFile(), 'outside content');
        await link(outsideFile(), path.join(tree.root, 'hard'));
        await writeFile(path.join(tree.root, 'twin-a'), 'twin');
        await link(path.join(tree.root, 'twin-a'), path.join(tree.root, 'twin-b'));
      });

      test('a file with more than one link is refused, for reads and writes, by default', async () => {
        await refused(sandbox.open('hard'), FileErrorCode.HardLinked);
        await refused(sandbox.open('twin-a'), FileErrorCode.HardLinked);
        await refused(write('hard'), FileErrorCode.HardLinked);
        assert.equal(await readFile(outsideFile(), 'utf8'), 'outside content');
        assert.equal((await lstat(outsideFile())).nlink, 2);
      });

      test('allowed, it is read, and a write replaces the name without touching the other link', async () => {
        await opens('hard', outsideFile(), 'hard', lenient);
        await lenient.writeFile('hard', Buffer.from('new content'));
        assert.equal(await read('hard'), 'new content');
        assert.equal(await readFile(outsideFile(), 'utf8'), 'outside content');
        assert.equal((await lstat(outsideFile())).nlink, 1);
      });
    });

    describe('writeFile', () => {
      test('refuses traversal, absolute paths and links out', async () => {
        await refused(write('../outside/new.txt'), OUT);
        await refused(write('sub/../../new.txt'), OUT);
        await refused(write('/tmp/new.txt'), OUT);
        await refused(write(path.join(tree.outside, 'new.txt')), OUT);
        await refused(write('link-out-dir/new.txt'), OUT);
        await refused(write('link-out-dir/deeper/still/new.txt'), OUT);
        await refused(write('link-out-file'), OUT);
        await refused(write('dangling-out'), OUT);
        await refused(write('dangling-dir/new.txt'), OUT);
      });

      test('refuses NUL bytes, folders and files used as folders', async () => {
        await refused(write('new\0.txt'), FileErrorCode.InvalidPath);
        await refused(write('sub'), FileErrorCode.IsFolder);
        await refused(write('.'), FileErrorCode.IsFolder);
        await refused(write('link-in-dir'), FileErrorCode.IsFolder);
        await refused(write('a.txt/new.txt'), FileErrorCode.NotFolder);
        await refused(write('newfolder/'), FileErrorCode.IsFolder);
      });

      test('refused writes change nothing, outside or in, and leave no temporary file', async () => {
        assert.deepEqual((await readdir(tree.outside)).sort(), [
          'linked.txt',
          'maybe-dir',
          'maybe.txt',
          'secret.txt',
        ]);
        assert.equal(await readFile(path.join(tree.outside, 'secret.txt'), 'utf8'), 'top secret');
        assert.equal(await read('a.txt'), 'alpha');
        await assert.rejects(stat(path.join(tree.root, 'newfolder')));
        const all = await readdir(tree.root, { recursive: true });
        assert.deepEqual(
          all.filter((name) => name.includes('.mcp-write-')),
          [],
        );
      });

      test('writes new files (with missing folders), existing files and through links inside', async () => {
        assert.deepEqual(await write('new.txt', 'n'), { path: 'new.txt' });
        assert.equal(await read('new.txt'), 'n');
        assert.deepEqual(await write('deep/er/new.txt', 'd'), { path: 'deep/er/new.txt' });
        assert.equal(await read('deep/er/new.txt'), 'd');
        await write('a.txt', 'replaced');
        assert.equal(await read('a.txt'), 'replaced');
        await write('link-in', 'through the link');
        assert.equal(await read('sub/b.txt'), 'through the link');
        assert.equal((await lstat(path.join(tree.root, 'link-in'))).isSymbolicLink(), true);
        await write('link-in-dir/new.txt', 'in sub');
        assert.equal(await read('sub/new.txt'), 'in sub');
      });

      test('a replaced file keeps its permission bits', async () => {
        const file = path.join(tree.root, 'private.txt');
        await writeFile(file, 'p', { mode: 0o600 });
        await write('private.txt', 'still private');
        assert.equal((await stat(file)).mode & 0o777, 0o600);
      });
    });

    test('any mix of segments opens inside the root or is refused cleanly', async () => {
      const segment = fc.constantFrom(
        '..',
        '.',
        '',
        'sub',
        'a.txt',
        'new',
        'link-in-dir',
        'link-out-dir',
        'link-in',
        'link-out-file',
        'dangling-dir',
        'round-trip',
        'up',
        'up-out',
      );
      await fc.assert(
        fc.asyncProperty(fc.array(segment, { minLength: 1, maxLength: 6 }), async (parts) => {
          const userPath = parts.join('/');
          let entry: Awaited<ReturnType<Sandbox['open']>> | undefined;
          try {
            entry = await sandbox.open(userPath);
          } catch (err) {
            assert.ok(err instanceof ToolkitError || err instanceof FileAccessError, String(err));
            assert.ok(!err.message.includes(tree.base), err.message);
            return;
          }
          try {
            const real = await realpath(entry.ref);
            assert.ok(real === tree.root || real.startsWith(tree.root + path.sep), `${userPath} → ${real}`);
          } finally {
            await entry.close();
          }
        }),
        { numRuns: 300 },
      );
    });

    test('no message names a host path', () => {
      assert.ok(messages.length >= 40, `collected ${messages.length} messages`);
      for (const message of messages) {
        assert.ok(!message.includes(tree.base), `host path leaked: ${message}`);
      }
    });
  });
}
