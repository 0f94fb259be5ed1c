/**
 * The toolkit's version, read once from its package.json: the server's `serverInfo.version`,
 * the CLI's `--version`, and what the test kit names itself as a client.
 */
import { readFileSync } from 'node:fs';

export const PACKAGE_VERSION: string = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
