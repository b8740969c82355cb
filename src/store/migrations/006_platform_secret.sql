-- Secrets of the platform itself, one row each. 'pipeline_key' derives every pipeline deployment's
-- HTTP token (src/http/pipeline-token.ts): made here once, at random, so every svc process sharing
-- this database (manager, api-server, runner) derives the same tokens with nothing to configure.
-- Two v4 UUIDs: 244 random bits from the server's strong random source (no pgcrypto needed).
CREATE TABLE platform_secret (
  name text PRIMARY KEY,
  value text NOT NULL
);
INSERT INTO platform_secret (name, value)
VALUES ('pipeline_key', replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''));
