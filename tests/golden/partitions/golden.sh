#!/bin/sh
# DOC: partitions golden tests.
#
# For each *.in here: part-golden's output (warnings, then the canonical
# dump and the P_Key tables, or the error list) must equal the matching
# *.ok, and an output without errors must parse back to the same output.
# The defaults must round-trip too. UPDATE_GOLDEN=1 rewrites the .ok
# files instead (make update-golden-partitions).
set -u
: "${top_srcdir:?}" "${top_builddir:?}"
tool="$top_builddir/tests/golden/partitions/part-golden"
update=${UPDATE_GOLDEN:-0}
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0

# round_trip OUT NAME: OUT (no errors) parses back to the same text;
# warnings are left out of both sides (they name the file they came from).
round_trip() {
	grep -v '^# .*: warning: ' "$1" >"$tmp/nowarn"
	"$tool" "$tmp/nowarn" >"$tmp/again.raw" || { echo "FAIL $2: output does not parse"; fail=1; }
	grep -v '^# .*: warning: ' "$tmp/again.raw" >"$tmp/again"
	if ! cmp -s "$tmp/nowarn" "$tmp/again"; then
		echo "FAIL $2: output does not round-trip"
		diff -u "$tmp/nowarn" "$tmp/again"
		fail=1
	fi
}

# Relative names, so the messages in the .ok files do not hold a path.
cd "$top_srcdir/tests/golden/partitions" || exit 99
n=0
for in in *.in; do
	ok=${in%.in}.ok
	n=$((n + 1))
	"$tool" "$in" >"$tmp/out"
	rc=$?
	[ $rc -le 1 ] || { echo "FAIL $in: exit $rc"; fail=1; continue; }
	if [ "$update" = 1 ]; then
		cp "$tmp/out" "$ok"
	elif ! diff -u "$ok" "$tmp/out"; then
		echo "FAIL $in: output differs from $ok"
		fail=1
	fi
	[ $rc -eq 0 ] && round_trip "$tmp/out" "$in"
done
[ $n -gt 0 ] || { echo "FAIL: no *.in files found"; exit 1; }
"$tool" --defaults >"$tmp/defaults" || fail=1
cp "$tmp/defaults" "$tmp/out"
round_trip "$tmp/out" defaults
[ $fail -eq 0 ] && echo "ok: $n golden files and the defaults round-trip"
exit $fail
