/**
 * Resource templates may come from outside the code (a proxied upstream's
 * `resources/templates/list`), and the URI matched against them comes from the caller. A
 * template with several expressions compiled to a backtracking regular expression lets one
 * URI hold the event loop for a time polynomial in its length, so such templates are matched
 * by RE2 (linear time); a template with one expression keeps V8's engine, where anchoring
 * already makes the match linear. The hostile shapes below never finish on the backtracking
 * engine (the file times out); here each match returns and answers correctly.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compileTemplate } from '../../src/registry/uri-template.ts';

test('{var} and {+var}: values percent-decoded, anchored at both ends', () => {
  const t = compileTemplate('notes://{folder}/{+path}');
  assert.deepEqual(t.match('notes://work/a/b%20c.txt'), { folder: 'work', path: 'a/b c.txt' });
  assert.deepEqual(t.match('notes://w%2Fx/y'), { folder: 'w/x', path: 'y' });
  assert.equal(t.match('xnotes://work/a'), undefined);
  assert.equal(t.match('notes://work/'), undefined);
  assert.equal(t.match('notes://a/b\nc'), undefined, 'a line break ends {+var}, as `.` does');
  assert.equal(t.match('notes://%E0%A4%A/x'), undefined, 'a malformed escape is no match');
  const one = compileTemplate('file:///{+path}');
  assert.deepEqual(one.match('file:///etc/hosts'), { path: 'etc/hosts' });
});

test('adjacent and repeated expressions cannot make one URI stall the server', () => {
  // On a backtracking engine each of these takes polynomial time in the URI's length on a
  // URI that fails at its end: ten {+x} in a row against 30,000 characters is beyond any budget.
  const hostile = [
    `x${Array.from({ length: 10 }, (_, i) => `{+v${i}}`).join('')}y`,
    `x${Array.from({ length: 10 }, (_, i) => `{v${i}}`).join('')}y`,
    'a/{+x}/b/{+y}/c/{+z}/d',
  ];
  const uris = [`x${'a'.repeat(30_000)}`, `a/${'/b/'.repeat(20_000)}\n`, `a/${'x/b/'.repeat(10_000)}z`];
  for (const source of hostile) {
    const t = compileTemplate(source);
    for (const uri of uris)
      assert.equal(t.match(uri), undefined, `${source} against ${uri.length} characters`);
  }
  const t = compileTemplate(hostile[0] as string);
  const ok = t.match(`x${'a'.repeat(30_000)}y`);
  assert.ok(ok, 'a URI that fits still matches');
  assert.equal(Object.keys(ok).length, 10);
});
