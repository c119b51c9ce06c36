// Writes partitioned/, a dataset partitioned by two keys as DuckDB writes one (PARTITION_BY: the
// keys leave the files and go into key=value directory names, with %XX escapes and
// __HIVE_DEFAULT_PARTITION__ for null), and partitioned.json, its rows as DuckDB reads them back
// with hive_partitioning ([id, x, cell_type, plate], ordered by id), for HivePartitionsTest.
//   cell_type  'T cell' (a space), 'a/b' (a slash), 'x=y %' (an equals sign and a percent),
//              '007' (digits that must stay text), 'Ünïcode', and null
//   plate      integers 1..3: an int64 column
// And partitioned-dates/ with partitioned-dates.json ([id, day, batch], ordered by id): keys that
// DuckDB itself types when it reads them back:
//   day        DATE values (and null): a date32 column
//   batch      '2024-02-29' and '2023-02-29' (no such day): text like a date that must stay text
// Run as make.mjs says (NODE_PATH to a folder with @duckdb/node-api; 1.5.6-r.1 made these files).
import { createRequire } from 'node:module';
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';

const require = createRequire(resolve(process.env.NODE_PATH ?? '.', 'x.js'));
const { DuckDBInstance } = require('@duckdb/node-api');
const out = process.env.OUT ?? '.';

const db = await DuckDBInstance.create(':memory:');
const c = await db.connect();
await c.run(`COPY (SELECT i::INTEGER AS id, i * 0.25 AS x,
    CASE WHEN i % 7 = 0 THEN NULL
         ELSE ['T cell', 'a/b', 'x=y %', '007', 'Ünïcode'][i % 5 + 1] END AS cell_type,
    (i % 3 + 1)::BIGINT AS plate
  FROM range(60) t(i))
  TO '${out}/partitioned' (FORMAT parquet, PARTITION_BY (cell_type, plate), OVERWRITE_OR_IGNORE true)`);
const r = await c.runAndReadAll(`SELECT id, x, cell_type, plate
  FROM read_parquet('${out}/partitioned/**/*.parquet', hive_partitioning = true) ORDER BY id`);
writeFileSync(`${out}/partitioned.json`, JSON.stringify(r.getRowsJson()) + '\n');

await c.run(`COPY (SELECT i::INTEGER AS id,
    CASE WHEN i % 5 = 0 THEN NULL ELSE DATE '2024-02-27' + (i % 4)::INTEGER END AS day,
    ['2024-02-29', '2023-02-29'][i % 2 + 1] AS batch
  FROM range(20) t(i))
  TO '${out}/partitioned-dates' (FORMAT parquet, PARTITION_BY (day, batch), OVERWRITE_OR_IGNORE true)`);
const d = await c.runAndReadAll(`SELECT id, day, batch
  FROM read_parquet('${out}/partitioned-dates/**/*.parquet', hive_partitioning = true) ORDER BY id`);
writeFileSync(`${out}/partitioned-dates.json`, JSON.stringify(d.getRowsJson()) + '\n');
const types = await c.runAndReadAll(`SELECT column_name, column_type FROM (DESCRIBE
  SELECT day, batch FROM read_parquet('${out}/partitioned-dates/**/*.parquet', hive_partitioning = true))`);
console.log('DuckDB reads partitioned-dates/ as', JSON.stringify(types.getRowsJson()));
console.log('wrote partitioned/, partitioned.json, partitioned-dates/ and partitioned-dates.json');
