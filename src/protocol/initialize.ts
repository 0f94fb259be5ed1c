/**
 * The 2025-wire handshake (2025-11-25 "Lifecycle"): `initialize` negotiates the version, keeps
 * the client's capabilities and info on the session (a new one over HTTP, the connection's on
 * stdio), and answers with the server's capabilities, info and instructions.
 */
import { ErrorCode, ProtocolError } from '../base/errors.ts';
import { isObject, type JsonObject, type JsonRpcRequest, success } from '../base/jsonrpc.ts';
import { Refusal } from '../base/refusals.ts';
import type { ClientCapabilities, Implementation } from '../base/spec-types.ts';
import type { ServerCapabilities } from './capabilities.ts';
import type { Exchange, Reply } from './exchange.ts';
import { type SessionStore, saveSession, sessionOwner } from './session/store.ts';
import type { WireProfile } from './wires/profile.ts';

export interface InitializeDeps {
  readonly sessions: SessionStore;
  readonly capabilities: ServerCapabilities;
  readonly serverInfo: JsonObject;
  readonly instructions: string | undefined;
}

/** `initialize` on the wire of `profile` (the one with sessions), which negotiates the version. */
export async function initialize(
  req: JsonRpcRequest,
  ex: Exchange,
  profile: WireProfile,
  deps: InitializeDeps,
): Promise<Reply> {
  const params = req.params ?? {};
  if (ex.session?.initialized) {
    throw new ProtocolError(
      ErrorCode.InvalidRequest,
      'Already initialized: this session has been initialised',
    );
  }
  const session = ex.session ?? (await deps.sessions.create());
  if (!session) throw Refusal.tooManySessions();
  session.owner = sessionOwner(ex.identity);
  session.protocolVersion = profile.negotiate(params.protocolVersion);
  session.clientCapabilities = isObject(params.capabilities)
    ? (params.capabilities as ClientCapabilities)
    : {};
  session.clientInfo = isObject(params.clientInfo) ? (params.clientInfo as Implementation) : undefined;
  session.initialized = true;
  await saveSession(deps.sessions, session);
  const result: JsonObject = {
    protocolVersion: session.protocolVersion,
    capabilities: deps.capabilities.handshake(profile.tasks.declaredAt(session.protocolVersion)),
    serverInfo: deps.serverInfo,
  };
  if (deps.instructions) result.instructions = deps.instructions;
  return { body: success(req.id, result), session };
}
