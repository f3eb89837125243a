#!/bin/sh
# DOC: routing benchmark and quality table (routing issue targets).
#
# Usage: bench/route-bench.sh [BUILDDIR] [quick]
# Times the ftree engine on a full 3-level radix-36 fat tree (11 664 hosts,
# 1 620 switches; target < 1 s) and radix 54 (39 366 hosts, near the
# unicast LID limit; target < 5 s and < 1 GiB), single-threaded, then
# prints the verification of ftree and minhop on the 648-host radix-36
# 2-level tree, full and with 5 % and 10 % of its links removed.
# "quick" skips radix 54.
set -eu
b="${1:-.}/bench/route-bench"
[ -x "$b" ] || { echo "route-bench.sh: build bench/route-bench first ($b)" >&2; exit 2; }

echo "== speed"
"$b" -e ftree ft3 36
[ "${2:-}" = quick ] || "$b" -e ftree ft3 54

echo "== quality: 2-level radix 36 (648 hosts)"
for pct in 0 5 10; do
	for e in ftree minhop; do
		echo "-- $e, ${pct}% of switch links removed (seed 1)"
		"$b" -e "$e" -v -d "$pct" -s 1 ft2 36 | grep -E 'reachability|credit|all-to-all|shift perm'
	done
done
