#!/bin/sh
# One command for a fresh Debian machine: install the dependencies, build,
# and dump a bundled fixture with etldump.
set -eu
cd "$(dirname "$0")/.."
sh scripts/install-deps.sh
[ -d build ] || meson setup build >/dev/null
meson compile -C build >/dev/null
./build/tools/etldump --info fixtures/valid/mixed64.etl
echo
./build/tools/etldump -n 12 fixtures/valid/mixed64.etl
