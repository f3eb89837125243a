#!/bin/sh
# DOC: routing and verification time and peak RSS of ibsm-route on a large
# degraded fat tree (the routing issue's 39 366-host tree by default).
#
# Usage: bench/route-big.sh [BUILDDIR] [RUNS] [RADIX PCT SEED]
# Writes the radix-RADIX 3-level tree with PCT % of its switch links
# removed (tests/topo/gen_topo.py ft3 RADIX --remove-links PCT --seed SEED;
# default 54 5 3: 39 366 hosts, 3645 switches), then runs
# "ibsm-route -e ftree --timing" on it RUNS times (default 3) on two
# threads and RUNS times on one (--threads 1), and prints each run's
# routing and verification wall and CPU time (all threads) and peak RSS,
# their medians, the verification's quality lines of the first run, and
# the load average before and after (the machine may be shared: compare
# runs made together; CPU time varies less than wall time).
set -eu
b="${1:-.}"
runs="${2:-3}"
radix="${3:-54}" pct="${4:-5}" seed="${5:-3}"
here=$(cd "$(dirname "$0")" && pwd)
ir="$b/cli/ibsm-route"
[ -x "$ir" ] || { echo "route-big.sh: build cli/ibsm-route first ($ir)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
net="$tmp/ft3-$radix-$pct-$seed.net"
python3 "$here/../tests/topo/gen_topo.py" ft3 "$radix" --remove-links "$pct" --seed "$seed" >"$net"

echo "tree: gen_topo.py ft3 $radix --remove-links $pct --seed $seed"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for threads in 2 1; do
	i=1
	while [ "$i" -le "$runs" ]; do
		"$ir" -e ftree --timing --threads "$threads" "$net" >"$tmp/out" 2>"$tmp/err" ||
			{ cat "$tmp/err" >&2; exit 1; }
		# "timing: parse P s, route R s (cpu C s), verify V s (cpu D s); peak RSS M MiB"
		tr -d '(),;' <"$tmp/err" | awk -v t="$threads" -v i="$i" '/timing:/ {
			printf "threads %s run %s: route %s s (cpu %s), verify %s s (cpu %s), route+verify %.3f s (cpu %.3f), peak RSS %s MiB\n",
				t, i, $7, $10, $13, $16, $7 + $13, $10 + $16, $20 }' | tee -a "$tmp/runs"
		[ "$i" -eq 1 ] && [ "$threads" -eq 2 ] && cp "$tmp/out" "$tmp/first"
		i=$((i + 1))
	done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
for threads in 2 1; do
	awk -v t="$threads" 'BEGIN { n = 0 } $2 == t {
		r[n] = $6; rc[n] = $9; v[n] = $11; vc[n] = $14; s[n] = $16; sc[n] = $19
		m = $22 > m ? $22 : m; n++ }
	function med(a, n,   i, j, x) {
		for (i = 0; i < n; i++) for (j = i + 1; j < n; j++)
			if (a[j] < a[i]) { x = a[i]; a[i] = a[j]; a[j] = x }
		return n % 2 ? a[(n - 1) / 2] : (a[n / 2 - 1] + a[n / 2]) / 2 }
	END { printf "median, %s thread(s), %d runs: route %.3f s (cpu %.3f), verify %.3f s (cpu %.3f), route+verify %.3f s (cpu %.3f); peak RSS %.1f MiB\n",
		t, n, med(r, n), med(rc, n), med(v, n), med(vc, n), med(s, n), med(sc, n), m }' "$tmp/runs"
done
grep -E '^engine|all-to-all|shift|reachability|own packets|credit' "$tmp/first"
