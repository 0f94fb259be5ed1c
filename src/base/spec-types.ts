/**
 * The specification's types, inferred from the official zod schemas in
 * `@modelcontextprotocol/core` (type-only: nothing of it runs on our hot path).
 */
import type {
  CallToolResultSchema,
  ClientCapabilitiesSchema,
  ContentBlockSchema,
  GetPromptResultSchema,
  ImplementationSchema,
  PromptMessageSchema,
  ReadResourceResultSchema,
  ToolAnnotationsSchema,
} from '@modelcontextprotocol/core';
import type { z } from 'zod';

export type CallToolResult = z.infer<typeof CallToolResultSchema>;
export type ClientCapabilities = z.infer<typeof ClientCapabilitiesSchema>;
export type ContentBlock = z.infer<typeof ContentBlockSchema>;
export type GetPromptResult = z.infer<typeof GetPromptResultSchema>;
export type Implementation = z.infer<typeof ImplementationSchema>;
export type PromptMessage = z.infer<typeof PromptMessageSchema>;
export type ReadResourceResult = z.infer<typeof ReadResourceResultSchema>;
export type ToolAnnotations = z.infer<typeof ToolAnnotationsSchema>;
