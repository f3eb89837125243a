#!/bin/sh
# DOC: configuration golden tests.
#
# For each *.in here: conf-golden's output (canonical dump, or the error
# list) must equal the matching *.ok, and a dump must parse back to the same
# dump. The sample conf/ibsmd.conf must parse cleanly and equal the dump of
# the defaults. UPDATE_GOLDEN=1 rewrites the .ok files and the sample
# instead (make update-golden-conf).
set -u
: "${top_srcdir:?}" "${top_builddir:?}"
tool="$top_builddir/tests/golden/conf/conf-golden"
update=${UPDATE_GOLDEN:-0}
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0

# Relative names, so the messages in the .ok files do not hold a path.
cd "$top_srcdir/tests/golden/conf" || exit 99
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
	[ $rc -eq 0 ] || continue
	# round trip: the dump parses back to an identical dump
	if ! "$tool" "$tmp/out" >"$tmp/again" || ! cmp -s "$tmp/out" "$tmp/again"; then
		echo "FAIL $in: dump does not round-trip"
		diff -u "$tmp/out" "$tmp/again"
		fail=1
	fi
done
[ $n -gt 0 ] || { echo "FAIL: no *.in files found"; exit 1; }

sample="$top_srcdir/conf/ibsmd.conf"
"$tool" --defaults >"$tmp/defaults" || fail=1
if [ "$update" = 1 ]; then
	cp "$tmp/defaults" "$sample"
else
	if ! "$tool" "$sample" >"$tmp/sample"; then
		echo "FAIL: conf/ibsmd.conf does not parse:"
		cat "$tmp/sample"
		fail=1
	elif ! diff -u "$tmp/defaults" "$tmp/sample"; then
		echo "FAIL: conf/ibsmd.conf is stale; run make update-golden-conf"
		fail=1
	fi
fi
[ $fail -eq 0 ] && echo "ok: $n golden files, round trips, sample"
exit $fail
