#!/bin/sh
# DOC: degraded fat-tree quality sweep for the routing issue's targets.
#
# Usage: bench/route-quality.sh [BUILDDIR] [SEEDS] ["ft2|ft3 RADIX" ...]
# Routes 2-level trees of radix 16, 24, 36 and 3-level trees of radix 8,
# 12, 16 (or the trees given, e.g. "ft3 36") with 5 % or 10 % of their
# switch links removed, or 2 or 4 upper switches removed, SEEDS seeds
# each (default 5), with the default engine
# (auto: ftree, or updn where up*/down* from the leaves cannot reach every
# destination), and prints one line per case and a summary: how many meet
# all-to-all within 10 % of its bound and every shift within one of the
# pair bound; of those, how many also keep every shift within one of the
# per-switch bound, everywhere or on the shifts whose pair bound allows it
# (verify's last line); the worst ratio, total time.
set -eu
b="${1:-.}/bench/route-bench"
seeds="${2:-5}"
[ $# -gt 2 ] && shift 2 || set -- "ft2 16" "ft2 24" "ft2 36" "ft3 8" "ft3 12" "ft3 16"
[ -x "$b" ] || { echo "route-quality.sh: build bench/route-bench first ($b)" >&2; exit 2; }

for t in "$@"; do
	for deg in "-d 5" "-d 10" "-x 2" "-x 4"; do
		s=1
		while [ "$s" -le "$seeds" ]; do
			# shellcheck disable=SC2086 # word splitting of $deg and $t is wanted
			"$b" -v $deg -s "$s" $t | awk -v name="$t $deg seed $s" '
				/engine/ { match($0, /engine [a-z]+/); eng = substr($0, RSTART + 7, RLENGTH - 7) }
				/^route:/ { time = $2 }
				/^all-to-all:/ { match($0, /x[0-9.]+\)/); ratio = substr($0, RSTART + 1, RLENGTH - 2) }
				/^shift permutations:/ { match($0, /worst excess -?[0-9]+/); ex = substr($0, RSTART + 13, RLENGTH - 13) }
				/pair bound\)/ { match($0, /worst excess -?[0-9]+/); pex = substr($0, RSTART + 13, RLENGTH - 13) }
				/^shifts whose pair bound/ { match($0, /others -?[0-9]+/); fex = substr($0, RSTART + 7, RLENGTH - 7) }
				END { printf "%-22s %-6s a2a x%s  shift excess %s (over the pair bound %s, where it allows the bound + 1 %s)  %s s\n", name, eng, ratio, ex, pex, fex, time }'
			s=$((s + 1))
		done
	done
done | awk '
	# name (6 fields) engine a2a xR shift excess EX (over the pair bound PE, where
	# it allows the bound + 1 FE) T s
	{ print; n++; r = substr($9, 2) + 0; t += $(NF - 1)
	  ex = $12 + 0; pe = $17; gsub(/,/, "", pe); pe += 0
	  fe = $(NF - 2); gsub(/\)/, "", fe); fe += 0
	  if (r > maxr) maxr = r
	  if (r <= 1.10 && pe <= 1) ok++
	  if (r <= 1.10 && pe <= 1 && fe <= 1) okfree++
	  if (r <= 1.10 && ex <= 1) okswitch++ }
	END { printf "\n%d of %d cases: all-to-all <= x1.10 and every shift <= pair bound + 1\n", ok, n
	      printf "%d of %d cases: all-to-all <= x1.10 and every shift <= per-switch bound + 1\n", okswitch, n
	      printf "%d of %d cases: both, and every shift <= per-switch bound + 1 where the pair bound allows it\n", okfree, n
	      printf "worst all-to-all x%.3f, routing time %.2f s in all\n", maxr, t }'
