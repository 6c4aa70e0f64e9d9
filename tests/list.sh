#!/bin/sh
# tpoint list reads the events of a program from its file, without running it: names,
# conditions and fields; --format gives the tracefs format text; --check names every print
# format libtraceevent could not render; bad files get one line and exit 1.
set -u
B=$(dirname "$TPOINT")
fail() { echo "FAIL: $*"; exit 1; }

out=$("$TPOINT" list "$B/examples/writeback") || fail "list writeback exited $?"
echo "$out" | grep -qx "writeback:writeback_inode_dirty" || fail "conditional event not listed"
echo "$out" | grep -qx "  condition: flags & (I_DIRTY_SYNC | I_DIRTY_DATASYNC | I_DIRTY_PAGES)" ||
	fail "the condition's source text is not shown"
echo "$out" | grep -qx "  field: __data_loc char\[\] path" || fail "the string field is not shown"
echo "ok: events, condition and fields of writeback"

fmt=$("$TPOINT" list --format "$B/examples/writeback") || fail "--format exited $?"
echo "$fmt" | grep -q "^print fmt: \"dev %d:%d ino %lu flags %d %s\", ((unsigned int) ((REC->dev) >> 20))" ||
	fail "print fmt not made as the kernel makes it"
echo "$fmt" | grep -q "__print_flags(REC->flags, \"|\", { (1 << 0), \"DIRTY-SYNC\" }" ||
	fail "__print_flags table not expanded"
printf '%s\n' "$fmt" | grep -q "	field:u64 ino;	offset:16;	size:8;	signed:0;" || fail "ino field line"
echo "ok: --format"

"$TPOINT" list --check "$B/examples/writeback" "$B/examples/sample" "$B/examples/hello" ||
	fail "--check refused the examples"
"$TPOINT" list --check "$B/tests/badfmt_test" >out.txt 2>&1
[ $? = 1 ] || fail "--check should exit 1 on badfmt_test"
grep -q "badfmt:badfmt_char: .*%c" out.txt || fail "--check does not name badfmt_char and %c"
grep -q "badfmt:badfmt_xor: .*xor" out.txt || fail "--check does not name badfmt_xor"
grep -q "badfmt_fine" out.txt && fail "--check complains about the good event"
echo "ok: --check"

echo "garbage" >garbage.bin
for f in garbage.bin /nonexistent /bin/sh; do
	"$TPOINT" list "$f" >out.txt 2>&1
	rc=$?
	[ $rc = 1 ] || fail "list $f exited $rc, want 1"
	[ "$(wc -l <out.txt)" = 1 ] || fail "list $f: want one line, got: $(cat out.txt)"
	grep -q "$f" out.txt || fail "list $f: the message does not name the file"
done
head -c 3000 "$B/examples/writeback" >cut.bin
"$TPOINT" list cut.bin >/dev/null 2>&1
[ $? = 1 ] || fail "a truncated ELF file should exit 1"
"$TPOINT" list --help | grep -q "usage" || fail "--help"
"$TPOINT" list --bogus >/dev/null 2>&1
[ $? = 2 ] || fail "an unknown option should exit 2"
echo "ok: bad files"

# A file built by a tpoint of meta version 1 (names in fixed 64-byte arrays, ABI 1 to 4):
# refused with its version named, not called corrupt.
if command -v "${CC:-cc}" >/dev/null 2>&1; then
	cat >v1.c <<'EOF2'
#include <stdint.h>
static const struct {
	uint64_t magic; uint16_t kind, version; uint32_t size;
	char system[64], name[64], class_name[64];
	uint32_t condition_len, print_len;
	char strings[8];
} v1_event __attribute__((section("tpoint_meta"), used, aligned(8))) = {
	0x6174656d7074ULL, 2, 1, 224, "old", "ev", "ev", 1, 1, ""
};
int main(void) { return 0; }
EOF2
	"${CC:-cc}" -o v1.bin v1.c || fail "cannot build the version 1 file"
	"$TPOINT" list v1.bin >out.txt 2>&1
	rc=$?
	[ $rc = 1 ] || fail "list of a version 1 file exited $rc, want 1"
	grep -q "v1.bin: its tpoint_meta records are of version 1 (built with an older tpoint), this tpoint reads version 2" out.txt ||
		fail "the version 1 file is not refused by its version: $(cat out.txt)"
	echo "ok: a file of meta version 1 is refused by its version"
else
	echo "note: no C compiler; the meta version 1 file is not tried"
fi
