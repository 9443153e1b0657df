#!/bin/sh
# One command for a fresh Debian machine: install the dependencies, build,
# and dump a bundled fixture with etldump - a trace with kernel, TraceLogging
# and manifest events (its manifest beside it), then its statistics.
set -eu
cd "$(dirname "$0")/.."
sh scripts/install-deps.sh
[ -d build ] || meson setup build >/dev/null
meson compile -C build >/dev/null
fx=fixtures/valid/showcase64.etl
./build/tools/etldump --info "$fx"
echo
./build/tools/etldump -m fixtures/manifests/showcase.man "$fx" | tail -n 12
echo
./build/tools/etldump -m fixtures/manifests/showcase.man --stats "$fx"
