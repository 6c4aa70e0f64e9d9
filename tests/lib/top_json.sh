# Sourced by the tests of `tpoint top --json`'s dirty view (root): fail and skip, the waits,
# the skip when root, tracefs, the writeback event or python3 is missing; B the build
# directory (the tool's), T the test's scratch directory.
set -u
fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "$*"; exit 77; }
. "$(dirname "$0")/lib/wait.sh"
. "$(dirname "$0")/lib/dirty_view.sh"
need_dirty_json
B=$(dirname "$TPOINT")
T=${TPOINT_TEST_TMP:-$(pwd)}
# need_fanotify_names: skips unless top names files as they are written (fanotify, root);
# top's first --json object is left in probe.json.
need_fanotify_names() {
	"$TPOINT" top -n 1 -d 0.1 --dirty --json >probe.json 2>probe.err ||
		fail "top: $(cat probe.err)"
	python3 -c 'import json,sys; n=json.loads(open("probe.json").readline())["names"]; sys.exit(n["source"] != "fanotify")' ||
		skip "skip: no fanotify names here: $(cat probe.json)"
}
# disk_and_tmpfs DISK TMPFS SIZE: DISK made, a directory that must be on a disk's file system,
# and a tmpfs of SIZE mounted on TMPFS, then MNT=TMPFS (the caller's cleanup unmounts it);
# skips when either cannot be had.
disk_and_tmpfs() {
	mkdir -p "$1" "$2"
	case $(stat -f -c %T "$1") in
	tmpfs|ramfs|overlayfs) skip "skip: $1 is not on a disk's file system ($(stat -f -c %T "$1"))" ;;
	esac
	mount -t tmpfs -o "size=$3" tpoint-test "$2" 2>/dev/null || skip "skip: cannot mount a tmpfs"
	MNT=$2
}
