/**
 * Headless Chromium for the browser tests: Debian's `chromium` package driven by
 * playwright-core (which downloads no browser of its own). When the executable is missing
 * the tests skip with the reason (`.ci/run` installs it); every launch and wait is bounded.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';
import { REPO_ROOT } from '../helpers/spawn-server.ts';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Screenshots land here (gitignored), for a person to look at after a run. */
export const ARTIFACTS_DIR = path.join(REPO_ROOT, 'test-artifacts');

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Why the browser tests cannot run here, or undefined when they can (for node:test's `skip`). */
export function chromiumMissing(): string | undefined {
  return existsSync(CHROMIUM_PATH)
    ? undefined
    : `Chromium not found at ${CHROMIUM_PATH}: install Debian's chromium package (apt-get install chromium) or set CHROMIUM_PATH`;
}

export interface Browser {
  readonly context: BrowserContext;
  close(): Promise<void>;
}

/** A fresh browser with its own throwaway profile (--user-data-dir). */
export async function launchChromium(viewport = { width: 1000, height: 900 }): Promise<Browser> {
  const profile = mkdtempSync(path.join(os.tmpdir(), 'mcp-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ARGS,
    viewport,
    timeout: 30_000,
  });
  context.setDefaultTimeout(15_000);
  return {
    context,
    async close() {
      await context.close().catch(() => {});
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** The path of a named screenshot under test-artifacts/ (the folder is created). */
export function artifact(name: string): string {
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  return path.join(ARTIFACTS_DIR, name);
}
