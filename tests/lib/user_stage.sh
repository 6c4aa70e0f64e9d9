# Sourced by the tests that run a program as another user (root's tests of attack and
# refusal). That user may not be able to reach the build tree: a clone under a 0700 home
# is the common case. So those programs run from a private copy that the user can read,
# never from the tree, whose permissions stay as their owner set them.
#
#   user_stage PROG...   copies the tool to $STAGE/tpoint, each PROG (a name in
#                        $O/tests, e.g. ctltarget) to $STAGE/tests/PROG, and libtpoint.so*
#                        to $STAGE/, where the programs' run path ($ORIGIN/..) finds it.
#                        Sets STAGE, UB (the copies' directory, as $B is the build's) and
#                        UTPOINT (the copied tool). Exits 77 if it cannot.
#   user_unstage         removes the copy (call it from the test's EXIT trap).
#
# The copy lives under /tmp in a directory of mode 0755 that root created: readable by
# every user, writable by none but root.
STAGE=""
user_stage() {
	_b=$(dirname "$TPOINT")
	STAGE=$(mktemp -d /tmp/tpoint-stage.XXXXXX) || { echo "cannot create a stage under /tmp"; exit 77; }
	chmod 755 "$STAGE" && mkdir -m 755 "$STAGE/tests" || { echo "cannot prepare $STAGE"; exit 77; }
	cp "$TPOINT" "$STAGE/tpoint" && cp -P "$_b"/libtpoint.so* "$STAGE/" ||
		{ user_unstage; echo "cannot copy the tool and library to $STAGE"; exit 77; }
	for _p in "$@"; do
		cp "$_b/tests/$_p" "$STAGE/tests/$_p" ||
			{ user_unstage; echo "cannot copy $_p to $STAGE"; exit 77; }
	done
	chmod -R go+rX,go-w "$STAGE"
	UB=$STAGE
	UTPOINT=$STAGE/tpoint
}
user_unstage() {
	[ -n "$STAGE" ] && rm -rf "$STAGE"
	STAGE=""
}
