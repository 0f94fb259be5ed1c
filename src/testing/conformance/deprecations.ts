/**
 * What the report says of the features MCP 2026-07-28 deprecates (SEP-2577: Roots, Sampling
 * and Logging; removal no earlier than 2027-07-28): which of them the server was seen using
 * during the run, and how it was seen. They are still served to clients that use them, so this
 * is a note for the server's author, not a check: it never fails or warns a run.
 */
import { isObject, type JsonObject } from '../../base/jsonrpc.ts';
import { VERSION_2026 } from '../../base/versions.ts';
import type { RecordedResponse } from '../client/probe-responses.ts';

export interface DeprecatedUse {
  feature: 'logging' | 'sampling' | 'roots';
  /** How the run saw it, e.g. `the server declares the logging capability`. */
  evidence: string;
}

const FEATURE_OF: Readonly<Record<string, 'sampling' | 'roots'>> = {
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
};

/** The input requests of a 2026 input-required result, by method. */
function inputMethods(response: JsonObject): string[] {
  const result = response.result;
  if (!isObject(result) || !isObject(result.inputRequests)) return [];
  return Object.values(result.inputRequests).flatMap((r) =>
    isObject(r) && typeof r.method === 'string' ? [r.method] : [],
  );
}

/**
 * The deprecated features seen: the `logging` capability, `notifications/message` sent,
 * `sampling/createMessage` or `roots/list` asked as server-to-client requests (2025 wire) or
 * as input requests of an input-required result (2026 wire). One entry per feature.
 */
export function deprecatedUses(seen: {
  capabilities: JsonObject | undefined;
  serverRequests: readonly JsonObject[];
  notifications: readonly JsonObject[];
  responses: readonly RecordedResponse[];
}): DeprecatedUse[] {
  const uses = new Map<DeprecatedUse['feature'], string>();
  if (seen.capabilities !== undefined && isObject(seen.capabilities.logging))
    uses.set('logging', 'the server declares the logging capability');
  if (!uses.has('logging') && seen.notifications.some((n) => n.method === 'notifications/message'))
    uses.set('logging', 'the server sent notifications/message');
  for (const request of seen.serverRequests) {
    const feature = FEATURE_OF[String(request.method)];
    if (feature !== undefined && !uses.has(feature))
      uses.set(feature, `the server sent ${String(request.method)} to the client`);
  }
  for (const { response, request } of seen.responses) {
    for (const method of inputMethods(response)) {
      const feature = FEATURE_OF[method];
      const tool = isObject(request?.params) ? request.params.name : undefined;
      if (feature !== undefined && !uses.has(feature))
        uses.set(
          feature,
          `an input-required result asked for ${method}${typeof tool === 'string' ? ` (tool ${tool})` : ''}`,
        );
    }
  }
  const order: DeprecatedUse['feature'][] = ['logging', 'sampling', 'roots'];
  return order.flatMap((feature) => {
    const evidence = uses.get(feature);
    return evidence === undefined ? [] : [{ feature, evidence }];
  });
}

const NAMES: Readonly<Record<DeprecatedUse['feature'], string>> = {
  logging: 'Logging',
  sampling: 'Sampling',
  roots: 'Roots',
};

/** The report's lines for them (none when nothing deprecated was seen). */
export function formatDeprecations(uses: readonly DeprecatedUse[]): string[] {
  if (uses.length === 0) return [];
  return [
    `Deprecated in MCP ${VERSION_2026} (SEP-2577), still served to clients that use them:`,
    ...uses.map((u) => `  ${NAMES[u.feature]}: ${u.evidence}`),
  ];
}
