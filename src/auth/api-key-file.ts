/**
 * `MCP_API_KEYS_FILE`: API keys that carry scopes, read once at start-up from a JSON file
 *
 * ```json
 * [{ "id": "ci", "key": "…", "scopes": ["notes:read"], "name": "CI pipeline" }]
 * ```
 *
 * Every way the file can be wrong stops start-up with an InvalidSetting error (exit 2) that
 * names the file and the entry (its position and id), never a key: the file is a secret and
 * its mistakes must not end up in a log.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { InternalCode, ToolkitError } from '../base/errors.ts';
import type { ApiKey } from './types.ts';

/** Larger files are refused before they are read (a keys file is a few KiB). */
export const MAX_API_KEYS_FILE_BYTES = 1_048_576;
/** Every unknown key is compared against every entry, so the list stays bounded. */
export const MAX_API_KEYS = 10_000;

const ID = /^[A-Za-z0-9][A-Za-z0-9._@:-]{0,127}$/;
/** A scope token (RFC 6749 §3.3): printable ASCII except space, `"` and `\`. */
const SCOPE = /^[\x21\x23-\x5B\x5D-\x7E]{1,256}$/;
/**
 * What an HTTP header can carry unchanged: printable ASCII. Leading or trailing spaces are
 * stripped by HTTP parsing, so a key with them could never match.
 */
const KEY = /^[\x21-\x7E](?:[\x20-\x7E]*[\x21-\x7E])?$/;
/** C0 and C1 control characters: a name is shown to people, where they would forge lines. */
const CONTROL = /\p{Cc}/u;
const FIELDS = new Set(['id', 'key', 'scopes', 'name']);

function refuse(path: string, what: string, cause?: unknown): never {
  throw new ToolkitError(
    InternalCode.InvalidSetting,
    `MCP_API_KEYS_FILE ${path}: ${what}`,
    cause === undefined ? undefined : { cause },
  );
}

/** The file's bytes, at most MAX_API_KEYS_FILE_BYTES; refuses what is not a regular file. */
function readBounded(path: string): string {
  let fd: number;
  try {
    // O_NONBLOCK: opening a FIFO must not wait for a writer (it is refused just below).
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') refuse(path, 'no such file; give the path of a JSON file of keys');
    if (code === 'EACCES' || code === 'EPERM')
      refuse(path, 'cannot be read (permission denied); let the server user read it');
    refuse(path, `cannot be opened (${code ?? (err as Error).message})`, err);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) refuse(path, 'is not a regular file');
    if (stat.size > MAX_API_KEYS_FILE_BYTES)
      refuse(path, `is ${stat.size} bytes, more than the ${MAX_API_KEYS_FILE_BYTES} a keys file may have`);
    // One byte more than allowed, so a file that grew since fstat is still caught.
    const buffer = Buffer.alloc(MAX_API_KEYS_FILE_BYTES + 1);
    let length = 0;
    for (;;) {
      const n = readSync(fd, buffer, length, buffer.length - length, null);
      if (n === 0) break;
      length += n;
      if (length > MAX_API_KEYS_FILE_BYTES)
        refuse(path, `is more than the ${MAX_API_KEYS_FILE_BYTES} bytes a keys file may have`);
    }
    return buffer.subarray(0, length).toString('utf8');
  } catch (err) {
    if (err instanceof ToolkitError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    refuse(path, `cannot be read (${code ?? (err as Error).message})`, err);
  } finally {
    closeSync(fd);
  }
}

/**
 * Parses the text of a keys file (`path` only names it in messages). Exported for tests and
 * for `readApiKeysFile`.
 *
 * @example
 * parseApiKeysFile('[{"id":"ci","key":"0123456789abcdef","scopes":["notes:read"]}]', 'keys.json');
 */
export function parseApiKeysFile(text: string, path: string): ApiKey[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (err) {
    // The parser's message quotes the text around the error, which may be a key: not shown.
    refuse(path, 'is not JSON; expected an array of { "id", "key", "scopes" } objects', err);
  }
  if (!Array.isArray(parsed))
    refuse(path, 'expected a JSON array of { "id", "key", "scopes" } objects at the top level');
  if (parsed.length > MAX_API_KEYS)
    refuse(path, `holds ${parsed.length} entries, more than the ${MAX_API_KEYS} allowed`);
  const keys: ApiKey[] = [];
  const ids = new Map<string, number>();
  const secrets = new Map<string, string>();
  parsed.forEach((entry: unknown, index) => {
    const at = `entry ${index + 1}`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry))
      refuse(path, `${at} is not an object with "id", "key" and "scopes"`);
    const record = entry as Record<string, unknown>;
    const { id } = record;
    if (typeof id !== 'string' || !ID.test(id))
      refuse(
        path,
        `${at}: "id" must be 1 to 128 letters, digits or . _ @ : - (starting with a letter or digit); it names the client in logs`,
      );
    const where = `${at} ("${id}")`;
    const unknown = Object.keys(record).filter((field) => !FIELDS.has(field));
    if (unknown.length > 0)
      refuse(
        path,
        `${where}: unknown field ${unknown.map((f) => JSON.stringify(f.slice(0, 40))).join(', ')}; an entry has id, key, scopes and an optional name`,
      );
    const { key, scopes, name } = record;
    if (typeof key !== 'string' || key === '') refuse(path, `${where}: "key" must be a non-empty string`);
    if (!KEY.test(key))
      refuse(
        path,
        `${where}: "key" may hold printable ASCII only, with no space at either end (what an HTTP header carries unchanged)`,
      );
    if (!Array.isArray(scopes))
      refuse(
        path,
        `${where}: "scopes" must be a list of scope strings ([] for a key that opens only the tools without scopes)`,
      );
    const seen = new Set<string>();
    for (const scope of scopes) {
      if (typeof scope !== 'string' || !SCOPE.test(scope))
        refuse(
          path,
          `${where}: every scope must be a non-empty string without spaces, quotes or backslashes (RFC 6749 §3.3)`,
        );
      if (seen.has(scope)) refuse(path, `${where}: the scope "${scope}" is listed twice`);
      seen.add(scope);
    }
    if (
      name !== undefined &&
      (typeof name !== 'string' || name.trim() === '' || name.length > 200 || CONTROL.test(name))
    )
      refuse(
        path,
        `${where}: "name" must be a non-empty string of at most 200 characters, without control characters`,
      );
    const first = ids.get(id);
    if (first !== undefined)
      refuse(path, `${where}: the id is also the id of entry ${first} (ids must be unique)`);
    const sharer = secrets.get(key);
    if (sharer !== undefined)
      refuse(path, `${where}: its key is also the key of "${sharer}" (each client needs its own key)`);
    ids.set(id, index + 1);
    secrets.set(key, id);
    keys.push({
      id,
      key,
      scopes: Object.freeze([...scopes] as string[]),
      ...(name !== undefined ? { name: name as string } : {}),
    });
  });
  return keys;
}

/**
 * Reads and checks a keys file. Throws ToolkitError (InvalidSetting) naming the file and the
 * entry when it is missing, unreadable, not a regular file, larger than
 * MAX_API_KEYS_FILE_BYTES, not JSON, or of the wrong shape, or when ids or keys repeat.
 *
 * @example
 * const keys = readApiKeysFile('/run/secrets/mcp-keys.json');
 */
export function readApiKeysFile(path: string): ApiKey[] {
  return parseApiKeysFile(readBounded(path), path);
}
