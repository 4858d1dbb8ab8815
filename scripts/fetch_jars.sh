#!/usr/bin/env bash
# Delta Lake's jars for the embedded Spark, as Delta users get them: from Maven Central, at the
# version of the installed delta-spark pip package (io.delta:delta-spark_2.12, io.delta:delta-storage),
# into jars/ (not committed). cdclake puts them on Spark's classpath (cdclake/session/spark.py).
# Then the Spark Cassandra Connector with its runtime dependencies into jars/cassandra-connector/
# (scripts/maven/spark-cassandra-connector/pom.xml), outside jars/*.jar: a session that reads
# Cassandra adds them itself. Each part is skipped when its jars are there.
#   scripts/fetch_jars.sh PYTHON
set -euo pipefail
cd "$(dirname "$0")/.."
python="${1:-python3}"
version=$("$python" -c 'import importlib.metadata as m; print(m.version("delta-spark"))')
if ! ls jars/delta-spark_2.12-"$version".jar jars/delta-storage-"$version".jar >/dev/null 2>&1; then
    if ! command -v mvn >/dev/null 2>&1; then
        echo "mvn not found: install Maven (sudo apt-get install -y maven) to fetch Delta Lake's jars, or build on Parquet" >&2
        exit 3
    fi
    rm -f jars/delta-*.jar
    for artifact in delta-spark_2.12 delta-storage; do
        mvn -q -B -Dstyle.color=never dependency:copy -Dartifact="io.delta:$artifact:$version" -DoutputDirectory=jars
    done
    echo "fetched Delta Lake $version jars into jars/" >&2
fi
scripts/maven/copy_dependencies.sh scripts/maven/spark-cassandra-connector/pom.xml jars/cassandra-connector
scripts/build_log_source.sh "$python"
