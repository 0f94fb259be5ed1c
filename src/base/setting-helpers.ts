/**
 * `setting`: the zod pieces a plugin's settings schema is made of (docs/plugins.md,
 * "Settings"), the same ones the server's own `MCP_*` settings use. Every value arrives from
 * the environment as a string; each piece turns it into the type the plugin reads, with a
 * default when unset, and a bad value gets a message saying what the variable accepts (never
 * the value of a secret: the core masks those by name).
 *
 * @example
 * const notesSettings = z.object({
 *   maxNotes: setting.int(100, 1, 10_000).describe('How many notes are kept.'),
 *   tags: setting.list().describe('Tags every new note gets.'),
 * });
 */
import { z } from 'zod';
import { envBool, envEnum, envInt, envList } from './env.ts';

/** An optional string, trimmed; blank counts as unset. */
function text(): z.ZodType<string | undefined, string | undefined>;
/** A string, trimmed, with a default for unset or blank. */
function text(defaultValue: string): z.ZodType<string, string | undefined>;
function text(defaultValue?: string): z.ZodType<string | undefined, string | undefined> {
  return z
    .string()
    .optional()
    .transform((v) => (v === undefined || v.trim() === '' ? defaultValue : v.trim()));
}

/**
 * An absolute http(s) URL, or unset. `example` goes into the message a bad value gets
 * (`expected an http(s) URL, e.g. https://api.example.com/v1`).
 */
function url(options: { example?: string } = {}) {
  const error = `expected an http(s) URL${options.example === undefined ? '' : `, e.g. ${options.example}`}`;
  return text().refine((v) => v === undefined || (URL.canParse(v) && /^https?:$/.test(new URL(v).protocol)), {
    error,
  });
}

/** A comma-separated list, blanks dropped; unset is `defaultValue` (the empty list unless given). */
function list(defaultValue: readonly string[] = []) {
  return envList(defaultValue);
}

export const setting = Object.freeze({
  /** `true/false`, `1/0`, `yes/no`, `on/off` (any case); unset is `defaultValue`. */
  bool: envBool,
  /** An integer from `min` to `max`; unset is `defaultValue`. */
  int: envInt,
  list,
  /** One of `values`; unset is `defaultValue`. */
  oneOf: envEnum,
  text,
  url,
});
