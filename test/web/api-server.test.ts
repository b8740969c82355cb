import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { message, startSvc, type SvcProcess } from '../support/svc-process.js';
import { launch, openPage } from './browser.js';

// `svc api-server` (the API alone, as the Helm chart runs it) serves the console at / as the manager does.

const dataDir = mkdtempSync(join(tmpdir(), 'svc-console-api-'));
let svc: SvcProcess | undefined;

afterAll(async () => {
  svc?.child.kill('SIGTERM');
  await svc?.exited;
  rmSync(dataDir, { recursive: true, force: true });
});

it('svc api-server serves the console, which lists its pipelines', async () => {
  svc = startSvc(['api-server', '--port', '0', '--data-dir', dataDir]);
  const ready = await svc.waitForLine((l) => message(l).startsWith('svc manager ready at'), 120_000);
  const url = (ready['fields'] as { url: string }).url;
  const created = await fetch(`${url}/v0/pipelines`, {
    method: 'POST',
    body: JSON.stringify({ name: 'from-the-api-server', program_code: '' }),
  });
  expect(created.status).toBe(201);
  const browser = await launch();
  try {
    const errors: string[] = [];
    const page = await openPage(browser, errors);
    await page.goto(`${url}/`);
    await expect
      .poll(() => page.getByRole('link', { name: 'from-the-api-server' }).count(), { timeout: 30_000 })
      .toBe(1);
    expect(errors).toEqual([]);
  } finally {
    await browser.close();
  }
});
