#!/usr/bin/env bash
# The raw baseline for `riffle stage` (issue 21, item 6): the same objects fetched with parallel
# ranged GETs by curl --aws-sigv4, in parts of the stager's default size, either discarded or written
# to disk (one file per object, written by position, then synced), with nothing hashed.
#
#   benchmarks/scripts/s3-rawget.sh s3a://BUCKET/PREFIX@VERSION [THREADS=16] [PART_MIB=8] [OUT_DIR]
#
# Reads RIFFLE_S3_ENDPOINT, RIFFLE_S3_REGION, RIFFLE_S3_ACCESS_KEY and RIFFLE_S3_SECRET_KEY (as
# `source /tmp/s3env.sh` or scripts/start-local-s3.sh --env give them). Prints one line:
#   rawget <to=null|disk> threads=T part_mib=P bytes=B seconds=S mb_per_s=R
# The object list comes from `riffle info URI --files --json`, run before the clock starts
# (RIFFLE="java -jar some/riffle.jar" to use another build than ./riffle).
set -euo pipefail
uri="${1:?usage: s3-rawget.sh s3a://BUCKET/PREFIX[@VERSION] [THREADS] [PART_MIB] [OUT_DIR]}"
threads="${2:-16}"
part_mib="${3:-8}"
out_dir="${4:-}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
riffle="${RIFFLE:-$root/riffle}"
: "${RIFFLE_S3_ENDPOINT:?set RIFFLE_S3_ENDPOINT (source /tmp/s3env.sh)}"
region="${RIFFLE_S3_REGION:-us-east-1}"

base="${uri%@*}"
bucket_prefix="${base#s3a://}"
bucket="${bucket_prefix%%/*}"
prefix="${bucket_prefix#*/}"

list="$(mktemp)"
trap 'rm -f "$list"' EXIT
$riffle info "$uri" --files --json |
  python3 -c '
import json, sys
part = int(sys.argv[1]) << 20
for f in json.load(sys.stdin)["files"]:
    n = f["bytes"]
    for start in range(0, n, part):
        print(f["path"], start, min(n, start + part) - 1)
' "$part_mib" >"$list"

bytes="$(awk '{ s += $3 - $2 + 1 } END { print s }' "$list")"
if [[ -n "$out_dir" ]]; then
  mkdir -p "$out_dir"
  # Each object's file, sized first, so that parts are written by position (dd conv=notrunc).
  $riffle info "$uri" --files --json |
    python3 -c '
import json, os, sys
for f in json.load(sys.stdin)["files"]:
    p = os.path.join(sys.argv[1], os.path.basename(f["path"]))
    with open(p, "wb") as o:
        o.truncate(f["bytes"])
' "$out_dir"
fi

export RIFFLE_S3_ENDPOINT RIFFLE_S3_ACCESS_KEY RIFFLE_S3_SECRET_KEY bucket prefix region out_dir
get() {
  local path="$1" from="$2" to="$3"
  local url="$RIFFLE_S3_ENDPOINT/$bucket/$prefix/$path"
  # Ceph's RGW wants the payload hash header, which curl does not add on its own.
  local sig=(--aws-sigv4 "aws:amz:$region:s3" --user "$RIFFLE_S3_ACCESS_KEY:$RIFFLE_S3_SECRET_KEY"
    -H "x-amz-content-sha256: UNSIGNED-PAYLOAD")
  set -o pipefail
  if [[ -z "$out_dir" ]]; then
    curl -sf "${sig[@]}" -r "$from-$to" "$url" -o /dev/null
  else
    curl -sf "${sig[@]}" -r "$from-$to" "$url" |
      dd of="$out_dir/$(basename "$path")" bs=1M seek="$from" oflag=seek_bytes conv=notrunc \
        status=none
  fi
}
export -f get

t0="$(date +%s.%N)"
xargs -P "$threads" -n 3 bash -c 'get "$@"' _ <"$list"
if [[ -n "$out_dir" ]]; then
  sync -f "$out_dir"/*
fi
t1="$(date +%s.%N)"
python3 - "$t0" "$t1" "$bytes" "$threads" "$part_mib" "${out_dir:+disk}" <<'EOF'
import sys
t0, t1, b = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
s = t1 - t0
to = sys.argv[6] if len(sys.argv) > 6 and sys.argv[6] else "null"
print(f"rawget to={to} threads={sys.argv[4]} part_mib={sys.argv[5]} bytes={b} seconds={s:.2f} mb_per_s={b / s / 1e6:.1f}")
EOF
