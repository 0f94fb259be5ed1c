/**
 * The authorisation server's own secrets, all derived from one (`MCP_STATE_SECRET`, shared by
 * every replica; random per process when unset) with HKDF (RFC 5869), one label per use: the
 * keys that sign oidc-provider's cookies, and the key that seals what the store keeps that must
 * not be read by whoever reads Redis (the users' upstream tokens, our signing keys): AES-256-GCM.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

export interface Secrets {
  /** Keys oidc-provider signs its cookies with (the first signs, all verify). */
  readonly cookieKeys: readonly string[];
  /** Encrypts and authenticates a value; the output is base64url text. */
  seal(plain: string): string;
  /** The value `seal` sealed, or undefined when it was not sealed with this secret or was altered. */
  open(sealed: string): string | undefined;
}

function derive(secret: Buffer, label: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), `mcp-toolkit oauth-proxy ${label}`, 32));
}

/**
 * @example
 * const secrets = createSecrets(settings.MCP_STATE_SECRET);
 */
export function createSecrets(secret: string | undefined): Secrets {
  const root = secret === undefined ? randomBytes(32) : Buffer.from(secret, 'utf8');
  const sealKey = derive(root, 'seal');
  return {
    cookieKeys: [derive(root, 'cookies').toString('base64url')],
    seal(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', sealKey, iv);
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
    },
    open(sealed) {
      const raw = Buffer.from(sealed, 'base64url');
      if (raw.length < 28) return undefined;
      try {
        const decipher = createDecipheriv('aes-256-gcm', sealKey, raw.subarray(0, 12));
        decipher.setAuthTag(raw.subarray(12, 28));
        return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
      } catch {
        return undefined;
      }
    },
  };
}
