/**
 * Whether a bind address reaches this machine only: the names and addresses of the loopback
 * interface (RFC 1122 §3.2.1.3: 127.0.0.0/8; RFC 4291 §2.5.3: ::1). A host name other than
 * `localhost` is not loopback here, whatever it resolves to today.
 */
const LOOPBACK_NAMES: ReadonlySet<string> = new Set(['localhost', '::1', '[::1]']);

/**
 * @example
 * isLoopbackHost('127.0.0.1'); // true
 * isLoopbackHost('0.0.0.0'); // false
 */
export function isLoopbackHost(host: string): boolean {
  const h = host.trim().toLowerCase();
  return LOOPBACK_NAMES.has(h) || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}
