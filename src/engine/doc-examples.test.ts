import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openEngine } from './open.js';

// Every view of the programs the documentation shows is kept by the native engine (issue 28): the
// README's and docs/*.md's `program_code` bodies, their ```sql blocks and the Pipeline resources'
// `sql: |` blocks. A doc example that falls back to PGlite fails here with the view and the reason
// (then either the native path learns it, or the doc says why it is not native).

const ROOT = new URL('../../', import.meta.url);
const DOCS = [
  'README.md',
  ...readdirSync(new URL('docs/', ROOT))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** The programs a markdown text shows, each with where it is. */
function programsOf(file: string, text: string): { where: string; sql: string }[] {
  const found: { where: string; sql: string }[] = [];
  const at = (index: number) => `${file}:${text.slice(0, index).split('\n').length}`;
  for (const m of text.matchAll(/"program_code":\s*("(?:[^"\\]|\\.)*")/g))
    found.push({ where: at(m.index), sql: JSON.parse(m[1]!) as string });
  for (const m of text.matchAll(/```sql\n([\s\S]*?)```/g)) found.push({ where: at(m.index), sql: m[1]! });
  for (const m of text.matchAll(/^( *)sql: \|\n((?:\1 +.*\n)+)/gm))
    found.push({ where: at(m.index), sql: m[2]!.replace(new RegExp(`^${m[1]}  `, 'gm'), '') });
  return found.filter((p) => /CREATE\s+(MATERIALIZED\s+)?VIEW/i.test(p.sql));
}

const PROGRAMS = DOCS.flatMap((file) => programsOf(file, readFileSync(new URL(file, ROOT), 'utf8')));

describe("the documentation's examples", () => {
  it('are found (README, data path, connectors, Pipeline resources)', () => {
    const files = new Set(PROGRAMS.map((p) => p.where.split(':')[0]));
    expect([...files].sort()).toEqual(
      expect.arrayContaining(['README.md', 'docs/connectors.md', 'docs/data-path.md', 'docs/kubernetes.md']),
    );
  });

  it.each(PROGRAMS.map((p) => [p.where, p.sql]))('%s: every view is native', async (_where, sql) => {
    const engine = await openEngine(sql);
    try {
      const views = engine.relations().filter((r) => r.kind === 'view');
      expect(views.length).toBeGreaterThan(0);
      for (const v of views)
        expect({ view: v.name, maintenance: v.maintenance, reason: v.maintenanceReason }).toEqual({
          view: v.name,
          maintenance: 'native',
          reason: undefined,
        });
    } finally {
      await engine.close();
    }
  });
});
