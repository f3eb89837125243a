#!/bin/sh
# DOC: ibsmd.conf(5) must match the option table and be lint-clean.
#
# The page is checked in (so a tarball build needs no generator run);
# this test regenerates it and fails when the copy is stale, then lints
# it with mandoc when installed, else with man --warnings.
set -u
: "${top_srcdir:?}" "${top_builddir:?}"
page="$top_srcdir/man/ibsmd.conf.5"
tmp=$(mktemp) || exit 99
trap 'rm -f "$tmp"' EXIT
fail=0

"$top_builddir/conf/gen-man" "$top_srcdir/conf/ibsmd.conf.5.in" >"$tmp" || exit 1
if ! diff -u "$page" "$tmp"; then
	echo "FAIL: man/ibsmd.conf.5 is stale; run make update-man-conf"
	fail=1
fi
if command -v mandoc >/dev/null 2>&1; then
	out=$(mandoc -Tlint -Wwarning "$page" 2>&1)
	[ $? -eq 0 ] && [ -z "$out" ] || { echo "FAIL mandoc: $out"; fail=1; }
fi
if command -v man >/dev/null 2>&1; then
	out=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null)
	[ -z "$out" ] || { echo "FAIL man --warnings: $out"; fail=1; }
fi
[ $fail -eq 0 ] && echo "ok: man page up to date and lint-clean"
exit $fail
