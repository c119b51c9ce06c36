// Writes floats.parquet and floats-v2.parquet for DuckDbFloatsTest: float columns of every kind of
// value users have, as DuckDB writes them (list items declared nullable), and
// floats-expected.json.gz:
// every value as DuckDB itself reads it back from each file, as the hex of its raw bits.
//   id     INTEGER
//   f32    FLOAT[]    values appended as raw bits (below), in runs of rows of one kind;
//   f64    DOUBLE[]   the same for doubles;
//   a32    FLOAT[4]   raw bits, as f32;
//   s32    FLOAT, s64 DOUBLE: raw bits, one value a row;
//   few32  FLOAT[], few64 DOUBLE[]: a few values, +0.0 and -0.0 and NaNs of several payloads
//          among them (DuckDB writes dictionary pages for them: see the end of this file);
//   sq32   FLOAT[], sq64 DOUBLE[]: values DuckDB computes itself (round(x, k) at scales 0 to 12,
//          decimal casts, 0.1 + 0.2, 'nan', '-0.0', 'inf', subnormals, integers near 2^24 and 2^53).
// Raw values: decimals at scales 0 to 12 computed the ways JavaScript programs compute them
// (parseFloat of the text, n / 10^k, n * 10^-k, Math.round(x * 10^k) / 10^k, a + b; Math.fround
// of those for FLOAT), integers near 2^24, 2^31, 2^53, 2^62, counts, NaNs with payloads (quiet and
// signalling, both signs), -0.0, infinities, subnormals, extremes, random bits, a few values
// repeated. They are written into DuckDB's vectors as bits (a JavaScript number may lose a NaN's
// payload), and read back the same way. floats-v2.parquet holds the same rows with
// PARQUET_VERSION V2 (other encodings of floats); both must read back the same.
// Run as make.mjs says (NODE_PATH to a folder with @duckdb/node-api; 1.5.6-r.1 made these files).
import { createRequire } from 'node:module';
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { gzipSync } from 'node:zlib';

const require = createRequire(resolve(process.env.NODE_PATH ?? '.', 'x.js'));
const duck = require('@duckdb/node-api');
const { DuckDBInstance, DuckDBDataChunk, INTEGER, TINYINT, FLOAT, DOUBLE, BOOLEAN } = duck;
const out = process.env.OUT ?? '.';

const ROWS = 800;

// mulberry32: the same rows on every run.
let state = 20260101;
function rand() {
  state = (state + 0x6d2b79f5) | 0;
  let t = Math.imul(state ^ (state >>> 15), 1 | state);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const int = (a, b) => a + Math.floor(rand() * (b - a)); // [a, b)
const pick = (xs) => xs[int(0, xs.length)];

const view = new DataView(new ArrayBuffer(8));
// Bits of a value that is not NaN: a float32's as a number, a float64's as a BigInt.
function bits(x, single) {
  if (single) {
    view.setFloat32(0, x, true);
    return view.getUint32(0, true);
  }
  view.setFloat64(0, x, true);
  return view.getBigUint64(0, true);
}
const randomBits = (single) =>
  single ? (rand() * 2 ** 32) >>> 0 : (BigInt((rand() * 2 ** 32) >>> 0) << 32n) | BigInt((rand() * 2 ** 32) >>> 0);

function special(single) {
  const negative = rand() < 0.5;
  switch (int(0, 6)) {
    case 0: { // a NaN with a payload, quiet or signalling
      if (single) {
        const payload = rand() < 0.25 ? 1 : int(1, 1 << 23);
        return ((negative ? 0x80000000 : 0) | 0x7f800000 | payload) >>> 0;
      }
      const payload = rand() < 0.25 ? 1n : BigInt(int(1, 2 ** 31)) * BigInt(int(1, 2 ** 21)) + 1n;
      return (negative ? 1n << 63n : 0n) | 0x7ff0000000000000n | (payload & 0xfffffffffffffn);
    }
    case 1: // -0.0
      return single ? 0x80000000 : 1n << 63n;
    case 2: // an infinity
      return single ? (negative ? 0xff800000 : 0x7f800000) : negative ? 0xfff0000000000000n : 0x7ff0000000000000n;
    case 3: // a subnormal
      return single ? ((negative ? 0x80000000 : 0) | int(1, 1 << 23)) >>> 0 : BigInt(int(1, 2 ** 30)) * BigInt(int(1, 2 ** 22)) | (negative ? 1n << 63n : 0n);
    case 4: // the canonical NaN, or all ones
      return single ? pick([0x7fc00000, 0xffffffff]) : pick([0x7ff8000000000000n, 0xffffffffffffffffn]);
    default: { // extremes
      const xs = single
        ? [1.401298464324817e-45, 1.1754943508222875e-38, 3.4028234663852886e38]
        : [5e-324, 2.2250738585072014e-308, Number.MAX_VALUE];
      return bits(negative ? -pick(xs) : pick(xs), single);
    }
  }
}

// The text of n / 10^k.
function decimalText(n, k) {
  const s = Math.abs(n).toString().padStart(k + 1, '0');
  const t = k === 0 ? s : s.slice(0, s.length - k) + '.' + s.slice(s.length - k);
  return (n < 0 ? '-' : '') + t;
}

// A run's values: a kind and its parameters, drawn once per run.
function regime(single, kind) {
  kind = kind ?? pick(['decimal', 'decimal', 'integer', 'counts', 'special', 'random', 'few', 'mixed']);
  const k = int(0, 13);
  const digits = int(1, single ? 8 : 16);
  const form = int(0, 6);
  const center = pick([0, 2 ** 24, 2 ** 31, 2 ** 53, 2 ** 62, 2 ** 63]) * (rand() < 0.5 ? -1 : 1);
  const r = { kind, next: null, odd: () => special(single) };
  const fr = (x) => (single ? Math.fround(x) : x);
  const decimal = () => {
    const n = int(-(10 ** digits), 10 ** digits + 1);
    switch (form) {
      case 0: return bits(fr(parseFloat(decimalText(n, k))), single);
      case 1: return bits(fr(n / 10 ** k), single);
      case 2: return bits(fr(n * 10 ** -k), single);
      case 3: return bits(fr(Math.round((n + rand() - 0.5) / 10 ** k * 10 ** k) / 10 ** k), single);
      case 4: return bits(fr(parseFloat(decimalText(n, k)) + parseFloat(decimalText(int(0, 10 ** digits), k))), single);
      default: return bits(single ? Math.fround(n / 10 ** k) : Math.fround(parseFloat(decimalText(n, k))), single);
    }
  };
  const integer = () => bits(fr(rand() < 0.25 ? int(-(10 ** digits), 10 ** digits) : center + int(-8, 9)), single);
  const kinds = {
    decimal,
    integer,
    counts: () => bits(int(0, 1000), single),
    special: () => special(single),
    random: () => randomBits(single),
  };
  if (kind === 'few') {
    const palette = Array.from({ length: int(1, 9) }, () => pick([decimal, () => special(single), integer])());
    r.next = () => pick(palette);
  } else if (kind === 'mixed') {
    r.next = () => pick(Object.values(kinds))();
  } else {
    r.next = kinds[kind];
  }
  return r;
}

// Rows of one list column, in runs: { nulls: Set of null rows, lists: [[bits | null, ...]] }.
function listColumn(single, fixed) {
  const lists = [];
  // Forced runs first (decimals over a few pages of the converted file: packed items; counts and
  // a few special values in long lists: packed records), then random runs, shuffled by run.
  const runs = [
    single
      ? { rows: 200, shape: 'medium', reg: () => decimalRun(single, 2), forced: true }
      : { rows: 400, shape: 'few', reg: () => decimalRun(single, 5), forced: true },
    { rows: 3, shape: 'long', reg: () => regime(single, 'counts'), forced: true },
    { rows: 3, shape: 'long', reg: () => regime(single, 'few'), forced: true },
  ];
  let total = runs.reduce((a, r) => a + r.rows, 0);
  while (total < ROWS) {
    const shape = pick(['short', 'short', 'one', 'few', 'medium', 'long']);
    const rows = Math.min(ROWS - total, shape === 'long' ? 1 : int(1, 120));
    runs.push({ rows, shape, reg: () => regime(single) });
    total += rows;
  }
  for (let i = runs.length - 1; i > 0; i--) {
    const j = int(0, i + 1);
    [runs[i], runs[j]] = [runs[j], runs[i]];
  }
  for (const run of runs) {
    const reg = run.reg();
    // Forced runs keep every item (a list with a null item never has its items packed).
    const nullLists = pick([0, 0, 0.05, 0.3]);
    const nullItems = run.forced ? 0 : pick([0, 0, 0, 0.01, 0.1]);
    let odd = !run.forced && rand() < 0.3;
    for (let i = 0; i < run.rows; i++) {
      if (rand() < nullLists) {
        lists.push(null);
        continue;
      }
      const n = fixed ?? count(run.shape);
      const list = [];
      for (let t = 0; t < n; t++) {
        if (rand() < nullItems) {
          list.push(null);
        } else if (odd && rand() < 0.1) {
          odd = false;
          list.push(reg.odd());
        } else {
          list.push(reg.next());
        }
      }
      lists.push(list);
    }
  }
  return lists;
}

function decimalRun(single, k) {
  const n = () => int(-(10 ** (single ? 4 : 9)), 10 ** (single ? 4 : 9) + 1);
  return { next: () => bits(single ? Math.fround(parseFloat(decimalText(n(), k))) : n() / 10 ** k, single), odd: () => special(single) };
}

function count(shape) {
  switch (shape) {
    case 'short': { const k = int(0, 10); return k < 2 ? 0 : k < 5 ? 1 : int(2, 9); }
    case 'one': return 1;
    case 'few': return int(3, 9);
    case 'medium': return int(9, 40);
    default: return int(250, 400);
  }
}

// A few values, both zeros and NaNs of several payloads among them: DuckDB writes dictionary pages.
function fewColumn(single) {
  const palette = single
    ? [0x00000000, 0x80000000, 0x7fc00000, 0x7fc00001, 0x7f800001, 0xffc00000, bits(0.1, true), 0x7f800000]
    : [0n, 1n << 63n, 0x7ff8000000000000n, 0x7ff8000000000001n, 0x7ff0000000000001n, 0xfff8000000000000n, bits(0.1, false), 0x7ff0000000000000n];
  return Array.from({ length: ROWS }, (_, id) =>
    id % 29 === 5 ? null : Array.from({ length: int(0, 6) }, () => (rand() < 0.02 ? null : pick(palette))));
}

const columns = {
  f32: listColumn(true),
  f64: listColumn(false),
  few32: fewColumn(true),
  few64: fewColumn(false),
  a32: listColumn(true, 4),
  s32: listColumn(true, 1).map((l) => (l === null ? null : l[0])),
  s64: listColumn(false, 1).map((l) => (l === null ? null : l[0])),
};

const db = await DuckDBInstance.create(':memory:');
const c = await db.connect();
await c.run('SET threads TO 1');

// Items of the raw list columns, one per row of `items`; list and scalar rows in `rows`.
await c.run(`CREATE TABLE items (id INTEGER, col TINYINT, k INTEGER, f FLOAT, d DOUBLE)`);
await c.run(`CREATE TABLE rows (id INTEGER, n32 BOOLEAN, n64 BOOLEAN, na32 BOOLEAN, nf32 BOOLEAN, nf64 BOOLEAN, s32 FLOAT, s64 DOUBLE)`);
const itemRows = [];
['f32', 'f64', 'a32', 'few32', 'few64'].forEach((name, col) =>
  columns[name].forEach((list, id) => list?.forEach((b, k) => itemRows.push([id, col, k, b]))),
);

// Appends `n` rows to `table` with int/bool columns from `plain` and float columns from raw bits.
async function append(table, types, n, plain, raw) {
  const appender = await c.createAppender(table);
  for (let from = 0; from < n; from += 2048) {
    const m = Math.min(2048, n - from);
    const chunk = DuckDBDataChunk.create(types, m);
    types.forEach((type, col) => {
      const v = chunk.getColumnVector(col);
      if (type === FLOAT || type === DOUBLE) {
        const words = type === FLOAT
          ? new Uint32Array(v.items.buffer, v.items.byteOffset, m)
          : new BigUint64Array(v.items.buffer, v.items.byteOffset, m);
        for (let i = 0; i < m; i++) {
          const b = raw(from + i, col);
          v.setItem(i, b === null ? null : 0);
          if (b !== null) {
            words[i] = b;
          }
        }
        v.flush();
      } else {
        chunk.setColumnValues(col, Array.from({ length: m }, (_, i) => plain(from + i, col)));
      }
    });
    appender.appendDataChunk(chunk);
  }
  appender.flushSync();
  appender.closeSync();
}

await append('items', [INTEGER, TINYINT, INTEGER, FLOAT, DOUBLE], itemRows.length,
  (i, col) => itemRows[i][col],
  (i, col) => {
    const [, which, , b] = itemRows[i];
    const single = which === 0 || which === 2 || which === 3;
    return (col === 3) === single ? b : null;
  });
const lists = [null, columns.f32, columns.f64, columns.a32, columns.few32, columns.few64];
await append('rows', [INTEGER, BOOLEAN, BOOLEAN, BOOLEAN, BOOLEAN, BOOLEAN, FLOAT, DOUBLE], ROWS,
  (id, col) => (col === 0 ? id : lists[col][id] === null),
  (id, col) => (col === 6 ? columns.s32 : columns.s64)[id]);

// DuckDB's own values: a regime per 100 rows, so that pages of the converted file differ.
const sq = (t) => `list_transform(range(CASE WHEN id % 173 = 7 THEN 300 ELSE (id * 7) % 9 END), k ->
    CASE (id // 100) % 5
      WHEN 0 THEN round(sin(id * 31 + k) * 100, 2)::${t}
      WHEN 1 THEN round(sin(id * 31 + k) * 1000, (id // 100) % 13)::${t}
      WHEN 2 THEN ((id * 13 + k) % 1000)::${t}
      WHEN 3 THEN CASE (id + k) % 12
        WHEN 0 THEN 'nan'::${t} WHEN 1 THEN '-0.0'::${t} WHEN 2 THEN 'inf'::${t}
        WHEN 3 THEN '-inf'::${t} WHEN 4 THEN 0.1::${t} + 0.2::${t}
        WHEN 5 THEN ((1::BIGINT << 53) + k)::${t} WHEN 6 THEN ((1::BIGINT << 24) + k)::${t}
        WHEN 7 THEN ${t === 'FLOAT' ? "'1.4e-45'" : "'4.9e-324'"}::${t}
        WHEN 8 THEN (id / 1000.0)::${t} WHEN 9 THEN (id * 0.001)::${t}
        WHEN 10 THEN ${t === 'FLOAT' ? "'3.4028235e38'" : "'1.7976931348623157e308'"}::${t}
        ELSE (id * 1e10 + k / 7.0)::${t} END
      ELSE (sin(id * 8 + k) * 1e3)::${t} END)`;

await c.run(`CREATE TABLE floats AS SELECT r.id,
    CASE WHEN r.n32 THEN NULL ELSE coalesce((SELECT list(f ORDER BY k) FROM items i WHERE i.id = r.id AND col = 0), []::FLOAT[]) END AS f32,
    CASE WHEN r.n64 THEN NULL ELSE coalesce((SELECT list(d ORDER BY k) FROM items i WHERE i.id = r.id AND col = 1), []::DOUBLE[]) END AS f64,
    (CASE WHEN r.na32 THEN NULL ELSE (SELECT list(f ORDER BY k) FROM items i WHERE i.id = r.id AND col = 2) END)::FLOAT[4] AS a32,
    r.s32, r.s64,
    CASE WHEN r.nf32 THEN NULL ELSE coalesce((SELECT list(f ORDER BY k) FROM items i WHERE i.id = r.id AND col = 3), []::FLOAT[]) END AS few32,
    CASE WHEN r.nf64 THEN NULL ELSE coalesce((SELECT list(d ORDER BY k) FROM items i WHERE i.id = r.id AND col = 4), []::DOUBLE[]) END AS few64,
    CASE WHEN r.id % 31 = 3 THEN NULL ELSE ${sq('FLOAT')} END AS sq32,
    CASE WHEN r.id % 37 = 4 THEN NULL ELSE ${sq('DOUBLE')} END AS sq64
  FROM rows r ORDER BY r.id`);
await c.run(`COPY floats TO '${out}/floats.parquet' (FORMAT parquet, ROW_GROUP_SIZE 500)`);
await c.run(`COPY floats TO '${out}/floats-v2.parquet' (FORMAT parquet, ROW_GROUP_SIZE 500, PARQUET_VERSION V2)`);

// What DuckDB reads back from a file: per row, per column, null or the hex of each value's bits.
const hex = (single, items, at) => {
  const words = single
    ? new Uint32Array(items.buffer, items.byteOffset, items.length)
    : new BigUint64Array(items.buffer, items.byteOffset, items.length);
  return words[at].toString(16).padStart(single ? 8 : 16, '0');
};
const value = (v, single, at) => (v.validity.itemValid(at) ? hex(single, v.items, at) : null);
async function readBack(file) {
  const result = await c.run(`SELECT * FROM read_parquet('${out}/${file}') ORDER BY id`);
  const rows = [];
  const names = result.columnNames();
  for (let chunk; (chunk = await result.fetchChunk()) && chunk.rowCount > 0; ) {
    const vectors = names.map((_, col) => chunk.getColumnVector(col));
    for (let i = 0; i < chunk.rowCount; i++) {
      rows.push(vectors.map((v, col) => {
        const name = names[col];
        if (name === 'id') return v.getItem(i);
        const single = name.endsWith('32');
        if (name.startsWith('s') && !name.startsWith('sq')) return value(v, single, i);
        if (!v.validity.itemValid(i)) return null;
        // Parquet has no fixed-size lists: DuckDB reads a32 back as a list too.
        const [start, length] = [Number(v.entryData[2 * i]), Number(v.entryData[2 * i + 1])];
        return Array.from({ length }, (_, t) => value(v.childData, single, start + t));
      }));
    }
  }
  return { columns: names, rows };
}
const v1 = await readBack('floats.parquet');
const v2 = await readBack('floats-v2.parquet');
if (JSON.stringify(v1) !== JSON.stringify(v2)) {
  throw new Error('floats.parquet and floats-v2.parquet read back differently');
}
// How many raw values DuckDB read back with other bits than were appended: reported, not fixed;
// the expected values are what DuckDB reads. (DuckDB 1.5.6's dictionary pages keep one entry for
// -0.0 and +0.0, and one for all NaNs, duckdb/duckdb#25781: few32 and few64 lose those bits.)
const changed = {};
const want = (b, single) => (b === null ? null : b.toString(16).padStart(single ? 8 : 16, '0'));
const compare = (name, got, b) => {
  if (got !== want(b, name.endsWith('32'))) {
    changed[name] = (changed[name] ?? 0) + 1;
  }
};
v1.rows.forEach((row, id) => {
  ['f32', 'f64', 'a32', 'few32', 'few64'].forEach((name) => {
    const got = row[v1.columns.indexOf(name)];
    columns[name][id]?.forEach((b, t) => compare(name, got[t], b));
  });
  ['s32', 's64'].forEach((name) => compare(name, row[v1.columns.indexOf(name)], columns[name][id]));
});
writeFileSync(`${out}/floats-expected.json.gz`, gzipSync(JSON.stringify(v1)));
console.log(`wrote floats.parquet, floats-v2.parquet, floats-expected.json.gz: ${v1.rows.length} rows; raw values read back with other bits: ${JSON.stringify(changed)}`);
