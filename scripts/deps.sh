#!/bin/sh
# Installs the Debian packages that building and testing tpoint need, when run as root;
# otherwise names the one command to run. The runtime library itself needs only libc.
set -e
PKGS="pkg-config libtraceevent-dev libtracefs-dev libncurses-dev trace-cmd g++ binutils python3 util-linux
	clang libclang-rt-14-dev bpftrace gdb systemtap-sdt-dev babeltrace2 tmux sqlite3 git"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
	echo "deps: installing$missing"
	apt-get update -qq >/dev/null
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
	exit 0
fi
echo "deps: missing packages:$missing" >&2
echo "deps: run: sudo apt-get install$missing" >&2
exit 1
