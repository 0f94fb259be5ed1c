/**
 * The loopback receiver of `mcp-toolkit login`: an HTTP server on 127.0.0.1 (or ::1) that
 * waits for the authorisation server's redirect (RFC 8252 §7.3) at the path and port of the
 * client's redirect URI, answers the browser with a short page, and hands the URL over.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RedirectPlan } from './login-client.ts';

function page(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
  res.end(`<!doctype html><title>mcp-toolkit login</title><p>${text}</p>`);
}

/**
 * Listens where `plan` says (a port the system picks when it names none).
 *
 * @example
 * const receiver = await startReceiver({ host: '127.0.0.1', port: 0, path: '/callback' });
 */
export async function startReceiver(plan: RedirectPlan) {
  let deliver: (url: URL) => void = () => {};
  const received = new Promise<URL>((resolve) => {
    deliver = resolve;
  });
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method !== 'GET' || url.pathname !== plan.path) {
      page(res, 404, 'Not found.');
      return;
    }
    const ok = !url.searchParams.has('error');
    page(
      res,
      ok ? 200 : 400,
      ok ? 'Signed in. You can close this window.' : 'Sign-in failed; see the terminal.',
    );
    deliver(url);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(
        err.code === 'EADDRINUSE'
          ? new Error(
              `${plan.listed} is the redirect URI of the client, but port ${plan.port} is in use; free it, or list the URI without a port (any port, RFC 8252 §7.3)`,
            )
          : err,
      ),
    );
    server.listen(plan.port, plan.host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  const host = plan.host === '::1' ? '[::1]' : plan.host;
  return {
    redirectUri:
      plan.port !== 0 && plan.listed !== undefined ? plan.listed : `http://${host}:${port}${plan.path}`,
    received,
    close() {
      server.closeAllConnections();
      server.close();
    },
  };
}
