#!/bin/sh
# A program linked with libtpoint.a, not the shared library: configured by the environment
# alone (it calls nothing of the runtime API), it must record as the shared build does --
# the library's constructor must be linked in although the program names nothing of it.
# Then tpoint_printf() from the same archive.
set -u
B=$(dirname "$TPOINT")
top=$(cd "$(dirname "$0")/.." && pwd)
CC=${CC:-cc}
fail() { echo "FAIL: $*"; exit 1; }
command -v trace-cmd >/dev/null || { echo "trace-cmd is not installed"; exit 77; }
[ -f "$B/libtpoint.a" ] || fail "no $B/libtpoint.a"
nm "$B/libtpoint.a" 2>/dev/null | grep -q __asan_ &&
	{ echo "a sanitizer build: ASan does not link statically"; exit 77; }
printf 'int main(void) { return 0; }\n' >probe.c
$CC -static probe.c -o probe 2>/dev/null || { echo "no static libc to link with ($CC -static)"; exit 77; }

$CC -O2 -static -I"$top/include" -I"$top/examples" "$top/examples/hello.c" -o hello \
	"$B/libtpoint.a" -lpthread 2>err.txt || { cat err.txt; fail "static link of hello"; }
# Quietly: the compression codecs (dlopen()) come only to programs that name them.
[ -s err.txt ] && { cat err.txt; fail "the static link of hello printed warnings"; }
TPOINT_EVENTS='hello:*' TPOINT_RECORD=hello.dat ./hello >/dev/null || fail "hello exited $?"
[ -f hello.dat ] || fail "the static hello wrote no hello.dat: the recording never started"
n=$(trace-cmd report hello.dat 2>/dev/null | grep -c 'hello_greet:')
[ "$n" = 3 ] || fail "expected 3 hello_greet events, trace-cmd shows $n"
echo "ok: hello linked with libtpoint.a recorded its 3 events from the environment"

# TPOINT_COMPRESS in a static program: version 6, and a line that says why.
TPOINT_COMPRESS=zstd TPOINT_EVENTS='hello:*' TPOINT_RECORD=hello6.dat ./hello >/dev/null 2>err.txt ||
	fail "hello with TPOINT_COMPRESS exited $?"
grep -q 'TPOINT_COMPRESS: not in a program linked statically' err.txt ||
	{ cat err.txt; fail "no word on TPOINT_COMPRESS in a static program"; }
n=$(trace-cmd report hello6.dat 2>/dev/null | grep -c 'hello_greet:')
[ "$n" = 3 ] || fail "TPOINT_COMPRESS, static: expected 3 hello_greet events, trace-cmd shows $n"
echo "ok: TPOINT_COMPRESS in a static program: version 6, said so"

cat >printf.c <<'PROG'
#include <tpoint/tpoint.h>
int main(void)
{
	for (int i = 0; i < 3; i++)
		tpoint_printf("static %d", i);
	return 0;
}
PROG
$CC -O2 -static -I"$top/include" printf.c -o printf "$B/libtpoint.a" -lpthread 2>err.txt ||
	{ cat err.txt; fail "static link of a tpoint_printf() program"; }
TPOINT_EVENTS=tpoint:print TPOINT_RECORD=printf.dat ./printf || fail "printf exited $?"
n=$(trace-cmd report printf.dat 2>/dev/null | grep -c 'print: *static [012]$')
[ "$n" = 3 ] || fail "expected 3 tpoint:print messages, trace-cmd shows $n"
echo "ok: tpoint_printf() from libtpoint.a: 3 messages"

# pkg-config: `--static --libs tpoint` says -ltpoint, which links libtpoint.so when it is
# installed beside libtpoint.a; tpoint-static.pc names the archive. An installed prefix is
# made of links to this build, the .pc files as `make install` writes them.
command -v pkg-config >/dev/null || { echo "pkg-config is not installed"; exit 77; }
mkdir -p prefix/lib/pkgconfig
ln -s "$top/include" prefix/include
for f in libtpoint.a libtpoint.so libtpoint.so.1; do ln -s "$B/$f" prefix/lib/$f; done
for pc in tpoint tpoint-static; do
	sed -e "s|@PREFIX@|$PWD/prefix|" -e 's|@VERSION@|0|' "$top/$pc.pc.in" >prefix/lib/pkgconfig/$pc.pc
done
export PKG_CONFIG_PATH=$PWD/prefix/lib/pkgconfig
$CC -O2 $(pkg-config --cflags tpoint-static) -I"$top/examples" "$top/examples/hello.c" -o hello-pc \
	$(pkg-config --libs tpoint-static) 2>err.txt || { cat err.txt; fail "link with pkg-config --libs tpoint-static"; }
readelf -d hello-pc | grep -q 'NEEDED.*libtpoint' && fail "tpoint-static.pc linked the shared library"
TPOINT_EVENTS='hello:*' TPOINT_RECORD=hello-pc.dat ./hello-pc >/dev/null || fail "hello-pc exited $?"
n=$(trace-cmd report hello-pc.dat 2>/dev/null | grep -c 'hello_greet:')
[ "$n" = 3 ] || fail "hello linked by tpoint-static.pc: expected 3 events, trace-cmd shows $n"
echo "ok: pkg-config --libs tpoint-static links libtpoint.a (libc shared), and it records"
