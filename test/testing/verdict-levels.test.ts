/**
 * A verdict's level comes from the sentence it cites (issue 49): a tool whose backend is down,
 * a server stricter than its schema and a list or read answered -32603 are no MUST failures.
 * Each on the broken fixture (test/fixtures/broken-servers/, one defect each), in check and in
 * test alike. The same classes on a server nobody here wrote: the tmcp block of
 * third-party-frameworks.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { conformanceReport } from '../../src/testing/conformance/report.ts';
import { FAST, fixtureStreams, runPlan } from './helpers/fixtures.ts';

const byId = (report: Awaited<ReturnType<typeof conformanceReport>>, id: string) =>
  report.checks.find((c) => c.id === id);

describe('verdict levels of failing calls and failing lists', { concurrency: 2 }, () => {
  test('a tool whose backend is down: a house warning with the server message, not the output schema MUST', async () => {
    const report = await conformanceReport(await fixtureStreams('tool-backend-down'), FAST);
    const found = byId(report, 'tools.execution-error');
    assert.deepEqual([found?.level, found?.status, report.ok], ['HOUSE', 'warn', true]);
    assert.match(
      found?.reason ?? '',
      /get_greeting\(\{"name":"World"\}\): failed with error -32603 \(.*greeting service: connect ECONNREFUSED/,
    );
    assert.notEqual(byId(report, 'tools.structured-content')?.status, 'fail');

    const run = await runPlan(await fixtureStreams('tool-backend-down'));
    const call = run.verdicts.get('test_get_greeting_schema_0');
    assert.deepEqual([call?.check, call?.level, call?.status], ['test.execution-error', 'HOUSE', 'warn']);
    assert.match(
      call?.reason ?? '',
      /error -32603 \(.*greeting service: connect ECONNREFUSED 127\.0\.0\.1:9\)/,
    );
    // --strict holds house rules too.
    const strict = await runPlan(await fixtureStreams('tool-backend-down'), { strict: true });
    assert.equal(strict.verdicts.get('test_get_greeting_schema_0')?.status, 'fail');
  });

  test('a server stricter than its schema: a house finding about the schema, in check and test', async () => {
    const report = await conformanceReport(await fixtureStreams('stricter-than-schema'), FAST);
    const found = byId(report, 'tools.schema-accepted');
    assert.deepEqual([found?.level, found?.status, report.ok], ['HOUSE', 'warn', true]);
    assert.match(
      found?.reason ?? '',
      /-32602 \(.*Invalid name: at least 6 characters\) although the arguments satisfy/,
    );

    const run = await runPlan(await fixtureStreams('stricter-than-schema'));
    const example = run.verdicts.get('test_get_greeting_example_0');
    assert.deepEqual(
      [example?.check, example?.level, example?.status],
      ['test.schema-accepted', 'HOUSE', 'warn'],
    );
    // "Claude" has six characters: served.
    assert.equal(run.verdicts.get('test_get_greeting_example_1')?.status, 'pass');
  });

  test('resources/list and resources/read answered -32603: not run, with the server message', async () => {
    const list = await conformanceReport(await fixtureStreams('resources-list-internal-error'), FAST);
    const listed = byId(list, 'resources.list');
    assert.deepEqual([listed?.status, list.ok], ['not-run', true]);
    assert.match(listed?.reason ?? '', /-32603 \(.*notes database: connect ECONNREFUSED 127\.0\.0\.1:9\)/);

    const read = await conformanceReport(await fixtureStreams('resource-read-internal-error'), FAST);
    const readable = byId(read, 'resources.read');
    assert.deepEqual([readable?.status, read.ok], ['not-run', true]);
    assert.match(readable?.reason ?? '', /-32603 \(.*storage offline\)/);
    // Another code for a listed resource is still the MUST failure.
    const notFound = await conformanceReport(await fixtureStreams('resource-unreadable'), FAST);
    assert.deepEqual([byId(notFound, 'resources.read')?.status, notFound.ok], ['fail', false]);
  });
});
