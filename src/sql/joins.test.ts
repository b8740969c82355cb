import { loadModule } from 'libpg-query';
import { beforeAll, describe, expect, it } from 'vitest';
import { joinsRelations } from './joins.js';

beforeAll(() => loadModule());

describe('joinsRelations', () => {
  it.each([
    'CREATE VIEW v AS SELECT * FROM a JOIN b ON a.id = b.id',
    'CREATE VIEW v AS SELECT * FROM a LEFT JOIN b USING (id)',
    'CREATE VIEW v AS SELECT * FROM a, b WHERE a.id = b.id',
    'CREATE VIEW v AS SELECT x FROM a UNION ALL SELECT y FROM (SELECT * FROM b CROSS JOIN c) s',
    'CREATE VIEW v AS WITH j AS (SELECT * FROM a NATURAL JOIN b) SELECT * FROM j',
  ])('a join: %s', (sql) => expect(joinsRelations(sql)).toBe(true));

  it.each([
    'CREATE VIEW allnames AS SELECT name FROM e UNION ALL SELECT name FROM f',
    'CREATE VIEW v AS SELECT x FROM a WHERE x IN (SELECT y FROM b)',
    'CREATE VIEW v AS SELECT count(*) FROM a',
    'CREATE VIEW v AS SELEC broken',
  ])('no join: %s', (sql) => expect(joinsRelations(sql)).toBe(false));
});
