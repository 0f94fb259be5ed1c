/**
 * `npm run image` (scripts/image.ts) as a command line, without building anything: --help and
 * -h print the usage, every option answers --help (a flag on the line never turns it into a
 * stack trace), and a usage mistake exits 2 with the message and the usage. The commands
 * docs/deployment.md gives are the ones test/deploy/image-built.test.ts runs.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { childEnv, REPO_ROOT } from '../helpers/spawn-server.ts';

function image(args: string[]) {
  const r = spawnSync(process.execPath, ['scripts/image.ts', ...args], {
    cwd: REPO_ROOT,
    env: childEnv(),
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const help = image(['--help']);
/** The options the usage lists, with a sample value for those that take one. */
const flags = [...help.stdout.matchAll(/^ {2}(?:-\w, )?(--[a-z-]+)(?: ([A-Z][A-Za-z=]*))?/gm)].map((m) => ({
  flag: m[1]!,
  value:
    m[2] === undefined ? undefined : m[2] === 'NAME=VALUE' ? 'MCP_LOG_LEVEL=debug' : m[2] === 'N' ? '0' : 'x',
}));

describe('npm run image -- --help', () => {
  test('--help and -h print the usage on stdout, exit 0', () => {
    assert.equal(help.status, 0, help.stderr);
    assert.match(help.stdout, /^Usage: npm run image \[-- options\]/);
    assert.equal(help.stderr, '');
    const short = image(['-h']);
    assert.equal(short.status, 0);
    assert.equal(short.stdout, help.stdout);
  });

  test('the usage lists every option', () => {
    assert.deepEqual(flags.map((f) => f.flag).sort(), [
      '--engine',
      '--env',
      '--help',
      '--keep',
      '--port',
      '--require',
      '--run',
      '--stand-in',
      '--tag',
      '--test',
    ]);
  });

  for (const { flag, value } of flags.filter((f) => f.flag !== '--help')) {
    test(`${flag} ${value ?? ''} --help: the usage, exit 0`, () => {
      const r = image([flag, ...(value === undefined ? [] : [value]), '--help']);
      assert.equal(r.status, 0, r.stderr);
      assert.equal(r.stdout, help.stdout);
    });
  }

  test('--help after an unknown option still answers with the usage', () => {
    const r = image(['--bogus', '--help']);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, help.stdout);
  });
});

describe('usage mistakes exit 2 with the message and the usage, before building anything', () => {
  const cases: [string[], RegExp][] = [
    [['--bogus'], /Unknown option '--bogus'/],
    [['--port', '9000'], /--port and -e apply to --run/],
    [['-e', 'MCP_AUTH=api_key'], /--port and -e apply to --run/],
    [['--run', '--port', '99999'], /--port 99999: expected a port number/],
    [['--run', '-e', 'MCP_AUTH'], /-e MCP_AUTH: expected NAME=VALUE/],
    [['--run', '--test'], /--run and --test are separate/],
    [['--engine', 'lxc'], /--engine lxc: expected docker or podman/],
  ];
  for (const [args, message] of cases) {
    test(args.join(' '), () => {
      const r = image(args);
      assert.equal(r.status, 2, r.stderr);
      assert.match(r.stderr, message);
      assert.match(r.stderr, /Usage: npm run image/);
      assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
    });
  }
});

test('docs/deployment.md gives the commands the image test runs', () => {
  const docs = readFileSync(path.join(REPO_ROOT, 'docs', 'deployment.md'), 'utf8');
  assert.match(docs, /^npm run image +#/m);
  assert.match(docs, /^npm run image -- --run +#/m);
  const imageTest = readFileSync(path.join(REPO_ROOT, 'test', 'deploy', 'image-built.test.ts'), 'utf8');
  assert.match(imageTest, /\['run', 'image', '--', '--run', '--port', '0'/);
  const ci = readFileSync(path.join(REPO_ROOT, '.ci', 'run'), 'utf8');
  assert.match(ci, /node scripts\/image\.ts --require/, 'CI builds and tests the image');
  const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  assert.match(pkg.scripts.image ?? '', /exec node scripts\/image\.ts$/, 'npm hands signals to the script');
});
