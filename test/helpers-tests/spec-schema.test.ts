import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  assertValidServerMessage,
  SPEC_SCHEMAS_MISSING,
  specRevisions,
  specSchemaFile,
  specSchemasAvailable,
  validateServerMessage,
} from '../helpers/spec-schema.ts';

const V2025 = '2025-11-25';
const V2026 = '2026-07-28';
const serverInfo = { name: 'mcp-toolkit', version: '0.1.0' };
const text = [{ type: 'text', text: 'hello' }];
const tool = { name: 'echo', inputSchema: { type: 'object' } };
const cache = { ttlMs: 0, cacheScope: 'private' } as const;

const ok = (result: unknown, id: number | string = 1) => ({ jsonrpc: '2.0', id, result });
const fail = (code: number, data?: unknown, id: number | string | null = 1) => ({
  jsonrpc: '2.0',
  id,
  error: { code, message: 'refused', ...(data === undefined ? {} : { data }) },
});

/** Every negative case must name at least one violation, and one containing `expected`. */
function assertViolation(violations: string[], expected: string): void {
  assert.ok(violations.length > 0, 'expected at least one violation');
  assert.ok(
    violations.some((line) => line.includes(expected)),
    `expected a violation mentioning ${expected}, got:\n${violations.join('\n')}`,
  );
}

// Without the schema files (a plain clone) every other test still runs, unvalidated; this
// file is where the suite says so, once, as a skipped test carrying the reason.
const skip = specSchemasAvailable ? false : 'no spec schemas';

describe('spec schema files', () => {
  it('lists every revision we speak', { skip: specSchemasAvailable ? false : SPEC_SCHEMAS_MISSING }, () => {
    assert.deepEqual(specRevisions(), ['2024-11-05', '2025-03-26', '2025-06-18', V2025, V2026]);
  });

  it('without the folder: validates nothing, throws nothing, and says where it looked', () => {
    const helper = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../helpers/spec-schema.ts');
    const missing = path.join(path.dirname(helper), 'no-such-spec-schemas');
    const script = `const h = await import(${JSON.stringify(helper)});
      console.log(JSON.stringify({ available: h.specSchemasAvailable, revisions: h.specRevisions(),
        violations: h.validateServerMessage('2025-11-25', { not: 'a message' }), note: h.SPEC_SCHEMAS_MISSING }));`;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      env: { ...process.env, MCP_SPEC_SCHEMAS_DIR: missing },
      encoding: 'utf8',
      timeout: 30_000,
    });
    assert.equal(child.status, 0, child.stderr);
    const out = JSON.parse(child.stdout) as {
      available: boolean;
      revisions: string[];
      violations: string[];
      note: string;
    };
    assert.equal(out.available, false);
    assert.deepEqual(out.revisions, []);
    assert.deepEqual(out.violations, []);
    assert.ok(out.note.includes(missing), out.note);
  });

  it("reads a checkout of the specification's repository (schema/<revision>/schema.json)", { skip }, () => {
    const helper = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../helpers/spec-schema.ts');
    const checkout = mkdtempSync(path.join(os.tmpdir(), 'mcp-spec-checkout-'));
    try {
      for (const revision of specRevisions()) {
        mkdirSync(path.join(checkout, 'schema', revision), { recursive: true });
        copyFileSync(specSchemaFile(revision)!, path.join(checkout, 'schema', revision, 'schema.json'));
      }
      const script = `const h = await import(${JSON.stringify(helper)});
        console.log(JSON.stringify({ revisions: h.specRevisions(), violations: h.validateServerMessage('2025-11-25', { not: 'a message' }).length }));`;
      const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
        env: { ...process.env, MCP_SPEC_SCHEMAS_DIR: checkout },
        encoding: 'utf8',
        timeout: 30_000,
      });
      assert.equal(child.status, 0, child.stderr);
      const out = JSON.parse(child.stdout) as { revisions: string[]; violations: number };
      assert.deepEqual(out.revisions, specRevisions());
      assert.ok(out.violations > 0, 'a non-message is refused against the nested layout too');
    } finally {
      rmSync(checkout, { recursive: true, force: true });
    }
  });

  it('refuses a revision it has no schema for', { skip }, () => {
    assert.throws(
      () => validateServerMessage('1999-01-01', ok({})),
      /No spec schema for revision '1999-01-01'/,
    );
  });
});

// Rules that hold on every revision we check in depth.
for (const revision of [V2025, V2026]) {
  const complete = revision === V2026 ? { resultType: 'complete' } : {};

  describe(`${revision}: envelope`, { skip }, () => {
    it('accepts a notifications/progress', () => {
      const progress = {
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: 't', progress: 1 },
      };
      assert.deepEqual(validateServerMessage(revision, progress), []);
    });

    it('rejects a notifications/progress without progress', () => {
      const progress = { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 't' } };
      assertViolation(validateServerMessage(revision, progress), "'progress'");
    });

    it('rejects a notification method the revision does not define', () => {
      const unknown = { jsonrpc: '2.0', method: 'notifications/initialized' };
      assertViolation(validateServerMessage(revision, unknown), 'is not a server notification');
    });

    it('rejects a response carrying both result and error', () => {
      const both = { ...ok(complete), error: { code: -32603, message: 'x' } };
      assertViolation(validateServerMessage(revision, both), 'both result and error');
    });

    it('rejects a success response without id', () => {
      const { id: _id, ...noId } = ok(complete);
      assertViolation(validateServerMessage(revision, noId), '/id');
    });

    it('rejects an error response without id', () => {
      const { id: _id, ...noId } = fail(-32601);
      assertViolation(validateServerMessage(revision, noId), '/id');
    });

    it('accepts an error response whose id is null (the request id could not be read)', () => {
      assert.deepEqual(validateServerMessage(revision, fail(-32700, undefined, null)), []);
    });

    it('rejects a jsonrpc other than "2.0"', () => {
      assertViolation(validateServerMessage(revision, { ...ok(complete), jsonrpc: '1.0' }), '/jsonrpc');
    });

    it('rejects a tools/call result missing content', () => {
      assertViolation(
        validateServerMessage(revision, ok({ ...complete, isError: false }), 'tools/call'),
        "'content'",
      );
    });

    it('accepts a tools/call result with content', () => {
      assert.deepEqual(validateServerMessage(revision, ok({ ...complete, content: text }), 'tools/call'), []);
    });

    it('rejects a result for a method the revision does not define', () => {
      assertViolation(
        validateServerMessage(revision, ok(complete), 'tools/unknown'),
        'is not a client request',
      );
    });

    it('assertValidServerMessage throws an AssertionError listing the violations', () => {
      assert.throws(
        () => assertValidServerMessage(revision, ok({ ...complete }), 'tools/call'),
        (error: unknown) =>
          error instanceof assert.AssertionError &&
          error.message.includes(`the ${revision} spec schema`) &&
          error.message.includes("'content'"),
      );
      assert.doesNotThrow(() =>
        assertValidServerMessage(revision, ok({ ...complete, content: text }), 'tools/call'),
      );
    });
  });
}

describe(`${V2025}: stateful wire`, { skip }, () => {
  const initialize = { protocolVersion: V2025, capabilities: { tools: {} }, serverInfo };

  it('accepts a correct initialize result', () => {
    assert.deepEqual(validateServerMessage(V2025, ok(initialize), 'initialize'), []);
  });

  it('rejects an initialize result without serverInfo', () => {
    const { serverInfo: _s, ...partial } = initialize;
    assertViolation(validateServerMessage(V2025, ok(partial), 'initialize'), "'serverInfo'");
  });

  it('accepts a tools/list result without the 2026 caching fields', () => {
    assert.deepEqual(validateServerMessage(V2025, ok({ tools: [tool] }), 'tools/list'), []);
  });

  it('accepts an empty result for ping and logging/setLevel', () => {
    assert.deepEqual(validateServerMessage(V2025, ok({}), 'ping'), []);
    assert.deepEqual(validateServerMessage(V2025, ok({}), 'logging/setLevel'), []);
  });

  it('accepts a server-to-client elicitation/create and rejects one without params', () => {
    const params = { message: 'Your name?', requestedSchema: { type: 'object', properties: {} } };
    const request = { jsonrpc: '2.0', id: 7, method: 'elicitation/create', params };
    assert.deepEqual(validateServerMessage(V2025, request), []);
    assertViolation(validateServerMessage(V2025, { ...request, params: undefined }), "'params'");
  });
});

describe(`${V2026}: stateless wire`, { skip }, () => {
  const discover = {
    resultType: 'complete',
    supportedVersions: [V2025, V2026],
    capabilities: { tools: {} },
    ...cache,
  };

  it('accepts a correct server/discover result', () => {
    assert.deepEqual(validateServerMessage(V2026, ok(discover), 'server/discover'), []);
  });

  it('rejects a server/discover result without supportedVersions', () => {
    const { supportedVersions: _v, ...partial } = discover;
    assertViolation(validateServerMessage(V2026, ok(partial), 'server/discover'), "'supportedVersions'");
  });

  it('has no initialize: an initialize result is a violation', () => {
    const initialize = { resultType: 'complete', protocolVersion: V2026, capabilities: {}, serverInfo };
    assertViolation(
      validateServerMessage(V2026, ok(initialize), 'initialize'),
      "'initialize' is not a client request",
    );
  });

  it('rejects a tools/list result without resultType, ttlMs and cacheScope', () => {
    const violations = validateServerMessage(V2026, ok({ tools: [tool] }), 'tools/list');
    for (const field of ["'resultType'", "'ttlMs'", "'cacheScope'"]) assertViolation(violations, field);
  });

  it('accepts a tools/list result with resultType, ttlMs and cacheScope', () => {
    const list = { resultType: 'complete', tools: [tool], ...cache };
    assert.deepEqual(validateServerMessage(V2026, ok(list), 'tools/list'), []);
  });

  it('rejects a cacheScope outside public/private', () => {
    const list = { resultType: 'complete', tools: [tool], ttlMs: 0, cacheScope: 'shared' };
    assertViolation(validateServerMessage(V2026, ok(list), 'tools/list'), '/cacheScope');
  });

  it('accepts an input-required tools/call result', () => {
    const result = { resultType: 'input_required', requestState: 'sealed' };
    assert.deepEqual(validateServerMessage(V2026, ok(result), 'tools/call'), []);
  });

  it('rejects an input-required result with neither inputRequests nor requestState', () => {
    const result = { resultType: 'input_required' };
    assertViolation(validateServerMessage(V2026, ok(result), 'tools/call'), 'neither inputRequests');
  });

  it('rejects an input-required answer to tools/list', () => {
    const result = { resultType: 'input_required', requestState: 'sealed' };
    assertViolation(
      validateServerMessage(V2026, ok(result), 'tools/list'),
      'may not answer with an input-required',
    );
  });

  it('accepts a -32021 error whose data.requiredCapabilities is a ClientCapabilities object', () => {
    const error = fail(-32021, { requiredCapabilities: { elicitation: { form: {} } } });
    assert.deepEqual(validateServerMessage(V2026, error), []);
  });

  it('rejects a -32021 error whose requiredCapabilities is an array, or which has no data', () => {
    assertViolation(
      validateServerMessage(V2026, fail(-32021, { requiredCapabilities: ['elicitation'] })),
      '/error/data/requiredCapabilities: must be object',
    );
    assertViolation(validateServerMessage(V2026, fail(-32021)), "'data'");
  });

  it('rejects a -32022 error without the supported versions', () => {
    assertViolation(validateServerMessage(V2026, fail(-32022, { requested: 'v999' })), "'supported'");
  });

  it('accepts notifications/subscriptions/acknowledged', () => {
    const params = {
      notifications: { toolsListChanged: true },
      _meta: { 'io.modelcontextprotocol/subscriptionId': 3 },
    };
    const ack = { jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params };
    assert.deepEqual(validateServerMessage(V2026, ack), []);
  });

  it('rejects any server-to-client request (the 2026 wire asks with input-required results)', () => {
    const request = { jsonrpc: '2.0', id: 7, method: 'roots/list' };
    assertViolation(validateServerMessage(V2026, request), 'is not a server-to-client request');
  });
});
