#!/bin/sh
# DOC: time to a fully working subnet under MAD loss, ibsmd against OpenSM.
#
# Usage: bench/bench-loss.sh [-n RUNS] [-g "GEN ARGS"] [-l "LOSSES"] [-t SECONDS]
#   -n RUNS     runs per SM and loss level (default 3; median reported)
#   -g ARGS     tests/topo/gen_topo.py arguments of the fabric (default "ft2 12")
#   -l LOSSES   loss percentages, every port of every node (default "0 2 5 10")
#   -t SECONDS  give up on a run after this long (default 60)
#
# For each loss level, each run starts ibsim afresh, sets `Error "NODE" PCT`
# on every node, starts the SM (ibsmd as a daemon with its defaults but a
# fresh state directory; OpenSM as a daemon with its defaults, -R ftree)
# at the first host, and samples the simulator's own state (console Dump,
# judged by tests/integration/simstate.py: no MAD, so exact under loss)
# every 100 ms until the fabric works: no LID held twice, every linked
# port Active, no LFT entry toward a dead port, and 1000 sampled host
# pairs reachable through the LFTs. Per run it records
#   up_ms         SM start to the first working sample ("-" = not within -t)
#   max_dups      the most LIDs held twice at once in any sample
#   blk_changes   LFT blocks whose content changed between samples (what
#                 an SM rewrote with other values: churn, seen from outside)
# and prints one line per SM and loss level: the median up_ms over the runs
# that came up, how many came up, the largest max_dups and the median
# blk_changes, then every run's "up_ms max_dups blk_changes". The two SMs
# alternate, so load drift hits both alike.
#
# ibsim's umad2sim ignores the timeout and retries given to umad_send: a
# dropped MAD comes back at once as a timeout. OpenSM leaves its retries
# (transaction_retries) to umad_send, so here every drop fails that
# transaction at once; its rows under loss say more about this simulator
# than about OpenSM on hardware.
# top_builddir (or a build in the source tree) provides daemon/ibsmd.
set -u
here=$(cd "$(dirname "$0")" && pwd)
: "${top_srcdir:=$(cd "$here/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
. "$top_srcdir/tests/integration/lib.sh"
skip_unless_tools opensm

runs=3 gen="ft2 12" losses="0 2 5 10" limit=60
while getopts n:g:l:t: o; do
	case $o in
	n) runs=$OPTARG ;; g) gen=$OPTARG ;; l) losses=$OPTARG ;; t) limit=$OPTARG ;;
	*) echo "usage: $0 [-n RUNS] [-g GEN] [-l LOSSES] [-t SECONDS]" >&2; exit 2 ;;
	esac
done
IBSMD=$top_builddir/daemon/ibsmd
[ -x "$IBSMD" ] || skip "no $IBSMD"

sim_setup
# shellcheck disable=SC2086
topo_gen "$SIM_DIR/fabric.net" $gen
NODES=$(sed -n 's/^\(Switch\|Hca\|Ca\)[[:space:]].*"\([^"]*\)".*/\2/p' "$SIM_DIR/fabric.net")
HOST=$(echo "$NODES" | head -n 1)
now_ms() { echo $(($(date +%s%N) / 1000000)); }

start_sm() {
	rm -rf "$SIM_DIR/st" && mkdir -p "$SIM_DIR/st"
	if [ "$1" = ibsmd ]; then
		T=$((limit + 30)) sim_bg sh -c 'exec "$@" 2>"$0"' "$SIM_DIR/sm.log" "$IBSMD" \
			-o state_dir="$SIM_DIR/st" -o socket_path="$SIM_DIR/st/sock"
	else
		T=$((limit + 30)) sim_bg sh -c 'exec "$@" >"$0" 2>&1' "$SIM_DIR/st/stdout" \
			env OSM_TMP_DIR="$SIM_DIR/st" OSM_CACHE_DIR="$SIM_DIR/st" \
			opensm -f "$SIM_DIR/st/osm.log" -R ftree
	fi
	SM_PID=$SIM_BG_PID
}

# one_run SM PCT: prints "up_ms max_dups blk_changes"
one_run() {
	sim_start "$SIM_DIR/fabric.net"
	for n in $NODES; do
		[ "$2" -gt 0 ] && printf 'Error "%s" %s\n' "$n" "$2" >&9
	done
	sim_cmd Attached
	SIM_HOST=$HOST start_sm "$1"
	t0=$(now_ms) up=- maxd=0 changes=0
	: >"$SIM_DIR/blocks.prev"
	while [ $(( $(now_ms) - t0 )) -lt $((limit * 1000)) ]; do
		sim_dump "$SIM_DIR/d"
		r=$(simstate "$SIM_DIR/d" --pairs 1000 --blocks "$SIM_DIR/blocks" --json)
		set -- $(echo "$r" | python3 -c 'import json,sys; r=json.load(sys.stdin); print(r["dups"], r["inactive"] + r["dead"] + r["unreachable"])') "$1" "$2"
		[ "$1" -gt "$maxd" ] && maxd=$1
		changes=$((changes + $(awk 'NR == FNR { h[$1" "$2] = $3; next }
			($1" "$2) in h && h[$1" "$2] != $3 { n++ } END { print n + 0 }' \
			"$SIM_DIR/blocks.prev" "$SIM_DIR/blocks")))
		mv "$SIM_DIR/blocks" "$SIM_DIR/blocks.prev"
		if [ "$1" = 0 ] && [ "$2" = 0 ]; then up=$(( $(now_ms) - t0 )); break; fi
		shift 2
		sleep 0.1
	done
	kill "$SM_PID" 2>/dev/null
	wait "$SM_PID" 2>/dev/null
	sim_stop
	echo "$up $maxd $changes"
}

median() {
	sort -n | awk '{ v[NR] = $1 } END { if (!NR) print "-"; else print v[int((NR + 1) / 2)] }'
}

printf '%-6s %-7s %10s %6s %9s %12s\n' loss SM up_ms "up" max_dups blk_changes
for pct in $losses; do
	: >"$SIM_DIR/r.ibsmd" && : >"$SIM_DIR/r.opensm"
	i=0
	while [ $i -lt "$runs" ]; do
		for sm in ibsmd opensm; do
			one_run "$sm" "$pct" >>"$SIM_DIR/r.$sm"
		done
		i=$((i + 1))
	done
	for sm in ibsmd opensm; do
		f=$SIM_DIR/r.$sm
		cp "$f" "$f.$pct"
		printf '%-6s %-7s %10s %6s %9s %12s\n' "$pct%" "$sm" \
			"$(awk '$1 != "-" { print $1 }' "$f" | median)" \
			"$(awk '$1 != "-"' "$f" | wc -l)/$runs" \
			"$(awk '{ if ($2 > m) m = $2 } END { print m + 0 }' "$f")" \
			"$(awk '{ print $3 }' "$f" | median)"
	done
done
for pct in $losses; do
	for sm in ibsmd opensm; do
		sed "s/^/  $pct% $sm run: /" "$SIM_DIR/r.$sm.$pct"
	done
done
