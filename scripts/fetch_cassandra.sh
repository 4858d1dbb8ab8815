#!/usr/bin/env bash
# Apache Cassandra's server (org.apache.cassandra:cassandra-all 5.0, scripts/maven/cassandra-server/pom.xml)
# with its runtime dependencies, from Maven Central into jars/cassandra-server/ (not committed):
# the real CQL server some tests start (tests/python/cassandra_server.py). Skipped when there.
#   scripts/fetch_cassandra.sh
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/maven/copy_dependencies.sh scripts/maven/cassandra-server/pom.xml jars/cassandra-server
