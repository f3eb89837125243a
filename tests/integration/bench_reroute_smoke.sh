#!/bin/sh
# DOC: keeps the reroute benchmark working: one run on a small fat tree.
#
# Runs bench/bench-reroute.sh once on `ft2 8` (32 hosts, 8 leaves, 4
# spines) with the leaf-spine link L0001[5] unplugged and checks its
# output: a line per SM with every metric numeric, the repaired routes
# complete (unrouted=0), at least the forced entries changed, the known
# all-to-all bound of this failure (4 hosts x 28 others over 3 uplinks,
# rounded up: 38) and a summary table.  The ibsmd line is required when
# the daemon is built; a missing "last LFT block acknowledged" line makes
# the benchmark, and so this test, fail.

set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$top_srcdir/tests/integration/lib.sh"
skip_unless_tools opensm ibroute
export top_srcdir top_builddir
sim_setup
out=$SIM_DIR/bench.out

sh "$top_srcdir/bench/bench-reroute.sh" -n 1 -g "ft2 8" -u 'L0001[5]' >"$out" ||
	{ cat "$out" >&2; fail "bench-reroute.sh failed"; }
cat "$out" >&2

# get LINE KEY: the value of KEY=... in LINE, which must be a number.
get() {
	v=$(printf '%s\n' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p")
	printf '%s\n' "$v" | grep -Eq '^[0-9]+(\.[0-9]+)?$' ||
		fail "$2 missing or not a number in: $1"
	echo "$v"
}

check_line() {
	line=$(grep "^$1 " "$out") || fail "no $1 line"
	get "$line" trap_to_last_ack_ms >/dev/null
	get "$line" ratio >/dev/null
	changed=$(get "$line" entries_changed)
	min=$(get "$line" min_changes)
	max=$(get "$line" a2a_max)
	[ "$(get "$line" unrouted)" = 0 ] || fail "$1 left routes broken: $line"
	[ "$(get "$line" a2a_bound)" = 38 ] || fail "wrong all-to-all bound: $line"
	if [ "$min" -lt 1 ] || [ "$changed" -lt "$min" ]; then
		fail "$1 changed fewer entries than the failure forces: $line"
	fi
	[ "$max" -ge 38 ] || fail "$1 beats the lower bound, impossible: $line"
}

check_line opensm
if [ -x "$top_builddir/daemon/ibsmd" ]; then
	check_line ibsmd
fi
for m in trap_to_last_ack_ms entries_changed min_changes a2a_max a2a_bound ratio; do
	grep -Eq "^$m +[0-9.]+ " "$out" || fail "summary row $m missing"
done
