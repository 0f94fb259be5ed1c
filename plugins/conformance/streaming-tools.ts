/**
 * Tools that talk while they run: log and progress notifications on the call's stream, a
 * tool that drops its SSE connection mid-call (SEP-1699 polling), request-scoped logging on
 * the 2026 wire (SEP-2577), and tools that announce list changes to listeners.
 */
import { defineTool, type PluginApp, type ToolDefinition } from '@mcp-toolkit/server';

/** Waits `ms`, or less when the call is cancelled. */
export function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

const STEP_MS = 50;

export function streamingTools(app: PluginApp): ToolDefinition[] {
  return [
    defineTool(
      { name: 'test_tool_with_logging', description: 'Sends three info log messages while it runs' },
      async (_args, ctx) => {
        await ctx.log('info', 'Tool execution started');
        await delay(STEP_MS, ctx.signal);
        await ctx.log('info', 'Tool processing data');
        await delay(STEP_MS, ctx.signal);
        await ctx.log('info', 'Tool execution completed');
        return 'Tool with logging executed successfully';
      },
    ),
    defineTool(
      {
        name: 'test_tool_with_progress',
        description: 'Reports progress 0, 50 and 100 of 100 when the request has a progressToken',
      },
      async (_args, ctx) => {
        await ctx.progress(0, 100);
        await delay(STEP_MS, ctx.signal);
        await ctx.progress(50, 100);
        await delay(STEP_MS, ctx.signal);
        await ctx.progress(100, 100);
        return 'Tool with progress executed successfully';
      },
    ),
    defineTool(
      {
        name: 'test_reconnection',
        description: 'Closes its SSE stream mid-call; the result arrives after the client reconnects',
      },
      async (_args, ctx) => {
        await ctx.closeStream();
        await delay(100, ctx.signal);
        return 'Reconnection test completed: the result was delivered after the stream was resumed';
      },
    ),
    defineTool(
      { name: 'test_logging_tool', description: 'Logs at info and debug through the request-scoped logger' },
      async (_args, ctx) => {
        await ctx.log('info', 'Logging tool: info message');
        await ctx.log('debug', 'Logging tool: debug message');
        return 'Logging tool executed';
      },
    ),
    defineTool(
      {
        name: 'test_streaming_elicitation',
        description: 'Returns a plain result; it never sends a request to the client on its stream',
      },
      async () => 'Streaming elicitation test: completed without a server-to-client request',
    ),
    defineTool(
      { name: 'test_trigger_tool_change', description: 'Announces that the tool list changed' },
      async () => {
        app.notifyListChanged('tools');
        return 'Tool list change announced';
      },
    ),
    defineTool(
      { name: 'test_trigger_prompt_change', description: 'Announces that the prompt list changed' },
      async () => {
        app.notifyListChanged('prompts');
        return 'Prompt list change announced';
      },
    ),
  ];
}
