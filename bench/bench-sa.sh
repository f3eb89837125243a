#!/bin/sh
# DOC: the SA benchmark: PathRecord Gets against OpenSM, a trivial
# responder and ibsmd on the same simulated fabric, in one run.
#
# Usage: bench/bench-sa.sh [-d SECONDS] [-l LOADERS] [-w WINDOW] [-s SWEEPS]
#                          [-g "GEN_TOPO ARGS"]
#   defaults: 10 s per measurement, 4 loaders with a window of 4 each (16
#   outstanding in all), 10 sweeps, "ft2 16" (152 nodes: 128 hosts, 24
#   switches). top_builddir names the build to use (a plain -O2 one).
#
# LOADERS copies of bench/sa-load, each attached at a host on a different
# leaf, send PathRecord Gets (SLID/DLID) for random host pairs to the SM's
# LID, each keeping WINDOW outstanding, for SECONDS. Measured, in order:
#   opensm          OpenSM (daemon) after SUBNET UP
#   opensm+sweeps   the same while OpenSM sweeps (SIGHUP every 0.5 s)
#   trivial         bench/sa-trivial in OpenSM's place at the SM's node:
#                   it answers every query with a fixed record; this is
#                   what the simulator and the two shared cores allow
#   ibsmd           ibsmd on a fresh simulator, after SUBNET UP
#   ibsmd+sweeps    the same while heavy sweeps run back to back
#                   (ibsmctl sweep --wait) for the whole measurement
#   ibsmd+sweeps/0.5s  a heavy sweep every 0.5 s, OpenSM's cadence above
#                   (the like-for-like row to compare with opensm+sweeps)
# and ibsmd's heavy sweep time: the median of SWEEPS sweeps without load,
# and of those run during ibsmd+sweeps, with their 90th percentile and
# maximum (the issue's "no sweep slower than 10 %" is judged on these). One line per measurement: answered queries/s (all loaders),
# p50 and p99 latency over every answer, lost (unanswered after 1 s) and
# error answers.
set -u
here=$(cd "$(dirname "$0")" && pwd)
: "${top_srcdir:=$(cd "$here/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
. "$top_srcdir/tests/integration/lib.sh"
skip_unless_tools opensm

secs=10
loaders=4
window=4
sweeps=10
gen="ft2 16"
while getopts d:l:w:s:g: opt; do
	case $opt in
	d) secs=$OPTARG ;;
	l) loaders=$OPTARG ;;
	w) window=$OPTARG ;;
	s) sweeps=$OPTARG ;;
	g) gen=$OPTARG ;;
	*) echo "usage: $0 [-d SEC] [-l LOADERS] [-w WINDOW] [-s SWEEPS] [-g GEN]" >&2; exit 2 ;;
	esac
done
IBSMD=$top_builddir/daemon/ibsmd
CTL=$top_builddir/cli/ibsmctl
LOAD=$top_builddir/bench/sa-load
TRIVIAL=$top_builddir/bench/sa-trivial
for b in "$IBSMD" "$CTL" "$LOAD" "$TRIVIAL"; do
	[ -x "$b" ] || hard_error "$b not built (top_builddir=$top_builddir)"
done

# PIN=1: the load generators on CPU 0, the simulator and the SM (or the
# trivial responder) on CPU 1, as if the loaders were other machines
PIN_LOAD=
[ "${PIN:-0}" = 1 ] && PIN_LOAD="taskset -c 0"
pin() {   # pin PID: that process (and its threads) on CPU 1
	[ "${PIN:-0}" = 1 ] && taskset -apc 1 "$1" >/dev/null
	return 0
}
child() {
	pgrep -P "$1" | head -n 1
}

sim_setup
net=$SIM_DIR/fabric.net
# shellcheck disable=SC2086
topo_gen "$net" $gen
SM=H00001
# loaders on hosts far apart: every (hosts/loaders)-th host, not the SM's
nhosts=$(grep -c '^Hca' "$net")
hosts=$(awk -v n="$nhosts" -v l="$loaders" 'BEGIN {
	for (i = 1; i <= l; i++) printf "H%05d ", int(i * n / (l + 1)) + 1 }')

# shellcheck source=bench/sa-lib.sh
. "$here/sa-lib.sh"

# sweep FILE: one heavy sweep, its duration (ms) appended to FILE
sweep() {
	"$CTL" -s "$SIM_DIR/sm.sock" -j sweep --wait |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["result"]["duration_ms"])' \
		>>"$1" || fail "ibsmctl sweep --wait"
}

echo "fabric: $gen ($(grep -c '^Switch' "$net") switches, $nhosts hosts); loaders at $hosts" \
	"window $window each, $secs s per measurement"

# --- OpenSM ---
sim_start "$net"
pin "$(child "$SIM_PID")"
mkdir -p "$SIM_DIR/osm"
sim_bg env OSM_TMP_DIR="$SIM_DIR/osm" OSM_CACHE_DIR="$SIM_DIR/osm" SIM_HOST=$SM \
	opensm -f "$SIM_DIR/osm/osm.log" -R ftree -d2
OSM=$SIM_BG_PID
wait_grep 'SUBNET UP' "$SIM_DIR/osm/osm.log" 120
lids
load opensm
# sim_bg's pid is timeout's (the subshell and env exec): opensm is its child
osm_pid=$(pgrep -P "$OSM" -x opensm)
[ -n "$osm_pid" ] || fail "cannot find the opensm process"
pin "$osm_pid"
start_load
while loading; do
	kill -HUP "$osm_pid" 2>/dev/null
	sleep 0.5
done
wait_loaders opensm+sweeps
kill -TERM "$osm_pid" 2>/dev/null
wait "$OSM" 2>/dev/null
n=$(grep -c 'SUBNET UP' "$SIM_DIR/osm/osm.log")
echo "               (OpenSM logged SUBNET UP $n times)"

# --- the ceiling ---
T=$((secs + 60)) sim_run_at $SM "$TRIVIAL" -d $((secs + 20)) >"$SIM_DIR/trivial.out" 2>&1 &
TRIV=$!
sleep 1
pin "$(pgrep -x sa-trivial -P "$(child "$TRIV")" || pgrep -n -x sa-trivial)"
load trivial
kill "$TRIV" 2>/dev/null
wait "$TRIV" 2>/dev/null
sim_stop

# --- ibsmd ---
sim_start "$net"
pin "$(child "$SIM_PID")"
sim_bg sh -c 'f=$1; shift; exec "$@" 2>"$f"' sh "$SIM_DIR/sm.log" env SIM_HOST=$SM \
	"$IBSMD" -o state_dir="$SIM_DIR/state" -o socket_path="$SIM_DIR/sm.sock" \
	-o log_level=notice -o light_sweep_interval=0
SMPID=$SIM_BG_PID
pin "$(child "$SMPID")"
wait_grep 'subnet UP' "$SIM_DIR/sm.log" 120
lids
load ibsmd
: >"$SIM_DIR/sweep.idle"
for i in $(seq "$sweeps"); do
	sweep "$SIM_DIR/sweep.idle"
done
# heavy sweeps back to back for as long as the load runs
: >"$SIM_DIR/sweep.load"
start_load
sleep 0.2
while loading; do
	sweep "$SIM_DIR/sweep.load"
done
wait_loaders ibsmd+sweeps
# a heavy sweep every 0.5 s, as OpenSM got its SIGHUPs
: >"$SIM_DIR/sweep.paced"
start_load
while loading; do
	sweep "$SIM_DIR/sweep.paced"
	sleep 0.5
done
wait_loaders ibsmd+sweeps/0.5s
pct() {   # pct P FILE: the P-th percentile of the numbers in FILE
	sort -n "$2" | awk -v p="$1" '{ v[NR] = $1 } END { i = int((NR - 1) * p / 100) + 1; print (NR ? v[i] : "NA") }'
}
for f in idle load paced; do
	echo "ibsmd heavy sweep, $f: median $(pct 50 "$SIM_DIR/sweep.$f") ms, p90 $(pct 90 "$SIM_DIR/sweep.$f") ms," \
		"max $(pct 100 "$SIM_DIR/sweep.$f") ms over $(wc -l <"$SIM_DIR/sweep.$f") sweeps"
done
"$CTL" -s "$SIM_DIR/sm.sock" sa | sed -n '1p;/PathRecord/p'
kill -TERM "$SMPID" 2>/dev/null
wait "$SMPID" 2>/dev/null
exit 0
