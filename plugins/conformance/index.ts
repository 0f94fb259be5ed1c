/**
 * The conformance plugin: the fixture the official MCP conformance suite
 * (`@modelcontextprotocol/conformance`, server mode) runs against, on both protocol
 * generations through the normal server path. `MCP_PLUGINS=conformance` loads it;
 * `npm run conformance` starts it and runs the suite.
 *
 * What each tool, resource and prompt must do is in ../shared/conformance/fixture-contract.md
 * (§5-§7). Nothing here is special-cased in the core: input rounds use `ctx.askInput`,
 * list changes use `app.notifyListChanged`, stream polling uses `ctx.closeStream`.
 */
import { definePlugin } from '../../src/index.ts';
import { contentTools, xMcpHeaderTool } from './content-tools.ts';
import { inputRequiredTools } from './input-required-tools.ts';
import { inputTools } from './input-tools.ts';
import { prompts } from './prompts.ts';
import { resources } from './resources.ts';
import { streamingTools } from './streaming-tools.ts';
import { taskTools } from './task-tools.ts';

/**
 * @example
 * const client = await TestClient.start({ plugins: [conformancePlugin] });
 * await client.callText('test_simple_text'); // 'This is a simple text response for testing.'
 */
export const conformancePlugin = definePlugin({
  name: 'conformance',
  description:
    'The fixture of the official MCP conformance suite: test_* tools, test:// resources and test_* prompts.',
  register(app) {
    // The header-validation scenario calls the first listed tool with {}: keep this one first.
    app.add(xMcpHeaderTool);
    app.add(
      ...contentTools(),
      ...streamingTools(app),
      ...inputTools(),
      ...inputRequiredTools(),
      ...taskTools(),
    );
    app.add(...resources(), ...prompts());
  },
});

export default conformancePlugin;
