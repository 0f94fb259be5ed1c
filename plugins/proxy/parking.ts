/**
 * The upstream calls held while our clients answer what the upstream asked (elicitation,
 * sampling, roots), by id: a 2026 round's sealed `requestState` names the id, and the client's
 * retry finds the call here. A held call costs memory here and in the upstream (its pending
 * request), and a client that never comes back leaves it held until MCP_PROXY_INPUT_TIMEOUT_MS,
 * so their number and size are bounded per client and overall: a call that would go past a
 * bound is not held, and only its own caller gets the error.
 *
 * What one held call costs is estimated as PARKED_OVERHEAD_BYTES plus the JSON text of its
 * arguments and of the upstream's unanswered questions.
 */
import type { HandlerContext } from '@mcp-toolkit/server';
import type { HeldCall } from './held-call.ts';

/** What the held call's own objects, its timer and the client's pending request cost, roughly. */
export const PARKED_OVERHEAD_BYTES = 2_048;

export interface ParkingLimits {
  readonly maxParked: number;
  readonly maxParkedPerClient: number;
  readonly maxParkedBytes: number;
  readonly maxParkedBytesPerClient: number;
}

/** Whose held calls a request's count against: the authenticated client, else the 2025 session. */
export function parkingClient(ctx: HandlerContext): string {
  if (ctx.identity !== undefined) return `client ${ctx.identity.clientId}`;
  return ctx.sessionId !== undefined ? `session ${ctx.sessionId}` : 'unauthenticated';
}

interface Parked {
  readonly call: HeldCall;
  readonly client: string;
  bytes: number;
}

interface Tally {
  count: number;
  bytes: number;
}

/**
 * @example
 * const parking = new Parking(settings);
 * const refused = parking.park(call, parkingClient(ctx), bytes); // a message, or undefined
 */
export class Parking {
  readonly #limits: ParkingLimits;
  readonly #parked = new Map<string, Parked>();
  readonly #byClient = new Map<string, Tally>();
  readonly #total: Tally = { count: 0, bytes: 0 };

  constructor(limits: ParkingLimits) {
    this.#limits = limits;
  }

  /** The held call with this id. */
  get(id: string): HeldCall | undefined {
    return this.#parked.get(id)?.call;
  }

  /** How many calls are held, and their estimated size. */
  get size(): { count: number; bytes: number } {
    return { ...this.#total };
  }

  /**
   * Holds `call` for `client` at an estimated `bytes` (a call held already is weighed again).
   * Returns why it cannot be held, naming the setting, or undefined once it is.
   */
  park(call: HeldCall, client: string, bytes: number): string | undefined {
    const before = this.#parked.get(call.id);
    const mine = this.#byClient.get(client) ?? { count: 0, bytes: 0 };
    // A call held already is weighed again: its old weight is not counted twice.
    const own = before?.client === client ? before : undefined;
    const l = this.#limits;
    const over = (what: string, setting: string, limit: number, whose: string) =>
      `${whose} would hold more than ${limit} ${what} waiting for client input (${setting}=${limit})`;
    let problem: string | undefined;
    if (mine.count - (own ? 1 : 0) + 1 > l.maxParkedPerClient)
      problem = over('calls', 'MCP_PROXY_MAX_PARKED_PER_CLIENT', l.maxParkedPerClient, 'this client');
    else if (mine.bytes - (own?.bytes ?? 0) + bytes > l.maxParkedBytesPerClient)
      problem = over(
        'bytes of calls',
        'MCP_PROXY_MAX_PARKED_BYTES_PER_CLIENT',
        l.maxParkedBytesPerClient,
        'this client',
      );
    else if (this.#total.count - (before ? 1 : 0) + 1 > l.maxParked)
      problem = over('calls', 'MCP_PROXY_MAX_PARKED', l.maxParked, 'the server');
    else if (this.#total.bytes - (before?.bytes ?? 0) + bytes > l.maxParkedBytes)
      problem = over('bytes of calls', 'MCP_PROXY_MAX_PARKED_BYTES', l.maxParkedBytes, 'the server');
    if (problem !== undefined) return problem;
    if (before !== undefined) this.delete(call.id);
    this.#parked.set(call.id, { call, client, bytes });
    const tally = this.#byClient.get(client) ?? { count: 0, bytes: 0 };
    tally.count++;
    tally.bytes += bytes;
    this.#byClient.set(client, tally);
    this.#total.count++;
    this.#total.bytes += bytes;
    return undefined;
  }

  /** Lets the call go (answered, given up or ended). */
  delete(id: string): void {
    const parked = this.#parked.get(id);
    if (parked === undefined) return;
    this.#parked.delete(id);
    const tally = this.#byClient.get(parked.client);
    if (tally !== undefined) {
      tally.count--;
      tally.bytes -= parked.bytes;
      if (tally.count === 0) this.#byClient.delete(parked.client);
    }
    this.#total.count--;
    this.#total.bytes -= parked.bytes;
  }
}
