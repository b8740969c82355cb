import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startManagerClient } from '../support/svc-manager.js';
import type { SvcProcess } from '../support/svc-process.js';
import { launch, openPage, screenshot } from './browser.js';

// With --api-key the console's files load as before, the API answers 401, and the console asks for
// the key; the right key lets it in, a wrong one is told so.

const KEY = 'console-test-key';
const procs: SvcProcess[] = [];
const dataDir = mkdtempSync(join(tmpdir(), 'svc-console-key-'));
let browser: Browser;
let url: string;

beforeAll(async () => {
  let server;
  [server, browser] = await Promise.all([startManagerClient(dataDir, procs, ['--api-key', KEY]), launch()]);
  url = server.url;
  const program = "CREATE TABLE t (id INT NOT NULL) WITH ('materialized' = 'true');";
  for (const [name, code] of [
    ['clicks', program],
    ['orders', program],
    ['broken', 'CREATE VIEW v AS SELECT nope;'],
  ]) {
    const res = await fetch(`${url}/v0/pipelines`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name, program_code: code, description: `the ${name} pipeline` }),
    });
    expect(res.status).toBe(201);
  }
});

afterAll(async () => {
  await browser?.close();
  for (const p of procs) p.child.kill('SIGTERM');
  await Promise.all(procs.map((p) => p.exited));
  rmSync(dataDir, { recursive: true, force: true });
});

it('asks for the API key, refuses a wrong one and lists the pipelines with the right one', async () => {
  expect((await fetch(`${url}/v0/pipelines`)).status).toBe(401);
  const errors: string[] = [];
  const page = await openPage(browser, errors);
  await page.goto(`${url}/`);
  const key = page.getByLabel('API key');
  await expect.poll(() => key.count()).toBe(1);
  await screenshot(page, 'sign-in');

  await key.fill('not-the-key');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect.poll(() => page.getByRole('alert').textContent()).toBe('Wrong API key.');

  await key.fill(KEY);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect.poll(() => page.getByRole('link', { name: 'orders' }).count()).toBe(1);
  await expect.poll(() => page.getByTestId('pipeline-count').textContent(), { timeout: 30_000 }).toBe('3 of 3');

  // The status filters: the program that does not compile is the one "error" pipeline.
  await expect.poll(() => page.getByText('SqlError').count(), { timeout: 60_000 }).toBe(1);
  await screenshot(page, 'pipelines');
  await page.getByRole('button', { name: 'error', exact: true }).click();
  expect(await page.getByTestId('pipeline-count').textContent()).toBe('1 of 3');
  expect(await page.getByRole('link', { name: 'broken' }).count()).toBe(1);

  // The key is kept for the tab's session: a reload stays signed in; signing out forgets it.
  await page.reload();
  await expect.poll(() => page.getByRole('link', { name: 'clicks' }).count()).toBe(1);
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect.poll(() => page.getByLabel('API key').count()).toBe(1);
  expect(errors).toEqual([]);
});
