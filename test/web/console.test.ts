import { mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parquetReadObjects } from 'hyparquet';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startManagerClient } from '../support/svc-manager.js';
import type { SvcProcess } from '../support/svc-process.js';
import { launch, openPage, screenshot } from './browser.js';

// The web console end to end: a real `svc manager` serving it at /, Debian's Chromium clicking
// through it as a user would (docs/console.md).

const BROKEN = `CREATE TABLE t (id INT NOT NULL, name TEXT) WITH ('materialized' = 'true');
CREATE MATERIALIZED VIEW n AS SELECT COUNT(*) AS total FROM t WHERE nope > 0;`;
const FIXED = `CREATE TABLE t (id INT NOT NULL, name TEXT) WITH ('materialized' = 'true');
CREATE MATERIALIZED VIEW n AS SELECT COUNT(*) AS total FROM t;`;

const procs: SvcProcess[] = [];
const dataDir = mkdtempSync(join(tmpdir(), 'svc-console-'));
let browser: Browser;
let server: Awaited<ReturnType<typeof startManagerClient>>;
const errors: string[] = [];

beforeAll(async () => {
  [server, browser] = await Promise.all([startManagerClient(dataDir, procs), launch()]);
});

afterAll(async () => {
  await browser?.close();
  for (const p of procs) p.child.kill('SIGTERM');
  await Promise.all(procs.map((p) => p.exited));
  rmSync(dataDir, { recursive: true, force: true });
});

/** The current (or desired) value of a status row of the pipeline page. */
const status = (page: Page, row: string, column: 'desired' | 'current' = 'current') =>
  page.locator(`tr[data-status="${row}"] td:nth-child(${column === 'desired' ? 2 : 3})`);

/** The rows of a change grid of one kind whose last cell (the view's `total`) is `total`. */
const change = (grid: Locator, kind: 'insert' | 'delete', total: string) =>
  grid
    .locator(`.grid-row.${kind}`)
    .filter({ has: grid.page().locator('[role=cell]:last-child', { hasText: new RegExp(`^${total}$`) }) });

async function replaceProgram(page: Page, sql: string) {
  const editor = page.getByRole('textbox', { name: 'SQL program' });
  await editor.click();
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(sql);
  await page.getByRole('button', { name: 'Save' }).click();
}

describe('the web console', () => {
  it('serves the console at / and keeps unknown paths a JSON 404', async () => {
    const index = await fetch(`${server.url}/`);
    expect(index.status).toBe(200);
    expect(index.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await index.text()).toContain('<div id="root">');
    const missing = await fetch(`${server.url}/assets/nope.js`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error_code: 'NotFound' });
    // The console's files are not API routes: the OpenAPI document does not list them.
    const openapi = (await (await fetch(`${server.url}/v0/openapi.json`)).json()) as { paths: Record<string, unknown> };
    expect(
      Object.keys(openapi.paths).filter((p) => !p.startsWith('/v0') && !/^\/(healthz|readyz|metrics)$/.test(p)),
    ).toEqual([]);
  });

  it('writes, compiles, runs, feeds, watches, queries, stops and deletes a pipeline', async () => {
    const page = await openPage(browser, errors);
    // rename's prompt gets the new name; delete's confirm is accepted.
    page.on('dialog', (d) => void (d.type() === 'prompt' ? d.accept('orders-v2') : d.accept()));
    await page.goto(`${server.url}/`);
    await expect.poll(() => page.getByRole('heading', { name: 'Pipelines' }).count()).toBe(1);

    // Create: the console goes to the new pipeline's program.
    await page.getByLabel('New pipeline name').fill('orders');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.waitForURL(/#\/pipelines\/orders\/program$/);

    // A program with an error: the compiler's position is marked in the editor, the message listed.
    await replaceProgram(page, BROKEN);
    await expect.poll(() => status(page, 'program').textContent(), { timeout: 60_000 }).toBe('SqlError');
    const mark = page.locator('.cm-lintRange-error');
    await expect.poll(() => mark.count()).toBeGreaterThan(0);
    expect(await mark.first().textContent()).toBe('nope');
    expect(await page.getByLabel('Compiler messages').textContent()).toContain('nope');
    await screenshot(page, 'program-error');

    // Fixed: compiled, the mark gone.
    await replaceProgram(page, FIXED);
    await expect.poll(() => status(page, 'program').textContent(), { timeout: 60_000 }).toBe('Success');
    expect(await mark.count()).toBe(0);

    // The runtime configuration's form (generated from the API's schema): workers set and saved.
    await page.getByRole('link', { name: 'configuration' }).click();
    await page.getByLabel('workers', { exact: true }).fill('2');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByText('Saved').count()).toBe(1);
    expect((await server.get('orders'))['runtime_config']).toMatchObject({ workers: 2 });
    await screenshot(page, 'configuration');

    // Start: desired Running at once, current Running once the process is up.
    await page.getByRole('button', { name: 'Start', exact: true }).click();
    await expect.poll(() => status(page, 'deployment', 'desired').textContent(), { timeout: 10_000 }).toBe('Running');
    await expect.poll(() => status(page, 'deployment').textContent(), { timeout: 90_000 }).toBe('Running');
    await page.getByRole('link', { name: 'program' }).click();
    await screenshot(page, 'program');

    // Data: follow the view, push rows, see its changes (an insert, then a delete and an insert).
    await page.getByRole('link', { name: 'data' }).click();
    await page.getByRole('button', { name: 'follow changes' }).click();
    const changes = page.getByRole('table', { name: 'Changes of n' });
    await expect.poll(() => page.getByText('following').count()).toBeGreaterThan(0);
    await page.getByLabel('Rows to push').fill('[{"id": 1, "name": "one"}, {"id": 2, "name": "two"}]');
    await page.getByRole('button', { name: 'Push' }).click();
    await expect.poll(() => change(changes, 'insert', '2').count(), { timeout: 30_000 }).toBe(1);
    await page.getByLabel('Format').selectOption('csv');
    await page.getByLabel('Rows to push').fill('3,three\n');
    await page.getByRole('button', { name: 'Push' }).click();
    await expect.poll(() => change(changes, 'delete', '2').count(), { timeout: 30_000 }).toBe(1);
    await expect.poll(() => change(changes, 'insert', '3').count()).toBe(1);

    // An ad-hoc query into the grid.
    await page.getByRole('textbox', { name: 'Ad-hoc query' }).click();
    await page.keyboard.press('Control+A');
    await page.keyboard.insertText('SELECT id, name FROM t ORDER BY id');
    await page.keyboard.press('Escape'); // the completion popup
    await page.getByRole('button', { name: 'Run query' }).click();
    const result = page.getByRole('table', { name: 'Query result' });
    await expect.poll(() => result.locator('.grid-body .grid-row').count(), { timeout: 30_000 }).toBe(3);
    expect(await result.locator('.grid-body .grid-row').nth(2).textContent()).toBe('3three');
    const csv = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download CSV' }).click();
    expect((await csv).suggestedFilename()).toBe('orders-query.csv');
    // Parquet: the same query asked again as a file, read back with the project's Parquet reader.
    const parquet = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download Parquet' }).click();
    const file = await parquet;
    expect(file.suggestedFilename()).toBe('orders-query.parquet');
    const bytes = await readFile(await file.path());
    const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
    expect(await parquetReadObjects({ file: buffer, utf8: true })).toEqual([
      { id: 1, name: 'one' },
      { id: 2, name: 'two' },
      { id: 3, name: 'three' },
    ]);
    await screenshot(page, 'data');

    // Health: the graphs fill, the log follows the process. A checkpoint puts bytes in storage, and
    // the steps of the rows pushed above have a time.
    expect((await server.call('POST', '/v0/pipelines/orders/checkpoint')).status).toBe(200);
    await page.getByRole('link', { name: 'health' }).click();
    await expect.poll(() => page.locator('.chart canvas').count()).toBe(8);
    const now = async (title: string) => {
      const text = (await page.getByRole('figure', { name: title }).locator('.chart-now').textContent()) ?? '';
      return text.startsWith('now ') ? parseFloat(text.slice(4)) : NaN; // '1.2kB' → 1.2
    };
    await expect.poll(() => now('Step time'), { timeout: 30_000 }).toBeGreaterThan(0);
    await expect.poll(() => now('Storage'), { timeout: 30_000 }).toBeGreaterThan(0);
    await expect.poll(() => page.getByTestId('log').textContent(), { timeout: 30_000 }).not.toBe('');
    // The circuit profile: n is native (on as many shards as workers 2 gets here), its aggregate
    // holds its group (one per shard) and has stepped.
    const circuit = page.getByRole('table', { name: 'Circuit profile' });
    await expect.poll(() => circuit.getByText(/^native on [12] shard/).count(), { timeout: 30_000 }).toBe(1);
    const aggregate = circuit.locator('tr', { hasText: 'Aggregate' });
    expect(Number(await aggregate.locator('td').nth(1).textContent())).toBeGreaterThan(0);
    expect(Number(await aggregate.locator('td').nth(2).textContent())).toBeGreaterThan(0);
    await page.getByRole('link', { name: 'health' }).click();
    await page.waitForTimeout(3000); // a few samples on the graphs for the picture
    await screenshot(page, 'health');

    // Stop (graceful), clear the storage, delete from the list.
    await page.getByRole('button', { name: 'Stop', exact: true }).click();
    // Graceful: suspended with a checkpoint first, then stopped (docs/lifecycle.md).
    const answer = page.getByRole('group', { name: 'Lifecycle actions' }).getByRole('status');
    await expect.poll(() => answer.count(), { timeout: 30_000 }).toBe(1);
    expect(await answer.getAttribute('class')).toBe('answer');
    await expect.poll(() => status(page, 'deployment').textContent(), { timeout: 90_000 }).toBe('Stopped');
    await page.getByRole('button', { name: 'Clear storage' }).click();
    await expect.poll(() => status(page, 'storage').textContent(), { timeout: 60_000 }).toBe('Cleared');
    await page.goto(`${server.url}/#/`);
    await page.getByRole('button', { name: 'Rename orders' }).click();
    await expect.poll(() => page.getByRole('link', { name: 'orders-v2' }).count()).toBe(1);
    await page.getByRole('button', { name: 'Delete orders-v2' }).click();
    await expect.poll(async () => (await server.call('GET', '/v0/pipelines/orders-v2')).status).toBe(404);
    await expect.poll(() => page.getByText('No pipelines').count()).toBe(1);
    expect(errors).toEqual([]);
  });
});
