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
# routing and verification wall time and peak RSS, their medians, the
# verification's quality lines of the first run, and the load average
# before and after (the machine may be shared: compare runs made together).
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
		# "ibsm-route: timing: parse P s, route R s, verify V s; peak RSS M MiB"
		sed -n 's/.*timing: parse \([0-9.]*\) s, route \([0-9.]*\) s, verify \([0-9.]*\) s; peak RSS \([0-9.]*\) MiB/\1 \2 \3 \4/p' \
			"$tmp/err" | awk -v t="$threads" -v i="$i" '{ printf "threads %s run %s: parse %s s, route %s s, verify %s s, route+verify %.3f s, peak RSS %s MiB\n", t, i, $1, $2, $3, $2 + $3, $4 }' |
			tee -a "$tmp/runs"
		[ "$i" -eq 1 ] && [ "$threads" -eq 2 ] && cp "$tmp/out" "$tmp/first"
		i=$((i + 1))
	done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
for threads in 2 1; do
	awk -v t="$threads" 'BEGIN { n = 0 } $2 == t {
		r[n] = $9; v[n] = $12; s[n] = $15; m = $19 > m ? $19 : m; n++ }
	function med(a, n,   i, j, x) {
		for (i = 0; i < n; i++) for (j = i + 1; j < n; j++)
			if (a[j] < a[i]) { x = a[i]; a[i] = a[j]; a[j] = x }
		return n % 2 ? a[(n - 1) / 2] : (a[n / 2 - 1] + a[n / 2]) / 2 }
	END { printf "median, %s thread(s), %d runs: route %.3f s, verify %.3f s, route+verify %.3f s; peak RSS %.1f MiB\n",
		t, n, med(r, n), med(v, n), med(s, n), m }' "$tmp/runs"
done
grep -E '^engine|all-to-all|shift|reachability|own packets|credit' "$tmp/first"
