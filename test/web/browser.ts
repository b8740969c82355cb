import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { CHROMIUM } from './global-setup.js';

// Debian's Chromium driven by playwright-core (no browser download): one browser per test file.

export async function launch(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM });
}

/** A page that fails the test on any uncaught error of the console's code. */
export async function openPage(browser: Browser, errors: string[]): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
  page.on('pageerror', (e) => errors.push(e.message));
  return page;
}

/**
 * With SVC_CONSOLE_SCREENSHOTS=dir (docs/console when the docs' pictures are remade), the page as
 * the test sees it, saved as dir/NAME.png; nothing otherwise.
 */
export async function screenshot(page: Page, name: string): Promise<void> {
  const dir = process.env['SVC_CONSOLE_SCREENSHOTS'];
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: join(dir, `${name}.png`) });
}
