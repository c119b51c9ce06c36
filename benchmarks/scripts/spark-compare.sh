#!/bin/bash
# Riffle against Spark's Parquet source: SparkCompare (spark/src/test/java/dev/riffle/spark) with the
# classes of one build, so that two builds can be compared in one window.
#
#   benchmarks/scripts/spark-compare.sh [--build DIR] SCRATCH KIND [REPEATS]
#
# COLD=1 drops the page cache (as root) before every timed run of either source.
# DIR: a checkout whose modules are packaged (mvn -B -ntp -o -pl spark -am package -DskipTests, then
# mvn -pl spark test-compile); default: this checkout. SCRATCH: where the 2,000,000-row data is
# written once (a build reads only files its format version knows). KIND: decimal (the embedding's
# floats k / 1000) or noise (the review's: centroid plus noise). The class path of Spark comes from
#   mvn -B -ntp -pl spark dependency:build-classpath -Dmdep.outputFile=/tmp/spark-cp.txt \
#     -Dmdep.includeScope=test
# with its Riffle jars replaced by DIR's (the local Maven repository holds whichever was installed
# last). Prints SparkCompare's Markdown table.
set -euo pipefail
DIR=$(cd "$(dirname "$0")/../.." && pwd)
if [ "${1:-}" = --build ]; then
  DIR=$(cd "$2" && pwd)
  shift 2
fi
SCRATCH=${1:?scratch dir}
KIND=${2:?decimal or noise}
REPEATS=${3:-3}
CP_FILE=${SPARK_CP:-/tmp/spark-cp.txt}
[ -f "$CP_FILE" ] || { echo "no $CP_FILE: see the header of $0" >&2; exit 2; }
CP=$(tr ':' '\n' < "$CP_FILE" | while read -r jar; do
  case "$jar" in
    */dev/riffle/riffle-*/*)
      module=$(basename "$(dirname "$(dirname "$jar")")" | sed 's/^riffle-//')
      echo "$DIR/$module/target/$(basename "$jar")" ;;
    *) echo "$jar" ;;
  esac
done | paste -sd:)
ARGLINE=$(sed -n 's#.*<argLine>\(.*\)</argLine>.*#\1#p' "$DIR/spark/pom.xml")
# shellcheck disable=SC2086
exec java -Xmx6g -Dcold="${COLD:+true}" $ARGLINE -cp "$DIR/spark/target/test-classes:$DIR/spark/target/classes:$CP" \
  dev.riffle.spark.SparkCompare "$SCRATCH" 2000000 "$REPEATS" 64 "$KIND"
