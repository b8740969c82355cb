CREATE TABLE others (
  a boolean, b uuid, c json, d jsonb, e inet, f cidr, g macaddr, h macaddr8, i point, j line, k lseg,
  l box, m path, n polygon, o circle, p tsvector, q tsquery, r xml, s int4range, t tstzrange, u oid,
  v pg_lsn, w txid_snapshot, x int4multirange
);
