// Reads a Parquet file with DuckDB and prints, as JSON: each column's name and DuckDB type, every
// row in the test form of ArrowValues (see ForeignReadersTest), and each column chunk's encodings.
// Usage: node read-parquet.mjs FILE.parquet
import { DuckDBInstance } from '@duckdb/node-api';

const file = process.argv[2].replaceAll("'", "''");
const db = await DuckDBInstance.create(':memory:');
const c = await db.connect();
const described = await c.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet('${file}')`);
const columns = described.getRowObjectsJson().map(r => ({ name: r.column_name, type: r.column_type }));

// One expression per column that gives the value as a number or a string that Java can compare
// without guessing: 64-bit and wider integers and decimals as text (JSON has no exact form for
// them), dates as days, times as nanoseconds, timestamps in the unit of their DuckDB type, blobs and UUIDs as hex.
const q = n => '"' + n.replaceAll('"', '""') + '"';
function form(name, type) {
  const c = q(name);
  if (/^(BIGINT|UBIGINT|HUGEINT|UHUGEINT|DECIMAL\(\d+,\d+\))$/.test(type)) return `${c}::VARCHAR`;
  if (type === 'DATE') return `(${c} - DATE '1970-01-01')`;
  if (type === 'TIMESTAMP_NS') return `epoch_ns(${c})::VARCHAR`;
  if (type === 'TIMESTAMP_MS') return `epoch_ms(${c})::VARCHAR`;
  if (type === 'TIMESTAMP_S') return `epoch(${c})::BIGINT::VARCHAR`;
  if (/^TIMESTAMP( WITH TIME ZONE)?$/.test(type)) return `epoch_us(${c})::VARCHAR`;
  if (type === 'TIME') return `(epoch_us(DATE '1970-01-01' + ${c}) * 1000)::VARCHAR`;
  if (type === 'TIME WITH TIME ZONE') return `(epoch_us(DATE '1970-01-01' + ${c}::TIME) * 1000)::VARCHAR`;
  if (type === 'BLOB') return `lower(hex(${c}))`;
  if (type.startsWith('MAP(')) return `map_entries(${c})`;
  if (type === 'UUID') return `replace(${c}::VARCHAR, '-', '')`;
  return c;
}
const select = columns.map(col => `${form(col.name, col.type)} AS ${q(col.name)}`).join(', ');
const rows = (await c.runAndReadAll(`SELECT ${select} FROM read_parquet('${file}')`)).getRowsJson();
const chunks = (await c.runAndReadAll(`SELECT path_in_schema AS path, encodings
  FROM parquet_metadata('${file}') ORDER BY row_group_id, column_id`)).getRowObjectsJson();
const encodings = {};
for (const ch of chunks) (encodings[ch.path] ??= []).push(ch.encodings);
console.log(JSON.stringify({ columns, rows, encodings }));
