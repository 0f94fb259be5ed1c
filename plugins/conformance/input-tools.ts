/**
 * Tools that ask the client for input through the one input API (`ctx.askInput`): on the
 * 2025 wire each request goes out as a real server-to-client request; on the 2026 wire the
 * round ends with an input-required result. The handlers do not know which.
 */

import { defineTool, type JsonObject, type ToolDefinition } from '@mcp-toolkit/server';
import { z } from 'zod';
import { elicited, sampledText } from './answers.ts';

function describeAnswer(prefix: string, answer: { action: string; content?: unknown }): string {
  return `${prefix}: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`;
}

/** SEP-1034: defaults for every primitive type. */
const DEFAULTS_SCHEMA: JsonObject = {
  type: 'object',
  properties: {
    name: { type: 'string', description: 'User name', default: 'John Doe' },
    age: { type: 'integer', description: 'User age', default: 30 },
    score: { type: 'number', description: 'User score', default: 95.5 },
    status: {
      type: 'string',
      description: 'User status',
      enum: ['active', 'inactive', 'pending'],
      default: 'active',
    },
    verified: { type: 'boolean', description: 'Verification status', default: true },
  },
};

/** SEP-1330: the five enum shapes, titled and untitled, single and multiple choice. */
const ENUMS_SCHEMA: JsonObject = {
  type: 'object',
  properties: {
    untitledSingle: {
      type: 'string',
      description: 'Untitled single choice',
      enum: ['option1', 'option2', 'option3'],
    },
    titledSingle: {
      type: 'string',
      description: 'Titled single choice',
      oneOf: [
        { const: 'value1', title: 'First Option' },
        { const: 'value2', title: 'Second Option' },
        { const: 'value3', title: 'Third Option' },
      ],
    },
    legacyEnum: {
      type: 'string',
      description: 'Legacy titled choice',
      enum: ['opt1', 'opt2', 'opt3'],
      enumNames: ['Option One', 'Option Two', 'Option Three'],
    },
    untitledMulti: {
      type: 'array',
      description: 'Untitled multiple choice',
      items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
    },
    titledMulti: {
      type: 'array',
      description: 'Titled multiple choice',
      items: {
        anyOf: [
          { const: 'value1', title: 'First Choice' },
          { const: 'value2', title: 'Second Choice' },
          { const: 'value3', title: 'Third Choice' },
        ],
      },
    },
  },
};

/** A tool that elicits with `schema` once and reports what came back. */
function elicitOnce(name: string, description: string, message: string, schema: JsonObject): ToolDefinition {
  return defineTool({ name, description }, async (_args, ctx) => {
    if (ctx.inputResponses === undefined) {
      return ctx.askInput({ form: ctx.elicit({ message, requestedSchema: schema }) });
    }
    const answer = elicited(ctx, 'form');
    if (!answer)
      return { content: [{ type: 'text', text: 'The client sent no valid answer' }], isError: true };
    return describeAnswer('Elicitation completed', answer);
  });
}

export function inputTools(): ToolDefinition[] {
  return [
    defineTool(
      {
        name: 'test_sampling',
        description: 'Asks the client to sample a completion of the prompt',
        input: z.object({ prompt: z.string().describe('The prompt to send to the LLM') }),
      },
      async ({ prompt }, ctx) => {
        if (ctx.inputResponses === undefined) {
          return ctx.askInput({
            completion: ctx.sample({
              messages: [{ role: 'user', content: { type: 'text', text: prompt } }],
              maxTokens: 100,
            }),
          });
        }
        const text = sampledText(ctx, 'completion');
        if (text === undefined) {
          return { content: [{ type: 'text', text: 'The client sent no text completion' }], isError: true };
        }
        return `LLM response: ${text}`;
      },
    ),
    defineTool(
      {
        name: 'test_elicitation',
        description: 'Asks the user for a username and an email address',
        input: z.object({ message: z.string().describe('The message to show the user') }),
      },
      async ({ message }, ctx) => {
        if (ctx.inputResponses === undefined) {
          return ctx.askInput({
            user: ctx.elicit({
              message,
              requestedSchema: {
                type: 'object',
                properties: {
                  username: { type: 'string', description: "User's response" },
                  email: { type: 'string', description: "User's email address" },
                },
                required: ['username', 'email'],
              },
            }),
          });
        }
        const answer = elicited(ctx, 'user');
        if (!answer)
          return { content: [{ type: 'text', text: 'The client sent no valid answer' }], isError: true };
        return describeAnswer('User response', answer);
      },
    ),
    elicitOnce(
      'test_elicitation_sep1034_defaults',
      'Elicits a form whose fields all carry defaults (SEP-1034)',
      'Please review and update the form fields with defaults',
      DEFAULTS_SCHEMA,
    ),
    elicitOnce(
      'test_elicitation_sep1330_enums',
      'Elicits a form with every enum variant (SEP-1330)',
      'Please select options from the enum fields',
      ENUMS_SCHEMA,
    ),
    // Needs sampling: a client that did not declare it gets -32021 with requiredCapabilities.
    defineTool(
      { name: 'test_missing_capability', description: 'Needs the client to support sampling' },
      async (_args, ctx) => {
        if (ctx.inputResponses === undefined) {
          return ctx.askInput({
            answer: ctx.sample({
              messages: [{ role: 'user', content: { type: 'text', text: 'Say hello' } }],
              maxTokens: 20,
            }),
          });
        }
        return `Sampled: ${sampledText(ctx, 'answer') ?? '(no text)'}`;
      },
    ),
  ];
}
