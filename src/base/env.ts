/**
 * zod building blocks for environment variables: every value arrives as a string, and a
 * bad one must produce a message that says what the variable accepts, never a secret's value.
 */
import { z } from 'zod';

/** `true/false`, `1/0`, `yes/no`, `on/off` (case-insensitive). */
export function envBool(defaultValue: boolean) {
  return z
    .string()
    .trim()
    .toLowerCase()
    .pipe(z.enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off'], { error: 'expected true or false' }))
    .transform((v) => v === 'true' || v === '1' || v === 'yes' || v === 'on')
    .optional()
    .transform((v) => v ?? defaultValue);
}

/** An integer in [min, max]. */
export function envInt(defaultValue: number, min: number, max: number) {
  return z
    .string()
    .trim()
    .regex(/^-?\d+$/, { error: `expected an integer from ${min} to ${max}` })
    .transform(Number)
    .pipe(
      z
        .number()
        .int()
        .min(min, { error: `expected an integer from ${min} to ${max}` })
        .max(max, {
          error: `expected an integer from ${min} to ${max}`,
        }),
    )
    .optional()
    .transform((v) => v ?? defaultValue);
}

/** A comma-separated list; blanks dropped. */
export function envList(defaultValue: readonly string[]) {
  return z
    .string()
    .transform((v) =>
      v
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== ''),
    )
    .optional()
    .transform((v) => v ?? [...defaultValue]);
}

export function envEnum<const T extends readonly [string, ...string[]]>(values: T, defaultValue: T[number]) {
  return z
    .string()
    .trim()
    .pipe(z.enum(values, { error: `expected one of ${values.join(', ')}` }))
    .optional()
    .transform((v) => (v ?? defaultValue) as T[number]);
}

export function envString(defaultValue?: string) {
  return z
    .string()
    .optional()
    .transform((v) => (v === undefined || v === '' ? defaultValue : v));
}

/** A string with a default (an empty value counts as unset). */
export function envText(defaultValue: string) {
  return z
    .string()
    .optional()
    .transform((v): string => (v === undefined || v.trim() === '' ? defaultValue : v.trim()));
}

// RFC 1123 host names: dot-separated labels of letters, digits and inner hyphens.
const HOST_NAME =
  /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$/;

/**
 * An address to bind: an IPv4 or IPv6 address (without brackets) or a host name, with a
 * default. Anything else (`0.0.0.0;id`, a URL, a port) is refused with what it accepts.
 */
export function envHost(defaultValue: string) {
  // No node:net here (this module also runs on fetch runtimes): IPv4 addresses are host names
  // by shape, and an IPv6 address is what a URL takes between brackets.
  const ipv6 = (v: string) => v.includes(':') && !/[[\]/@]/.test(v) && URL.canParse(`http://[${v}]/`);
  // Digits and dots are an IPv4 address or nothing (`256.1.1.1`, `1.2.3` are no host names).
  const ipv4 = (v: string) =>
    !/^[\d.]+$/.test(v) ||
    /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/.test(v);
  return envText(defaultValue).refine((v) => (HOST_NAME.test(v) && ipv4(v)) || ipv6(v), {
    error: 'expected an IP address (127.0.0.1, 0.0.0.0, ::1, ::) or a host name (localhost)',
  });
}

/** Fastify's trustProxy: `false` (default), `true`, a hop count, or a list of addresses/CIDRs. */
export function envTrustProxy() {
  return z
    .string()
    .optional()
    .transform((v): boolean | number | string[] => {
      const t = v?.trim().toLowerCase() ?? '';
      if (t === '' || t === 'false' || t === '0' || t === 'no') return false;
      if (t === 'true' || t === 'yes') return true;
      if (/^\d+$/.test(t)) return Number(t);
      return t
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== '');
    });
}

/** Formats zod issues as `MCP_X="value" is invalid: expected ...` lines. */
export function describeIssues(error: z.ZodError, env: Readonly<Record<string, string | undefined>>): string {
  return error.issues
    .map((issue) => {
      const name = String(issue.path[0] ?? '(settings)');
      const value = env[name];
      return `${name}=${JSON.stringify(maskSecret(name, value) ?? '')} is invalid: ${issue.message}`;
    })
    .join('\n');
}

/**
 * Whether a setting holds a secret, by its name: a secret, key(s), token or password. `doctor`
 * masks these, and the registry metadata and bundles mark them secret.
 */
export function isSecretSetting(name: string): boolean {
  return /SECRET|KEYS?$|_KEY_|TOKEN|PASSWORD/.test(name);
}

/** Masks values that must never be printed (doctor, logs): secrets, keys, and URL passwords. */
export function maskSecret(name: string, value: unknown): unknown {
  if (value === undefined || value === '') return value;
  if (isSecretSetting(name)) return '••••••';
  if (typeof value !== 'string') return value;
  let masked = value;
  if (/^[a-z][a-z0-9+.-]*:\/\/[^/@\s]*:[^/@\s]*@/i.test(masked)) {
    masked = masked.replace(/^([a-z][a-z0-9+.-]*:\/\/[^/:@\s]*):[^/@\s]*@/i, '$1:••••••@');
  }
  // A password in a URL's query (a Sentinel set's own: `?sentinelPassword=`).
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(masked))
    masked = masked.replace(/([?&][A-Za-z]*password=)[^&#\s]*/gi, '$1••••••');
  return masked;
}
