// Writes the Arrow IPC files that ArrowIpcInputTest reads, with arrow-js, a second Arrow
// implementation: its file writer puts no schema message after the leading magic (the schema is
// only in the footer), which a reader that treats a file as a stream rejects.
// Run on request, from this folder:  npm install apache-arrow@21.2.0 && node make.mjs
// Rows: 3 batches of 700, 500 and 300 rows; row i has id = i (int32), name = "n" + i or null
// when i % 7 == 0, label = ["cat", "dog", "emu"][i % 3] (dictionary), x = i / 2 (float64).
import { writeFileSync } from 'node:fs';
import {
  RecordBatchFileWriter, RecordBatchStreamWriter, Table, vectorFromArray,
  Dictionary, Utf8, Int32, Float64, Float32, Float16, Map_, Struct, Field, FixedSizeList,
} from 'apache-arrow';

const sizes = [700, 500, 300];
const total = sizes.reduce((a, b) => a + b);
const labels = ['cat', 'dog', 'emu'];
const ids = [], names = [], labs = [], xs = [];
for (let i = 0; i < total; i++) {
  ids.push(i);
  names.push(i % 7 === 0 ? null : 'n' + i);
  labs.push(labels[i % 3]);
  xs.push(i / 2);
}
const whole = new Table({
  id: vectorFromArray(ids, new Int32()),
  name: vectorFromArray(names, new Utf8()),
  label: vectorFromArray(labs, new Dictionary(new Utf8(), new Int32())),
  x: vectorFromArray(xs, new Float64()),
});
// One dictionary shared by every batch: the file format allows no replacement dictionaries.
const batches = [];
let start = 0;
for (const n of sizes) {
  batches.push(whole.batches[0].slice(start, start + n));
  start += n;
}
const table = new Table(whole.schema, batches);
writeFileSync('rows.arrow', RecordBatchFileWriter.writeAll(table).toUint8Array(true));
writeFileSync('rows.arrows', RecordBatchStreamWriter.writeAll(table).toUint8Array(true));

// types.arrow(s): the types whose valid batches Arrow Java's validator rejected as damaged (see
// ArrowValidation). 40 rows; row i has m = null when i % 4 == 0, else the map {('k' + i % 3): i,
// 'z': null}; v = [i, -i] (fixed-size list of float32); h = i / 4 (float16), null when i % 5 == 0.
const n = 40;
const ms = [], vs = [], hs = [];
for (let i = 0; i < n; i++) {
  ms.push(i % 4 === 0 ? null : new Map([['k' + (i % 3), i], ['z', null]]));
  vs.push([i, -i]);
  hs.push(i % 5 === 0 ? null : i / 4);
}
const types = new Table({
  m: vectorFromArray(ms, new Map_(new Field('entries', new Struct([
    new Field('key', new Utf8(), false), new Field('value', new Int32(), true)]), false))),
  v: vectorFromArray(vs, new FixedSizeList(2, new Field('item', new Float32(), true))),
  h: vectorFromArray(hs, new Float16()),
});
writeFileSync('types.arrow', RecordBatchFileWriter.writeAll(types).toUint8Array(true));
writeFileSync('types.arrows', RecordBatchStreamWriter.writeAll(types).toUint8Array(true));
