/**
 * The keys that sign our access tokens, rotated on a schedule and shared by every replica
 * through the store (sealed: private keys never sit in Redis in the clear). At any time the
 * ring holds the key that signs, the next one (published at the JWKS a lead time before it
 * signs, so anyone caching our JWKS knows it first) and the previous one (published until the
 * tokens it signed have expired). Each replica reads the ring every `refreshMs`; a change is
 * written with compare-and-set, so two replicas rotating at once agree on one result.
 */
import { randomUUID } from 'node:crypto';
import {
  exportJWK,
  generateKeyPair,
  importJWK,
  type JWK,
  type JWTVerifyGetKey,
  errors as joseErrors,
} from 'jose';
import type { Secrets } from './secrets.ts';
import type { OAuthStore } from './store.ts';

/** The algorithm of our access tokens (RFC 9068 §2.1 asks for an asymmetric one). */
export const SIGNING_ALG = 'ES256';
const RING = 'signing-keys';

export interface RingKey {
  readonly kid: string;
  /** When it was made (ms since the epoch). */
  readonly createdAt: number;
  /** The private JWK (with kid, alg, use). */
  readonly jwk: JWK;
}

export interface KeyRingView {
  /** The ring's version in the store; a new one means a new provider keystore. */
  readonly version: number;
  /** Every published key, newest first (private JWKs, for oidc-provider's `jwks`). */
  readonly keys: readonly RingKey[];
  /** The kid that signs now. */
  readonly signingKid: string;
}

export interface KeyRingOptions {
  store: OAuthStore;
  secrets: Secrets;
  /** How long a key signs. */
  rotationMs: number;
  /** How long the longest token it signed lives (the previous key stays published that long). */
  tokenTtlMs: number;
  /** How often the ring is read again. Default 30 s. */
  refreshMs?: number;
  now?: () => number;
}

export interface KeyRing {
  /** The ring now (rotating when due); cached for `refreshMs`. */
  current(): Promise<KeyRingView>;
  /** Verifies a token's signature with any published key (jose's key lookup). */
  readonly verificationKey: JWTVerifyGetKey;
}

/** How far ahead of use a new key is published: a day, or a quarter of the period when shorter. */
export function leadTime(rotationMs: number): number {
  return Math.min(86_400_000, Math.floor(rotationMs / 4));
}

async function newKey(now: number): Promise<RingKey> {
  const { privateKey } = await generateKeyPair(SIGNING_ALG, { extractable: true });
  const kid = randomUUID();
  return {
    kid,
    createdAt: now,
    jwk: { ...(await exportJWK(privateKey)), kid, alg: SIGNING_ALG, use: 'sig' },
  };
}

/** The key that signs at `now`: the newest one past its lead time, else the oldest (a new ring signs at once). */
export function signingKey(keys: readonly RingKey[], now: number, lead: number): RingKey | undefined {
  return keys.find((k) => k.createdAt + lead <= now) ?? keys.at(-1);
}

/**
 * The ring as it should be at `now`: a new key when the newest is due to be replaced (published
 * `lead` before it signs), keys older than the signing one kept until the tokens they signed
 * have expired. Undefined when nothing changes.
 */
export async function rotate(
  keys: readonly RingKey[],
  now: number,
  options: { rotationMs: number; tokenTtlMs: number },
): Promise<RingKey[] | undefined> {
  const lead = leadTime(options.rotationMs);
  let next = [...keys];
  let changed = false;
  const newest = next[0];
  if (newest === undefined || newest.createdAt + options.rotationMs - lead <= now) {
    next = [await newKey(now), ...next];
    changed = true;
  }
  const signing = signingKey(next, now, lead);
  const signingIndex = signing === undefined ? 0 : next.indexOf(signing);
  // A key older than the signing one stopped signing when its successor started; it stays until
  // the tokens it signed have expired.
  const kept = next.filter((_key, index) => {
    if (index <= signingIndex) return true;
    const successor = next[index - 1];
    const stoppedAt = successor === undefined ? now : successor.createdAt + lead;
    return stoppedAt + options.tokenTtlMs > now;
  });
  if (kept.length !== next.length) changed = true;
  return changed ? kept : undefined;
}

/**
 * @example
 * const ring = createKeyRing({ store, secrets, rotationMs: 30 * 86_400_000, tokenTtlMs: 600_000 });
 * const { keys, signingKid } = await ring.current();
 */
export function createKeyRing(options: KeyRingOptions): KeyRing {
  const now = options.now ?? Date.now;
  const refreshMs = options.refreshMs ?? 30_000;
  const lead = leadTime(options.rotationMs);
  let cached: { view: KeyRingView; readAt: number } | undefined;
  let loading: Promise<KeyRingView> | undefined;
  const verifiers = new Map<string, ReturnType<typeof importJWK>>();

  const decode = (value: string): RingKey[] => {
    const plain = options.secrets.open(value);
    if (plain === undefined) {
      throw new Error(
        'the signing keys in the shared store were sealed with another secret: give every replica the same MCP_STATE_SECRET',
      );
    }
    return JSON.parse(plain) as RingKey[];
  };

  async function load(): Promise<KeyRingView> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const stored = await options.store.read(RING);
      const keys = stored === undefined ? [] : decode(stored.value);
      const version = stored?.version ?? 0;
      const rotated = await rotate(keys, now(), options);
      if (rotated === undefined) {
        const signing = signingKey(keys, now(), lead);
        if (signing === undefined) throw new Error('the signing key ring is empty');
        return { version, keys, signingKid: signing.kid };
      }
      // Another replica may have rotated meanwhile: then read its ring and decide again.
      const written = await options.store.swap(
        RING,
        version,
        version + 1,
        options.secrets.seal(JSON.stringify(rotated)),
      );
      if (written) {
        const signing = signingKey(rotated, now(), lead);
        if (signing === undefined) throw new Error('the signing key ring is empty');
        return { version: version + 1, keys: rotated, signingKid: signing.kid };
      }
    }
    throw new Error('the signing key ring kept changing under us: five replicas rotating at once?');
  }

  const current = async (): Promise<KeyRingView> => {
    if (cached !== undefined && now() - cached.readAt < refreshMs) return cached.view;
    loading ??= load()
      .then((view) => {
        cached = { view, readAt: now() };
        return view;
      })
      .finally(() => {
        loading = undefined;
      });
    return loading;
  };

  return {
    current,
    async verificationKey(header) {
      const kid = header.kid;
      let view = await current();
      let key = view.keys.find((k) => k.kid === kid);
      if (key === undefined && cached !== undefined && now() - cached.readAt >= 1000) {
        // A key another replica has just added: read the ring again before refusing (at most
        // once a second, so made-up kids cannot turn every request into a store read).
        cached = { view, readAt: -Infinity };
        view = await current();
        key = view.keys.find((k) => k.kid === kid);
      }
      if (key === undefined || kid === undefined) {
        throw new joseErrors.JWKSNoMatchingKey();
      }
      let verifier = verifiers.get(kid);
      if (verifier === undefined) {
        const { d: _private, ...publicJwk } = key.jwk;
        verifier = importJWK(publicJwk, SIGNING_ALG);
        verifiers.set(kid, verifier);
      }
      return verifier;
    },
  };
}
