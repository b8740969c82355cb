CREATE TABLE nums (
  a smallint, b integer, c bigint, d real, e double precision,
  f numeric, g numeric(10, 2), h decimal(5), i smallserial, j serial, k bigserial, l money
);
