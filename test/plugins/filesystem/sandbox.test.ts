import assert from 'node:assert/strict';
import { access, readdir, symlink } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { FileAccessError, FileErrorCode } from '../../../plugins/filesystem/errors.ts';
import { createSandbox, type Sandbox } from '../../../plugins/filesystem/sandbox.ts';
import { InternalCode, ToolkitError } from '../../../src/index.ts';
import { makeTree, rejection, type Tree } from './helpers.ts';

let tree: Tree;
let sandbox: Sandbox;
const messages: string[] = [];

before(async () => {
  tree = await makeTree('mcp-fs-sandbox-');
  sandbox = createSandbox(tree.root);
});
after(() => tree.cleanup());

async function refused(promise: Promise<unknown>, code: string): Promise<Error> {
  const err = await rejection(promise);
  messages.push(err.message);
  assert.equal(err.code, code, `code of "${err.message}"`);
  if (code === InternalCode.PathOutsideRoot) assert.ok(err instanceof ToolkitError);
  else assert.ok(err instanceof FileAccessError);
  return err;
}

const OUT = InternalCode.PathOutsideRoot;

describe('resolveExisting', () => {
  test('refuses ../ traversal, lexically and through a folder', async () => {
    await refused(sandbox.resolveExisting('../outside/secret.txt'), OUT);
    await refused(sandbox.resolveExisting('..'), OUT);
    await refused(sandbox.resolveExisting('sub/../../outside/secret.txt'), OUT);
    const err = await refused(sandbox.resolveExisting('a/../../x'), OUT);
    assert.ok(err.message.includes('a/../../x'), 'the message names the path as the client typed it');
  });

  test('refuses absolute paths, outside and even inside the root', async () => {
    await refused(sandbox.resolveExisting('/etc/passwd'), OUT);
    await refused(sandbox.resolveExisting(path.join(tree.outside, 'secret.txt')), OUT);
    await refused(sandbox.resolveExisting(path.join(tree.root, 'a.txt')), OUT);
  });

  test('refuses a symlinked file that points out of the root', async () => {
    await refused(sandbox.resolveExisting('link-out-file'), OUT);
  });

  test('refuses a symlinked folder that points out, and anything under it', async () => {
    await refused(sandbox.resolveExisting('link-out-dir'), OUT);
    await refused(sandbox.resolveExisting('link-out-dir/secret.txt'), OUT);
    await refused(sandbox.resolveExisting('sub/../link-out-dir/secret.txt'), OUT);
  });

  test('refuses NUL bytes', async () => {
    await refused(sandbox.resolveExisting('a.txt\0.png'), FileErrorCode.InvalidPath);
  });

  test('maps missing files and files used as folders to clean errors', async () => {
    await refused(sandbox.resolveExisting('missing.txt'), FileErrorCode.NotFound);
    await refused(sandbox.resolveExisting('a.txt/child'), FileErrorCode.NotFolder);
    await refused(sandbox.resolveExisting('dangling-out'), FileErrorCode.NotFound);
  });

  test('accepts paths inside, including links that stay inside', async () => {
    assert.deepEqual(await sandbox.resolveExisting('a.txt'), {
      real: path.join(tree.root, 'a.txt'),
      path: 'a.txt',
    });
    assert.deepEqual(await sandbox.resolveExisting('sub/./b.txt'), {
      real: path.join(tree.root, 'sub', 'b.txt'),
      path: 'sub/b.txt',
    });
    assert.deepEqual(await sandbox.resolveExisting('sub/../a.txt'), {
      real: path.join(tree.root, 'a.txt'),
      path: 'a.txt',
    });
    assert.deepEqual(await sandbox.resolveExisting('link-in'), {
      real: path.join(tree.root, 'sub', 'b.txt'),
      path: 'link-in',
    });
    assert.equal(
      (await sandbox.resolveExisting('link-in-dir/b.txt')).real,
      path.join(tree.root, 'sub', 'b.txt'),
    );
    assert.deepEqual(await sandbox.resolveExisting('.'), { real: tree.root, path: '.' });
    assert.deepEqual(await sandbox.resolveExisting(''), { real: tree.root, path: '.' });
  });
});

describe('resolveForWrite', () => {
  test('refuses traversal and absolute paths', async () => {
    await refused(sandbox.resolveForWrite('../outside/new.txt'), OUT);
    await refused(sandbox.resolveForWrite('sub/../../new.txt'), OUT);
    await refused(sandbox.resolveForWrite('/tmp/new.txt'), OUT);
    await refused(sandbox.resolveForWrite(path.join(tree.outside, 'new.txt')), OUT);
  });

  test('refuses a new file under a symlinked folder that points out', async () => {
    await refused(sandbox.resolveForWrite('link-out-dir/new.txt'), OUT);
    await refused(sandbox.resolveForWrite('link-out-dir/deeper/still/new.txt'), OUT);
  });

  test('refuses writing through a symlink leaf that points out, or nowhere', async () => {
    await refused(sandbox.resolveForWrite('link-out-file'), OUT);
    await refused(sandbox.resolveForWrite('dangling-out'), FileErrorCode.NotFound);
    await refused(sandbox.resolveForWrite('dangling-dir/new.txt'), FileErrorCode.NotFound);
  });

  test('refuses NUL bytes, folders and files used as folders', async () => {
    await refused(sandbox.resolveForWrite('new\0.txt'), FileErrorCode.InvalidPath);
    await refused(sandbox.resolveForWrite('sub'), FileErrorCode.IsFolder);
    await refused(sandbox.resolveForWrite('.'), FileErrorCode.IsFolder);
    await refused(sandbox.resolveForWrite('link-in-dir'), FileErrorCode.IsFolder);
    await refused(sandbox.resolveForWrite('a.txt/new.txt'), FileErrorCode.NotFolder);
    await refused(sandbox.resolveForWrite('newfolder/'), FileErrorCode.IsFolder);
  });

  test('accepts new files (with missing folders), existing files and links inside', async () => {
    assert.deepEqual(await sandbox.resolveForWrite('new.txt'), {
      real: path.join(tree.root, 'new.txt'),
      path: 'new.txt',
    });
    assert.deepEqual(await sandbox.resolveForWrite('deep/er/new.txt'), {
      real: path.join(tree.root, 'deep', 'er', 'new.txt'),
      path: 'deep/er/new.txt',
    });
    assert.equal((await sandbox.resolveForWrite('a.txt')).real, path.join(tree.root, 'a.txt'));
    assert.equal((await sandbox.resolveForWrite('link-in')).real, path.join(tree.root, 'sub', 'b.txt'));
    assert.equal(
      (await sandbox.resolveForWrite('link-in-dir/new.txt')).real,
      path.join(tree.root, 'sub', 'new.txt'),
    );
  });

  test('resolving touches nothing on disk', async () => {
    assert.deepEqual((await readdir(tree.outside)).sort(), ['secret.txt']);
    await assert.rejects(access(path.join(tree.root, 'deep')));
  });
});

test('a symbolic link loop is a clean error', async () => {
  await symlink('loop', path.join(tree.root, 'loop'));
  await refused(sandbox.resolveExisting('loop'), FileErrorCode.Loop);
  await refused(sandbox.resolveForWrite('loop'), FileErrorCode.Loop);
});

test('any mix of segments resolves inside the root or is refused cleanly', async () => {
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
  );
  await fc.assert(
    fc.asyncProperty(
      fc.array(segment, { minLength: 1, maxLength: 6 }),
      fc.boolean(),
      async (parts, write) => {
        const userPath = parts.join('/');
        try {
          const { real } = write
            ? await sandbox.resolveForWrite(userPath)
            : await sandbox.resolveExisting(userPath);
          assert.ok(real === tree.root || real.startsWith(tree.root + path.sep), `${userPath} → ${real}`);
        } catch (err) {
          assert.ok(err instanceof ToolkitError || err instanceof FileAccessError, String(err));
          assert.ok(!err.message.includes(tree.base), err.message);
        }
      },
    ),
    { numRuns: 300 },
  );
});

test('createSandbox wants an absolute root', () => {
  assert.throws(
    () => createSandbox('relative/root'),
    (err: unknown) => err instanceof ToolkitError && err.code === InternalCode.InvalidSetting,
  );
});

test('no message names a host path', () => {
  assert.ok(messages.length >= 20, `collected ${messages.length} messages`);
  for (const message of messages) {
    assert.ok(!message.includes(tree.base), `host path leaked: ${message}`);
    assert.ok(!message.includes(tree.root), `host path leaked: ${message}`);
  }
});
