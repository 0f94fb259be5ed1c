/**
 * The methods of the skills extension (SEP-2640): `skills/list` (paginated; an entry is one
 * item, so never split across pages), `skills/get` (-32602 for a URI that names no served
 * skill) and `resources/directory/read` (declared with `directoryRead: true`; -32602 for
 * anything that is not a directory resource). The dispatcher adds `ttlMs`/`cacheScope` to
 * the first two on 2026, as for the other cacheable results.
 */
import { ErrorCode, ProtocolError } from '../base/errors.ts';
import type { JsonObject } from '../base/jsonrpc.ts';
import type { MethodHandler, MethodSet } from '../protocol/methods.ts';
import type { RequestContext } from '../protocol/request-context.ts';
import { paginate } from '../registry/registry.ts';
import type { SkillCatalog } from './catalog.ts';

const SKILLS_EXTENSION_ID = 'io.modelcontextprotocol/skills';

/** What the server declares under `capabilities.extensions` when it serves skills (settings inline, SEP-2133). */
const SKILLS_EXTENSION: JsonObject = Object.freeze({
  [SKILLS_EXTENSION_ID]: { directoryRead: true },
});

function catalogFor(ctx: RequestContext, catalog: SkillCatalog | undefined, method: string): SkillCatalog {
  if (catalog) return catalog;
  throw ctx.record.profile.methodNotFound(`Method not found: ${method} (this server serves no skills)`);
}

function uriParam(params: JsonObject | undefined): string {
  const uri = params?.uri;
  if (typeof uri !== 'string' || uri === '') {
    throw new ProtocolError(ErrorCode.InvalidParams, 'params.uri must be a non-empty string');
  }
  return uri;
}

/** A skills method, with the catalog it serves (undefined: no MCP_SKILLS_DIR). */
type SkillMethod = (
  skills: SkillCatalog | undefined,
  ...args: Parameters<MethodHandler>
) => Promise<JsonObject>;

const skillsList: SkillMethod = async (skills, params, ctx, deps) => {
  const catalog = catalogFor(ctx, skills, 'skills/list');
  const page = paginate(
    catalog.skills.map((s) => s.entry),
    params?.cursor,
    deps.pageSize,
  );
  const result: JsonObject = { skills: page.items };
  if (page.nextCursor !== undefined) result.nextCursor = page.nextCursor;
  return result;
};

const skillsGet: SkillMethod = async (skills, params, ctx) => {
  const catalog = catalogFor(ctx, skills, 'skills/get');
  const uri = uriParam(params);
  const skill = catalog.skill(uri);
  if (!skill) {
    throw new ProtocolError(ErrorCode.InvalidParams, `No skill is served at ${uri}`, { data: { uri } });
  }
  return { skill: skill.entry };
};

const directoryRead: SkillMethod = async (skills, params, ctx, deps) => {
  const catalog = catalogFor(ctx, skills, 'resources/directory/read');
  const uri = uriParam(params);
  const children = catalog.directory(uri);
  if (!children) {
    const why = catalog.file(uri)
      ? 'is a file, not a directory resource'
      : 'is not a directory this server serves';
    throw new ProtocolError(ErrorCode.InvalidParams, `${uri} ${why}`, { data: { uri } });
  }
  const page = paginate(children, params?.cursor, deps.pageSize);
  const result: JsonObject = { resources: page.items };
  if (page.nextCursor !== undefined) result.nextCursor = page.nextCursor;
  return result;
};

const SKILL_METHODS: Readonly<Record<string, SkillMethod>> = {
  'skills/list': skillsList,
  'skills/get': skillsGet,
  'resources/directory/read': directoryRead,
};

/**
 * The skills methods around a catalog. Without one they are still routed, and answer that
 * this server serves no skills (-32601; 404 on the 2026 wire); only with one is the extension
 * declared.
 *
 * @example
 * new Dispatcher({ ...options, methodSets: [skillMethods(await loadSkillCatalog(dir, logger))] });
 */
export function skillMethods(catalog: SkillCatalog | undefined): MethodSet {
  const methods: Record<string, MethodHandler> = {};
  for (const [name, method] of Object.entries(SKILL_METHODS)) {
    methods[name] = (params, ctx, deps) => method(catalog, params, ctx, deps);
  }
  return catalog ? { methods, extensions: SKILLS_EXTENSION } : { methods };
}
