/**
 * The stateless 2026-07-28 wire: every request carries its envelope in `params._meta`
 * (SEP-2575), no session, `server/discover` instead of `initialize`; results carry
 * `resultType`, caching hints and the server's identity; input rounds end the request with an
 * input-required result (SEP-2322); tasks are the `io.modelcontextprotocol/tasks` extension
 * (SEP-2663).
 */
import { ErrorCode, ProtocolError } from '../../base/errors.ts';
import { isObject, type JsonObject, safeText } from '../../base/jsonrpc.ts';
import type { ClientCapabilities, Implementation } from '../../base/spec-types.ts';
import { isLogLevel, logLevelRank } from '../../base/types.ts';
import { VERSION_2026 } from '../../base/versions.ts';
import { isInputRequired } from '../../execution/results.ts';
import { checkEnvelope, checkParamHeaders, checkRoutingHeaders } from './envelope-2026.ts';
import type { RoundContext, TaskWire, WireProfile } from './profile.ts';
import { created2026, declaresTasks, detailed2026, missingTasksExtension } from './task-shapes.ts';
import { META, wellFormedResponses } from './wire.ts';

/** Methods of the 2025 wire that 2026 removed (the handshake, ping, setLevel, subscribe, core tasks). */
const REMOVED = new Set([
  'initialize',
  'ping',
  'logging/setLevel',
  'resources/subscribe',
  'resources/unsubscribe',
  // The 2025-11-25 core tasks methods that SEP-2663 removed.
  'tasks/result',
  'tasks/list',
]);

/** 2026 results that carry caching hints (`ttlMs`, `cacheScope`). */
const CACHEABLE = new Set([
  'server/discover',
  'tools/list',
  'prompts/list',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'skills/list',
  'skills/get',
]);

const NO_CAPABILITIES: ClientCapabilities = Object.freeze({});

/** What binds sealed state to one request: the method and its target. */
function bindingOf(ctx: RoundContext, params: JsonObject | undefined): string {
  const target = params?.name ?? params?.uri ?? '';
  return `${ctx.method}\u0000${safeText(target)}`;
}

function withoutProgressToken(meta: JsonObject): JsonObject {
  const { progressToken: _token, ...rest } = meta;
  return rest;
}

const tasks: TaskWire = {
  // SEP-2663: the server creates a task whenever the request declares the extension.
  requested: (_params, ctx) => declaresTasks(ctx.clientCapabilities),
  required: (tool) => missingTasksExtension(`Tool ${tool} runs only as a task, which`),
  checkSurface(method, ctx) {
    if (!declaresTasks(ctx.clientCapabilities)) throw missingTasksExtension(method);
  },
  ttlMs: () => undefined,
  // The extension is declared in `capabilities.extensions` (server/discover), never as core tasks.
  declaredAt: () => false,
  created: created2026,
  state: detailed2026,
  // SEP-2663: an empty acknowledgement, idempotent on terminal tasks.
  cancelled: () => ({}),
  // SEP-2663: no progress notifications for a task; its progress message is the statusMessage.
  meta: withoutProgressToken,
};

const profile: WireProfile = {
  wire: '2026',
  versions: [VERSION_2026],
  sessions: false,
  inputRoundsInRequest: false,
  tasks,

  // No handshake and no session: a request is on the revision its envelope names, checked in
  // route(); what a session would be served at is this profile's newest revision.
  negotiate() {
    return this.versions[this.versions.length - 1] as string;
  },
  headerVersion() {
    return this.versions[this.versions.length - 1] as string;
  },
  // Batches were removed in 2025-06-18; the 2026 wire refuses them (-32600).
  allowsBatches: () => false,
  // SEP-1303 holds on every revision since 2025-11-25.
  invalidArgumentsAsResult: () => true,

  clientFacts(meta: JsonObject | undefined) {
    // Taken as sent: route() refuses the request before a handler could see an envelope
    // that is not what the wire requires.
    const declared = meta?.[META.protocolVersion];
    const info = meta?.[META.clientInfo];
    const caps = meta?.[META.clientCapabilities];
    const level = meta?.[META.logLevel];
    return {
      protocolVersion: declared === undefined || declared === null ? '' : safeText(declared),
      clientInfo: isObject(info) ? (info as Implementation) : undefined,
      clientCapabilities: isObject(caps) ? (caps as ClientCapabilities) : NO_CAPABILITIES,
      logLevel: isLogLevel(level) ? level : undefined,
    };
  },

  route(req, ex, record, methods) {
    const http = ex.transport === 'http';
    // The envelope's checks; its fields are the record's (read from the same params._meta).
    checkEnvelope(req, ex.headers, http);
    const discover = req.method === 'server/discover';
    const handler = discover ? undefined : methods.get(req.method);
    if (!discover && (!handler || REMOVED.has(req.method))) {
      throw this.methodNotFound(`Method not found: ${req.method}`);
    }
    if (http) checkRoutingHeaders(req, ex.headers);
    const tool = record.target?.kind === 'tool' ? record.target.def : undefined;
    if (http && tool && tool.headerParams.length > 0) {
      const args = req.params?.arguments;
      checkParamHeaders(tool.headerParams, isObject(args) ? args : {}, ex.headers);
    }
    return handler ?? 'discover';
  },

  methodNotFound(message) {
    return new ProtocolError(ErrorCode.MethodNotFound, message, { httpStatus: 404 });
  },

  /**
   * What every 2026 result carries: `resultType` (`complete` unless the handler set one), the
   * caching hints of cacheable results, and the server's identity in `_meta`.
   */
  completeResult(method, result, serverInfo) {
    if (result.resultType === undefined) result.resultType = 'complete';
    if (CACHEABLE.has(method) && result.resultType === 'complete') {
      result.ttlMs ??= 0;
      result.cacheScope ??= 'private';
    }
    // A copy with the key set after (a computed key in a literal is a call into V8's runtime).
    const meta: JsonObject = isObject(result._meta) ? { ...result._meta } : {};
    meta[META.serverInfo] = serverInfo;
    result._meta = meta;
  },

  // SEP-2577: request-scoped, only when the envelope asked for a level.
  logs(level, requestLevel) {
    return requestLevel !== undefined && logLevelRank(level) >= logLevelRank(requestLevel);
  },

  // SEP-2322: the round ends with an input-required result carrying sealed requestState; the
  // client's retry (with inputResponses) runs the handler again.
  // Not an async function: the attempt's promise gets one reaction, with no promise of this
  // function's own awaiting it (a turn less on every call).
  runInput(ctx, params, deps, attempt, finish) {
    let attempted: Promise<unknown>;
    try {
      if (params?.requestState !== undefined)
        ctx.requestState = deps.codec.open(params.requestState, bindingOf(ctx, params));
      ctx.inputResponses = wellFormedResponses(params?.inputResponses);
      attempted = attempt();
    } catch (err) {
      attempted = Promise.reject(err);
    }
    // One reaction, the caller's `finish` in it.
    return attempted.then(
      (out) => {
        if (!isInputRequired(out)) return finish.done({ value: out as never });
        let sealed: string;
        try {
          deps.admit(ctx, out);
          sealed = deps.codec.seal(out.state, bindingOf(ctx, params));
        } catch (err) {
          return finish.failed(err);
        }
        return finish.done({
          inputRequired: {
            resultType: 'input_required',
            inputRequests: out.requests as unknown as JsonObject,
            requestState: sealed,
          },
        });
      },
      (err: unknown) => finish.failed(err),
    );
  },

  resumable: () => false,
  // The header is checked against the envelope, in route().
  versionHeaderRefusal: () => undefined,
};

export const REV2026: WireProfile = Object.freeze(profile);
