/**
 * Multi-round-trip tools (SEP-2322): each asks for input in one or more rounds, carrying
 * its progress in the round's state (sealed by the server, never kept in its memory), and
 * finishes once every answer it needs is in. A missing or malformed answer is asked again.
 */
import { defineTool, type HandlerContext, type InputRequest, type ToolDefinition } from '@mcp-toolkit/server';
import { acceptedText, elicited, rootUris, sampledText } from './answers.ts';

const NAME_SCHEMA = {
  type: 'object',
  properties: { name: { type: 'string' } },
  required: ['name'],
};

function askName(ctx: HandlerContext, message = 'What is your name?'): InputRequest {
  return ctx.elicit({ message, requestedSchema: NAME_SCHEMA });
}

function askCapital(ctx: HandlerContext): InputRequest {
  return ctx.sample({
    messages: [{ role: 'user', content: { type: 'text', text: 'What is the capital of France?' } }],
    maxTokens: 100,
  });
}

/** The round number a multi-round state carries, or 1 when there is none. */
function stepOf(state: unknown): { step: number; name?: string } {
  if (typeof state === 'object' && state !== null && typeof (state as { step?: unknown }).step === 'number') {
    return state as { step: number; name?: string };
  }
  return { step: 1 };
}

export function inputRequiredTools(): ToolDefinition[] {
  return [
    defineTool(
      { name: 'test_input_required_result_elicitation', description: "Asks for the user's name" },
      async (_args, ctx) => {
        const name = acceptedText(elicited(ctx, 'user_name'), 'name');
        if (name === undefined) return ctx.askInput({ user_name: askName(ctx) });
        return `Hello, ${name}!`;
      },
    ),
    defineTool(
      { name: 'test_input_required_result_sampling', description: 'Asks the client model a question' },
      async (_args, ctx) => {
        const text = sampledText(ctx, 'capital_question');
        if (text === undefined) return ctx.askInput({ capital_question: askCapital(ctx) });
        return `The model answered: ${text}`;
      },
    ),
    defineTool(
      { name: 'test_input_required_result_list_roots', description: "Asks for the client's roots" },
      async (_args, ctx) => {
        const roots = rootUris(ctx, 'client_roots');
        if (roots === undefined) return ctx.askInput({ client_roots: ctx.listRoots() });
        return `Client roots: ${roots.join(', ') || '(none)'}`;
      },
    ),
    defineTool(
      {
        name: 'test_input_required_result_request_state',
        description: 'Asks for a confirmation and checks the state it attached comes back intact',
      },
      async (_args, ctx) => {
        const answer = elicited(ctx, 'confirm');
        const state = ctx.requestState as { purpose?: unknown } | undefined;
        if (answer === undefined || state?.purpose !== 'confirm') {
          const confirm = ctx.elicit({
            message: 'Please confirm',
            requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
          });
          return ctx.askInput({ confirm }, { purpose: 'confirm' });
        }
        return `state-ok: the request state came back intact (action=${answer.action})`;
      },
    ),
    defineTool(
      {
        name: 'test_input_required_result_multiple_inputs',
        description: 'Asks for an elicitation, a sampling and the roots in one round',
      },
      async (_args, ctx) => {
        const name = acceptedText(elicited(ctx, 'user_name'), 'name');
        const greeting = sampledText(ctx, 'greeting');
        const roots = rootUris(ctx, 'client_roots');
        if (name === undefined || greeting === undefined || roots === undefined) {
          return ctx.askInput(
            {
              user_name: askName(ctx),
              greeting: ctx.sample({
                messages: [{ role: 'user', content: { type: 'text', text: 'Generate a greeting' } }],
                maxTokens: 50,
              }),
              client_roots: ctx.listRoots(),
            },
            { round: 1 },
          );
        }
        return `name=${name}, greeting=${greeting}, roots=${roots.join(', ') || '(none)'}`;
      },
    ),
    defineTool(
      {
        name: 'test_input_required_result_multi_round',
        description: 'Asks for a name, then a favourite colour, in two rounds',
      },
      async (_args, ctx) => {
        const { step, name } = stepOf(ctx.requestState);
        if (step === 2) {
          const color = acceptedText(elicited(ctx, 'step2'), 'color');
          if (color !== undefined) return `${name ?? 'Someone'} likes ${color}`;
        }
        const answered = step === 1 ? acceptedText(elicited(ctx, 'step1'), 'name') : name;
        if (answered === undefined) {
          return ctx.askInput({ step1: askName(ctx, 'Step 1: What is your name?') }, { step: 1 });
        }
        const step2 = ctx.elicit({
          message: 'Step 2: What is your favorite color?',
          requestedSchema: { type: 'object', properties: { color: { type: 'string' } }, required: ['color'] },
        });
        return ctx.askInput({ step2 }, { step: 2, name: answered });
      },
    ),
    defineTool(
      {
        name: 'test_input_required_result_tampered_state',
        description: 'Asks for a name; its integrity-protected state must come back unchanged',
      },
      async (_args, ctx) => {
        const name = acceptedText(elicited(ctx, 'user_name'), 'name');
        if (name === undefined || ctx.requestState === undefined) {
          return ctx.askInput({ user_name: askName(ctx) }, { issued: 'tampered_state' });
        }
        return `Hello, ${name}: the state was intact`;
      },
    ),
    // Builds its requests from what the client declared: never elicits from a client without elicitation.
    defineTool(
      {
        name: 'test_input_required_result_capabilities',
        description: 'Asks for input only through the capabilities the client declared',
      },
      async (_args, ctx) => {
        const caps = ctx.clientCapabilities as Record<string, unknown>;
        const requests: Record<string, InputRequest> = {};
        if (caps.elicitation !== undefined && elicited(ctx, 'user_name') === undefined) {
          requests.user_name = askName(ctx);
        }
        if (caps.sampling !== undefined && sampledText(ctx, 'capital_question') === undefined) {
          requests.capital_question = askCapital(ctx);
        }
        if (caps.roots !== undefined && rootUris(ctx, 'client_roots') === undefined) {
          requests.client_roots = ctx.listRoots();
        }
        if (Object.keys(requests).length > 0) return ctx.askInput(requests);
        return 'Every input the client could give is in';
      },
    ),
  ];
}
