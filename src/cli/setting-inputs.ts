/**
 * The settings as a package's installer asks for them: every `MCP_*` variable of the core and
 * of the loaded plugins, with its description, whether it must be set, whether it is a secret,
 * its default (as the variable would be written) and its kind. One list that `publish-info`
 * (the MCP Registry's `environmentVariables`) and `bundle` (an MCP Bundle's `user_config`)
 * both render, from the same zod schemas the server parses the settings with.
 */
import type { z } from 'zod';
import { isSecretSetting } from '../base/env.ts';
import { SETTING_NAMES, settingsSchema } from '../config/settings.ts';
import { type PluginDefinition, settingEnvName } from '../plugin/define.ts';

export interface SettingInput {
  /** The variable, e.g. `MCP_FILESYSTEM_ROOT`. */
  readonly name: string;
  readonly description: string;
  /** No default and not optional: the server does not start without it. */
  readonly required: boolean;
  /** A key, token, password or secret (by name, as `doctor` masks them). */
  readonly secret: boolean;
  /** The default as the variable would be written (`true`, `8000`, `a,b`); absent when unset. */
  readonly defaultValue?: string;
  readonly format: 'string' | 'number' | 'boolean';
  /** The values an enum setting accepts. */
  readonly choices?: readonly string[];
  /** `core`, or the plugin that declares it. */
  readonly owner: string;
}

/** A parsed default written back as an environment value. */
function written(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (Array.isArray(value)) return value.join(',');
  if (typeof value === 'object') return Object.keys(value).length === 0 ? undefined : JSON.stringify(value);
  return String(value);
}

function formatOf(value: unknown): SettingInput['format'] {
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'number') return 'number';
  return 'string';
}

/** The options of the enum inside a setting's pipeline (envEnum: string → trim → enum → default). */
function enumOptions(schema: unknown, depth = 0): string[] | undefined {
  if (depth > 8 || typeof schema !== 'object' || schema === null) return undefined;
  const options = (schema as { options?: unknown }).options;
  if (Array.isArray(options) && options.every((o) => typeof o === 'string')) return options as string[];
  const def = (schema as { _zod?: { def?: Record<string, unknown> } })._zod?.def;
  if (def === undefined) return undefined;
  for (const key of ['in', 'out', 'innerType', 'schema']) {
    const found = enumOptions(def[key], depth + 1);
    if (found) return found;
  }
  return undefined;
}

function input(name: string, schema: z.ZodType, owner: string): SettingInput {
  const parsed = schema.safeParse(undefined);
  const value = parsed.success ? parsed.data : undefined;
  const defaultValue = written(value);
  const choices = enumOptions(schema);
  return {
    name,
    description: schema.description ?? '',
    required: !parsed.success,
    secret: isSecretSetting(name),
    ...(defaultValue !== undefined ? { defaultValue } : {}),
    format: formatOf(value),
    ...(choices ? { choices } : {}),
    owner,
  };
}

/** The core's settings, in the schema's order. */
export function coreSettingInputs(): SettingInput[] {
  return SETTING_NAMES.map((name) => input(name, settingsSchema.shape[name] as z.ZodType, 'core'));
}

/** One plugin's `MCP_<PLUGIN>_*` settings, in its schema's order. */
export function pluginSettingInputs(plugin: PluginDefinition<Record<string, unknown>>): SettingInput[] {
  if (!plugin.settings) return [];
  return Object.entries(plugin.settings.shape).map(([key, schema]) =>
    input(settingEnvName(plugin.name, key), schema as z.ZodType, `plugin ${plugin.name}`),
  );
}
