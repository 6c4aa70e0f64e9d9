#!/bin/sh
# make check-arm64: cross-build the library and the C test programs for arm64 and run them
# under qemu-user through binfmt_misc; the tpoint tool and trace-cmd they call stay native.
# As root, installs what is missing (Debian: gcc-aarch64-linux-gnu, qemu-user-static,
# binfmt-support); otherwise says what to install and exits 77.
set -e
# The make that runs this script keeps its jobserver to itself: the makes here choose
# their own jobs (one per CPU, or the -j they give) rather than fall back to one.
unset MAKEFLAGS MFLAGS MAKELEVEL
cd "$(dirname "$0")/.."
O=build-arm64
need=""
command -v aarch64-linux-gnu-gcc >/dev/null || need="$need gcc-aarch64-linux-gnu"
command -v qemu-aarch64-static >/dev/null || need="$need qemu-user-static binfmt-support"
if [ -n "$need" ]; then
	if [ "$(id -u)" != 0 ]; then
		echo "check-arm64: skipped: missing$need (sudo apt-get install$need)"
		exit 77
	fi
	echo "check-arm64: installing$need"
	apt-get update -qq >/dev/null
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $need >/dev/null
fi
if [ ! -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]; then
	[ -e /proc/sys/fs/binfmt_misc/register ] ||
		mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc 2>/dev/null || true
	update-binfmts --enable qemu-aarch64 >/dev/null 2>&1 || true
fi
if [ ! -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]; then
	echo "check-arm64: skipped: qemu-aarch64 is not registered with binfmt_misc (as root: update-binfmts --enable qemu-aarch64)"
	exit 77
fi
export QEMU_LD_PREFIX=/usr/aarch64-linux-gnu

make --no-print-directory -j2 build/tpoint
tests=""
for t in tests/*_test.c; do
	# kprint_test tests the tool's renderer, which links libtraceevent: the host's only.
	[ "$t" = tests/kprint_test.c ] && continue
	tests="$tests $O/tests/$(basename "$t" .c)"
done
make --no-print-directory -j2 O=$O CC=aarch64-linux-gnu-gcc CXX=aarch64-linux-gnu-g++ \
	$O/libtpoint.so.1 $tests $O/tests/libtp_plugin.so $O/tests/libtp_jumplib.so \
	$O/tests/ctltarget
file "$O/libtpoint.so.1" | grep -q aarch64 || { echo "check-arm64: $O is not an arm64 build"; exit 1; }
echo "check-arm64: running the test programs under $(qemu-aarch64-static --version | head -1)"
O=$O TPOINT=$(pwd)/build/tpoint TPOINT_TEST_EMULATED=1 sh tests/run.sh $tests
