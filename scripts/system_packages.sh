#!/usr/bin/env bash
# The Debian packages a make target needs beyond Python: java (Spark) and chromium (the browser
# tests of `make test`). Installs the missing ones when it can (as root, or with sudo that asks
# no password); otherwise prints the one command to run, and fails.
#   scripts/system_packages.sh java [chromium]
set -euo pipefail
missing=()
for want in "$@"; do
    case "$want" in
        java) command -v java >/dev/null 2>&1 || [ -x "${JAVA_HOME:-/nonexistent}/bin/java" ] || missing+=(openjdk-17-jre-headless) ;;
        chromium) command -v chromium >/dev/null 2>&1 || missing+=(chromium) ;;
        *) echo "system_packages.sh: unknown package $want" >&2; exit 2 ;;
    esac
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = "0" ]; then
    sudo=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    sudo=(sudo)
else
    echo "missing ${missing[*]}: run  sudo apt-get install -y ${missing[*]}  then run make again" >&2
    exit 3
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "missing ${missing[*]} and no apt-get here: install them with your package manager, then run make again" >&2
    exit 3
fi
echo "installing ${missing[*]} (apt-get)" >&2
"${sudo[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
