/**
 * The openapi plugin's doctor checks (what `mcp-toolkit doctor` prints and /readyz reads): the
 * document, the credentials its security requires, and whether the API answers (its health
 * operation, one named by setting, or a HEAD of the base URL).
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { checkApi } from '../../../plugins/openapi/doctor.ts';
import { openapiSettings } from '../../../plugins/openapi/settings.ts';
import { doctor } from '../../../src/cli/doctor.ts';
import type { DoctorCheck } from '../../../src/index.ts';
import { API_KEY, BEARER_TOKEN, type FakeApi, PETSTORE_PATH, startFake } from './helpers.ts';

let api: FakeApi;
before(async () => {
  api = await startFake();
});
after(() => api.close());
beforeEach(() => api.reset());

function settings(raw: Record<string, string> = {}) {
  return openapiSettings.parse({ spec: PETSTORE_PATH, baseUrl: api.baseUrl, ...raw });
}

const byName = (checks: DoctorCheck[]) => Object.fromEntries(checks.map((c) => [c.name, c]));

describe('openapi doctor checks', () => {
  test('all pass with the credentials and the API up; the health operation is called', async () => {
    const checks = byName(await checkApi(settings({ apiKey: API_KEY, bearerToken: BEARER_TOKEN })));
    assert.deepEqual(Object.keys(checks), [
      'openapi document loads',
      'openapi credentials',
      'openapi API answers',
    ]);
    assert.equal(checks['openapi document loads']?.detail, 'Petstore 1.2.0, OpenAPI 3.0.3: 11 tool(s)');
    assert.equal(checks['openapi credentials']?.ok, true);
    assert.match(
      String(checks['openapi API answers']?.detail),
      /^GET \/health \(health\) at http:\/\/127\.0\.0\.1:\d+\/v1: HTTP 200$/,
    );
    assert.ok(Object.values(checks).every((c) => c.ok));
    assert.deepEqual(
      api.requests.map((r) => [r.method, r.target]),
      [['GET', '/v1/health']],
    );
  });

  test('missing credentials name the operations left out and the setting each needs (advice)', async () => {
    const checks = byName(await checkApi(settings()));
    const creds = checks['openapi credentials'];
    assert.equal(creds?.ok, false);
    // The plugin leaves those operations out and serves the rest: neither start-up nor /readyz depends on it.
    assert.equal(creds?.kind, 'advice');
    assert.equal(
      creds?.detail,
      'not offered: POST /pets (createPet), PUT /pets/{petId} (replacePet), DELETE /pets/{petId} (deletePet) need MCP_OPENAPI_API_KEY (scheme "api_key"); ' +
        'GET /admin/stats (adminStats) need MCP_OPENAPI_BEARER_TOKEN (scheme "bearer")',
    );
    assert.equal(checks['openapi document loads']?.kind, 'config');
    assert.equal(checks['openapi API answers']?.kind, undefined, 'a dependency: the default');
    // Read-only mode leaves the writes out, and with them their need for the key.
    const ro = byName(await checkApi(settings({ readOnly: 'true', bearerToken: BEARER_TOKEN })));
    assert.equal(ro['openapi credentials']?.ok, true);
  });

  test('without a health operation, a HEAD of the base URL: any answer below 500 counts', async () => {
    const checks = byName(await checkApi(settings({ exclude: 'health' })));
    assert.equal(checks['openapi API answers']?.ok, true);
    assert.match(
      String(checks['openapi API answers']?.detail),
      /^HEAD http:\/\/127\.0\.0\.1:\d+\/v1: HTTP 404$/,
    );
    assert.deepEqual(
      api.requests.map((r) => [r.method, r.target]),
      [['HEAD', '/v1']],
    );
  });

  test("a health operation called with the caller's upstream token is up when refused without one", async () => {
    // adminStats needs a bearer token; forwarded, it is a tool, and the probe has no user to send.
    const forwarded = byName(
      await checkApi(settings({ forwardUpstreamToken: 'adminStats', healthOperation: 'adminStats' })),
    );
    assert.doesNotMatch(
      String(forwarded['openapi credentials']?.detail),
      /adminStats/,
      "the caller's token satisfies the bearer scheme",
    );
    assert.equal(forwarded['openapi API answers']?.ok, true, forwarded['openapi API answers']?.detail);
    assert.match(
      String(forwarded['openapi API answers']?.detail),
      /^GET \/admin\/stats \(adminStats\) at http:\/\/127\.0\.0\.1:\d+\/v1: HTTP 401 \(probed without a user: its calls carry the caller's upstream token\)$/,
    );
  });

  test('MCP_OPENAPI_HEALTH_OPERATION picks the operation; an unknown one fails', async () => {
    const picked = byName(await checkApi(settings({ healthOperation: 'getInventory' })));
    // The inventory answers 503 first, and the probe does not retry: the API is not ready.
    assert.equal(picked['openapi API answers']?.ok, false);
    assert.match(
      String(picked['openapi API answers']?.detail),
      /GET \/store\/inventory \(getInventory\) .*HTTP 503$/,
    );
    const unknown = byName(await checkApi(settings({ healthOperation: 'nope' })));
    assert.equal(unknown['openapi API answers']?.ok, false);
    assert.match(String(unknown['openapi API answers']?.detail), /MCP_OPENAPI_HEALTH_OPERATION names "nope"/);
    // It can never pass without a change: start-up stops on it rather than never being ready.
    assert.equal(unknown['openapi API answers']?.kind, 'config');
    assert.equal(picked['openapi API answers']?.kind, undefined);
  });

  test('an API that does not answer fails the check', async () => {
    const dead = await startFake();
    const baseUrl = dead.baseUrl;
    await dead.close();
    const checks = byName(await checkApi(settings({ baseUrl })));
    assert.equal(checks['openapi API answers']?.ok, false);
    assert.match(String(checks['openapi API answers']?.detail), /ECONNREFUSED$/);
  });

  test('a document that does not load is the one failed check', async () => {
    const checks = await checkApi(settings({ spec: '/nonexistent/openapi.yaml' }));
    assert.equal(checks.length, 1);
    assert.equal(checks[0]?.ok, false);
    assert.match(String(checks[0]?.detail), /^MCP_OPENAPI_SPEC could not be read/);
  });

  test('mcp-toolkit doctor prints the checks and registers the tools', async () => {
    const lines: string[] = [];
    const code = await doctor(
      {
        MCP_PLUGINS: 'openapi',
        MCP_OPENAPI_SPEC: PETSTORE_PATH,
        MCP_OPENAPI_BASE_URL: api.baseUrl,
        MCP_OPENAPI_API_KEY: API_KEY,
        MCP_OPENAPI_BEARER_TOKEN: BEARER_TOKEN,
      },
      (line) => lines.push(line),
    );
    const output = lines.join('\n');
    assert.equal(code, 0, output);
    assert.match(
      output,
      /^✓ plugin openapi: openapi document loads \(Petstore 1\.2\.0, OpenAPI 3\.0\.3: 11 tool\(s\)\)$/m,
    );
    assert.match(output, /^✓ plugin openapi: openapi credentials$/m);
    assert.match(output, /^✓ plugin openapi: openapi API answers/m);
    assert.match(output, /^✓ registered 11 tools/m);
    assert.ok(!output.includes(API_KEY) && !output.includes(BEARER_TOKEN));
  });
});
