#!/bin/sh
# SPDX-License-Identifier: MIT
# tpoint-test: serial (a tracefs instance and fanotify marks on every file system)
# Issue 33's acceptance: for open-write-close writers that no one on the project wrote, top
# --json names the right path for at least 95 % of the dirty events it counts, with the
# right pid and comm. The writers are Debian's own programs, each in a loop, each in a
# directory of its own, on the disk and on a tmpfs: the shell's `echo >> f`, dd conv=notrunc,
# cp, tar, gzip (a new file each time, the old one unlinked), sed -i (a temporary file
# renamed over the old), awk reopening its log per line, python3 (and a thread of python3
# that writes, its process gone before top reads /proc), sqlite3 (a journal made and
# unlinked per statement) and git commits (objects linked into place, index.lock renamed to
# index).
# The truth is not top's: each program's pid is recorded by the shell that started it
# ($!), and after the run each row's path is checked against the file system (the inode
# a path has now; a "(renamed)" file's inode under its new name; a "(deleted)" name gone).
# Prints the figure; fails below 95 %.
. "$(dirname "$0")/lib/top_json.sh"
for tool in setsid dd cp tar gzip sed awk git sqlite3; do
	command -v $tool >/dev/null || skip "skip: $tool is missing (scripts/deps.sh installs it)"
done
PY3=/usr/bin/python3
[ -x "$PY3" ] || PY3=$(command -v python3)
pids=""
MNT=""
# Each driver leads a process group of its own (setsid): killing the group ends its program.
stop_writers() {
	for p in $pids; do kill -KILL "-$p" 2>/dev/null; done
	pids=""
}
cleanup() {
	stop_writers
	[ -n "$MNT" ] && { umount "$MNT" 2>/dev/null || umount -l "$MNT"; }
}
trap cleanup EXIT
trap 'exit 1' TERM INT HUP

need_fanotify_names
DISK=$T/fdisk
rm -rf "$DISK" "$T/ftmpfs"
disk_and_tmpfs "$DISK" "$T/ftmpfs" 64m
: >pids.txt

# The driver of a writer: in DIR, runs the script CMD over and over, each time as a process
# of its own that execs the program, recorded in pids.txt as "PID COMM DIR"; the driver's
# own shell as "PID sh DIR".
cat >driver.sh <<'EOF'
cd "$1" || exit 1
echo "$$ sh $1" >>"$4"
while :; do
	sh "$3" &
	echo "$! $2 $1" >>"$4"
	wait
	sleep 0.05
done
EOF
# loop DIR COMM COMMAND: COMMAND (a line of shell) written to a script, its driver started.
n=0
loop() {
	n=$((n + 1))
	mkdir -p "$1"
	printf 'exec %s\n' "$3" >"cmd$n.sh"
	setsid sh driver.sh "$1" "$2" "$T/cmd$n.sh" "$T/pids.txt" &
	pids="$pids $!"
}
for top in "$DISK" "$MNT"; do
	mkdir -p "$top/echo"
	printf 'while :; do echo x >>log; sleep 0.02; done\n' >echo.sh
	setsid sh driver.sh "$top/echo" sh "$T/echo.sh" "$T/pids.txt" &
	pids="$pids $!"
	loop "$top/dd" dd "dd of=dd.bin conv=notrunc oflag=append status=none if=/etc/hostname"
	loop "$top/cp" cp "cp /etc/services copy"
	loop "$top/tar" tar "tar cf a.tar -C /etc hostname passwd"
	mkdir -p "$top/gzip" && echo x >"$top/gzip/g"
	loop "$top/gzip" gzip "gzip -f -k g"
	mkdir -p "$top/sed" && echo abc >"$top/sed/s.txt"
	loop "$top/sed" sed "sed -i s/a/b/ s.txt"
	loop "$top/awk" awk "awk 'BEGIN { for (i = 0; i < 20; i++) { print i >>\"awk.log\"; close(\"awk.log\") } }'"
	loop "$top/python3" python3 "$PY3 -c 'for i in range(20): open(\"py.log\", \"a\").write(\"x\\\\n\")'"
	# a thread writes, and its process ends before top reads /proc: still the process's row
	loop "$top/pythread" python3 "$PY3 -c 'import threading; t = threading.Thread(target=lambda: [open(\"t.log\", \"a\").write(\"x\") for i in range(5)]); t.start(); t.join()'"
	mkdir -p "$top/sqlite3"
	sqlite3 "$top/sqlite3/db" 'create table t (x)'
	loop "$top/sqlite3" sqlite3 "sqlite3 db 'insert into t values (1)'"
	git init -q "$top/git"
	loop "$top/git" git "git -c user.name=t -c user.email=t@t commit -q --allow-empty -m x"
done

# The writers stop before top's last refresh: what it shows last is what the disk has.
"$TPOINT" top -n 4 -d 1 --dirty --json >foreign.json 2>foreign.err &
tp=$!
wait_until 120 sh -c '[ "$(wc -l <foreign.json)" -ge 3 ]' || fail "no third refresh: $(cat foreign.err)"
stop_writers
wait $tp || fail "top exited $?: $(cat foreign.err)"
python3 - foreign.json "$T/pids.txt" "$DISK" "$MNT" <<'PY' || fail "see above"
import json, os, sys
last = [json.loads(l) for l in open(sys.argv[1])][-1]
pids = {}
for line in open(sys.argv[2]).read().splitlines():
    pid, comm, d = line.split(" ", 2)
    pids[int(pid)] = (comm, d)
roots = tuple(r + "/" for r in sys.argv[3:])
suffixes = (" (deleted)", " (renamed)")

def path_wrong(row, d):
    """Why the row's path is not its file's now, or "" when it is."""
    path = row["path"]
    if path is None:
        return "no name"
    if path == sys.argv[2]:
        return "" if row["comm"] == "sh" else "not the driver"  # where the drivers note pids
    # the disk's own block device, whose inode number is its dev_t: file system metadata
    if path.startswith("/dev/") and path.endswith(" (file system metadata)"):
        major, minor = (int(x) for x in row["dev"].split(":"))
        return "" if row["ino"] == major << 20 | minor else "not the disk's inode"
    bare, suffix = path, ""
    for s in suffixes:
        if path.endswith(s):
            bare, suffix = path[:-len(s)], s
    if bare != d and not bare.startswith(d + "/"):
        return "not in " + d
    try:
        ino = os.lstat(bare).st_ino
    except FileNotFoundError:
        return "" if suffix == " (deleted)" else "gone but not (deleted)"
    if suffix == " (deleted)":
        # there under the same inode number: a new file that got the number (gzip -f
        # unlinks its output and makes it again); this test cannot tell the two apart
        return ""
    return "" if ino == row["ino"] else "%s is inode %d" % (bare, ino)

counted = right = 0
per = {}
for row in last["dirty"]:
    mine = row["pid"] in pids
    if not mine and not (row["path"] or "").startswith(roots):
        continue
    counted += row["events"]
    comm, d = pids.get(row["pid"], (None, None))
    why = ("pid %s is no writer's" % row["pid"] if not mine else
           "comm %s, not %s" % (row["comm"], comm) if row["comm"] != comm else
           path_wrong(row, d))
    where = (d or row["path"] or "").startswith(roots[1]) and "tmpfs" or "disk"
    key = "%s %s" % (d and d.rsplit("/", 1)[1] or row["comm"], where)
    ok, n = per.get(key, (0, 0))
    per[key] = (ok + (0 if why else row["events"]), n + row["events"])
    if why:
        print("wrong (%s): %s" % (why, row))
    else:
        right += row["events"]
for k in sorted(per):
    print("%-16s %6d of %6d" % (k, per[k][0], per[k][1]))
print("named right, with the right pid and comm: %d of %d dirty events (%.1f %%)" %
      (right, counted, 100.0 * right / max(counted, 1)))
assert counted > 0, "no dirty event of the writers"
threads = [r for r in last["dirty"] if r["tid"] != r["pid"] and r["pid"] in pids and
           pids[r["pid"]][1].endswith("/pythread")]
assert threads, "no row of python3's threads"
print("%d rows of python3's threads, with their process's pid" % len(threads))
assert right >= 0.95 * counted, "below 95 %"
PY
