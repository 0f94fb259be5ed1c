/**
 * The `mimeType` of a skill file, from its extension (SEP-2640: other files "use the
 * mimeType appropriate to their content"), and whether its bytes go out as text.
 */
const BY_EXTENSION: Readonly<Record<string, string>> = {
  '.md': 'text/markdown',
  '.markdown': 'text/markdown',
  '.txt': 'text/plain',
  '.csv': 'text/csv',
  '.html': 'text/html',
  '.htm': 'text/html',
  '.css': 'text/css',
  '.xml': 'application/xml',
  '.json': 'application/json',
  '.yaml': 'application/yaml',
  '.yml': 'application/yaml',
  '.toml': 'application/toml',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.ts': 'text/x-typescript',
  '.py': 'text/x-python',
  '.sh': 'text/x-shellscript',
  '.rb': 'text/x-ruby',
  '.sql': 'application/sql',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.svg': 'image/svg+xml',
  '.webp': 'image/webp',
  '.pdf': 'application/pdf',
  '.zip': 'application/zip',
};

const TEXTUAL = /^(text\/|application\/(json|xml|yaml|toml|sql|javascript)|image\/svg\+xml)/;

export function mimeTypeOf(fileName: string): string {
  const dot = fileName.lastIndexOf('.');
  return (dot > 0 && BY_EXTENSION[fileName.slice(dot).toLowerCase()]) || 'application/octet-stream';
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The resource contents for a file's bytes: `text` for a textual type whose bytes are valid
 * UTF-8, else a base64 `blob` (the digest and size cover the raw bytes either way).
 */
export function contentsOf(
  bytes: Buffer,
  mimeType: string,
): { text: string; mimeType: string } | { blob: string; mimeType: string } {
  if (TEXTUAL.test(mimeType)) {
    try {
      return { text: utf8.decode(bytes), mimeType };
    } catch {
      // not UTF-8: sent as bytes
    }
  }
  return { blob: bytes.toString('base64'), mimeType };
}
