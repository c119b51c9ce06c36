// Writes partitioned/, a dataset partitioned by two keys as DuckDB writes one (PARTITION_BY: the
// keys leave the files and go into key=value directory names, with %XX escapes and
// __HIVE_DEFAULT_PARTITION__ for null), and partitioned.json, its rows as DuckDB reads them back
// with hive_partitioning ([id, x, cell_type, plate], ordered by id), for HivePartitionsTest.
//   cell_type  'T cell' (a space), 'a/b' (a slash), 'x=y %' (an equals sign and a percent),
//              '007' (digits that must stay text), 'Ünïcode', and null
//   plate      integers 1..3: an int64 column
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
console.log('wrote partitioned/ and partitioned.json');
