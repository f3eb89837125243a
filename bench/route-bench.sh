#!/bin/sh
# DOC: routing benchmark and quality table (routing issue targets).
#
# Usage: bench/route-bench.sh [BUILDDIR] [quick]
# Times the ftree engine on a full 3-level radix-36 fat tree (11 664 hosts,
# 1 620 switches; target < 1 s) and radix 54 (39 366 hosts, near the
# unicast LID limit; target < 5 s and < 1 GiB), single-threaded, then
# prints the verification of ftree and minhop on the 648-host radix-36
# 2-level tree, full and with 5 % and 10 % of its links removed, then of
# ftree on degraded 3-level trees (432, 3456, 11 664 and 39 366 hosts;
# links or upper switches removed) with its routing time. "quick" skips
# radix 54 and the trees of 3456 hosts and more.
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
		"$b" -e "$e" -v -d "$pct" -s 1 ft2 36 | grep -E 'reachability|credit|all-to-all|shift|pair bound'
	done
done

echo "== quality: degraded 3-level trees, ftree"
for args in "-d 5 ft3 12" "-d 10 ft3 12" "-x 2 ft3 12" "-x 4 ft3 12" "-d 5 ft3 24" \
	"-d 5 ft3 36" "-d 5 ft3 54"; do
	[ "${2:-}" = quick ] && [ "${args##* }" -ge 24 ] && continue
	echo "-- $args (seed 1)"
	"$b" -e ftree -v -s 1 $args | grep -E 'route:|reachability|credit|all-to-all|shift|pair bound'
done
