/**
 * The parts of oidc-provider's API we use, typed here: the package ships JavaScript without
 * type declarations. Kept to what the glue touches.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface OidcInteraction {
  readonly uid: string;
  readonly prompt: { name: string; details: Record<string, unknown> };
  readonly params: Record<string, unknown>;
  readonly session?: { accountId: string };
  readonly returnTo: string;
  readonly exp: number;
  result?: Record<string, unknown>;
  persist(): Promise<string>;
}

export interface OidcGrant {
  readonly jti?: string;
  addOIDCScope(scope: string): void;
  rejectOIDCScope(scope: string): void;
  addResourceScope(resource: string, scope: string): void;
  rejectResourceScope(resource: string, scope: string): void;
  save(): Promise<string>;
}

export interface OidcClient {
  readonly clientId: string;
  readonly clientName?: string;
  readonly clientUri?: string;
  readonly logoUri?: string;
  readonly redirectUris: readonly string[];
  /** True when it came from a Client ID Metadata Document. */
  readonly clientIdMetadataDocument?: boolean;
}

export interface OidcProvider {
  proxy: boolean;
  readonly issuer: string;
  callback(): (req: IncomingMessage, res: ServerResponse) => void;
  interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<OidcInteraction>;
  interactionFinished(
    req: IncomingMessage,
    res: ServerResponse,
    result: Record<string, unknown>,
    options?: { mergeWithLastSubmission?: boolean },
  ): Promise<void>;
  use(middleware: (ctx: KoaContext, next: () => Promise<void>) => Promise<void>): void;
  on(event: string, listener: (...args: unknown[]) => void): void;
  readonly Grant: new (props: { accountId: string; clientId: string }) => OidcGrant;
  readonly Interaction: { find(uid: string): Promise<OidcInteraction | undefined> };
  readonly Client: { find(id: string): Promise<OidcClient | undefined> };
}

/** The Koa context as our middleware and hooks see it. */
export interface KoaContext {
  method: string;
  path: string;
  query: Record<string, string | string[] | undefined>;
  host: string;
  type: string;
  status: number;
  body: unknown;
  set(name: string, value: string): void;
  oidc?: {
    client?: OidcClient;
    route?: string;
    result?: Record<string, unknown>;
    params?: Record<string, unknown>;
  };
}

/** A check of an interaction policy prompt. */
export interface OidcCheck {
  readonly reason: string;
}

export interface OidcPrompt {
  readonly name: string;
  readonly checks: OidcCheck[] & {
    add(check: OidcCheck, index?: number): void;
    remove(reason: string): void;
  };
}

export interface OidcModule {
  default: new (issuer: string, configuration: Record<string, unknown>) => OidcProvider;
  errors: Record<string, new (description?: string, detail?: string) => Error>;
  interactionPolicy: {
    base(): OidcPrompt[] & { get(name: string): OidcPrompt | undefined };
    Check: {
      new (
        reason: string,
        description: string,
        check: (ctx: KoaContext) => boolean | Promise<boolean>,
      ): OidcCheck;
      readonly REQUEST_PROMPT: boolean;
      readonly NO_NEED_TO_PROMPT: boolean;
    };
  };
}

/** Imports oidc-provider (a variable specifier: its untyped module is typed by the interfaces above). */
export async function importOidcProvider(): Promise<OidcModule> {
  const specifier = 'oidc-provider';
  return (await import(specifier)) as OidcModule;
}
