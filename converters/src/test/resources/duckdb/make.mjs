// Writes the DuckDB Parquet fixtures of DuckDbParquetTest, and expected.json: for every file, its
// rows with each value in the test form of ArrowValues (integers, dates as days, times and
// timestamps as microseconds, decimals as strings, UUIDs and blobs as hex, maps as key/value lists).
//
// Run from this folder with Node 20 and the npm package @duckdb/node-api (1.5.6-r.1 made these):
//   mkdir -p /tmp/duck && (cd /tmp/duck && npm init -y && npm install @duckdb/node-api)
//   NODE_PATH=/tmp/duck/node_modules node --experimental-default-type=module make.mjs
// (or copy this file into /tmp/duck and run it there with OUT=<this folder>).
import { createRequire } from 'node:module';
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';

const require = createRequire(resolve(process.env.NODE_PATH ?? '.', 'x.js'));
const { DuckDBInstance } = require('@duckdb/node-api');
const out = process.env.OUT ?? '.';

const db = await DuckDBInstance.create(':memory:');
const c = await db.connect();

// 300 rows; every 7th row is null in most columns. Low-cardinality strings get dictionary pages;
// ROW_GROUP_SIZE 64 makes several row groups.
await c.run(`CREATE TABLE types AS SELECT
  i::INTEGER AS id,
  CASE WHEN i % 7 = 3 THEN NULL ELSE (i % 120 - 60)::TINYINT END AS tiny,
  (i * 37 % 60000 - 30000)::SMALLINT AS small,
  CASE WHEN i % 7 = 4 THEN NULL ELSE i * 1000003::BIGINT * 1000003 - 4000000000000 END AS big,
  (i * 2654435761)::UBIGINT AS ubig,
  (i / 8.0)::FLOAT AS f,
  CASE WHEN i % 7 = 5 THEN NULL ELSE i * 0.1 - 3 END::DOUBLE AS d,
  (i * 12.3456 - 100)::DECIMAL(12, 4) AS dec12,
  CASE WHEN i % 7 = 6 THEN NULL ELSE (i::DECIMAL(38, 10) * 1234567890.0123456789) END::DECIMAL(38, 10) AS dec38,
  i % 3 = 0 AS flag,
  CASE WHEN i % 7 = 0 THEN NULL ELSE ['alpha', 'beta', 'gamma', 'delta'][i % 4 + 1] END AS name,
  DATE '2020-01-01' + i::INTEGER AS day,
  TIMESTAMP '2021-03-04 05:06:07.123456' + to_seconds(i * 3601) AS ts,
  TIMESTAMPTZ '2021-03-04 05:06:07+00' + to_microseconds(i * 17) AS tstz,
  TIME '01:02:03' + to_seconds(i * 61) AS tm,
  ('00000000-0000-4000-8000-' || lpad(i::VARCHAR, 12, '0'))::UUID AS uid,
  json_object('k', i, 'v', ['x', 'y'][i % 2 + 1]) AS js,
  CASE WHEN i % 7 = 1 THEN NULL ELSE encode('b' || i::VARCHAR) END AS blob
FROM range(300) t(i)`);
await c.run(`COPY types TO '${out}/types.parquet' (FORMAT parquet, ROW_GROUP_SIZE 64)`);

await c.run(`CREATE TABLE nested AS SELECT
  i::INTEGER AS id,
  CASE WHEN i % 5 = 0 THEN NULL ELSE list_transform(range(i % 4), x -> ['red', 'green', 'blue'][x % 3 + 1]) END AS tags,
  [i, NULL, i + 1][1:(i % 3) + 1]::INTEGER[] AS nums,
  CASE WHEN i % 6 = 2 THEN NULL ELSE {'a': i * 2, 'b': 'n' || (i % 5)::VARCHAR, 'c': [i::DOUBLE / 4]} END AS s,
  CASE WHEN i % 4 = 3 THEN NULL ELSE MAP(['k' || (i % 3)::VARCHAR, 'z'], [i, NULL::INTEGER]) END AS m,
  [[i, i + 1], [], NULL][1:(i % 3) + 1]::BIGINT[][] AS ll,
  [{'x': i, 'y': 'p' || i::VARCHAR}] AS ls
FROM range(250) t(i)`);
await c.run(`COPY nested TO '${out}/nested.parquet' (FORMAT parquet, ROW_GROUP_SIZE 64)`);

// DuckDB cuts row groups at whole vectors of 2048 rows, whatever ROW_GROUP_SIZE says: 5000 rows
// make three row groups. Their values follow a formula (the test computes them), so expected.json
// only holds per-group counts for this file.
await c.run(`CREATE TABLE groups AS SELECT
  i::INTEGER AS id,
  ['alpha', 'beta', 'gamma', 'delta'][i % 4 + 1] AS name,
  CASE WHEN i % 7 = 0 THEN NULL ELSE i * 0.5 END::DOUBLE AS half,
  list_transform(range(i % 3), x -> ['red', 'green', 'blue'][(i + x) % 3 + 1]) AS tags
FROM range(5000) t(i)`);
await c.run(`COPY groups TO '${out}/groups.parquet' (FORMAT parquet, ROW_GROUP_SIZE 2048, COMPRESSION zstd)`);

// INTERVAL (months, days, milliseconds in 12 bytes), which Riffle keeps as fixed-size binary; and
// a Brotli-compressed file, a codec Riffle cannot read, which must fail before anything is written.
await c.run(`COPY (SELECT i::INTEGER AS id,
    CASE WHEN i % 4 = 0 THEN NULL ELSE to_months(i) + to_days(i * 3) + to_milliseconds(i * 1001) END AS ivl
  FROM range(20) t(i)) TO '${out}/interval.parquet' (FORMAT parquet)`);
await c.run(`COPY (SELECT i::INTEGER AS id, 'v' || (i % 10)::VARCHAR AS s FROM range(100) t(i))
  TO '${out}/brotli.parquet' (FORMAT parquet, COMPRESSION brotli)`);

// The expected values, as ArrowValues shows them.
const forms = {
  types: `SELECT id, tiny, small, big, ubig::VARCHAR AS ubig, f, d, dec12::VARCHAR AS dec12,
      dec38::VARCHAR AS dec38, flag, name, (day - DATE '1970-01-01') AS day, epoch_us(ts) AS ts,
      epoch_us(tstz) AS tstz, epoch_us(DATE '1970-01-01' + tm) AS tm,
      replace(uid::VARCHAR, '-', '') AS uid, js::VARCHAR AS js, lower(hex(blob)) AS blob
    FROM types ORDER BY id`,
  nested: `SELECT id, tags, nums, s,
      CASE WHEN m IS NULL THEN NULL ELSE list_transform(map_entries(m), e -> {'key': e.key, 'value': e.value}) END AS m,
      ll, ls FROM nested ORDER BY id`,
};
const expected = {};
for (const [name, sql] of Object.entries(forms)) {
  const r = await c.runAndReadAll(sql);
  expected[name] = { columns: r.columnNames(), rows: r.getRowsJson() };
}
const g = await c.runAndReadAll(`SELECT row_group_id, max(row_group_num_rows) AS num_rows,
    string_agg(DISTINCT encodings, ';' ORDER BY encodings) AS encodings
  FROM parquet_metadata('${out}/groups.parquet') GROUP BY ALL ORDER BY row_group_id`);
expected.groups = { row_groups: g.getRowObjectsJson() };
writeFileSync(`${out}/expected.json`, JSON.stringify(expected) + '\n');
console.log('wrote types.parquet, nested.parquet, groups.parquet, interval.parquet, brotli.parquet, expected.json');
