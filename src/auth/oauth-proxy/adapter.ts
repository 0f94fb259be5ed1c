/**
 * oidc-provider's storage adapter over our store (store.ts: memory or Redis). One adapter
 * instance per model (Session, Interaction, Grant, AuthorizationCode, RefreshToken, Client,
 * ...). What it adds to plain storage:
 * - `consume` is atomic: the loser of two concurrent redemptions of one authorisation code or
 *   refresh token gets `invalid_grant`, and the grant is revoked with every token it issued
 *   (RFC 6749 §4.1.2, RFC 9700 §4.14.2), exactly as oidc-provider does for a sequential reuse;
 * - destroying a grant destroys the user's upstream tokens kept for it (upstream-tokens.ts).
 */
import type { OAuthStore, StoredPayload } from './store.ts';

/** The kind our upstream token sets are stored under, by grant id. */
export const UPSTREAM_TOKENS = 'UpstreamTokens';

/** Every model that can hold a record of a grant, for `revokeGrant`. */
const GRANT_MODELS = [
  'AccessToken',
  'AuthorizationCode',
  'RefreshToken',
  'DeviceCode',
  'BackchannelAuthenticationRequest',
] as const;

/**
 * Deletes a grant and everything issued under it: its codes and tokens, the Grant, and the
 * user's upstream tokens.
 */
export async function revokeGrant(store: OAuthStore, grantId: string): Promise<void> {
  await Promise.all(GRANT_MODELS.map((kind) => store.revokeByGrantId(kind, grantId)));
  await store.destroy('Grant', grantId);
  await store.destroy(UPSTREAM_TOKENS, grantId);
}

export interface AdapterOptions {
  store: OAuthStore;
  /** Builds oidc-provider's `invalid_grant` error (its error classes come with the module). */
  invalidGrant(description: string): Error;
  /** Lifetime of a dynamically registered client (oidc-provider gives none). */
  clientTtlSec: number;
}

/** The adapter class oidc-provider's `adapter` option takes. */
export type AdapterClass = new (
  name: string,
) => {
  upsert(id: string, payload: StoredPayload, expiresIn?: number): Promise<void>;
  find(id: string): Promise<StoredPayload | undefined>;
  findByUid(uid: string): Promise<StoredPayload | undefined>;
  findByUserCode(userCode: string): Promise<StoredPayload | undefined>;
  consume(id: string): Promise<void>;
  destroy(id: string): Promise<void>;
  revokeByGrantId(grantId: string): Promise<void>;
};

/**
 * @example
 * new Provider(issuer, { adapter: createAdapter({ store, invalidGrant: (d) => new errors.InvalidGrant(d), clientTtlSec }) });
 */
export function createAdapter(options: AdapterOptions): AdapterClass {
  const { store } = options;
  return class StoreAdapter {
    readonly name: string;
    constructor(name: string) {
      this.name = name;
    }
    async upsert(id: string, payload: StoredPayload, expiresIn?: number): Promise<void> {
      const ttl = expiresIn ?? (this.name === 'Client' ? options.clientTtlSec : undefined);
      await store.upsert(this.name, id, payload, ttl);
    }
    find(id: string): Promise<StoredPayload | undefined> {
      return store.find(this.name, id);
    }
    findByUid(uid: string): Promise<StoredPayload | undefined> {
      return store.findByUid(this.name, uid);
    }
    async findByUserCode(): Promise<undefined> {
      // The device flow is off: no user codes.
      return undefined;
    }
    async consume(id: string): Promise<void> {
      const won = await store.consume(this.name, id, Math.floor(Date.now() / 1000));
      if (won) return;
      // Consumed between oidc-provider's read and this write: another request redeemed it.
      const record = await store.find(this.name, id);
      if (typeof record?.grantId === 'string') await revokeGrant(store, record.grantId);
      throw options.invalidGrant(
        this.name === 'RefreshToken' ? 'refresh token already used' : 'authorization code already consumed',
      );
    }
    async destroy(id: string): Promise<void> {
      if (this.name === 'Grant') {
        await store.destroy(UPSTREAM_TOKENS, id);
      }
      await store.destroy(this.name, id);
    }
    revokeByGrantId(grantId: string): Promise<void> {
      return store.revokeByGrantId(this.name, grantId);
    }
  };
}
