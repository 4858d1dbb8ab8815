#!/usr/bin/env bash
# Copy the runtime dependencies of the Maven project POM (one of scripts/maven/*/pom.xml: a list of
# artifacts, nothing built) from Maven Central into FOLDER, for the set-up (scripts/fetch_jars.sh,
# scripts/fetch_cassandra.sh). Idempotent: FOLDER/.pom.sha256 records the POM the jars came
# from, and nothing is fetched while it matches; an edited POM replaces the folder.
#   scripts/maven/copy_dependencies.sh POM FOLDER
set -euo pipefail
pom=$(realpath "$1")
folder=$(realpath -m "$2")
stamp=$(sha256sum "$pom" | cut -d' ' -f1)
if [ "$(cat "$folder/.pom.sha256" 2>/dev/null)" = "$stamp" ]; then
    exit 0
fi
if ! command -v mvn >/dev/null 2>&1; then
    echo "mvn not found: install Maven (sudo apt-get install -y maven) to fetch the jars of $pom" >&2
    exit 3
fi
rm -rf "$folder" "$folder.part"
mvn -q -B -Dstyle.color=never -f "$pom" dependency:copy-dependencies -DincludeScope=runtime \
    -DoutputDirectory="$folder.part"
echo "$stamp" >"$folder.part/.pom.sha256"
mv "$folder.part" "$folder"
echo "fetched $(ls "$folder"/*.jar | wc -l) jars ($(du -sh "$folder" | cut -f1)) into $2" >&2
