// Writes embeddings.parquet for DuckDbParquetTest: Spark-like float arrays as DuckDB writes them
// (list items declared nullable), whose values the test computes from the same formulas.
//   emb    FLOAT[16], each item ((i * 7919 + k * 104729) % 2001 - 1000) / 1000.0 (three decimals),
//          the list null where i % 97 = 5, empty where i % 101 = 7, item 3 null where i % 500 = 250;
//   counts DOUBLE[], i % 9 items, item k = (i + k) % 13 (integer-valued floats);
//   noise  FLOAT[8], item k = sin(i * 8 + k) (full-precision floats).
// Run as make.mjs says (NODE_PATH to a folder with @duckdb/node-api; 1.5.6-r.1 made this file).
import { createRequire } from 'node:module';
import { resolve } from 'node:path';

const require = createRequire(resolve(process.env.NODE_PATH ?? '.', 'x.js'));
const { DuckDBInstance } = require('@duckdb/node-api');
const out = process.env.OUT ?? '.';

const db = await DuckDBInstance.create(':memory:');
const c = await db.connect();
await c.run(`COPY (SELECT i::INTEGER AS id,
    CASE WHEN i % 97 = 5 THEN NULL WHEN i % 101 = 7 THEN []::FLOAT[]
      ELSE list_transform(range(16), k -> CASE WHEN i % 500 = 250 AND k = 3 THEN NULL
        ELSE (((i * 7919 + k * 104729) % 2001 - 1000) / 1000.0)::FLOAT END) END AS emb,
    list_transform(range(i % 9), k -> ((i + k) % 13)::DOUBLE) AS counts,
    list_transform(range(8), k -> sin(i * 8 + k)::FLOAT) AS noise
  FROM range(6000) t(i)) TO '${out}/embeddings.parquet' (FORMAT parquet)`);
const r = await c.runAndReadAll(`SELECT emb[1], emb[16], counts, noise[2] FROM '${out}/embeddings.parquet' WHERE id = 4321`);
console.log('wrote embeddings.parquet; row 4321:', JSON.stringify(r.getRowsJson()));
