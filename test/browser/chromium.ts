import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { missingTool } from '../support/required-tool.js';

/**
 * Debian's Chromium driven by playwright-core, for the demo page's browser tests: a fresh
 * profile each time, the page's script errors and refused resources collected, and a poll that
 * the page's CSP does not refuse. Without Chromium the suite is skipped with a message, except
 * under CI, where it fails.
 */

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface BrowserPage {
  context: BrowserContext;
  page: Page;
  /** Script errors and refused resources the page logged. */
  problems: string[];
  /** Polls an expression in the page until it is truthy. */
  waitUntil(expression: string, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** Opens Chromium on a new profile, or skips the suite (`suite.skip()`) when there is none. */
export async function openChromium(suite: Mocha.Context, extraArgs: string[] = [], options: { ignoreHTTPSErrors?: boolean } = {}): Promise<BrowserPage> {
  if (!existsSync(CHROMIUM)) missingTool(suite, `no Chromium at ${CHROMIUM}`, 'install it with apt-get install -y chromium, or set CHROMIUM_PATH');
  const profile = mkdtempSync(join(tmpdir(), 'demo-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    ignoreHTTPSErrors: options.ignoreHTTPSErrors ?? false,
    args: [...CHROMIUM_ARGS, ...extraArgs],
    viewport: { width: 1280, height: 800 },
  });
  const page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(10_000);
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    // A refused CSP directive or a script error shows here; an HTTP error status of a fetch the
    // page handles (the speech endpoint, say) is only Chromium's "Failed to load resource".
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) problems.push(message.text());
  });

  /**
   * (Playwright's waitForFunction compiles its predicate with eval inside the page, which the
   * page's CSP rightly refuses; evaluate() goes through the DevTools protocol instead.)
   */
  const waitUntil = async (expression: string, timeoutMs = 10_000): Promise<void> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (await page.evaluate(expression)) return;
      if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for: ${expression}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };

  const close = async () => {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  };
  return { context, page, problems, waitUntil, close };
}
