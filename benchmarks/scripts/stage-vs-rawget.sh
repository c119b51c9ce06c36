#!/usr/bin/env bash
# Issue 21, item 6: `riffle stage` against raw parallel ranged GETs written to disk, in alternating
# rounds so that both see the same machine. Each round runs s3-rawget.sh (curl, to disk, synced) and
# then `riffle stage URI --cache <fresh dir> --json`, and prints one line:
#   utc=HH:MM:SS load=L raw_s=R stage_s=S stage_cpu_s=C ratio=R/S
# (load: the 1-minute load average before the round; stage_s: the report's `seconds`; stage_cpu_s:
# user + sys of the whole stage process; ratio: the stage's speed as a fraction of the raw GETs'),
# and at the end the median ratio.
#
#   benchmarks/scripts/stage-vs-rawget.sh s3a://BUCKET/PREFIX@VERSION [ROUNDS=5] [THREADS=16] [PART_MIB=8]
#
# Reads the RIFFLE_S3_* variables as s3-rawget.sh does (source /tmp/s3env.sh). RIFFLE="java -jar
# some/riffle.jar" runs another build than ./riffle; WORK_DIR (default: a new temporary directory,
# deleted at the end) holds the raw copies and the caches, so put it on the disk to measure.
set -euo pipefail
uri="${1:?usage: stage-vs-rawget.sh s3a://BUCKET/PREFIX@VERSION [ROUNDS] [THREADS] [PART_MIB]}"
rounds="${2:-5}"
threads="${3:-16}"
part_mib="${4:-8}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
export RIFFLE="${RIFFLE:-$root/riffle}"
if [[ -n "${WORK_DIR:-}" ]]; then
  work="$WORK_DIR"
  mkdir -p "$work"
else
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
fi

ratios=()
for ((r = 1; r <= rounds; r++)); do
  utc="$(date -u +%H:%M:%S)"
  load="$(cut -d' ' -f1 /proc/loadavg)"
  rm -rf "$work/raw" "$work/cache"
  raw_line="$("$here/s3-rawget.sh" "$uri" "$threads" "$part_mib" "$work/raw")"
  raw_s="$(sed -n 's/.*seconds=\([0-9.]*\).*/\1/p' <<<"$raw_line")"
  # shellcheck disable=SC2086 # RIFFLE may be a command with arguments
  /usr/bin/time -o "$work/time" -f "%U %S" $RIFFLE stage "$uri" --cache "$work/cache" \
    --threads "$threads" --parts-mib "$part_mib" --json >"$work/report"
  stage_s="$(python3 -c 'import json, sys; print("%.2f" % json.load(open(sys.argv[1]))["seconds"])' \
    "$work/report")"
  cpu_s="$(awk '{ printf "%.2f", $1 + $2 }' "$work/time")"
  ratio="$(awk -v a="$raw_s" -v b="$stage_s" 'BEGIN { printf "%.2f", a / b }')"
  ratios+=("$ratio")
  echo "utc=$utc load=$load raw_s=$raw_s stage_s=$stage_s stage_cpu_s=$cpu_s ratio=$ratio"
done
rm -rf "$work/raw" "$work/cache"
printf '%s\n' "${ratios[@]}" | sort -n | awk '{ v[NR] = $1 } END {
  m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
  printf "median ratio=%.2f over %d rounds\n", m, NR }'
