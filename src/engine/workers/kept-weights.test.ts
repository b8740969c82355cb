import { expect, it } from 'vitest';
import * as fixture from '../host/codec.fixture.js';
import { openEngine } from '../open.js';

// Found by the native property test (seed -413813711): a step's delta of a table is partly kept
// on the shards (bodies they decoded) and partly sent from the engine's thread (a body decoded
// whole: the fixture's codec does not cut a body of one line). A shard merged the rows sent to it
// into its kept rows' delta, which is the very list their commit appends: it then held the sent
// rows too, so they read back twice (a checkpoint wrote them twice, a restart doubled them).

const CODEC_URL = new URL('../host/codec.fixture.ts', import.meta.url).href;

const VIEWS = {
  linear: 'CREATE VIEW v0 AS SELECT * FROM t1 WHERE k > 0;',
  exchanged: 'CREATE VIEW v0 AS SELECT k, count(*) AS n, sum(v) AS s FROM t1 GROUP BY k;',
};

for (const [shape, view] of Object.entries(VIEWS))
  for (const [first, second, workers] of [
    [1, 2, 3],
    [1, 1, 3],
    [2, 1, 2],
  ] as const)
    it(
      `${shape === 'linear' ? 'a' : 'an'} ${shape} view: rows sent to a shard that keeps rows of the table are not kept there (weights ${first}, ${second}; ${workers} workers)`,
      { timeout: 60_000 },
      async () => {
        const engine = await openEngine(`CREATE TABLE t1 (k int, v int); ${view}`, { workers, codec: CODEC_URL });
        try {
          await engine.ingestDecoding!('t1', '{"k":0,"v":339}\n{"k":0,"v":313}', { weight: first }, fixture);
          await engine.ingestDecoding!('t1', '{"k":1,"v":0}', { weight: second }, fixture);
          await engine.step();
          const copies = 2 * first + second;
          expect(await engine.rowCounts()).toEqual({ t1: copies });
          const rows = await engine.snapshot('t1');
          expect(rows).toHaveLength(copies);
          expect(rows.filter((r) => r.k === 1)).toHaveLength(second);
        } finally {
          await engine.close();
        }
      },
    );
