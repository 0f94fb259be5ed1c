/**
 * The openapi plugin's checks, for `mcp-toolkit doctor` and `/readyz`: the document loads and
 * gives tools, every offered operation has the credentials its security requires, and the API
 * answers (its own health operation when the document declares one, else a HEAD of the base
 * URL). Details name settings and operations, never a secret.
 */
import type { DoctorCheck } from '@mcp-toolkit/server';
import { baseUrlOf, shownUrl } from './base-url.ts';
import { forwardsUpstreamToken } from './caller-token.ts';
import { credentialsFor } from './credentials.ts';
import type { Operation } from './document.ts';
import { send } from './http-client.ts';
import { type Prepared, prepare } from './prepare.ts';
import { buildRequest } from './request.ts';
import type { OpenapiSettings } from './settings.ts';
import { planInput } from './tool-input.ts';
import { DEFAULT_USER_AGENT } from './tools.ts';

/** A probe must not hold /readyz for long. */
const PROBE_TIMEOUT_MS = 5000;
const HEALTH_PATH = /\/(?:health|healthz|ready|readyz|livez|ping|status)$/i;

/**
 * Runs every check; never throws.
 *
 * @example
 * const healthy = (await checkApi(settings)).every((c) => c.ok);
 */
export async function checkApi(settings: OpenapiSettings): Promise<DoctorCheck[]> {
  let prepared: Prepared;
  try {
    prepared = await prepare(settings);
  } catch (err) {
    return [{ name: 'openapi document loads', ok: false, kind: 'config', detail: (err as Error).message }];
  }
  const { api } = prepared.loaded;
  const skipped = prepared.skipped.map((s) => `${s.label}: ${s.reason}`);
  const checks: DoctorCheck[] = [
    {
      name: 'openapi document loads',
      ok: true,
      kind: 'config',
      detail: `${api.info.title} ${api.info.version}, OpenAPI ${api.openapi}: ${prepared.tools.length} tool(s)${skipped.length > 0 ? `; not offered: ${skipped.join('; ')}` : ''}`,
    },
  ];
  checks.push(credentialCheck(prepared));
  checks.push(await reachability(prepared, settings));
  return checks;
}

/**
 * The operations left out for want of credentials, grouped by what they need
 * (`DELETE /pets/{petId} (deletePet) need MCP_OPENAPI_API_KEY (scheme "api_key")`); undefined
 * when none are.
 */
export function missingCredentials(prepared: Prepared): string | undefined {
  const byNeed = new Map<string, string[]>();
  for (const { label, need } of prepared.uncredentialed)
    byNeed.set(need, [...(byNeed.get(need) ?? []), label]);
  if (byNeed.size === 0) return undefined;
  return [...byNeed.entries()].map(([need, ops]) => `${ops.join(', ')} need ${need}`).join('; ');
}

/**
 * An `advice` check: the plugin serves the other operations, so neither start-up nor /readyz
 * depends on it.
 */
function credentialCheck(prepared: Prepared): DoctorCheck {
  const missing = missingCredentials(prepared);
  if (missing === undefined) return { name: 'openapi credentials', ok: true, kind: 'advice' };
  return { name: 'openapi credentials', ok: false, kind: 'advice', detail: `not offered: ${missing}` };
}

/** The operation doctor calls: MCP_OPENAPI_HEALTH_OPERATION, else one that looks like a health check. */
function healthOperation(prepared: Prepared, settings: OpenapiSettings): Operation | undefined {
  // Only the operations offered as tools: one left out for want of credentials would be
  // refused by the API on every probe, and /readyz would never pass.
  const all = prepared.offered;
  if (settings.healthOperation !== undefined) {
    return all.find((op) => op.operation.operationId === settings.healthOperation);
  }
  return all.find((op) => {
    if (op.method !== 'get' || !HEALTH_PATH.test(op.path)) return false;
    const plan = planInput(op, '3.1', []);
    return !('unsupported' in plan) && (plan.schema.required as string[] | undefined) === undefined;
  });
}

async function reachability(prepared: Prepared, settings: OpenapiSettings): Promise<DoctorCheck> {
  const name = 'openapi API answers';
  const { api } = prepared.loaded;
  const documentUrl = prepared.loaded.url;
  if (settings.healthOperation !== undefined && healthOperation(prepared, settings) === undefined) {
    // A setting that can never work: start-up stops with it rather than never being ready.
    return {
      name,
      ok: false,
      kind: 'config',
      detail: `MCP_OPENAPI_HEALTH_OPERATION names "${settings.healthOperation}", which is not among the offered operations`,
    };
  }
  const health = healthOperation(prepared, settings);
  const timeoutMs = Math.min(settings.timeoutMs, PROBE_TIMEOUT_MS);
  const userAgent = settings.userAgent ?? DEFAULT_USER_AGENT;
  try {
    const baseUrl = baseUrlOf(health ?? prepared.selected[0], api, {
      baseUrl: settings.baseUrl,
      documentUrl,
    });
    const options = {
      timeoutMs,
      retries: 0,
      maxBytes: 4096,
      signal: new AbortController().signal,
      secretHeaders: [],
      secretQuery: [],
    };
    if (health !== undefined) {
      const plan = planInput(health, '3.1', []);
      if ('unsupported' in plan) throw new Error(plan.unsupported);
      const { credentials } = credentialsFor(health, api, settings);
      const sent = await send(
        buildRequest(health, plan, {}, { baseUrl, credentials, userAgent, accept: '*/*' }),
        options,
      );
      // An operation called with each caller's upstream token has no user to act as here: a
      // refusal (401, 403) still shows the API is up, as a HEAD of the base URL would.
      const asCaller = forwardsUpstreamToken(health, settings.forwardUpstreamToken);
      const ok = sent.kind === 'response' && sent.status >= 200 && sent.status < (asCaller ? 500 : 300);
      const note = asCaller ? " (probed without a user: its calls carry the caller's upstream token)" : '';
      return {
        name,
        ok,
        detail: `${health.label} at ${shownUrl(baseUrl)}: ${sent.kind === 'response' ? `HTTP ${sent.status}` : sent.kind === 'timeout' ? `no answer within ${timeoutMs} ms` : sent.code}${note}`,
      };
    }
    const headers = new Headers({ 'user-agent': userAgent });
    const sent = await send({ method: 'HEAD', url: new URL(baseUrl), headers, body: undefined }, options);
    // Any HTTP answer below 500 (even 401 or 404 at the bare base URL) shows the API is up.
    const ok = sent.kind === 'response' && sent.status < 500;
    return {
      name,
      ok,
      detail: `HEAD ${shownUrl(baseUrl)}: ${sent.kind === 'response' ? `HTTP ${sent.status}` : sent.kind === 'timeout' ? `no answer within ${timeoutMs} ms` : sent.code}`,
    };
  } catch (err) {
    return { name, ok: false, detail: (err as Error).message };
  }
}
