/**
 * The HTTP transport checks against the fixture over streamable HTTP (official SDK v1
 * transport, one defect each): each defect fails exactly its check, the good fixture none,
 * and every HTTP check is caught by some defect. The fixture answers every request, so the
 * kit's timeouts here are a safety net sized for a loaded machine (PATIENT), never waited out.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { conformanceReport } from '../../src/testing/conformance/report.ts';
import type { DefectName } from '../fixtures/broken-servers/defects.ts';
import { startHttpFixture } from '../fixtures/broken-servers/http-server.ts';
import { PATIENT } from './helpers/fixtures.ts';

const EXPECTED: Partial<Record<DefectName, string[]>> = {
  none: [],
  'no-origin-check': ['http.origin'],
  'no-host-check': ['http.host'],
  'deleted-session-400': ['http.session-terminated'],
  'deleted-session-200': ['http.session-terminated'],
  'version-header-ignored': ['http.protocol-version-header'],
  'accept-ignored': ['http.accept'],
  'parse-error-html': ['http.parse-error'],
  'batch-accepted': ['http.batch'],
  'get-not-sse': ['http.get'],
  // The session cannot be ended, so the terminated-session check is not run.
  'delete-fails': ['http.delete'],
  // Serving a request without a session shows the server does not require one: the SHOULD
  // for servers that do is not run (issue 49, class 5).
  'pre-initialize-accepted': [],
  'pre-initialize-404': ['lifecycle.pre-initialize'],
};

async function findings(defect: DefectName) {
  const fixture = await startHttpFixture(defect);
  try {
    const report = await conformanceReport(fixture.url, { ...PATIENT, wire: '2025' });
    return report;
  } finally {
    await fixture.close();
  }
}

describe('HTTP transport checks (SDK v1 fixture over HTTP)', { concurrency: 3 }, () => {
  for (const [defect, ids] of Object.entries(EXPECTED) as [DefectName, string[]][]) {
    test(`${defect}: ${ids.join(', ') || 'no finding'}`, async () => {
      const report = await findings(defect);
      const found = report.checks.filter((c) => c.status === 'fail' || c.status === 'warn');
      assert.deepEqual(found.map((c) => c.id).sort(), [...ids].sort(), JSON.stringify(found, null, 1));
    });
  }

  test('every HTTP check runs on the good fixture and is caught by some defect', async () => {
    const report = await findings('none');
    const http = report.checks.filter((c) => c.id.startsWith('http.') || c.id === 'lifecycle.pre-initialize');
    assert.ok(http.length >= 10, JSON.stringify(http));
    assert.ok(
      http.every((c) => c.status === 'pass'),
      JSON.stringify(http.filter((c) => c.status !== 'pass')),
    );
    const caught = new Set(Object.values(EXPECTED).flat());
    assert.deepEqual(
      http.map((c) => c.id).filter((id) => !caught.has(id)),
      [],
    );
    // The levels the transport spec gives: Origin, 404 after DELETE, the version header are MUST.
    const level = (id: string) => report.checks.find((c) => c.id === id)?.level;
    assert.deepEqual(
      [
        'http.origin',
        'http.session-terminated',
        'http.protocol-version-header',
        'http.host',
        'http.accept',
      ].map(level),
      ['MUST', 'MUST', 'MUST', 'HOUSE', 'HOUSE'],
    );
  });
});
