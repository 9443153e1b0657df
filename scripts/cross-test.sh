#!/bin/sh
# Builds libetl for another architecture and runs the whole test suite there:
#   s390x  big-endian, 64-bit, under qemu-user
#   i386   little-endian, 32-bit, natively (the x86-64 kernel runs it)
#
#   sh scripts/cross-test.sh s390x|i386 [meson test arguments...]
#
# On Debian (as root): installs qemu-user and the GNU cross compiler, unpacks
# the target's zlib, libxml2 and check packages into a folder of its own (a
# multiarch install of foreign -dev packages needs exactly the host's versions,
# which a mirror does not always have), writes a Meson cross file and runs
# `meson test` (the Python package is not built: it needs the target's Python).
# Tests that start etldump themselves reach it through binfmt_misc (registered
# for s390x when the kernel allows it). Everything goes to build-cross-ARCH/.
set -eu

arch=${1:-}
case "$arch" in
s390x) gnu=s390x-linux-gnu deb=s390x-linux-gnu cpu=s390x endian=big qemu=qemu-s390x ;;
i386) gnu=i686-linux-gnu deb=i386-linux-gnu cpu=x86 endian=little qemu= ;;
*) echo "usage: $0 s390x|i386 [meson test arguments]" >&2; exit 2 ;;
esac
shift
root=$(cd "$(dirname "$0")/.." && pwd)
work="$root/build-cross-$arch"
sysroot="$work/sysroot"
export DEBIAN_FRONTEND=noninteractive

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
	dpkg --add-architecture "$arch"
	apt-get update -qq || true # a foreign index still syncing on the mirror is not needed here
	apt-get install -y -qq "gcc-$gnu" qemu-user meson ninja-build pkg-config python3 >/dev/null
	if [ "$arch" = i386 ]; then
		apt-get install -y -qq libc6:i386 >/dev/null # the loader, to run i386 programs natively
	fi
	mkdir -p "$work/debs" "$sysroot"
	(cd "$work/debs" && apt-get download -qq \
		"zlib1g:$arch" "zlib1g-dev:$arch" "libxml2:$arch" "libxml2-dev:$arch" "libicu72:$arch" \
		"liblzma5:$arch" "check:$arch" "libsubunit0:$arch" "libsubunit-dev:$arch" \
		"libstdc++6:$arch" "libgcc-s1:$arch" 2>/dev/null)
	for d in "$work"/debs/*.deb; do dpkg -x "$d" "$sysroot"; done
	if [ -n "$qemu" ] && [ -d /proc/sys/fs/binfmt_misc ]; then
		[ -e /proc/sys/fs/binfmt_misc/register ] ||
			mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc 2>/dev/null || true
		apt-get install -y -qq binfmt-support qemu-user-binfmt >/dev/null 2>&1 || true
	fi
fi
[ -d "$sysroot/usr/lib/$deb" ] || { echo "cross-test: no target libraries in $sysroot" >&2; exit 1; }

libs="$sysroot/usr/lib/$deb:$sysroot/lib/$deb"
cross="$work/cross.ini"
mkdir -p "$work"
{
	echo "[binaries]"
	echo "c = '$gnu-gcc'"
	echo "strip = '$gnu-strip'"
	echo "pkgconfig = 'pkg-config'" # the key Meson 0.61-1.2 know (1.3 also reads it)
	if [ -n "$qemu" ]; then
		echo "exe_wrapper = ['$qemu', '-L', '/usr/$gnu', '-E', 'LD_LIBRARY_PATH=$libs']"
	fi
	echo "[properties]"
	echo "sys_root = '$sysroot'"
	echo "pkg_config_libdir = ['$sysroot/usr/lib/$deb/pkgconfig', '$sysroot/usr/share/pkgconfig']"
	echo "[built-in options]"
	echo "c_link_args = ['-Wl,-rpath-link,$sysroot/usr/lib/$deb', '-Wl,-rpath-link,$sysroot/lib/$deb']"
	echo "[host_machine]"
	echo "system = 'linux'"
	echo "cpu_family = '$cpu'"
	echo "cpu = '$cpu'"
	echo "endian = '$endian'"
} >"$cross"

export PKG_CONFIG_SYSROOT_DIR="$sysroot"
export CK_TIMEOUT_MULTIPLIER=10 # Check's timeouts, and the tests' own time bounds, under emulation
# programs the tests start themselves: their libraries, and (under qemu) the loader
export LD_LIBRARY_PATH="$libs"
[ -n "$qemu" ] && export QEMU_LD_PREFIX="/usr/$gnu"
builddir="$work/build"
if [ ! -d "$builddir" ]; then
	meson setup "$builddir" "$root" --cross-file "$cross" -Dpython=disabled
fi
ninja -C "$builddir" >/dev/null
if [ -n "$qemu" ] && [ ! -e "/proc/sys/fs/binfmt_misc/$qemu" ]; then
	echo "cross-test: $qemu is not registered with binfmt_misc: tests that start etldump themselves will fail" >&2
fi
exec meson test -C "$builddir" --timeout-multiplier 10 --print-errorlogs "$@"
