/**
 * Garbage collection of a server over a window of requests, read from V8's own account of
 * each collection: the server runs with `--trace-gc-nvp`, which prints one line per collection
 * on stdout with the bytes allocated since the previous one (`allocated=`), the bytes moved to
 * old space (`promoted=`), the main thread's pause (`pause=`) and the kind (`gc=s`: a
 * scavenge of the young generation; `gc=mc`/`gc=mmc`: a full mark-compact). Two readings
 * around a window, divided by its requests, say what a request costs the collector.
 *
 * The window's edges fall between collections, so `allocated` counts from the collection
 * before the window to the last one in it: over thousands of requests and dozens of
 * scavenges the difference is a few percent.
 */

/** The node flag that makes a server print the lines `gcTrace` reads. */
export const GC_TRACE_FLAG = '--trace-gc-nvp';

export interface GcTotals {
  scavenges: number;
  /** Full collections (mark-compact, incremental or not). */
  fullCollections: number;
  /** Main-thread pause, ms. */
  pauseMs: number;
  allocatedBytes: number;
  promotedBytes: number;
}

/** What a window of `requests` cost the collector, per request. */
export interface GcPerRequest {
  allocatedBytes: number;
  promotedBytes: number;
  pauseUs: number;
  /** Requests per scavenge (how often the young generation fills). */
  requestsPerScavenge: number | null;
  fullCollections: number;
}

const NUMBER = (line: string, key: string): number => {
  const m = new RegExp(`\\b${key}=([0-9.]+)`).exec(line);
  return m ? Number(m[1]) : 0;
};

/**
 * Follows a `--trace-gc-nvp` server's stdout; `read()` gives the totals so far.
 *
 * @example
 * const gc = gcTrace(child.stdout);
 * const before = gc.read();
 * // ... requests ...
 * gcPerRequest(before, gc.read(), 2000);
 */
export function gcTrace(stdout: NodeJS.ReadableStream | null): { read(): GcTotals } {
  const totals: GcTotals = {
    scavenges: 0,
    fullCollections: 0,
    pauseMs: 0,
    allocatedBytes: 0,
    promotedBytes: 0,
  };
  let partial = '';
  stdout?.on('data', (chunk: Buffer | string) => {
    const lines = (partial + chunk.toString()).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      const kind = /\bgc=(\w+)/.exec(line)?.[1];
      if (kind === undefined) continue;
      // `s`: a scavenge; `ms`/`mmc`: V8's minor mark-sweep or mark-compact, the young generation too.
      if (kind === 's' || kind === 'ms' || kind === 'mmc') totals.scavenges++;
      else totals.fullCollections++;
      totals.pauseMs += NUMBER(line, 'pause');
      totals.allocatedBytes += NUMBER(line, 'allocated');
      totals.promotedBytes += NUMBER(line, 'promoted');
    }
  });
  return { read: () => ({ ...totals }) };
}

/** The difference of two readings, per request. */
export function gcPerRequest(before: GcTotals, after: GcTotals, requests: number): GcPerRequest {
  const scavenges = after.scavenges - before.scavenges;
  return {
    allocatedBytes: (after.allocatedBytes - before.allocatedBytes) / requests,
    promotedBytes: (after.promotedBytes - before.promotedBytes) / requests,
    pauseUs: ((after.pauseMs - before.pauseMs) * 1000) / requests,
    requestsPerScavenge: scavenges === 0 ? null : requests / scavenges,
    fullCollections: after.fullCollections - before.fullCollections,
  };
}
