/**
 * Baseline: the official SDK v2 over stdio with `serveStdio`, which pins one server from the
 * factory per connection (the era is chosen by the opening message).
 * Usage: `node bench/servers/sdk-stdio.ts`.
 */
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { createSdkAddServer } from './sdk-add-server.ts';

serveStdio(() => createSdkAddServer());
