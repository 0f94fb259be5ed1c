/**
 * Saying, once per tool, that it asks the client for something MCP 2026-07-28 deprecates.
 * SEP-2577 deprecates Sampling and Roots (and Logging): still served to clients that declare
 * them, removal no earlier than 2027-07-28, so a server author should hear it before the
 * clients stop answering. A tool that declares `asks: ['sampling']` is named when the server
 * starts; a tool that asks without declaring it is named on its first such round (the server
 * cannot see inside a handler before it runs). Either way, one warning per tool per server.
 */
import type { Logger } from 'pino';
import { VERSION_2026 } from '../base/versions.ts';
import type { ToolDefinition } from '../registry/define.ts';
import type { ClientFeature, InputRequired } from '../registry/types.ts';

/** The revision that deprecates them, as the warning names it. */
const DEPRECATING_REVISION = VERSION_2026;

const DEPRECATED_FEATURES: readonly ClientFeature[] = ['sampling', 'roots'];

const FEATURE_OF: Readonly<Record<string, ClientFeature>> = {
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
};

export interface DeprecatedInputNotices {
  /** Warns for each tool whose `asks` lists sampling or roots (called once registration is done). */
  atStart(tools: Iterable<ToolDefinition>): void;
  /** Warns for a tool's round that asks for sampling or roots, unless that tool was named already. */
  onRound(tool: string | undefined, round: InputRequired): void;
}

function message(tool: string, features: readonly ClientFeature[], declared: boolean): string {
  const what = features.join(' and ');
  return (
    `tool "${tool}" asks the client for ${what}, which MCP ${DEPRECATING_REVISION} deprecates (SEP-2577): ` +
    `still served to clients that declare ${what}, but plan for clients that do not` +
    (declared
      ? ''
      : ` (declare asks: [${features.map((f) => `'${f}'`).join(', ')}] on the tool to hear this at start)`)
  );
}

/**
 * @example
 * const notices = deprecatedInputNotices(logger);
 * notices.atStart(registry.tools()); // one warning per tool declaring asks: ['sampling']
 */
export function deprecatedInputNotices(logger: Logger): DeprecatedInputNotices {
  const named = new Set<string>();
  return {
    atStart(tools) {
      for (const def of tools) {
        const features = DEPRECATED_FEATURES.filter((f) => def.spec.asks?.includes(f));
        if (features.length === 0 || named.has(def.name)) continue;
        named.add(def.name);
        logger.warn(
          { tool: def.name, deprecated: features, revision: DEPRECATING_REVISION },
          message(def.name, features, true),
        );
      }
    },
    onRound(tool, round) {
      if (tool === undefined || named.has(tool)) return;
      const features = [...new Set(Object.values(round.requests).flatMap((r) => FEATURE_OF[r.method] ?? []))];
      if (features.length === 0) return;
      named.add(tool);
      logger.warn(
        { tool, deprecated: features, revision: DEPRECATING_REVISION },
        message(tool, features, false),
      );
    },
  };
}
