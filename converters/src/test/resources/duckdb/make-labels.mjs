// Writes labels-0.parquet, labels-1.parquet and labels-2.parquet for CategoricalsTest: string label
// columns as Spark or DuckDB write them (plain utf8, no categorical), each file with its own set of
// values, and labels.json, every file's rows as DuckDB reads them back ([id, cell_type, donor]).
//   cell_type  file 0: 'T cell', 'B cell', 'NK cell', null every 11th row;
//              file 1: 'monocyte', 'B cell', 'Ünïcode', '' (empty, a value), null every 13th;
//              file 2: 'T cell', '😀 emoji' (U+1F600), 'Ｚ fullwidth' (U+FF3A), 'a lower': in code
//              point order U+FF3A comes first, in UTF-16 order the emoji (a surrogate pair) does.
//   donor      'd' || (i * 7919 % 1000): (almost) all distinct, so DuckDB writes plain pages.
// Run as make.mjs says (NODE_PATH to a folder with @duckdb/node-api; 1.5.6-r.1 made these files).
import { createRequire } from 'node:module';
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';

const require = createRequire(resolve(process.env.NODE_PATH ?? '.', 'x.js'));
const { DuckDBInstance } = require('@duckdb/node-api');
const out = process.env.OUT ?? '.';

const db = await DuckDBInstance.create(':memory:');
const c = await db.connect();
const files = [
  [0, 200, 11, ['T cell', 'B cell', 'NK cell']],
  [200, 150, 13, ['monocyte', 'B cell', 'Ünïcode', '']],
  [350, 120, 9, ['T cell', '😀 emoji', 'Ｚ fullwidth', 'a lower']],
];
const expected = {};
for (let f = 0; f < files.length; f++) {
  const [start, n, nulls, values] = files[f];
  const list = '[' + values.map((v) => `'${v}'`).join(', ') + ']';
  await c.run(`COPY (SELECT i::INTEGER AS id,
      CASE WHEN i % ${nulls} = 0 THEN NULL ELSE ${list}[i % ${values.length} + 1] END AS cell_type,
      'd' || (i * 7919 % 1000)::VARCHAR AS donor
    FROM range(${start}, ${start + n}) t(i) ORDER BY i)
    TO '${out}/labels-${f}.parquet' (FORMAT parquet, ROW_GROUP_SIZE 64)`);
  const r = await c.runAndReadAll(`SELECT id, cell_type, donor FROM '${out}/labels-${f}.parquet'`);
  expected[`labels-${f}`] = r.getRowsJson();
}
writeFileSync(`${out}/labels.json`, JSON.stringify(expected) + '\n');
console.log('wrote labels-0..2.parquet and labels.json');
