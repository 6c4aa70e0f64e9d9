# Sourced by the tests of `tpoint top`'s dirty view, after they define skip().
# need_dirty_view: sets TR to the mounted tracefs, or skips (exit 77) saying what is missing:
# root, tracefs, or the kernel's writeback dirtying event that the view reads.
need_dirty_view() {
	[ "$(id -u)" = 0 ] || skip "skip: the dirty view needs root (tracefs)"
	TR=""
	for _d in /sys/kernel/tracing /sys/kernel/debug/tracing; do
		[ -d "$_d/events" ] && TR=$_d && break
	done
	[ -n "$TR" ] || skip "skip: tracefs is not mounted"
	[ -d "$TR/events/writeback/writeback_mark_inode_dirty" ] ||
		[ -d "$TR/events/writeback/writeback_dirty_inode" ] ||
		skip "skip: the kernel has no writeback:writeback_mark_inode_dirty event"
}
# need_dirty_json: the same, and python3, which the tests that read top --json check it with.
need_dirty_json() {
	need_dirty_view
	command -v python3 >/dev/null || skip "skip: python3 is missing (it checks the JSON)"
}
