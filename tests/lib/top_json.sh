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
