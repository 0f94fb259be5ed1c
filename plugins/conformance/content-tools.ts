/**
 * Tools that return fixed content of every kind (text, image, audio, embedded resource,
 * mixed, a tool error), the SEP-2243 header-mirrored tool, and the JSON Schema 2020-12 tool
 * whose input schema must be published verbatim (SEP-1613, SEP-2106).
 */
import { defineTool, type ToolDefinition } from '@mcp-toolkit/server';
import { PNG_BASE64, WAV_BASE64 } from './media.ts';

/**
 * `region` is annotated with `x-mcp-header`, so 2026 clients mirror it in `Mcp-Param-Region`
 * and the server checks the two agree (SEP-2243). It takes no required argument and is listed
 * first: the header-validation scenario calls the first tool with `{}`.
 */
export const xMcpHeaderTool: ToolDefinition = defineTool(
  {
    name: 'test_x_mcp_header',
    description: 'Echoes its arguments; region is mirrored in the Mcp-Param-Region header',
    input: {
      type: 'object',
      properties: {
        region: { type: 'string', description: 'A region name', 'x-mcp-header': 'Region' },
        level: { type: 'integer', description: 'A level' },
      },
    },
  },
  async (args) => {
    const { region, level } = args as { region?: string; level?: number };
    return `x-mcp-header test: region=${region ?? '(none)'}, level=${level ?? '(none)'}`;
  },
);

/** JSON Schema 2020-12 features a server must keep as written: `$defs`, `$anchor`, composition, conditionals. */
const JSON_SCHEMA_2020_12 = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  $defs: {
    address: {
      $anchor: 'addressDef',
      type: 'object',
      properties: { street: { type: 'string' }, city: { type: 'string' } },
    },
  },
  properties: {
    name: { type: 'string' },
    address: { $ref: '#/$defs/address' },
    contactMethod: { type: 'string', enum: ['phone', 'email'] },
    phone: { type: 'string' },
    email: { type: 'string' },
  },
  allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
  if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
  // biome-ignore lint/suspicious/noThenProperty: the JSON Schema keyword (if/then/else); never awaited.
  then: { required: ['phone'] },
  else: { required: ['email'] },
  additionalProperties: false,
};

export function contentTools(): ToolDefinition[] {
  return [
    defineTool({ name: 'test_simple_text', description: 'Returns one text item' }, async () => [
      { type: 'text', text: 'This is a simple text response for testing.' },
    ]),
    defineTool({ name: 'test_image_content', description: 'Returns one PNG image item' }, async () => [
      { type: 'image', data: PNG_BASE64, mimeType: 'image/png' },
    ]),
    defineTool({ name: 'test_audio_content', description: 'Returns one WAV audio item' }, async () => [
      { type: 'audio', data: WAV_BASE64, mimeType: 'audio/wav' },
    ]),
    defineTool(
      { name: 'test_embedded_resource', description: 'Returns one embedded text resource' },
      async () => [
        {
          type: 'resource',
          resource: {
            uri: 'test://embedded-resource',
            mimeType: 'text/plain',
            text: 'This is an embedded resource content.',
          },
        },
      ],
    ),
    defineTool(
      { name: 'test_multiple_content_types', description: 'Returns text, an image and a resource' },
      async () => [
        { type: 'text', text: 'Multiple content types test:' },
        { type: 'image', data: PNG_BASE64, mimeType: 'image/png' },
        {
          type: 'resource',
          resource: {
            uri: 'test://mixed-content-resource',
            mimeType: 'application/json',
            text: JSON.stringify({ test: 'data', value: 123 }),
          },
        },
      ],
    ),
    // A tool failure is a result the model sees (isError), not a JSON-RPC error.
    defineTool({ name: 'test_error_handling', description: 'Always fails, as a tool error' }, async () => ({
      content: [{ type: 'text', text: 'This tool intentionally returns an error for testing' }],
      isError: true,
    })),
    defineTool(
      {
        name: 'json_schema_2020_12_tool',
        description: 'Tool with JSON Schema 2020-12 features',
        input: JSON_SCHEMA_2020_12,
      },
      async (args) => `Received: ${JSON.stringify(args)}`,
    ),
  ];
}
