/**
 * The fixture's prompts: plain, with (completable) arguments, with an embedded resource, with
 * an image, and one that asks the client for context before it answers (SEP-2322).
 */
import { definePrompt, type PromptDefinition } from '@mcp-toolkit/server';
import { acceptedText, elicited } from './answers.ts';
import { PNG_BASE64 } from './media.ts';

const ARG1_SUGGESTIONS = ['paris', 'park', 'party', 'test', 'testing', 'testValue1'];

export function prompts(): PromptDefinition[] {
  return [
    definePrompt({ name: 'test_simple_prompt', description: 'A prompt without arguments' }, async () => [
      { role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } },
    ]),
    definePrompt(
      {
        name: 'test_prompt_with_arguments',
        description: 'A prompt with two required arguments',
        arguments: [
          {
            name: 'arg1',
            description: 'First test argument',
            required: true,
            complete: async (value) => ARG1_SUGGESTIONS.filter((s) => s.startsWith(value)),
          },
          { name: 'arg2', description: 'Second test argument', required: true },
        ],
      },
      async ({ arg1, arg2 }) => [
        {
          role: 'user',
          content: { type: 'text', text: `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'` },
        },
      ],
    ),
    definePrompt(
      {
        name: 'test_prompt_with_embedded_resource',
        description: 'A prompt that embeds the resource it is given',
        arguments: [{ name: 'resourceUri', description: 'URI of the resource to embed', required: true }],
      },
      async ({ resourceUri }) => [
        {
          role: 'user',
          content: {
            type: 'resource',
            resource: {
              uri: resourceUri as string,
              mimeType: 'text/plain',
              text: 'Embedded resource content for testing.',
            },
          },
        },
        { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
      ],
    ),
    definePrompt({ name: 'test_prompt_with_image', description: 'A prompt with an image' }, async () => [
      { role: 'user', content: { type: 'image', data: PNG_BASE64, mimeType: 'image/png' } },
      { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
    ]),
    definePrompt(
      {
        name: 'test_input_required_result_prompt',
        description: 'Asks the user for context, then builds the prompt with it',
      },
      async (_args, ctx) => {
        const context = acceptedText(elicited(ctx, 'user_context'), 'context');
        if (context === undefined) {
          return ctx.askInput({
            user_context: ctx.elicit({
              message: 'What context should the prompt use?',
              requestedSchema: {
                type: 'object',
                properties: { context: { type: 'string' } },
                required: ['context'],
              },
            }),
          });
        }
        return `Use this context: ${context}`;
      },
    ),
  ];
}
