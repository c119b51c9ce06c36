#!/usr/bin/env bash
# stop-local-s3.sh -- stop what start-local-s3.sh started from $RIFFLE_S3_DIR
# (default /tmp/riffle-s3) and delete that directory, env file included.
# Processes are found by the pid files under $RIFFLE_S3_DIR/run and, as a fallback,
# by a command line naming $RIFFLE_S3_DIR/ceph.conf or s3proxy.conf -- nothing else
# is touched. KEEP_S3_DIR=1 keeps config, logs and data for a look.
# Safe to run when nothing is running.
set -uo pipefail
S3_DIR=${RIFFLE_S3_DIR:-/tmp/riffle-s3}
case "$S3_DIR" in /?*) ;; *) echo "RIFFLE_S3_DIR must be an absolute path other than /" >&2; exit 2;; esac

# running PID: exists and is not a zombie (the daemons fork away from the starting
# shell, so PID 1 collects their exit status, sometimes seconds later)
running() { local s; s=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null) && [ -n "$s" ] && [ "${s:0:1}" != Z ]; }
stop_pid() {   # SIGTERM, wait up to 20 s, then SIGKILL
  local pid=$1 n
  running "$pid" || return 0
  kill "$pid" 2>/dev/null
  for ((n = 0; n < 200; n++)); do running "$pid" || return 0; sleep 0.1; done
  echo "[riffle-s3] pid $pid ignored SIGTERM for 20 s; SIGKILL" >&2
  kill -9 "$pid" 2>/dev/null
}
strays() {
  local p
  for p in /proc/[0-9]*; do
    case "$(cat "$p/comm" 2>/dev/null)" in ceph-mon|ceph-osd|ceph-mgr|radosgw|java) ;; *) continue;; esac
    tr '\0' ' ' <"$p/cmdline" 2>/dev/null | grep -qF -e "$S3_DIR/ceph.conf" -e "$S3_DIR/s3proxy.conf" \
      && running "${p#/proc/}" && echo "${p#/proc/}"
  done
  return 0
}

# wait for a concurrent start-local-s3.sh on the same dir to finish first
if command -v flock >/dev/null; then
  exec 9>"$S3_DIR.lock"
  if ! flock -n 9; then
    echo "[riffle-s3] waiting for another start/stop on $S3_DIR (lock $S3_DIR.lock)" >&2
    flock -w 900 9 || { echo "[riffle-s3] ERROR: $S3_DIR.lock still held after 900 s" >&2; exit 1; }
  fi
fi
# gateway first, then the OSD (it tells the monitor it is going down), monitor last
for d in client.rgw.local s3proxy osd.0 mgr.x mon.a; do
  pf="$S3_DIR/run/$d.pid"
  [ -f "$pf" ] || continue
  pid=$(cat "$pf"); [ -n "$pid" ] && stop_pid "$pid"
  rm -f "$pf"
done
for pid in $(strays); do stop_pid "$pid"; done
left=$(strays)
[ -z "$left" ] || { echo "[riffle-s3] ERROR: still running: $left" >&2; exit 1; }
[ "${KEEP_S3_DIR:-0}" = 1 ] || rm -rf "$S3_DIR" "$S3_DIR.apt.log" "$S3_DIR.mvn.log"
echo "[riffle-s3] stopped ($S3_DIR)" >&2
