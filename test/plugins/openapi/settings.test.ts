/**
 * The openapi plugin's settings as the core parses them from `MCP_OPENAPI_*`: defaults, the
 * messages of bad values (naming the variable), and secrets masked in `mcp-toolkit doctor`.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { openapiPlugin } from '../../../plugins/openapi/index.ts';
import { doctor } from '../../../src/cli/doctor.ts';
import { InternalCode, type PluginDefinition, ToolkitError } from '../../../src/index.ts';
import { parsePluginSettings } from '../../../src/plugin/loader.ts';

const parse = (env: Record<string, string>) =>
  parsePluginSettings(openapiPlugin as PluginDefinition<Record<string, unknown>>, env);

function refusal(env: Record<string, string>): string {
  try {
    parse(env);
  } catch (err) {
    assert.ok(err instanceof ToolkitError);
    assert.equal(err.code, InternalCode.InvalidSetting);
    return err.message;
  }
  assert.fail('the settings were accepted');
}

describe('openapi settings', () => {
  test('defaults', () => {
    assert.deepEqual(
      { ...parse({}) },
      {
        spec: undefined,
        baseUrl: undefined,
        bearerToken: undefined,
        forwardUpstreamToken: [],
        apiKey: undefined,
        apiKeyHeader: undefined,
        apiKeyQuery: undefined,
        include: [],
        allowRefs: [],
        exclude: [],
        readOnly: false,
        timeoutMs: 30_000,
        retries: 2,
        maxResponseBytes: 262_144,
        healthOperation: undefined,
        userAgent: undefined,
      },
    );
  });

  test('values are parsed: lists split on commas, numbers, booleans', () => {
    const s = parse({
      MCP_OPENAPI_SPEC: ' ./petstore.yaml ',
      MCP_OPENAPI_BASE_URL: 'http://127.0.0.1:8080/v1',
      MCP_OPENAPI_INCLUDE: 'listPets, pets ,GET /pets/**,',
      MCP_OPENAPI_EXCLUDE: 'deletePet',
      MCP_OPENAPI_READ_ONLY: 'true',
      MCP_OPENAPI_TIMEOUT_MS: '500',
      MCP_OPENAPI_RETRIES: '0',
      MCP_OPENAPI_MAX_RESPONSE_BYTES: '2048',
      MCP_OPENAPI_API_KEY_HEADER: 'X-Api-Key',
    });
    assert.equal(s.spec, './petstore.yaml');
    assert.deepEqual(s.include, ['listPets', 'pets', 'GET /pets/**']);
    assert.deepEqual(s.exclude, ['deletePet']);
    assert.equal(s.readOnly, true);
    assert.equal(s.timeoutMs, 500);
    assert.equal(s.retries, 0);
    assert.equal(s.maxResponseBytes, 2048);
    assert.equal(s.apiKeyHeader, 'X-Api-Key');
  });

  test('a URL spec must be http(s)', () => {
    assert.equal(
      parse({ MCP_OPENAPI_SPEC: 'https://api.example.com/openapi.json' }).spec,
      'https://api.example.com/openapi.json',
    );
    assert.match(
      refusal({ MCP_OPENAPI_SPEC: 'ftp://example.com/openapi.json' }),
      /^MCP_OPENAPI_SPEC="ftp:.*file path or an http\(s\) URL/,
    );
  });

  test('bad values name the variable and what it accepts', () => {
    assert.match(
      refusal({ MCP_OPENAPI_BASE_URL: 'api.example.com' }),
      /^MCP_OPENAPI_BASE_URL=.*http\(s\) URL/,
    );
    assert.match(
      refusal({ MCP_OPENAPI_TIMEOUT_MS: '0' }),
      /^MCP_OPENAPI_TIMEOUT_MS="0" is invalid: expected an integer from 1/,
    );
    assert.match(
      refusal({ MCP_OPENAPI_RETRIES: '9' }),
      /^MCP_OPENAPI_RETRIES="9" is invalid: expected an integer from 0 to 5/,
    );
    assert.match(
      refusal({ MCP_OPENAPI_READ_ONLY: 'maybe' }),
      /^MCP_OPENAPI_READ_ONLY="maybe" is invalid: expected true or false/,
    );
    assert.match(
      refusal({ MCP_OPENAPI_API_KEY_HEADER: 'X Key' }),
      /^MCP_OPENAPI_API_KEY_HEADER=.*header name/,
    );
    assert.match(
      refusal({ MCP_OPENAPI_API_KEY_HEADER: 'X-Key', MCP_OPENAPI_API_KEY_QUERY: 'key' }),
      /^MCP_OPENAPI_API_KEY_QUERY="••••••" is invalid: set MCP_OPENAPI_API_KEY_HEADER or MCP_OPENAPI_API_KEY_QUERY, not both/,
    );
  });

  test('doctor prints the settings with the token and the key masked', async () => {
    const token = `tok-${randomBytes(12).toString('hex')}`;
    const key = `key-${randomBytes(12).toString('hex')}`;
    const lines: string[] = [];
    await doctor(
      {
        MCP_PLUGINS: 'openapi',
        MCP_OPENAPI_SPEC: '/nonexistent/openapi.json',
        MCP_OPENAPI_BEARER_TOKEN: token,
        MCP_OPENAPI_API_KEY: key,
      },
      (line) => lines.push(line),
    );
    const output = lines.join('\n');
    assert.ok(!output.includes(token) && !output.includes(key), output);
    assert.match(output, /MCP_OPENAPI_BEARER_TOKEN="••••••"/);
    assert.match(output, /MCP_OPENAPI_API_KEY="••••••"/);
    assert.match(output, /MCP_OPENAPI_TIMEOUT_MS=30000/);
  });
});
