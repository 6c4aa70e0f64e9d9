#!/bin/sh
# The command line of every verb, from its option table (tools/tpoint/options.c): --help on
# stdout, one form of message for a bad option, and the old spellings of the letters that
# changed still read, with a one-line warning.
set -u
B=$(dirname "$TPOINT")
fail() { echo "FAIL: $*"; exit 1; }

for v in list record report convert ps stat enable disable filter stream snapshot top hist; do
	"$TPOINT" $v --help >help.out 2>help.err || fail "$v --help exited $?"
	grep -q "^usage: tpoint $v" help.out || fail "$v --help: no usage line"
	grep -q -- "^  -h, --help  *this text$" help.out || fail "$v --help: no -h, --help"
	[ -s help.err ] && fail "$v --help wrote on stderr"
	for bad in --bogus -Q; do
		"$TPOINT" $v $bad >bad.out 2>bad.err
		rc=$?
		[ $rc = 2 ] || fail "$v $bad exited $rc, expected 2"
		[ "$(cat bad.err)" = "tpoint $v: unknown option '$bad'; see 'tpoint $v --help'" ] ||
			fail "$v $bad: $(cat bad.err)"
		[ -s bad.out ] && fail "$v $bad wrote on stdout"
	done
done
"$TPOINT" report -i >/dev/null 2>bad.err
[ "$(cat bad.err)" = "tpoint report: option '-i' needs a value; see 'tpoint report --help'" ] ||
	fail "report -i: $(cat bad.err)"
echo "ok: --help and bad options"

# The letters that changed: list -f (now -F), convert -f (now --force), stat -i (now
# --interval). Each still works, with one line that says what to write instead.
"$TPOINT" list -f "$B/examples/writeback" >f.out 2>f.err || fail "list -f exited $?"
"$TPOINT" list -F "$B/examples/writeback" >F.out 2>F.err || fail "list -F exited $?"
cmp -s f.out F.out || fail "list -f and list -F differ"
[ "$(cat f.err)" = "tpoint list: -f is deprecated and goes in the next release; use -F (--format)" ] ||
	fail "list -f: $(cat f.err)"
[ -s F.err ] && fail "list -F: $(cat F.err)"
"$TPOINT" convert -f >/dev/null 2>f.err
grep -qx "tpoint convert: -f is deprecated and goes in the next release; use --force" f.err ||
	fail "convert -f: $(cat f.err)"
"$TPOINT" stat -i 0 -p 1 >/dev/null 2>f.err
[ $? = 2 ] || fail "stat -i 0: not a usage error"
grep -qx "tpoint stat: -i is deprecated and goes in the next release; use --interval" f.err ||
	fail "stat -i: $(cat f.err)"
grep -qx "tpoint stat: --interval '0': expected seconds, like 1 or 0.5" f.err ||
	fail "stat -i 0: $(cat f.err)"
echo "ok: the old spellings"

# tpoint(1) lists every option of every verb as --help shows it (its section OPTIONS).
man=$(dirname "$0")/../docs/man/tpoint.1
for v in list record report convert ps stat enable disable filter stream snapshot top hist; do
	sed -n "/^\.SS tpoint $v\$/,/^\.S[SH] /p" "$man" >man.sec
	[ -s man.sec ] || fail "tpoint(1) has no options section for $v"
	"$TPOINT" $v --help | grep -E '^  (-[a-zA-Z]|    --)' | sed 's/^ *\([^ ].*[^ ]\)  .*/\1/' |
		grep -oE -- '(^|[ ,])--?[a-zA-Z][a-zA-Z-]*' | tr -d ' ,' | sort -u >spellings
	while read -r s; do
		grep -qF -- "\\fB$(printf '%s' "$s" | sed 's/-/\\-/g')\\fR" man.sec ||
			fail "tpoint(1) does not list $v $s"
	done <spellings
done
echo "ok: tpoint(1) lists every option"
