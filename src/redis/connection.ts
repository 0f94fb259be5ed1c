/**
 * How this process reaches its Redis beyond the URL: the password kept apart from it
 * (`MCP_REDIS_PASSWORD`) and the CA that signed a TLS Redis's certificate
 * (`MCP_REDIS_TLS_CA`), read once at start-up; and what a connection error means for the
 * person who set them. A wrong password or an untrusted certificate is a setting to fix, not
 * an outage to wait out: ioredis retries both forever and reports only "Connection is
 * closed.", so start-up stops with the setting named instead of serving degraded.
 */

import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Redis } from 'ioredis';
import { InternalCode, ToolkitError } from '../base/errors.ts';

/** What every connection to the shared Redis adds to its URL (ioredis options). */
export interface RedisConnectionOptions {
  /** AUTH password when the URL carries none (MCP_REDIS_PASSWORD). */
  readonly password?: string;
  /** TLS options for rediss:// beyond ioredis's own (MCP_REDIS_TLS_CA: the trusted CAs, PEM). */
  readonly tls?: { readonly ca: string };
}

/** The settings this module reads (a subset of the parsed settings). */
export interface RedisConnectionSettings {
  readonly MCP_REDIS_PASSWORD?: string | undefined;
  readonly MCP_REDIS_TLS_CA?: string | undefined;
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/**
 * Builds the options from the settings, reading MCP_REDIS_TLS_CA's file; throws a
 * ToolkitError (InvalidSetting) naming the setting when the file cannot be read or holds no
 * certificate, before anything connects.
 *
 * @example
 * const connection = redisConnectionOptions(settings);
 * const redis = createRedisClient(settings.MCP_REDIS_URL, { connection });
 */
export function redisConnectionOptions(settings: RedisConnectionSettings): RedisConnectionOptions {
  const file = settings.MCP_REDIS_TLS_CA;
  let ca: string | undefined;
  if (file !== undefined) {
    try {
      ca = readFileSync(file, 'utf8');
    } catch (err) {
      throw new ToolkitError(
        InternalCode.InvalidSetting,
        `MCP_REDIS_TLS_CA=${JSON.stringify(file)} cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}): it must name a PEM file of CA certificates`,
      );
    }
    const blocks = ca.match(PEM_CERTIFICATE) ?? [];
    const bad = blocks.findIndex((pem) => !parsesAsCertificate(pem));
    if (blocks.length === 0 || bad !== -1) {
      throw new ToolkitError(
        InternalCode.InvalidSetting,
        blocks.length === 0
          ? `MCP_REDIS_TLS_CA=${JSON.stringify(file)} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`
          : `MCP_REDIS_TLS_CA=${JSON.stringify(file)}: certificate ${bad + 1} of ${blocks.length} does not parse`,
      );
    }
  }
  return {
    ...(settings.MCP_REDIS_PASSWORD === undefined ? {} : { password: settings.MCP_REDIS_PASSWORD }),
    ...(ca === undefined ? {} : { tls: { ca } }),
  };
}

function parsesAsCertificate(pem: string): boolean {
  try {
    new X509Certificate(pem);
    return true;
  } catch {
    return false;
  }
}

/** OpenSSL's verification failures, as Node's TLS socket reports them (err.code). */
const CERTIFICATE_REFUSED = new Set([
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_DECRYPT_CERT_SIGNATURE',
  'CERT_SIGNATURE_FAILURE',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'INVALID_CA',
]);

/** Why a Redis connection failed: a setting to fix (`password`, `tls`), or anything else. */
export interface RedisFailure {
  readonly kind: 'password' | 'tls' | 'other';
  /** What happened and, for the settings, which one to change. */
  readonly message: string;
}

/**
 * Reads a connection error (an ioredis `error` event, a rejected command) as the person who
 * set MCP_REDIS_* would want it said. Redis answers a wrong password with WRONGPASS and a
 * missing one with NOAUTH (Redis 6 ACLs); Node names a certificate it cannot verify by its
 * OpenSSL code.
 *
 * @example
 * redis.on('error', (err) => logger.warn(explainRedisError(err).message));
 */
export function explainRedisError(err: unknown): RedisFailure {
  const message = err instanceof Error ? err.message : String(err);
  const code = (err as { code?: unknown } | null)?.code;
  if (/^WRONGPASS\b/.test(message)) {
    return {
      kind: 'password',
      message: `Redis refused the password (${message}): check MCP_REDIS_PASSWORD, or the password in MCP_REDIS_URL (redis[s]://[user]:PASSWORD@host:port)`,
    };
  }
  if (/^NOAUTH\b/.test(message)) {
    return {
      kind: 'password',
      message: `Redis requires a password and none was given (${message}): set MCP_REDIS_PASSWORD, or put it in MCP_REDIS_URL (redis[s]://:PASSWORD@host:port)`,
    };
  }
  if (typeof code === 'string' && CERTIFICATE_REFUSED.has(code)) {
    return {
      kind: 'tls',
      message: `Redis's TLS certificate is not trusted (${code}: ${message}): set MCP_REDIS_TLS_CA to the PEM file of the CA that signed it (when set, it names the only CAs trusted)`,
    };
  }
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') {
    return {
      kind: 'tls',
      message: `Redis's TLS certificate does not name the host in MCP_REDIS_URL (${message}): connect by a name the certificate lists`,
    };
  }
  if (code === 'CERT_HAS_EXPIRED' || code === 'CERT_NOT_YET_VALID') {
    return { kind: 'tls', message: `Redis's TLS certificate is not valid now (${code}: ${message})` };
  }
  return {
    kind: 'other',
    message: typeof code === 'string' && !message.includes(code) ? `${code}: ${message}` : message,
  };
}

/**
 * Connects `client` (created with `lazyConnect`) at start-up. A refused password or
 * certificate throws a ToolkitError (InvalidSetting) with the setting named, after
 * disconnecting the client so it stops retrying; any other failure (Redis not up yet) is
 * returned, already explained, and the client keeps reconnecting in the background.
 *
 * @example
 * const failure = await connectRedis(redis);
 * if (failure) logger.warn({ err: failure.message }, 'Redis unreachable at start-up');
 */
export async function connectRedis(client: Redis): Promise<RedisFailure | undefined> {
  // connect() rejects with "Connection is closed."; the error event says why.
  let first: unknown;
  const onError = (err: unknown) => {
    first ??= err;
  };
  client.on('error', onError);
  try {
    await client.connect();
    return undefined;
  } catch (err) {
    const failure = explainRedisError(first ?? err);
    if (failure.kind === 'other') return failure;
    client.disconnect();
    throw new ToolkitError(InternalCode.InvalidSetting, failure.message, { cause: first ?? err });
  } finally {
    client.off('error', onError);
  }
}
