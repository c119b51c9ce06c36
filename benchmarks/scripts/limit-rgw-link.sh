#!/bin/bash
# Caps what the local Ceph RGW (port 7480) sends over loopback at RATE (a tc rate: 2gbit, 500mbit),
# so that a staging benchmark sees a store behind a link, as a remote Ceph or S3 would be, instead
# of a server that shares the client's cores. Other loopback traffic (RGW <-> OSD, everything else)
# is not limited. `off` removes the cap. Needs root and tc (Debian: iproute2).
#
#   benchmarks/scripts/limit-rgw-link.sh 2gbit
#   java ... -cp benchmarks/target/benchmarks.jar dev.riffle.bench.s3.StagingBenchmark ...
#   benchmarks/scripts/limit-rgw-link.sh off
set -euo pipefail
RATE=${1:?usage: limit-rgw-link.sh RATE|off}
tc qdisc del dev lo root 2>/dev/null || true
[ "$RATE" = off ] && exit 0
tc qdisc add dev lo root handle 1: htb default 10
tc class add dev lo parent 1: classid 1:10 htb rate 200gbit
# Loopback packets are up to 64 KiB: a burst of a few packets keeps the rate accurate.
tc class add dev lo parent 1: classid 1:20 htb rate "$RATE" ceil "$RATE" burst 512k cburst 512k
tc filter add dev lo protocol ip parent 1: prio 1 u32 match ip sport 7480 0xffff flowid 1:20
