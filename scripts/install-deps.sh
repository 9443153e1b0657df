#!/bin/sh
# Installs what libetl needs to build and test on Debian/Ubuntu.
#
# Nothing is fetched when every package is already installed.  Otherwise the
# package lists are refreshed (retried: a mirror in the middle of a sync
# answers with index files of the wrong size for a minute or two), and a
# refresh that still fails is not fatal as long as the install succeeds with
# the lists already on the machine.
set -eu
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
PKGS="build-essential meson ninja-build pkg-config python3
	libxml2-dev zlib1g-dev libdeflate-dev check libxml2-utils clang lld llvm libclang-rt-14-dev valgrind golang-go
	python3-dev python3-numpy python3-pandas python3-dask python3-distributed
	python3-pip python3-venv python3-mesonpy python3-build patchelf python3-mypy"
# optional: the HTML report's browser tests (skipped without it)
OPTIONAL="chromium"

missing=""
for p in $PKGS $OPTIONAL; do
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	case "$st" in
	*" installed") ;;
	*) missing="$missing $p" ;;
	esac
done
if [ -z "$missing" ]; then
	echo "install-deps: all build dependencies are installed" >&2
	exit 0
fi
echo "install-deps: installing$missing" >&2

updated=no
for attempt in 1 2 3 4 5; do
	if $SUDO apt-get update -qq; then updated=yes; break; fi
	echo "install-deps: apt-get update failed (attempt $attempt), retrying" >&2
	sleep $((attempt * 10))
done
if [ "$updated" = no ]; then
	echo "install-deps: package lists could not all be refreshed; trying with the ones on the machine" >&2
fi
required=""
optional=""
for p in $missing; do
	case " $OPTIONAL " in
	*" $p "*) optional="$optional $p" ;;
	*) required="$required $p" ;;
	esac
done
if [ -n "$required" ]; then
	# shellcheck disable=SC2086
	$SUDO apt-get install -y -qq --no-install-recommends $required >/dev/null
fi
if [ -n "$optional" ]; then
	# shellcheck disable=SC2086
	$SUDO apt-get install -y -qq --no-install-recommends $optional >/dev/null ||
		echo "install-deps: could not install$optional (optional: the tests that need it are skipped)" >&2
fi
