/**
 * The plugins' lifecycle hooks: `app.onReady(fn)` runs once every plugin has registered,
 * before the server accepts traffic (a throw stops start-up, naming the plugin), and
 * `app.onClose(fn)` runs at shutdown, after the in-flight calls have drained, in reverse
 * registration order, within the shutdown budget (a hook that hangs is cut off and logged).
 */
import type { Logger } from 'pino';
import { pluginRegisterError } from './errors.ts';

export type LifecycleHook = () => void | Promise<void>;

interface Hook {
  readonly plugin: string;
  readonly fn: LifecycleHook;
}

export interface PluginLifecycle {
  /** The registration functions for one plugin's `app`. */
  forPlugin(plugin: string): { onReady(fn: LifecycleHook): void; onClose(fn: LifecycleHook): void };
  /** Runs the onReady hooks in registration order; the first that throws stops it, naming its plugin. */
  ready(): Promise<void>;
  /**
   * Runs the onClose hooks once, last registered first, each within its share of `budgetMs`
   * (what is left, split among the hooks still to run); later calls return the first's promise.
   */
  close(budgetMs: number): Promise<void>;
}

/**
 * @example
 * const lifecycle = createPluginLifecycle(logger);
 * lifecycle.forPlugin('db').onClose(() => pool.end());
 * await lifecycle.close(10_000);
 */
export function createPluginLifecycle(logger: Logger): PluginLifecycle {
  const ready: Hook[] = [];
  const closing: Hook[] = [];
  let closed: Promise<void> | undefined;
  const check = (plugin: string, what: string, fn: unknown) => {
    if (typeof fn !== 'function')
      throw pluginRegisterError(plugin, new TypeError(`${what} takes a function`));
  };
  return {
    forPlugin: (plugin) => ({
      onReady(fn) {
        check(plugin, 'app.onReady', fn);
        ready.push({ plugin, fn });
      },
      onClose(fn) {
        check(plugin, 'app.onClose', fn);
        closing.push({ plugin, fn });
      },
    }),
    async ready() {
      for (const { plugin, fn } of ready) {
        try {
          await fn();
        } catch (err) {
          throw pluginRegisterError(plugin, err, 'onReady()');
        }
      }
    },
    close(budgetMs) {
      closed ??= (async () => {
        const deadline = Date.now() + budgetMs;
        const hooks = [...closing].reverse();
        for (const [i, { plugin, fn }] of hooks.entries()) {
          const shareMs = Math.max(0, Math.floor((deadline - Date.now()) / (hooks.length - i)));
          let timer: NodeJS.Timeout | undefined;
          const cutOff = new Promise<'timeout'>((resolve) => {
            timer = setTimeout(() => resolve('timeout'), shareMs);
          });
          try {
            const outcome = await Promise.race([Promise.resolve().then(fn), cutOff]);
            if (outcome === 'timeout') {
              logger.error(
                { plugin, timeoutMs: shareMs },
                `plugin "${plugin}": onClose did not finish within ${shareMs} ms of the shutdown budget; cut off`,
              );
            }
          } catch (err) {
            logger.error({ plugin, err }, `plugin "${plugin}": onClose failed`);
          } finally {
            clearTimeout(timer);
          }
        }
      })();
      return closed;
    },
  };
}
