#!/bin/sh
# Installs what libetl needs to build and test on Debian/Ubuntu.
set -eu
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends \
	build-essential meson ninja-build pkg-config python3 \
	libxml2-dev zlib1g-dev check libxml2-utils clang llvm libclang-rt-14-dev valgrind \
	python3-dev python3-numpy python3-pandas python3-dask python3-distributed >/dev/null
