/**
 * `mcp-toolkit doctor`: the parsed settings (secrets masked), each plugin and whether its
 * settings and checks pass, and the registered counts. Non-zero when anything is wrong.
 */
import pino from 'pino';
import { maskSecret, parseSettings, SETTING_NAMES } from '../config/settings.ts';
import { settingEnvName } from '../plugin.ts';
import { importPlugin, parsePluginSettings } from '../plugin-loader.ts';
import { createServer, type LoadedPlugin } from '../server.ts';

export async function doctor(
  env: Readonly<Record<string, string | undefined>>,
  print: (line: string) => void,
): Promise<number> {
  let failures = 0;
  const mark = (ok: boolean, text: string) => {
    if (!ok) failures++;
    print(`${ok ? '✓' : '✗'} ${text}`);
  };
  let settings: ReturnType<typeof parseSettings>;
  try {
    settings = parseSettings(env);
    mark(true, 'settings are valid');
  } catch (err) {
    mark(false, `settings: ${(err as Error).message}`);
    return 1;
  }
  print('');
  print('settings:');
  for (const name of SETTING_NAMES) {
    const value = settings[name as keyof typeof settings];
    print(
      `  ${name}=${JSON.stringify(maskSecret(name, value) ?? null)}${env[name] === undefined ? ' (default)' : ''}`,
    );
  }
  print('');
  const plugins: LoadedPlugin[] = [];
  for (const ref of settings.MCP_PLUGINS) {
    try {
      const definition = await importPlugin(ref);
      const pluginSettings = parsePluginSettings(definition, env);
      plugins.push({ definition, settings: pluginSettings });
      mark(true, `plugin ${definition.name}: loaded, settings valid`);
      for (const key of Object.keys(pluginSettings)) {
        const name = settingEnvName(definition.name, key);
        print(`    ${name}=${JSON.stringify(maskSecret(name, pluginSettings[key]) ?? null)}`);
      }
      for (const check of (await definition.doctor?.(pluginSettings)) ?? []) {
        mark(check.ok, `plugin ${definition.name}: ${check.name}${check.detail ? ` (${check.detail})` : ''}`);
      }
    } catch (err) {
      mark(false, `plugin ${ref}: ${(err as Error).message}`);
    }
  }
  if (failures === 0) {
    try {
      const server = await createServer({ settings, plugins, logger: pino({ level: 'silent' }) });
      const c = server.registry.counts;
      mark(
        true,
        `registered ${c.tools} tools, ${c.resources} resources, ${c.resourceTemplates} resource templates, ${c.prompts} prompts`,
      );
      await server.close();
    } catch (err) {
      mark(false, `registration: ${(err as Error).message}`);
    }
  }
  print('');
  print(failures === 0 ? 'doctor: all checks passed' : `doctor: ${failures} check(s) failed`);
  return failures === 0 ? 0 : 1;
}
