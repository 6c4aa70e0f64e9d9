#!/bin/sh
# SPDX-License-Identifier: MIT
# tpoint-test: serial (a tracefs instance and fanotify marks on every file system)
# tpoint top names the files of writers that open, write and close (issue 33): fanotify
# hears each name as the file is closed after writing. On the disk and on a tmpfs, a C loop,
# `sh -c 'echo >> f'` in a loop and `dd conv=notrunc` in a loop write their files; two more
# files are written, then one renamed and one unlinked. Every row of top --json that names a
# test file has the writer's pid and comm, every row of a writer on a test file names it (at
# least 95 % of their events are named), and the renamed and unlinked files show their last
# name marked so (the new name of the renamed one where the kernel has FAN_RENAME).
. "$(dirname "$0")/lib/top_json.sh"
command -v dd >/dev/null || skip "skip: dd is missing"
pids=""
MNT=""
# The writers hold the runner's output pipe open: they must all go, whatever ended the test.
cleanup() {
	for p in $pids; do kill -KILL "$p" 2>/dev/null; done
	[ -n "$MNT" ] && { umount "$MNT" 2>/dev/null || umount -l "$MNT"; }
}
trap cleanup EXIT
trap 'exit 1' TERM INT HUP

need_fanotify_names
DISK=$T/disk
disk_and_tmpfs "$DISK" "$T/tmpfs" 16m
rm -f "$DISK"/* writers.txt

# writer NAME DIR COMM COMMAND...: started in the background; "PID COMM PATH" in writers.txt.
writer() {
	name=$1 dir=$2 comm=$3
	shift 3
	"$@" &
	pids="$pids $!"
	echo "$! $comm $dir/$name" >>writers.txt
}
for dir in "$DISK" "$MNT"; do
	writer c.txt "$dir" owcwriter "$B/tests/owcwriter" "$dir/c.txt" 20
	writer echo.txt "$dir" sh sh -c "while :; do echo x >>'$dir/echo.txt'; sleep 0.02; done"
	# each dd a process of its own: their pids go to dd.pids
	sh -c "while :; do echo x | dd of='$dir/dd.txt' conv=notrunc oflag=append status=none &
		echo \$! >>'$T/dd.pids'; wait; sleep 0.02; done" &
	pids="$pids $!"
done

renamed_to=2
grep -q '"renames": false' probe.json && renamed_to=""
"$TPOINT" top -n 4 -d 1 --dirty --json >names.json 2>names.err &
tp=$!
pids="$pids $tp"
wait_until 60 test -s names.json || fail "no first refresh: $(cat names.err)"
# Written, then renamed or unlinked by the shell that wrote them (its pid is the writer's).
for dir in "$DISK" "$MNT"; do
	sh -c "for i in 1 2 3 4 5 6 7 8 9 10; do echo x >>'$dir/ren.txt'; sleep 0.02; done
		mv '$dir/ren.txt' '$dir/ren2.txt'" &
	pids="$pids $!"
	# its last name, where the kernel reports renames with both names (FAN_RENAME, 5.17)
	echo "$! sh $dir/ren$renamed_to.txt (renamed)" >>writers.txt
	sh -c "for i in 1 2 3 4 5 6 7 8 9 10; do echo x >>'$dir/del.txt'; sleep 0.02; done
		rm '$dir/del.txt'" &
	pids="$pids $!"
	echo "$! sh $dir/del.txt (deleted)" >>writers.txt
done
wait $tp || fail "top exited $?: $(cat names.err)"
stat -c '%i' "$DISK"/* "$MNT"/* >inodes.txt
python3 - names.json writers.txt "$T/dd.pids" "$DISK" "$MNT" <<'PY' || fail "names.json: see above"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
writers = [l.split(" ", 2) for l in open(sys.argv[2]).read().splitlines()]
ddpids = {int(p) for p in open(sys.argv[3]).read().split()}
dirs = sys.argv[4:]
by_path = {path: (int(pid), comm) for pid, comm, path in writers}
by_pid = {int(pid): (comm, path) for pid, comm, path in writers}
last = lines[-1]
assert last["names"]["source"] == "fanotify", last["names"]
# Another process's row on a tmpfs may carry a test file's name: the writeback event gives
# a tmpfs no device, so every tmpfs's inode N is one number, and a row whose writer was not
# heard takes the newest name of that number (docs/DECISIONS.md, top's inode rule). Such rows
# (seen under make check SANITIZE=1, a `head` of another test) are not the test's.
mine = [d for d in last["dirty"] if d["pid"] in by_pid or d["pid"] in ddpids or
        ((d["path"] or "").startswith(tuple(d + "/" for d in dirs)) and
         d["dev"] != "(unknown)")]
counted = sum(d["events"] for d in mine)
assert counted, "no dirty event of the test's writers: %s" % last["dirty"]
ours = {int(i) for i in open("inodes.txt").read().split()}
right = unnamed = 0
for d in mine:
    where = d["path"]
    if where is None:
        # another file the writer dirtied, not its own: a binary's atime on exec (relatime)
        assert d["ino"] not in ours, "a test file without its name: %s" % d
        unnamed += d["events"]
        continue
    if where in dirs or (where or "").endswith(" (file system metadata)"):
        pass  # a directory the writer created its file in, the disk's own metadata
    elif d["pid"] in ddpids:
        assert d["comm"] == "dd" and where in [x + "/dd.txt" for x in dirs], d
    else:
        assert where in by_path, "row without its writer's path: %s" % d
        assert by_path[where] == (d["pid"], d["comm"]), "%s: written by %s" % (d, by_path[where])
    right += d["events"]
for pid, (comm, path) in by_pid.items():
    rows = [d for d in mine if d["pid"] == pid and d["path"] == path]
    assert rows and rows[0]["events"] > 0, "no row of %d %s for %s: %s" % (pid, comm, path, mine)
    if path.endswith("(deleted)"):
        assert rows[0]["deleted"], rows[0]
for x in dirs:
    dd = [d for d in mine if d["pid"] in ddpids and d["path"] == x + "/dd.txt"]
    assert dd, "no dd row for %s/dd.txt" % x
assert right >= 0.95 * counted, "%d of %d events named" % (right, counted)
print("ok: %d rows, %d dirty events, %d with their writer's pid, comm and path, %d of other "
      "files unnamed (%d dd processes)" % (len(mine), counted, right, unnamed,
                                           len({d["pid"] for d in mine if d["pid"] in ddpids})))
PY
