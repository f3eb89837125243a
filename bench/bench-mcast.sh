#!/bin/sh
# DOC: multicast join storm: every host of a fabric joins the IPoIB
# broadcast group at once; OpenSM and ibsmd on the same fabric, one after
# the other, each on a fresh simulator.
#
# Usage: bench/bench-mcast.sh [NETFILE]     (default: gen_topo ft2 36, 648 hosts)
#
# For each SM: start it at H00001 and wait until the subnet is up, then at
# t0 have every host's port join ff12:401b:ffff::ffff:ffff, and measure
#   answered_ms    t0 until every join has its answer (for OpenSM this
#                  includes starting the clients; clients_last_ms is the
#                  slowest client's own time from its first request to its
#                  last answer);
#   programmed_ms  t0 until the switches' MFTs form a tree reaching every
#                  member from every member: the time until all of them are
#                  reachable, as a poller sees it that reads all switches'
#                  first MFT block in rounds (mftdump -l) and judges each
#                  round with mftcheck.py: the time a round ends whose
#                  dump is the whole tree (a round of the 648-host tree
#                  is 216 SMPs; they share the simulator with the SM's);
#   mft_sets       MFT blocks written from t0 on (a second run of the same
#                  steps with the simulator's packet trace on, which slows
#                  it, so its times are not reported);
#   tree_switches  switches of the final tree (one block each is what the
#                  final trees need: every host's MLID is 0xC000).
# SMs: opensm, ibsmd_sa and ibsmd. opensm and ibsmd_sa get the joins as
# SA MCMemberRecord Sets, the way IPoIB sends them, from 6 mcjoin clients
# (tests/agent/mcjoin.c) at 6 hosts, each proxy-joining a sixth of the
# ports (ibsim takes at most 10 clients): the same measurement for both.
# ibsmd gets all joins in one `ibsmctl mcast_join ... all` request, which
# calls the manager the SA calls; its answered_ms is that request's round
# trip, so only its programmed_ms and mft_sets compare with the others.
# SMS="..." picks SMs, RUNS="..." the runs (default 1 2 3), IBSMD_OPTS
# adds ibsmd options (e.g. "-o mcast_batch_ms=20").
# Prints one line per SM and run.
set -u
here=$(cd "$(dirname "$0")" && pwd)
: "${top_srcdir:=$(cd "$here/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
. "$top_srcdir/tests/integration/lib.sh"
skip_unless_tools opensm ibnetdiscover ibswitches

IBSMD=$top_builddir/sm/ibsmd
CTL=$top_builddir/cli/ibsmctl
MCJOIN=$top_builddir/tests/agent/mcjoin
MFTDUMP=$top_builddir/tests/agent/mftdump
CHECK="python3 $top_srcdir/tests/integration/mftcheck.py"
BCAST=ff12:401b:ffff::ffff:ffff
CLIENTS=6   # + the SM + the poller: ibsim takes at most 10 clients
for b in "$IBSMD" "$CTL" "$MCJOIN" "$MFTDUMP"; do
	[ -x "$b" ] || hard_error "$b not built (make, and make check for tests/agent)"
done

sim_setup
NET=${1:-}
if [ -z "$NET" ]; then
	NET=$SIM_DIR/ft36.net
	topo_gen "$NET" ft2 36
fi
export SIM_HOST=H00001
ms() { echo $(($(date +%s%N) / 1000000)); }

# Port GUIDs of the hosts' port 1, one per line, from ibnetdiscover.
host_ports() {
	sim_run ibnetdiscover | python3 -c '
import re, sys
ca = False
for line in sys.stdin:
    if re.match(r"^(Ca|Hca)\s", line):
        ca = True
    elif re.match(r"^(Switch|Rt)\s", line):
        ca = False
    m = re.match(r"^\[1\]\(([0-9a-fA-F]+)\)", line)
    if ca and m:
        print("0x" + m.group(1))
'
}

switch_lids() {
	sim_run ibswitches | sed -n 's/.* lid \([0-9]*\) .*/\1/p'
}

# The fabric as the judge needs it, read before the storm.
prepare() {
	members=$(sim_run ibnetdiscover | tee "$SIM_DIR/disc.txt" |
		sed -n 's/^\(Ca\|Hca\).*"\(H[0-9]*\)".*/\2/p' | tr '\n' ',' | sed 's/,$//')
	lids=$(switch_lids)
	host_ports >"$SIM_DIR/ports.txt"
}

# Poll the MFTs in the background until the tree is whole (started before
# the storm, so the poller's start-up is not timed).
poll_start() {
	# shellcheck disable=SC2086
	(cd "$SIM_DIR/run" && exec $CHECK --topo "$SIM_DIR/disc.txt" --mft "$SIM_DIR/mft.txt" \
		--mlid 0xc000 --members "$members" --poll-timeout 120 --poll env \
		LD_PRELOAD="$SIM_PRELOAD" IBSIM_SOCKNAME="$IBSIM_SOCKNAME" timeout -k 1 150 "$MFTDUMP" -l $lids) \
		>"$SIM_DIR/check.txt" 2>"$SIM_DIR/check.err" 9>&- &
	POLL=$!
	sleep 1   # python up and polling
}

# programmed T0: ms from T0 until the poller saw the whole tree, in $prog
# (not a $(...): the poller is this shell's child).
programmed() {
	wait "$POLL"
	[ -n "${BENCH_DEBUG:-}" ] && cp "$SIM_DIR/check.txt" "$SIM_DIR/check.err" "$SIM_DIR/mft.txt" "$SIM_DIR/disc.txt" "$BENCH_DEBUG/"
	done_at=$(sed -n 's/.*done_at_ms \([0-9]*\).*/\1/p' "$SIM_DIR/check.txt")
	sed -n 's/.*tree of \([0-9]*\) switches.*/\1/p' "$SIM_DIR/check.txt" >"$SIM_DIR/tree.txt"
	prog=NA
	[ -n "$done_at" ] && prog=$((done_at - $1))
}

# Count MFT Sets in the simulator's packet trace from line $1 of its log:
# a packet dump is "--- packet ---", then the MAD in 16-bit hex words:
# method in the low byte of word 1, AttributeID in word 8.
mft_sets() {
	tail -n +"$1" "$SIM_LOG" | awk '
	/^--- packet ---/ { n = 1; next }
	n == 1 { m = substr($2, 3, 2); n = 2; next }
	n == 2 { if (m == "02" && $1 == "001b") c++; n = 0 }
	END { print c + 0 }'
}

opensm_up() {
	osm=$SIM_DIR/osm.$1
	mkdir -p "$osm"
	sim_bg env OSM_TMP_DIR="$osm" OSM_CACHE_DIR="$osm" opensm -f "$osm/osm.log" -R ftree -d2
	SM=$SIM_BG_PID
	i=0
	until grep -q "SUBNET UP" "$osm/osm.log" 2>/dev/null; do
		i=$((i + 1))
		[ $i -gt 1200 ] && fail "OpenSM not up"
		sleep 0.1
	done
	sleep 1   # its first idle-time work settles (-d2: the log is flushed per line)
}

# sa_joins: the storm as SA joins from $CLIENTS mcjoin clients.
sa_joins() {
	split -n l/$CLIENTS -d "$SIM_DIR/ports.txt" "$SIM_DIR/part."
	t0=$(ms)
	k=2
	pids=
	for f in "$SIM_DIR"/part.??; do
		sim_run_at "$(printf 'H%05d' $k)" "$MCJOIN" -w 16 -f "$f" >"$f.out" 2>&1 &
		pids="$pids $!"
		k=$((k + 1))
	done
	# shellcheck disable=SC2086
	wait $pids
	answered=$(($(ms) - t0))
	ok=$(cat "$SIM_DIR"/part.??.out | sed -n 's/.* \([0-9]*\) ok,.*/\1/p' | awk '{ s += $1 } END { print s }')
	# the clients' own clock: from their first request to their last answer
	inclient=$(cat "$SIM_DIR"/part.??.out | sed -n 's/.*last_ms \([0-9.]*\),.*/\1/p' |
		sort -n | tail -n 1)
	rm -f "$SIM_DIR"/part.*
}

ibsmd_up() {
	SOCK=$SIM_DIR/ibsmd.$1.sock
	# shellcheck disable=SC2086
	sim_bg sh -c 'f=$1; shift; exec "$@" 2>"$f"' sh "$SIM_DIR/ibsmd.$1.log" "$IBSMD" \
		-o socket_path="$SOCK" -o state_dir="$SIM_DIR/state.$1" -o log_level=info ${IBSMD_OPTS:-}
	SM=$SIM_BG_PID
	i=0
	until timeout 10 "$CTL" -s "$SOCK" --json status 2>/dev/null | grep -q '"subnet_up":true'; do
		i=$((i + 1))
		[ $i -gt 1200 ] && fail "ibsmd not up"
		sleep 0.1
	done
}

opensm_joins() { sa_joins; }
ibsmd_sa_up() { ibsmd_up "sa$1"; }
ibsmd_sa_joins() { sa_joins; }

ibsmd_joins() {
	t0=$(ms)
	timeout 60 "$CTL" -s "$SOCK" --json mcast_join "$BCAST" all >"$SIM_DIR/join.json"
	answered=$(($(ms) - t0))
	inclient=NA
	ok=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["result"]["joined"])' <"$SIM_DIR/join.json")
}

stop_sm() {
	kill "$POLL" "$SM" 2>/dev/null
	wait "$POLL" "$SM" 2>/dev/null
	sim_stop
}

# one SM RUN TRACE: a fresh simulator, the SM up, the storm.
one() {
	sim_start "$NET"
	"$1_up" "$2"
	prepare
	poll_start
	mark=$(($(wc -l <"$SIM_LOG") + 1))
	[ "$3" = trace ] && sim_cmd "Verbose 3" && mark=$(($(wc -l <"$SIM_LOG") + 1))
	"$1_joins"
	programmed "$t0"
	[ "$3" = trace ] && sim_cmd "Verbose 0"
	if [ "$3" = trace ]; then
		echo "$1 run=$2 (traced) joins_ok=$ok mft_sets=$(mft_sets "$mark") tree_switches=$(cat "$SIM_DIR/tree.txt")"
	else
		echo "$1 run=$2 joins_ok=$ok answered_ms=$answered clients_last_ms=$inclient programmed_ms=$prog" \
			"joins_per_s=$((ok * 1000 / (answered > 0 ? answered : 1)))" \
			"tree_switches=$(cat "$SIM_DIR/tree.txt")"
	fi
	lg=$SIM_DIR/ibsmd.$2.log
	[ "$1" = ibsmd_sa ] && lg=$SIM_DIR/ibsmd.sa$2.log
	[ "$1" != opensm ] && grep "multicast: batch" "$lg" | sed 's/^<[0-9]>/  ibsmd log: /'
	stop_sm
}

for run in ${RUNS:-1 2 3}; do
	for sm in ${SMS:-opensm ibsmd_sa ibsmd}; do
		one "$sm" "$run" plain
	done
done
for sm in ${SMS:-opensm ibsmd_sa ibsmd}; do
	one "$sm" 4 trace
done
