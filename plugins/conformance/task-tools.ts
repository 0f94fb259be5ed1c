/**
 * The fixtures of the suite's `tasks-*` scenarios (SEP-2663; names and behaviour from the
 * scenarios' "Required server fixtures"): one plain tool and six that run as tasks. Each is
 * an ordinary handler with `task` set; the framework makes it a task, runs it in the
 * background, and turns its input rounds into `input_required` states.
 */
import { z } from 'zod';
import { defineTool, ErrorCode, ProtocolError, type ToolDefinition } from '../../src/index.ts';
import { acceptedText, elicited } from './answers.ts';
import { delay } from './streaming-tools.ts';

const CONFIRM_SCHEMA = {
  type: 'object',
  properties: { confirm: { type: 'boolean', description: 'Whether to go ahead' } },
  required: ['confirm'],
};

const NAME_SCHEMA = {
  type: 'object',
  properties: { name: { type: 'string', description: 'Your name' } },
  required: ['name'],
};

export function taskTools(): ToolDefinition[] {
  return [
    defineTool(
      {
        name: 'greet',
        title: 'Greet',
        description: 'Greets someone (a plain call, never a task)',
        input: z.object({ name: z.string().describe('Who to greet') }),
        annotations: { readOnlyHint: true },
      },
      async ({ name }) => `Hello, ${name}!`,
    ),
    defineTool(
      {
        name: 'slow_compute',
        title: 'Slow computation',
        description:
          'Works for the given number of seconds, then reports; runs as a task when the client can take one',
        input: z.object({
          seconds: z.number().min(0).max(60).describe('How long the work takes'),
          label: z.string().optional().describe('A label echoed in the result'),
        }),
        task: 'optional',
        annotations: { readOnlyHint: true },
      },
      async ({ seconds, label }, ctx) => {
        const steps = Math.max(1, Math.ceil(seconds));
        for (let i = 0; i < steps && !ctx.signal.aborted; i++) {
          await ctx.progress(i, steps, `step ${i + 1} of ${steps}`);
          await delay((seconds * 1000) / steps, ctx.signal);
        }
        return `Computed ${label ?? 'the result'} in ${seconds} s`;
      },
    ),
    defineTool(
      {
        name: 'failing_job',
        description: 'Runs only as a task and ends, after about a second, with a tool error',
        task: 'required',
      },
      async (_args, ctx) => {
        await delay(1000, ctx.signal);
        return {
          kind: 'tool_result',
          isError: true,
          content: [{ type: 'text', text: 'The job failed: disk full' }],
        };
      },
    ),
    defineTool(
      {
        name: 'protocol_error_job',
        description: 'Runs only as a task and fails with a JSON-RPC error (the task ends failed)',
        task: 'required',
      },
      async (_args, ctx) => {
        await delay(200, ctx.signal);
        throw new ProtocolError(ErrorCode.InternalError, 'The job crashed: its worker went away');
      },
    ),
    defineTool(
      {
        name: 'confirm_delete',
        title: 'Confirm and delete',
        description: 'Asks the user to confirm, then deletes (pretends to) the file',
        input: z.object({ filename: z.string().describe('The file to delete') }),
        task: 'optional',
        annotations: { destructiveHint: true },
      },
      async ({ filename }, ctx) => {
        const answer = elicited(ctx, 'confirm');
        if (answer === undefined) {
          return ctx.askInput({
            confirm: ctx.elicit({ message: `Delete ${filename}?`, requestedSchema: CONFIRM_SCHEMA }),
          });
        }
        const yes = answer.action === 'accept' && answer.content?.confirm === true;
        return yes ? `Deleted ${filename}` : `Kept ${filename}`;
      },
    ),
    defineTool(
      {
        name: 'multi_input',
        description: 'Asks two questions at once and finishes when both are answered',
        task: 'optional',
      },
      async (_args, ctx) => {
        const first = elicited(ctx, 'first');
        const second = elicited(ctx, 'second');
        if (first === undefined || second === undefined) {
          return ctx.askInput({
            first: ctx.elicit({ message: 'First answer?', requestedSchema: NAME_SCHEMA }),
            second: ctx.elicit({ message: 'Second answer?', requestedSchema: NAME_SCHEMA }),
          });
        }
        return `Answers: ${acceptedText(first, 'name') ?? first.action}, ${acceptedText(second, 'name') ?? second.action}`;
      },
    ),
    defineTool(
      {
        name: 'test_tool_with_task',
        description: "Asks for the user's name on the call itself, then greets them from a task",
        task: 'required',
        // Resolved before the task exists (SEP-2663: MRTR rounds before CreateTaskResult).
        beforeTask: (_args, ctx) => {
          if (acceptedText(elicited(ctx, 'user_name'), 'name') !== undefined) return undefined;
          return ctx.askInput({
            user_name: ctx.elicit({ message: 'What is your name?', requestedSchema: NAME_SCHEMA }),
          });
        },
      },
      async (_args, ctx) => {
        await delay(300, ctx.signal);
        return `Hello, ${acceptedText(elicited(ctx, 'user_name'), 'name')}!`;
      },
    ),
  ];
}
