/**
 * `@mcp-toolkit/server/fetch`: the 2026-07-28 stateless wire as a fetch handler,
 * `(request: Request) => Promise<Response>`, for Hono, Bun, Deno, Next.js route handlers or
 * Cloudflare-style workers (docs/fetch-handler.md).
 */
export type { FetchClient, FetchHandler, FetchServer } from './handler.ts';
export { createFetchHandler } from './handler.ts';
export type { FetchHandlerOptions } from './options.ts';
export { fetchHandlerOptions } from './options.ts';
