#!/usr/bin/env bash
# cdclake's data source for CDC log tables (java/log-source: the Spark Cassandra Connector's own,
# reading tables with cdc$ names), compiled against pyspark's and the connector's jars into
# jars/cassandra-connector/cdclake-log-source.jar; again when a source file is newer than the jar.
#   scripts/build_log_source.sh PYTHON
set -euo pipefail
cd "$(dirname "$0")/.."
python="${1:-python3}"
jar=jars/cassandra-connector/cdclake-log-source.jar
sources=$(find java/log-source/src -name '*.java')
if [ -f "$jar" ] && [ -z "$(find java/log-source/src -name '*.java' -newer "$jar")" ]; then
    exit 0
fi
if ! command -v javac >/dev/null 2>&1; then
    echo "javac not found: $jar not built (cdclake load cluster needs it; install a JDK 17:" \
         "sudo apt-get install -y openjdk-17-jdk-headless)" >&2
    exit 0
fi
pyspark_jars=$("$python" -c 'import os, pyspark; print(os.path.join(os.path.dirname(pyspark.__file__), "jars"))')
classes=$(mktemp -d)
trap 'rm -rf "$classes"' EXIT
javac -nowarn --release 17 -d "$classes" -cp "$pyspark_jars/*:jars/cassandra-connector/*" $sources
jar cf "$jar.part" -C "$classes" .
mv "$jar.part" "$jar"
echo "built $jar" >&2
