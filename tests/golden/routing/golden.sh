#!/bin/sh
# DOC: routing golden files: every tests/golden/routing/NAME.net is routed by
# ibsm-route (options from NAME.args if present); the LFT dump must equal
# NAME.lft and the verification summary NAME.sum. UPDATE=1 rewrites them
# (make update-golden). ibnd-opensm.net is real ibnetdiscover output from
# ibsim after OpenSM ran; with minhop its .lft matched `ibroute` byte for
# byte when it was first recorded.
set -u
dir="$top_srcdir/tests/golden/routing"
tool="$top_builddir/cli/ibsm-route"
tmp="${TMPDIR:-/tmp}/ibsm-golden.$$"
mkdir -p "$tmp" || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0
for net in "$dir"/*.net; do
	name=$(basename "$net" .net)
	args=""
	[ -f "$dir/$name.args" ] && args=$(cat "$dir/$name.args")
	# shellcheck disable=SC2086
	"$tool" $args --dump-lfts "$tmp/$name.lft" "$net" > "$tmp/$name.sum"
	rc=$?
	if [ $rc -ne 0 ] && [ $rc -ne 3 ]; then
		echo "FAIL $name: ibsm-route exited $rc"
		fail=1
		continue
	fi
	if [ "${UPDATE:-0}" = 1 ]; then
		cp "$tmp/$name.lft" "$tmp/$name.sum" "$dir/"
		echo "updated $name"
		continue
	fi
	for ext in lft sum; do
		if ! diff -u "$dir/$name.$ext" "$tmp/$name.$ext"; then
			echo "FAIL $name.$ext"
			fail=1
		fi
	done
done
exit $fail
