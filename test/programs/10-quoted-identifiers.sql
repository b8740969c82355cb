CREATE TABLE "MixedCase" ("Id" int PRIMARY KEY, "lower" int, plain int, "has space" text);
CREATE VIEW "V1" AS SELECT "Id", plain FROM "MixedCase";
