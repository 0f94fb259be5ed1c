/**
 * The local attacker of race.test.ts: a separate process that exchanges two names (a folder
 * inside the root and a symbolic link to a folder outside) with renameat2(RENAME_EXCHANGE)
 * as fast as it can, so at any instant the folder's name is either the folder or the link,
 * never missing. Node has no renameat2, so the process is python3 calling it through ctypes
 * (Linux only; elsewhere there is no such primitive and the race test is skipped).
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';

const SCRIPT = `
import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
exchange = libc.renameat2
exchange.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
AT_FDCWD, RENAME_EXCHANGE = -100, 2
a, b, until = os.fsencode(sys.argv[1]), os.fsencode(sys.argv[2]), time.time() + int(sys.argv[3]) / 1000
if len(sys.argv) > 4:  # a probe: renameat2 exists
    sys.exit(0)
print("ready", flush=True)
swaps = 0
while time.time() < until:
    for _ in range(256):
        if exchange(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE) != 0:
            raise OSError(ctypes.get_errno(), "renameat2")
    swaps += 256
print(swaps, flush=True)
`;

export interface Racer {
  readonly child: ChildProcess;
  /** Resolves with the number of exchanges once the racer has finished. */
  readonly swaps: Promise<number>;
}

/** Why no racer can run here, or undefined when one can. */
export function racerUnavailable(): string | undefined {
  if (process.platform !== 'linux') return 'renameat2(RENAME_EXCHANGE) exists on Linux only';
  const probe = spawnSync('python3', ['-c', SCRIPT, '/', '/', '0', 'probe'], { timeout: 10_000 });
  if (probe.error || probe.status !== 0) return 'python3 with ctypes is needed to call renameat2';
  return undefined;
}

/** Starts exchanging `a` and `b` for `ms` milliseconds; resolves once the swaps have begun. */
export async function startRacer(a: string, b: string, ms: number): Promise<Racer> {
  const child = spawn('python3', ['-c', SCRIPT, a, b, String(ms)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout?.setEncoding('utf8');
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    err += chunk;
  });
  const exited = once(child, 'exit');
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the racer did not start within 10 s')), 10_000);
    child.stdout?.on('data', (chunk: string) => {
      out += chunk;
      if (out.startsWith('ready\n')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', () => {
      clearTimeout(timer);
      reject(new Error(`the racer exited before it was ready: ${err}`));
    });
  });
  const swaps = exited.then(([code]) => {
    if (code !== 0) throw new Error(`the racer failed (exit ${String(code)}): ${err}`);
    return Number(out.trim().split('\n').at(-1));
  });
  swaps.catch(() => {});
  return { child, swaps };
}
