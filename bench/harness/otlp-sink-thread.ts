/**
 * The OTLP sink (otlp-sink.ts) on a worker thread, for in-process measurements: the sink's
 * own work (reading hundreds of kilobytes per export) then falls outside the CPU time of the
 * thread that serves requests (`process.threadCpuUsage`), as it does when the sink is another
 * process.
 */
import { isMainThread, parentPort, Worker } from 'node:worker_threads';
import { type OtlpSinkStats, startOtlpSink } from './otlp-sink.ts';

type Message = { url: string } | { stats: OtlpSinkStats };

if (!isMainThread && parentPort !== null) {
  const port = parentPort;
  const sink = await startOtlpSink();
  port.on('message', async (command: string) => {
    if (command === 'stats') port.postMessage({ stats: sink.stats() } satisfies Message);
    else if (command === 'close') {
      await sink.close();
      port.close();
    }
  });
  port.postMessage({ url: sink.url } satisfies Message);
}

/** Starts the sink on a worker thread; `stats` asks the thread for its counts. */
export async function startOtlpSinkThread(): Promise<{
  url: string;
  stats(): Promise<OtlpSinkStats>;
  close(): Promise<void>;
}> {
  const worker = new Worker(new URL(import.meta.url));
  const next = () =>
    new Promise<Message>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
  const first = await next();
  if (!('url' in first)) throw new Error('the OTLP sink thread did not start');
  return {
    url: first.url,
    async stats() {
      const reply = next();
      worker.postMessage('stats');
      const message = await reply;
      if (!('stats' in message)) throw new Error('the OTLP sink thread sent no stats');
      return message.stats;
    },
    async close() {
      worker.postMessage('close');
      await new Promise((resolve) => worker.once('exit', resolve));
    },
  };
}
