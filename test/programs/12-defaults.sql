CREATE TABLE d (
  a int DEFAULT 42, b text DEFAULT 'hello', c timestamptz DEFAULT now(), d boolean NOT NULL DEFAULT false,
  e int GENERATED ALWAYS AS IDENTITY, f numeric DEFAULT 1.5 * 2
);
