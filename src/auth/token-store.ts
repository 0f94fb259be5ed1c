/**
 * The file where `mcp-toolkit login` keeps tokens: JSON keyed by MCP server URL, readable by
 * the user only (mode 0600 in a 0700 directory, like ~/.ssh). Written to a temporary file
 * and renamed, so a crash never leaves half a file.
 */
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

/** One server's tokens, and what is needed to refresh them. */
export interface StoredToken {
  /** The MCP server (resource) the token is for; also the key in the file. */
  serverUrl: string;
  issuer: string;
  clientId: string;
  /** RFC 8707 resource the token was requested for (the MCP server URL), when known. */
  resource?: string;
  accessToken: string;
  refreshToken?: string;
  tokenType: string;
  scope?: string;
  /** Expiry of the access token, epoch milliseconds; absent when the server did not say. */
  expiresAt?: number;
}

interface TokenFile {
  version: 1;
  servers: Record<string, StoredToken>;
}

/** The key of a server in the file: its URL, normalised (`https://X/mcp/` → `https://x/mcp`). */
function tokenKey(serverUrl: string): string {
  const url = new URL(serverUrl);
  url.hash = '';
  return url.href.replace(/\/+$/, '');
}

async function readTokenFile(file: string): Promise<TokenFile> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, servers: {} };
    throw err;
  }
  const parsed = JSON.parse(text) as Partial<TokenFile>;
  return { version: 1, servers: parsed.servers ?? {} };
}

/** The stored token of a server, if any. */
export async function loadToken(file: string, serverUrl: string): Promise<StoredToken | undefined> {
  const data = await readTokenFile(file);
  return data.servers[tokenKey(serverUrl)];
}

/** Stores (or replaces) a server's token; creates the directory (0700) and file (0600) as needed. */
export async function saveToken(file: string, token: StoredToken): Promise<void> {
  const dir = dirname(file);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const data = await readTokenFile(file);
  data.servers[tokenKey(token.serverUrl)] = token;
  const temp = `${file}.${process.pid}.${Date.now()}.tmp`;
  await writeFile(temp, `${JSON.stringify(data, null, 2)}\n`, { mode: 0o600 });
  // The mode given to writeFile is filtered by the umask; set it explicitly.
  await chmod(temp, 0o600);
  await rename(temp, file);
}
