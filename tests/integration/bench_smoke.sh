#!/bin/sh
# DOC: keeps the benchmark scripts working: one tiny run of each.
#
# Runs bench/opensm-once.sh (with --exact), bench/ibsmd-once.sh (also
# with --restart), bench/flood-once.sh and bench/bench-pm.sh on the demo
# fabric and checks their output lines: every metric present and numeric,
# the SMP counters consistent with each other, and all 44 ports given a
# LID by ibsmd.  The
# ibsmd part is skipped only when the daemon is not built; OpenSM's only
# when opensm is not installed.

set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$top_srcdir/tests/integration/lib.sh"
skip_unless_tools perfquery
export top_srcdir top_builddir
net=$top_srcdir/tests/topo/small.net
ran=0

# get LINE KEY: the value of KEY=... in LINE, which must be a number.
get() {
	v=$(printf '%s\n' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p")
	case $v in
	'' | *[!0-9]*) fail "$2 missing or not a number in: $1" ;;
	esac
	echo "$v"
}

if command -v opensm >/dev/null 2>&1; then
	line=$(sh "$top_srcdir/bench/opensm-once.sh" "$net" --exact) ||
		fail "opensm-once.sh failed"
	for k in wall_ms cpu_ms up_ms discover_ms; do get "$line" $k >/dev/null; done
	xmit=$(get "$line" smps_xmit)
	exact=$(get "$line" smps_exact)
	# Only MADs to the SM's own HCA are missing from the port counter.
	if [ "$xmit" -lt 500 ] || [ "$exact" -lt "$xmit" ] ||
	    [ $((exact - xmit)) -ge 50 ]; then
		fail "implausible SMP counts: $line"
	fi
	msg "ok: $line"
	ran=1
fi

if [ -x "$top_builddir/daemon/ibsmd" ]; then
	line=$(sh "$top_srcdir/bench/ibsmd-once.sh" "$net") || fail "ibsmd-once.sh failed"
	for k in wall_ms cpu_ms up_ms discover_ms; do get "$line" $k >/dev/null; done
	# every SMP sent, to subnet up and after it (the P_Key read-back)
	sent=$(($(get "$line" smps_sent) + $(get "$line" smps_after_up)))
	xmit=$(get "$line" smps_xmit)
	[ "$(get "$line" lids)" = 44 ] || fail "ibsmd left ports without a LID: $line"
	if [ "$xmit" -eq 0 ] || [ "$sent" -lt "$xmit" ] || [ $((sent - xmit)) -ge 50 ]; then
		fail "ibsmd's own SMP count disagrees with the port counter: $line"
	fi
	msg "ok: $line"
	line=$(sh "$top_srcdir/bench/ibsmd-once.sh" "$net" --restart) ||
		fail "ibsmd-once.sh --restart failed"
	[ "$(get "$line" lids)" = 44 ] || fail "restart left ports without a LID: $line"
	[ "$(get "$line" smps_min)" -le "$(get "$line" smps_sent)" ] ||
		fail "more SMPs needed than sent: $line"
	msg "ok: $line"
	line=$(sh "$top_srcdir/bench/flood-once.sh" "$net" -- -n 2000) ||
		fail "flood-once.sh failed"
	[ "$(get "$line" smps)" = 2000 ] && [ "$(get "$line" rate)" -gt 0 ] ||
		fail "implausible flood: $line"
	msg "ok: $line"
	ran=1
fi
# The counter-sweep benchmark, quick (OpenSM's PerfMgr every 2 s, one
# pair of SA windows of 1 s): OpenSM's second sweep and the floods must
# have read both counters of all 128 linked ports, and a PM-capable ibsmd
# every port in its second round, with the PM turned off and on again.
if command -v opensm >/dev/null 2>&1 && [ -x "$top_builddir/bench/pma-flood" ]; then
	out=$(sh "$top_srcdir/bench/bench-pm.sh" -S 2 -d 1 -p 1 -r 2 "$net" 2>&1) ||
		fail "bench-pm.sh failed: $out"
	printf '%s\n' "$out" | grep -q 'sweep 2: 256 answers in [0-9]* ms' ||
		fail "OpenSM's PerfMgr sweep not as expected: $out"
	[ "$(printf '%s\n' "$out" | grep -c 'pma-flood queries=768 failed=0 ')" -ge 1 ] ||
		fail "implausible PerfMgt flood: $out"
	if printf '%s\n' "$out" | grep -q 'PM round 1:'; then
		printf '%s\n' "$out" | grep -q 'PM round 2: 128 ports, 256 queries, 0 failed' ||
			fail "ibsmd's second PM round not as expected: $out"
		for w in off on; do
			printf '%s\n' "$out" | grep -q "sa, PM $w (1) .* lost 0 " ||
				fail "no SA window with the PM $w: $out"
		done
		printf '%s\n' "$out" | grep -q 'p99 (median of the windows): [0-9]* us without, [0-9]* us with the rounds' ||
			fail "no SA p99 pair: $out"
	fi
	msg "ok: bench-pm.sh: $(printf '%s\n' "$out" | grep -c .) lines"
	ran=1
fi
[ "$ran" = 1 ] || skip "neither opensm nor a built ibsmd"
