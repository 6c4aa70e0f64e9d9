#!/bin/sh
# Root's tool loads no libtraceevent plugin from $HOME or $TRACEEVENT_PLUGIN_DIR (issue 30):
# with sudo -E (or env_keep+=HOME) those name the user's directories, and a plugin is code
# that would run as root inside tpoint report/stream. Root loads the system's directory
# only. A user's own tool still loads the user's own plugins: that is the user's business.
set -u
fail() { echo "FAIL: $*"; exit 1; }
[ "$(id -u)" = 0 ] || { echo "not root: the rule is about root's tool"; exit 77; }
command -v setpriv >/dev/null || { echo "setpriv is not installed"; exit 77; }
B=$(dirname "$TPOINT")
CC=${CC:-cc}
U=63004
as_user() { setpriv --reuid=$U --regid=$U --clear-groups "$@"; }
. "$(dirname "$0")/lib/user_stage.sh"
T=$TPOINT_TEST_TMP
chmod 755 "$T"
trap 'user_unstage' EXIT

# A plugin whose loader leaves a marker file: proof that it ran.
cat >plugin.c <<'SRC'
#include <fcntl.h>
#include <unistd.h>
struct tep_handle;
int tep_plugin_loader(struct tep_handle *tep)
{
	int fd = open(MARKER, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

	(void)tep;
	if (fd >= 0)
		close(fd);
	return 0;
}
SRC
plugin() { # plugin DIR MARKER
	mkdir -p "$1" && $CC -shared -fPIC -DMARKER="\"$2\"" plugin.c -o "$1/plugin_marker.so" ||
		fail "cannot build the plugin into $1"
}
mkdir -m 755 "$T/home" "$T/env"
plugin "$T/home/.local/lib/traceevent/plugins" "$T/home.mark"
plugin "$T/env" "$T/env.mark"

TPOINT_EVENTS='hello:*' TPOINT_RECORD="$T/hello.dat" "$B/examples/hello" >/dev/null ||
	fail "hello exited $?"
chmod 644 "$T/hello.dat"

# The plugins do load where they are allowed to: a user's tool, with the user's own HOME
# (the marker in a directory the user may write).
user_stage
mkdir -m 755 "$T/uhome" "$T/umark" && chown $U:$U "$T/uhome" "$T/umark"
as_user sh -c "mkdir -p '$T/uhome/.local/lib/traceevent/plugins' &&
	$CC -shared -fPIC -DMARKER='\"$T/umark/user.mark\"' plugin.c \
	-o '$T/uhome/.local/lib/traceevent/plugins/plugin_marker.so'" ||
	fail "cannot build the user's plugin"
as_user env HOME="$T/uhome" "$UTPOINT" report "$T/hello.dat" >u.out 2>u.err ||
	{ cat u.err; fail "the user's report exited $?"; }
[ -e "$T/umark/user.mark" ] ||
	fail "the user's own plugin (in the user's HOME) did not load in the user's tool"
grep -q 'hello_greet:' u.out || fail "the user's report printed no event"
echo "ok: a user's tool loads the user's own plugin"

# Root, with HOME and TRACEEVENT_PLUGIN_DIR set to directories holding plugins.
for verb in report "report --json"; do
	rm -f "$T/home.mark" "$T/env.mark"
	HOME="$T/home" TRACEEVENT_PLUGIN_DIR="$T/env" "$TPOINT" $verb "$T/hello.dat" >r.out 2>r.err ||
		{ cat r.err; fail "root's $verb exited $?"; }
	[ -e "$T/home.mark" ] && fail "root's $verb loaded a plugin from \$HOME"
	[ -e "$T/env.mark" ] && fail "root's $verb loaded a plugin from \$TRACEEVENT_PLUGIN_DIR"
	grep -q 'hello_greet' r.out || fail "root's $verb printed no event"
done
rm -f "$T/home.mark" "$T/env.mark"
HOME="$T/home" TRACEEVENT_PLUGIN_DIR="$T/env" "$TPOINT" convert --to json -o c.json "$T/hello.dat" \
	2>c.err || { cat c.err; fail "root's convert exited $?"; }
[ -e "$T/home.mark" ] && fail "root's convert loaded a plugin from \$HOME"
[ -e "$T/env.mark" ] && fail "root's convert loaded a plugin from \$TRACEEVENT_PLUGIN_DIR"
grep -q 'TRACEEVENT_PLUGIN_DIR=.* ignored' c.err || { cat c.err; fail "convert: no word on TRACEEVENT_PLUGIN_DIR"; }
echo "ok: root's report and convert load no plugin from \$HOME or \$TRACEEVENT_PLUGIN_DIR"

# Root's stream of a live process, the same.
rm -f "$T/home.mark" "$T/env.mark"
"$B/tests/ctltarget" 3 1000 >ctl.out 2>&1 &
c=$!
P=""
for i in $(seq 200); do
	P=$(sed -n 's/^ready \([0-9]*\)$/\1/p' ctl.out | head -n 1)
	[ -n "$P" ] && break
	sleep 0.1
done
[ -n "$P" ] || { kill -9 $c; fail "ctltarget did not start"; }
HOME="$T/home" TRACEEVENT_PLUGIN_DIR="$T/env" timeout 60 "$TPOINT" stream -p "$P" \
	-e 'tpt_ctl:*' >s.out 2>s.err
wait $c
grep -q 'ctl_tick' s.out || { cat s.err; fail "root's stream printed no event"; }
[ -e "$T/home.mark" ] && fail "root's stream loaded a plugin from \$HOME"
[ -e "$T/env.mark" ] && fail "root's stream loaded a plugin from \$TRACEEVENT_PLUGIN_DIR"
echo "ok: root's stream neither"
