// Reads an Arrow IPC file or stream with arrow-js (a second Arrow implementation) and prints, as
// JSON: each field's name, type, nullability and, for a dictionary, its values in order and its
// ordered flag; then every row in the test form of ArrowValues (see ForeignReadersTest).
// Usage: node read-arrow.mjs FILE
import { readFileSync } from 'node:fs';
import { tableFromIPC, DataType } from 'apache-arrow';

const table = tableFromIPC(readFileSync(process.argv[2]));

// 64-bit integers come as BigInt (JSON has none): text. Binary as hex, nested values as arrays
// and objects.
function plain(v) {
  if (v === null || v === undefined) return null;
  if (typeof v === 'bigint') return v.toString();
  if (v instanceof Uint8Array) return Buffer.from(v).toString('hex');
  if (ArrayBuffer.isView(v)) return Array.from(v, plain);
  if (typeof v === 'object' && typeof v.toArray === 'function' && !('toJSON' in v && v.constructor.name.startsWith('Struct'))) {
    return Array.from(v.toArray(), plain);
  }
  if (typeof v === 'object') {
    const o = {};
    for (const [k, x] of Object.entries(v.toJSON ? v.toJSON() : v)) o[k] = plain(x);
    return o;
  }
  return v;
}

const fields = table.schema.fields.map((f, i) => {
  const out = { name: f.name, type: String(f.type), nullable: f.nullable };
  if (DataType.isDictionary(f.type)) {
    const data = table.getChildAt(i).data;
    out.ordered = f.type.isOrdered;
    out.dictionary = data.length === 0 ? [] : Array.from(data[0].dictionary.toArray(), plain);
  }
  return out;
});
const rows = [];
for (let r = 0; r < table.numRows; r++) {
  rows.push(table.schema.fields.map((f, i) => plain(table.getChildAt(i).get(r))));
}
console.log(JSON.stringify({ fields, batches: table.batches.length, rows }));
