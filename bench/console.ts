import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pLimit from 'p-limit';
import type { Browser } from 'playwright-core';
import { launch } from '../test/web/browser.js';
import { message, startSvc } from '../test/support/svc-process.js';
import { call, list } from './api-client.js';
import { benchFlags, integerFlag, machineTable, runBench, say, uptime, writeResult } from './common.js';
import { machineFacts } from './report.js';

// `npm run bench:console -- [--pipelines 1000] [--runs 5] [--record]`
// The web console in Debian's Chromium against a real `svc api-server` (embedded PGlite; no compiler,
// so the pipelines stay as created): the first paint of the console, and the time until the list of
// N pipelines is drawn. Side by side in the same run, the ceilings: the browser's first paint of a
// one-line page, and the list's API answer alone (GET /v0/pipelines?selector=status from Node).
// See bench/README.md.

const USAGE = `usage: npm run bench:console -- [options]
  --pipelines N   pipelines in the list (default 1000)
  --runs N        page loads measured, each in a fresh browser context (default 5)
  --record        also write bench/results/<date>-console.md`;

const values = benchFlags(USAGE, {
  pipelines: { type: 'string', default: '1000' },
  runs: { type: 'string', default: '5' },
  record: { type: 'boolean', default: false },
});
const PIPELINES = integerFlag('pipelines', values.pipelines, 1, 100_000);
const RUNS = integerFlag('runs', values.runs, 1, 100);

interface Load {
  /** first-contentful-paint of the console's page (the top bar and "Loading…"). */
  fcp: number;
  /** navigation start → the list's grid shows "N of N" with its first rows drawn. */
  listDrawn: number;
  /** the list's API answer as the page fetched it (resource timing, request start → response end). */
  listFetch: number;
  /** the list's answer received → its rows drawn: the console's own work (parse, filter, render). */
  listRender: number;
  /** rows of the grid in the DOM once drawn: the virtualisation at work. */
  domRows: number;
  /** scroll to the end → the last pipeline's row drawn. */
  scrollToEnd: number;
}

async function seed(url: string): Promise<void> {
  const limit = pLimit(8);
  const program = "CREATE TABLE t (id INT NOT NULL) WITH ('materialized' = 'true');";
  await Promise.all(
    Array.from({ length: PIPELINES }, (_, i) =>
      limit(() =>
        call('POST', `${url}/v0/pipelines`, {
          name: `bench-${String(i).padStart(5, '0')}`,
          program_code: program,
          description: `pipeline ${i}`,
        }),
      ),
    ),
  );
}

// What runs inside the page, as source text: this file is type-checked for Node, without the DOM's types.
const IN_PAGE = {
  listDrawn: (n: number) =>
    `document.querySelector('[data-testid=pipeline-count]')?.textContent === '${n} of ${n}' && document.querySelectorAll('.grid-body [role=row]').length > 0`,
  timings: `(() => {
    const paint = performance.getEntriesByName('first-contentful-paint')[0];
    const list = performance.getEntriesByType('resource').find((e) => e.name.includes('/v0/pipelines?selector=status'));
    return {
      fcp: paint ? paint.startTime : NaN,
      listFetch: list ? list.responseEnd - list.requestStart : NaN,
      listEnd: list ? list.responseEnd : NaN,
      domRows: document.querySelectorAll('.grid-body [role=row]').length,
    };
  })()`,
  scrollToEnd: (name: string) => `(async () => {
    const body = document.querySelector('.grid-body');
    const t0 = performance.now();
    body.scrollTop = body.scrollHeight;
    for (;;) {
      await new Promise((r) => requestAnimationFrame(r));
      if ([...body.querySelectorAll('a')].some((a) => a.textContent === ${JSON.stringify(name)})) return performance.now() - t0;
    }
  })()`,
  fcp: `performance.getEntriesByName('first-contentful-paint').length > 0`,
  fcpValue: `performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN`,
};

async function loadOnce(browser: Browser, url: string): Promise<Load> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  try {
    const page = await context.newPage();
    await page.goto(`${url}/`);
    const count = page.getByTestId('pipeline-count');
    await page.waitForFunction(IN_PAGE.listDrawn(PIPELINES));
    const drawn = (await page.evaluate('performance.now()')) as number;
    const { listEnd, ...timings } = (await page.evaluate(IN_PAGE.timings)) as Omit<
      Load,
      'listDrawn' | 'listRender' | 'scrollToEnd'
    > & { listEnd: number };
    if ((await count.textContent()) !== `${PIPELINES} of ${PIPELINES}`) throw new Error('list incomplete');
    const scrollToEnd = (await page.evaluate(
      IN_PAGE.scrollToEnd(`bench-${String(PIPELINES - 1).padStart(5, '0')}`),
    )) as number;
    return { ...timings, listDrawn: drawn, listRender: drawn - listEnd, scrollToEnd };
  } finally {
    await context.close();
  }
}

/** The browser's own floor: the first paint of a one-line page, in a fresh context. */
async function blankPaint(browser: Browser): Promise<number> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto('data:text/html,<p>svc</p>');
    await page.waitForFunction(IN_PAGE.fcp);
    return (await page.evaluate(IN_PAGE.fcpValue)) as number;
  } finally {
    await context.close();
  }
}

async function apiAlone(url: string): Promise<number> {
  const t0 = performance.now();
  const all = await list(url);
  if (all.length !== PIPELINES) throw new Error(`the API listed ${all.length}`);
  return performance.now() - t0;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? Number.NaN;
};
const spread = (xs: number[]) =>
  `${median(xs).toFixed(0)} (${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)})`;

await runBench(async (cleanups) => {
  const facts = machineFacts('PGlite (embedded)');
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-console-'));
  cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
  const svc = startSvc(['api-server', '--port', '0', '--data-dir', dataDir]);
  cleanups.push(async () => {
    svc.child.kill('SIGTERM');
    await svc.exited;
  });
  const ready = await svc.waitForLine((l) => message(l).startsWith('svc manager ready at'), 120_000);
  const url = (ready['fields'] as { url: string }).url;
  say(`svc api-server at ${url}; creating ${PIPELINES} pipelines`);
  await seed(url);
  const browser = await launch();
  cleanups.push(() => browser.close());
  await loadOnce(browser, url); // warm-up: the server's first list, the browser's caches of nothing
  const loads: Load[] = [];
  const blanks: number[] = [];
  const apis: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    loads.push(await loadOnce(browser, url));
    blanks.push(await blankPaint(browser));
    apis.push(await apiAlone(url));
    say(`run ${i + 1}: ${JSON.stringify(loads.at(-1))}`);
  }
  const pick = (k: keyof Load) => loads.map((l) => l[k]);
  const table = [
    '| measure (ms, median of runs and range) | value |',
    '|---|---|',
    `| first contentful paint of the console | ${spread(pick('fcp'))} |`,
    `| ceiling: first paint of a one-line page in the same browser | ${spread(blanks)} |`,
    `| navigation → list of ${PIPELINES.toLocaleString('en-US')} drawn | ${spread(pick('listDrawn'))} |`,
    `| of which the list's API answer, as the page fetched it | ${spread(pick('listFetch'))} |`,
    `| ceiling: the same API answer fetched and parsed by Node | ${spread(apis)} |`,
    `| the list's answer received → its ${PIPELINES.toLocaleString('en-US')} rows drawn (the console's render) | ${spread(pick('listRender'))} |`,
    `| scroll to the end → the last row drawn | ${spread(pick('scrollToEnd'))} |`,
    `| grid rows in the DOM (of ${PIPELINES.toLocaleString('en-US')}) | ${median(pick('domRows'))} |`,
  ].join('\n');
  process.stdout.write(`${table}\n`);
  if (values.record) {
    const markdown = [
      `# bench:console — ${facts.date}`,
      '',
      `The web console (dist/web) in Debian's Chromium (headless, playwright-core) against \`svc api-server\` with ${PIPELINES.toLocaleString('en-US')} pipelines (embedded PGlite); ${RUNS} page loads, each in a fresh browser context, after one warm-up.`,
      `Command: \`npm run bench:console -- --pipelines ${PIPELINES} --runs ${RUNS} --record\``,
      '',
      table,
      '',
      machineTable(facts, uptime(), { postgres: 'PGlite (embedded)' }),
    ].join('\n');
    say(`recorded in ${writeResult('console', facts.date, markdown)}`);
  }
  return loads.every((l) => Number.isFinite(l.listDrawn));
});
