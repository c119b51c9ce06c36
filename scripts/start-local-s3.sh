#!/usr/bin/env bash
# start-local-s3.sh -- a real S3 server on 127.0.0.1 for Riffle's S3 tests.
#
# Default backend (RIFFLE_S3_BACKEND=ceph): a single-node Ceph "pacific" 16.2.15
# cluster from Debian 12 -- one ceph-mon, one ceph-osd (memstore: objects in RAM),
# no ceph-mgr -- plus the RADOS Gateway (radosgw, beast frontend) on
# http://127.0.0.1:7480. This is the same S3 implementation as a production Ceph
# cluster. First use needs root for apt-get (~30 s); skipped when installed.
#
# Fallback backend (RIFFLE_S3_BACKEND=s3proxy): S3Proxy 4.1.0 (org.gaul:s3proxy
# from Maven Central, filesystem storage). No root, no apt: java >= 17 and mvn.
#
# No systemd, no Docker: the daemons run in the background and leave pid files in
# $RIFFLE_S3_DIR/run; stop them with stop-local-s3.sh (same RIFFLE_S3_DIR).
#
# Idempotent: if a server started by this script from the same RIFFLE_S3_DIR still
# answers with the configured keys, it only (re)creates the bucket, rewrites the env
# file and prints it. Otherwise it wipes RIFFLE_S3_DIR and starts fresh (~2-3 s).
# Concurrent runs are serialised with flock on $RIFFLE_S3_DIR.lock.
#
# Usage:   scripts/start-local-s3.sh                  # start (or reuse); prints KEY=value lines
#          eval "$(scripts/start-local-s3.sh --env)"  # same, as export lines
#          scripts/stop-local-s3.sh                   # stop and delete $RIFFLE_S3_DIR
#
# The env file $RIFFLE_S3_DIR/env (default /tmp/riffle-s3/env) holds KEY=value lines
# (shell-sourceable and readable as java.util.Properties):
#   RIFFLE_S3_ENDPOINT  RIFFLE_S3_REGION  RIFFLE_S3_ACCESS_KEY  RIFFLE_S3_SECRET_KEY
#   RIFFLE_S3_BUCKET
#
# Hadoop S3A settings for this server: see scripts/README-s3.md. The one that is
# easy to miss: fs.s3a.signing-algorithm=AWS4UnsignedPayloadSignerType (Ceph 16.2
# over http rejects every 0-byte PUT signed with the SDK's default aws-chunked
# streaming signature: 400 XAmzContentSHA256Mismatch).
#
# Settings (environment variables, all optional):
#   RIFFLE_S3_BACKEND=ceph              ceph | s3proxy
#   RIFFLE_S3_PORT=7480                 HTTP port on 127.0.0.1
#   RIFFLE_S3_ACCESS_KEY=localtest      fixed credentials of the test user
#   RIFFLE_S3_SECRET_KEY=localtestsecret
#   RIFFLE_S3_BUCKET=riffle-test        bucket created after start ("" = none)
#   RIFFLE_S3_DIR=/tmp/riffle-s3        all state: config, keys, logs, pid files, data, env
#   RIFFLE_S3_START_TIMEOUT=120         seconds to wait for the server
#   CEPH_OBJECTSTORE=memstore           memstore (RAM, fast) | bluestore (sparse file
#                                       $RIFFLE_S3_DIR/osd/0/bluestore.img, real disk I/O)
#   CEPH_STORE_GB=8                     memstore: RAM cap; bluestore: sparse file size
#   CEPH_WITH_MGR=0                     1 = also run ceph-mgr (~300 MB; 'ceph -s' stats only)
#   CEPH_MON_PORT=3300                  monitor port (msgr2 only) on 127.0.0.1
#   S3PROXY_VERSION=4.1.0               Maven version of org.gaul:s3proxy
set -euo pipefail

S3_BACKEND=${RIFFLE_S3_BACKEND:-ceph}
S3_PORT=${RIFFLE_S3_PORT:-7480}
S3_ACCESS_KEY=${RIFFLE_S3_ACCESS_KEY:-localtest}
S3_SECRET_KEY=${RIFFLE_S3_SECRET_KEY:-localtestsecret}
S3_BUCKET=${RIFFLE_S3_BUCKET-riffle-test}
S3_DIR=${RIFFLE_S3_DIR:-/tmp/riffle-s3}
S3_START_TIMEOUT=${RIFFLE_S3_START_TIMEOUT:-120}
S3_REGION=us-east-1
CEPH_OBJECTSTORE=${CEPH_OBJECTSTORE:-memstore}
CEPH_STORE_GB=${CEPH_STORE_GB:-8}
CEPH_WITH_MGR=${CEPH_WITH_MGR:-0}
CEPH_MON_PORT=${CEPH_MON_PORT:-3300}
S3PROXY_VERSION=${S3PROXY_VERSION:-4.1.0}
HOST=127.0.0.1                      # never anything but loopback
ENDPOINT="http://$HOST:$S3_PORT"
PRINT_EXPORTS=0
case "${1:-}" in
  "") ;;
  --env) PRINT_EXPORTS=1 ;;
  -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
  *) echo "usage: $0 [--env|--help]" >&2; exit 2 ;;
esac
case "$S3_BACKEND" in ceph|s3proxy) ;; *) echo "RIFFLE_S3_BACKEND must be ceph or s3proxy" >&2; exit 2;; esac
case "$CEPH_OBJECTSTORE" in memstore|bluestore) ;; *) echo "CEPH_OBJECTSTORE must be memstore or bluestore" >&2; exit 2;; esac
case "$S3_DIR" in /*) ;; *) echo "RIFFLE_S3_DIR must be an absolute path" >&2; exit 2;; esac
[ "$S3_DIR" != / ] || { echo "RIFFLE_S3_DIR must not be /" >&2; exit 2; }

log() { echo "[riffle-s3] $*" >&2; }

# running PID: exists and is not a zombie (the daemons fork away from this shell,
# so PID 1 collects their exit status, sometimes seconds later)
running() { local s; s=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null) && [ -n "$s" ] && [ "${s:0:1}" != Z ]; }
alive() { [ -f "$1" ] && running "$(cat "$1")"; }      # alive PIDFILE
# daemon PIDs (ceph-*/radosgw/java) whose command line names this instance's config: catches those whose
# pid file is gone (only processes started from this RIFFLE_S3_DIR can match)
strays() {
  local p
  for p in /proc/[0-9]*; do
    case "$(cat "$p/comm" 2>/dev/null)" in ceph-mon|ceph-osd|ceph-mgr|radosgw|java) ;; *) continue;; esac
    tr '\0' ' ' <"$p/cmdline" 2>/dev/null | grep -qF -e "$S3_DIR/ceph.conf" -e "$S3_DIR/s3proxy.conf" \
      && running "${p#/proc/}" && echo "${p#/proc/}"
  done
  return 0
}
stop_pid() {  # SIGTERM, wait up to 20 s, then SIGKILL
  local pid=$1 n
  running "$pid" || return 0
  kill "$pid" 2>/dev/null || true
  for ((n = 0; n < 200; n++)); do running "$pid" || return 0; sleep 0.1; done
  kill -9 "$pid" 2>/dev/null || true
}
stop_all() {  # every pid file in $S3_DIR/run (gateway first, monitor last), then strays
  local pf pid
  for pf in "$S3_DIR"/run/client.rgw.local.pid "$S3_DIR"/run/s3proxy.pid "$S3_DIR"/run/osd.0.pid \
            "$S3_DIR"/run/mgr.x.pid "$S3_DIR"/run/mon.a.pid; do
    [ -f "$pf" ] || continue
    pid=$(cat "$pf"); [ -n "$pid" ] && stop_pid "$pid"
    rm -f "$pf"
  done
  for pid in $(strays); do stop_pid "$pid"; done
}

STARTED=0   # 1 once this run has started daemons: a failure stops them again
die() {
  trap - ERR
  log "ERROR: $*"
  if [ "$STARTED" = 1 ]; then stop_all; log "stopped what this attempt started; logs kept in $S3_DIR/log"; fi
  exit 1
}
trap 'die "command failed (line $LINENO): $BASH_COMMAND"' ERR

# S3 request signed with SigV4 by curl (>= 7.75). curl 7.88 does not send the
# x-amz-content-sha256 header by itself and radosgw then answers
# SignatureDoesNotMatch, so it is sent explicitly (UNSIGNED-PAYLOAD).
s3curl() {
  curl -sS --max-time 30 --aws-sigv4 "aws:amz:$S3_REGION:s3" --user "$S3_ACCESS_KEY:$S3_SECRET_KEY" \
       -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" "$@"
}
http_code() { curl -s -o /dev/null -w '%{http_code}' --max-time 2 "$ENDPOINT/" || true; }  # 000 = nothing listens
s3_ok() { [ "$(s3curl -o /dev/null -w '%{http_code}' "$ENDPOINT/" 2>/dev/null || true)" = 200 ]; }  # signed ListBuckets
port_busy() { (exec 3<>"/dev/tcp/$HOST/$1") 2>/dev/null; }

finish() {
  if [ -n "$S3_BUCKET" ]; then
    # PUT bucket when it exists already: radosgw answers 200, s3proxy 409
    # BucketAlreadyOwnedByYou; both mean the bucket is there and ours
    local code
    code=$(s3curl -o "$S3_DIR/log/create-bucket.out" -w '%{http_code}' -X PUT "$ENDPOINT/$S3_BUCKET" || true)
    if [ "$code" != 200 ] && ! grep -q BucketAlreadyOwnedByYou "$S3_DIR/log/create-bucket.out" 2>/dev/null; then
      die "create bucket $S3_BUCKET: HTTP $code $(cat "$S3_DIR/log/create-bucket.out" 2>/dev/null)"
    fi
  fi
  cat > "$S3_DIR/env.tmp" <<ENV
RIFFLE_S3_ENDPOINT=$ENDPOINT
RIFFLE_S3_REGION=$S3_REGION
RIFFLE_S3_ACCESS_KEY=$S3_ACCESS_KEY
RIFFLE_S3_SECRET_KEY=$S3_SECRET_KEY
RIFFLE_S3_BUCKET=$S3_BUCKET
ENV
  mv "$S3_DIR/env.tmp" "$S3_DIR/env"
  log "S3 endpoint $ENDPOINT  access=$S3_ACCESS_KEY  bucket=${S3_BUCKET:-<none>}  backend=$(cat "$S3_DIR/backend")  env file=$S3_DIR/env"
  if [ "$PRINT_EXPORTS" = 1 ]; then sed 's/^/export /' "$S3_DIR/env"; else cat "$S3_DIR/env"; fi
  exit 0
}

wait_http() {  # wait_http PIDFILE: until something answers HTTP on $ENDPOINT
  local i
  for ((i = 0; i < S3_START_TIMEOUT * 5; i++)); do
    [ "$(http_code)" != 000 ] && return 0
    # the pid file may appear a moment after the daemon forks
    if [ $i -gt 25 ] && ! alive "$1"; then die "server exited; see $S3_DIR/log/"; fi
    sleep 0.2
  done
  die "nothing answers on $ENDPOINT after ${S3_START_TIMEOUT}s; see $S3_DIR/log/"
}

# ---------------------------------------------------------------- 0. one at a time
command -v flock >/dev/null || die "flock (util-linux) not found"
mkdir -p "$(dirname "$S3_DIR")"
# (fd 9 is closed for every daemon below: an inherited fd would keep the lock held)
exec 9>"$S3_DIR.lock"
if ! flock -n 9; then
  log "waiting for another start/stop on $S3_DIR (lock $S3_DIR.lock)"
  flock -w 900 9 || die "another start/stop for $S3_DIR still holds $S3_DIR.lock after 900 s"
fi

# ---------------------------------------------------------------- 1. install
install_ceph() {
  local need=() b
  for b in ceph-mon:ceph-mon ceph-osd:ceph-osd radosgw:radosgw radosgw-admin:radosgw \
           ceph:ceph-common ceph-authtool:ceph-common monmaptool:ceph-base uuidgen:uuid-runtime curl:curl; do
    command -v "${b%%:*}" >/dev/null 2>&1 || need+=("${b##*:}")
  done
  if [ "$CEPH_WITH_MGR" = 1 ] && ! command -v ceph-mgr >/dev/null 2>&1; then need+=(ceph-mgr); fi
  [ ${#need[@]} -eq 0 ] && return 0
  [ "$(id -u)" = 0 ] || die "missing ${need[*]}: run as root, apt-get install them, or use RIFFLE_S3_BACKEND=s3proxy"
  command -v apt-get >/dev/null || die "missing ${need[*]} and no apt-get (Debian 12 expected); use RIFFLE_S3_BACKEND=s3proxy"
  mapfile -t need < <(printf '%s\n' "${need[@]}" | sort -u)
  local t0=$SECONDS
  log "apt-get install ${need[*]} (Debian ceph 16.2.15; ~65 MB download on a bare machine)"
  # apt-cache needs package lists; the lock timeout waits for another apt/dpkg run
  if ! apt-cache policy radosgw 2>/dev/null | grep -q 'Candidate: [0-9]'; then
    apt-get -o DPkg::Lock::Timeout=600 update -qq || die "apt-get update failed"
  fi
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq \
    --no-install-recommends "${need[@]}" >"${S3_DIR}.apt.log" 2>&1 \
    || die "apt-get install ${need[*]} failed: $(tail -5 "${S3_DIR}.apt.log")"
  log "installed in $((SECONDS - t0)) s"
}
S3PROXY_JAR=${S3PROXY_JAR:-$HOME/.m2/repository/org/gaul/s3proxy/$S3PROXY_VERSION/s3proxy-$S3PROXY_VERSION-jar-with-dependencies.jar}
install_s3proxy() {
  command -v java >/dev/null || die "java (>= 17) not found"
  command -v curl >/dev/null || die "curl not found"
  [ -f "$S3PROXY_JAR" ] && return 0
  command -v mvn >/dev/null || die "mvn not found (needed once to fetch $S3PROXY_JAR)"
  log "fetching org.gaul:s3proxy:$S3PROXY_VERSION (55 MB) from Maven Central"
  mvn -q -B -Dstyle.color=never dependency:get -Dtransitive=false \
    -Dartifact="org.gaul:s3proxy:$S3PROXY_VERSION:jar:jar-with-dependencies" >"${S3_DIR}.mvn.log" 2>&1 \
    || die "mvn dependency:get failed: $(tail -5 "${S3_DIR}.mvn.log")"
  [ -f "$S3PROXY_JAR" ] || die "mvn did not produce $S3PROXY_JAR (set S3PROXY_JAR if ~/.m2 is elsewhere)"
}
if [ "$S3_BACKEND" = ceph ]; then install_ceph; else install_s3proxy; fi

# ---------------------------------------------------------------- 2. reuse?
if [ -f "$S3_DIR/backend" ] && [ "$(cat "$S3_DIR/backend")" = "$S3_BACKEND" ] \
   && { alive "$S3_DIR/run/client.rgw.local.pid" || alive "$S3_DIR/run/s3proxy.pid"; } && s3_ok; then
  log "already running from $S3_DIR"
  finish
fi
stop_all   # leftovers of an earlier run from the same dir
[ "$(http_code)" = 000 ] || die "something else answers on $ENDPOINT; stop it or set RIFFLE_S3_PORT"
if [ "$S3_BACKEND" = ceph ] && port_busy "$CEPH_MON_PORT"; then
  die "port $HOST:$CEPH_MON_PORT (ceph monitor) is in use; stop that process or set CEPH_MON_PORT"
fi
rm -rf "$S3_DIR"
mkdir -p "$S3_DIR"/{run,log}
echo "$S3_BACKEND" > "$S3_DIR/backend"
T0=$(date +%s.%N)
D=$S3_DIR
elapsed() { awk -v a="$T0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }

# ---------------------------------------------------------------- 3a. s3proxy
if [ "$S3_BACKEND" = s3proxy ]; then
  mkdir -p "$D/data"
  cat > "$D/s3proxy.conf" <<CONF
s3proxy.endpoint=$ENDPOINT
s3proxy.authorization=aws-v2-or-v4
s3proxy.identity=$S3_ACCESS_KEY
s3proxy.credential=$S3_SECRET_KEY
jclouds.provider=filesystem
jclouds.filesystem.basedir=$D/data
CONF
  STARTED=1
  nohup java -Xmx1g -jar "$S3PROXY_JAR" --properties "$D/s3proxy.conf" >"$D/log/s3proxy.log" 2>&1 9>&- &
  echo $! > "$D/run/s3proxy.pid"
  wait_http "$D/run/s3proxy.pid"
  s3_ok || die "s3proxy answers but signed ListBuckets fails; see $D/log/s3proxy.log"
  log "s3proxy ready in $(elapsed) s"
  finish
fi

# ---------------------------------------------------------------- 3b. ceph
mkdir -p "$D"/{mon/a,osd/0,mgr/x,rgw}
FSID=$(uuidgen)
STORE_BYTES=$((CEPH_STORE_GB * 1024 * 1024 * 1024))
# Each line below is needed (or avoids a trap) for a 1-OSD cluster on loopback.
cat > "$D/ceph.conf" <<CONF
[global]
fsid = $FSID
# one monitor, msgr2 protocol only, loopback only
mon host = v2:$HOST:$CEPH_MON_PORT
public addr = $HOST
cluster addr = $HOST
ms bind msgr1 = false
ms bind ipv6 = false
# cephx as in production; all keys live under the state dir
auth cluster required = cephx
auth service required = cephx
auth client required = cephx
auth allow insecure global id reclaim = false
keyring = $D/keyring
run dir = $D/run
admin socket = $D/run/\$name.asok
pid file = $D/run/\$name.pid
log file = $D/log/\$name.log
# a single OSD: one replica, no host-level failure domain
osd pool default size = 1
osd pool default min size = 1
mon allow pool size one = true
mon warn on pool no redundancy = false
osd crush chooseleaf type = 0
# radosgw creates 7-8 pools; keep them at 8 PGs each (the mgr autoscaler, when a
# mgr runs, would raise them to 32, close to mon_max_pg_per_osd=250 on one OSD)
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
mon max pg per osd = 1000
# a nearly full /tmp on a CI machine must not block writes
mon data avail warn = 2
mon data avail crit = 1

[mon]
mon data = $D/mon/\$id
mon cluster log file = $D/log/cluster.log
# the monitor batches map changes for 1 s by default; radosgw makes ~16 of them
# (pool create + enable) at start and first bucket: 0.05 s cuts start-up by ~10 s
paxos propose interval = 0.05
paxos min wait = 0.01

[mgr]
mgr data = $D/mgr/\$id
keyring = $D/mgr/\$id/keyring

[osd]
osd data = $D/osd/\$id
keyring = $D/osd/\$id/keyring
osd objectstore = $CEPH_OBJECTSTORE
memstore device bytes = $STORE_BYTES
# bluestore: one sparse file holds data + RocksDB (the path must not be
# "<osd data>/block": bluestore puts a symlink named block there -> ELOOP)
bluestore block path = $D/osd/\$id/bluestore.img
bluestore block create = true
bluestore block size = $STORE_BYTES
bluestore block db create = false
bluestore block wal create = false
bdev enable discard = false
osd memory target = 1073741824

[client.rgw.local]
keyring = $D/rgw/keyring
rgw data = $D/rgw
rgw frontends = beast endpoint=$HOST:$S3_PORT
rgw dns name = localhost
# delete overwritten/deleted object data after 60 s instead of 2 h (memstore keeps
# it in RAM until then)
rgw gc obj min wait = 60
rgw gc processor period = 60
log file = $D/log/rgw.log
CONF
C=(-c "$D/ceph.conf")

log "bootstrapping ceph ($CEPH_OBJECTSTORE, $CEPH_STORE_GB GiB) in $D"
# monitor
ceph-authtool --create-keyring "$D/keyring" --gen-key -n mon. --cap mon 'allow *' >/dev/null
ceph-authtool "$D/keyring" --gen-key -n client.admin \
  --cap mon 'allow *' --cap osd 'allow *' --cap mds 'allow *' --cap mgr 'allow *' >/dev/null
monmaptool --create --fsid "$FSID" --addv a "[v2:$HOST:$CEPH_MON_PORT]" "$D/monmap" >/dev/null
ceph-mon "${C[@]}" --mkfs -i a --monmap "$D/monmap" --keyring "$D/keyring"
STARTED=1
ceph-mon "${C[@]}" -i a 9>&-
ceph "${C[@]}" --connect-timeout 30 mon stat >/dev/null

# manager (optional)
if [ "$CEPH_WITH_MGR" = 1 ]; then
  ceph "${C[@]}" auth get-or-create mgr.x mon 'allow profile mgr' osd 'allow *' mds 'allow *' \
    -o "$D/mgr/x/keyring"
  ceph-mgr "${C[@]}" -i x 9>&-
fi

# object storage daemon: register it with the monitor, then mkfs and start
OSD_UUID=$(uuidgen)
OSD_KEY=$(ceph-authtool --gen-print-key)
printf '{"cephx_secret": "%s"}' "$OSD_KEY" > "$D/osd/0/secret.json"
OSD_ID=$(ceph "${C[@]}" osd new "$OSD_UUID" -i "$D/osd/0/secret.json")
rm -f "$D/osd/0/secret.json"
[ "$OSD_ID" = 0 ] || die "unexpected osd id '$OSD_ID'"
ceph-authtool --create-keyring "$D/osd/0/keyring" --name osd.0 --add-key "$OSD_KEY" >/dev/null
ceph-osd "${C[@]}" -i 0 --mkfs --osd-uuid "$OSD_UUID" >"$D/log/osd-mkfs.log" 2>&1 \
  || die "ceph-osd --mkfs failed: $(tail -3 "$D/log/osd-mkfs.log")"
ceph-osd "${C[@]}" -i 0 2>>"$D/log/osd-stderr.log" 9>&-

# gateway, then the S3 user with the fixed keys
ceph "${C[@]}" auth get-or-create client.rgw.local mon 'allow rw' osd 'allow rwx' mgr 'allow rw' \
  -o "$D/rgw/keyring"
radosgw "${C[@]}" -n client.rgw.local 9>&-
wait_http "$D/run/client.rgw.local.pid"
radosgw-admin "${C[@]}" -n client.admin user create --uid=riffle-test --display-name="riffle local test" \
  --access-key="$S3_ACCESS_KEY" --secret-key="$S3_SECRET_KEY" >"$D/log/user-create.json" \
  || die "radosgw-admin user create failed"
s3_ok || die "radosgw answers but signed ListBuckets fails; see $D/log/rgw.log"
log "ceph ready in $(elapsed) s"
finish
