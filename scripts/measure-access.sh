#!/usr/bin/env bash
# Measures the machine-independent cost of random access per type with `riffle take --stats`:
# reads, sectors and bytes per row for 256 random rows (after open and metadata load), metadata
# RAM per row, and data size relative to the same data as Arrow buffers. Prints a Markdown table.
#
# usage: scripts/measure-access.sh [DIR]   (DIR holds the generated files; default /tmp/riffle-measure)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
riffle="$root/riffle"
dir="${1:-/tmp/riffle-measure}"
mkdir -p "$dir"

gen() { # name kind rows [extra args]
  local name=$1 kind=$2 rows=$3; shift 3
  [[ -f "$dir/$name.riffle" ]] || "$riffle" generate "$kind" "$dir/$name.riffle" --rows "$rows" --seed 1 "$@" >&2
}

gen u64 lance8 4000000 --columns u64
gen str16 lance8 2000000 --columns str16
gen list_u64 lance8 1000000 --columns list_u64
gen list_str lance8 1000000 --columns list_str
gen vec768 lance8 20000 --columns vec768
gen list_vec lance8 4000 --columns list_vec
gen bin20k lance8 3000 --columns bin20k
gen list_bin lance8 800 --columns list_bin
gen sparse sparse 10000
gen atoms atoms 40000

measure() { # label file columns
  local label=$1 file=$2 cols=$3
  local stats inspect
  stats=$("$riffle" take "$dir/$file.riffle" --random 256 --seed 7 --columns "$cols" --quiet --stats 2>&1 >/dev/null)
  inspect=$("$riffle" inspect "$dir/$file.riffle" --raw --json)
  python3 - "$label" "$cols" "$stats" "$inspect" <<'PY'
import json, sys
label, cols, stats, inspect = sys.argv[1], sys.argv[2].split(','), json.loads(sys.argv[3]), json.loads(sys.argv[4])
rows = inspect["rows"]
col = [c for c in inspect["columns"] if set(c["fields"]) & set(cols)]
ram = sum(c["ramBytes"] for c in col)
data = sum(c["dataBytes"] for c in col)
arrow = sum(c["arrowBytes"] for c in col)
layouts = ", ".join(f"{k}" for c in col for k in c["layouts"])
n = stats["rows"]
print(f"| {label} | {layouts} | {stats['reads']/n:.2f} | {stats['rounds']} | {stats['sectors']/n:.2f} | "
      f"{stats['bytesRead']/n:,.0f} | {ram/rows:.4f} | {100*ram/data:.4f}% | {data/arrow:.3f} |")
PY
}

echo "| type | layout | reads/row | rounds | sectors/row | bytes read/row | metadata RAM B/row | RAM % of data | data / Arrow bytes |"
echo "|---|---|---|---|---|---|---|---|---|"
measure "u64 (10% null)" u64 u64
measure "str16" str16 str16
measure "List<u64> ~40 B" list_u64 list_u64
measure "List<string> ~80 B" list_str list_str
measure "FSL<f32,768>" vec768 vec768
measure "List<FSL<f32,768>> ~15 KiB" list_vec list_vec
measure "binary 20 KiB" bin20k bin20k
measure "List<binary> ~100 KiB" list_bin list_bin
measure "sparse (indices+values group)" sparse indices,values
measure "sparse plate (dictionary)" sparse plate
measure "atoms (positions+forces group)" atoms positions,forces
measure "atoms numbers List<int8>" atoms numbers
measure "atoms energy f64" atoms energy
