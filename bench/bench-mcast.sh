#!/bin/sh
# DOC: multicast join storm: every host of a fabric joins the IPoIB
# broadcast group at once; OpenSM and ibsmd on the same fabric, one after
# the other, each on a fresh simulator; medians and ratios.
#
# Usage: bench/bench-mcast.sh [NETFILE]     (default: gen_topo ft2 36, 648 hosts)
#
# For each SM and run: start it at H00001 and wait until the subnet is up;
# start 6 mcjoin clients (tests/agent/mcjoin.c) at H00002-H00007, each to
# proxy-join a sixth of the hosts' ports with SA MCMemberRecord Sets as
# IPoIB sends them (ibsim takes at most 10 clients: 6 + the SM + the
# poller); each opens its port, finds the SM and waits at a barrier (a
# FIFO, mcjoin --go) until all are ready and the MFT poller runs; then all
# are released at once. t0 is the earliest release as the clients saw it
# (their CLOCK_REALTIME), so no process start-up is timed. Per run:
#   joins_ok       joins answered with status 0 (of joins sent);
#   answered_ms    t0 until the last answer, from the clients' own clocks;
#   joins_per_s    joins_ok / answered_ms;
#   programmed_ms  t0 until the switches' MFTs form a tree reaching every
#                  member from every member, as a poller sees it that reads
#                  all switches' first MFT block at every position in rounds
#                  (mftdump -l) and judges each round with mftcheck.py: the
#                  end of the first whole round (an upper bound, at most
#                  one round of 216 SMPs on the 648-host tree late; its
#                  SMPs share the simulator with the SM's);
#   mft_needed     (block, position) MFT writes the final trees need: the
#                  non-empty (switch, block, position) triples of the last
#                  dump (a position is 16 ports: a 36-port switch's ports
#                  0-36 are 3 positions, ports 32-36 the third), since the
#                  simulator's MFTs start empty;
#   mft_sets       MFT Sets sent from t0 on, until 1 s after the tree was
#                  whole (TRACE_RUNS extra runs with the simulator's packet
#                  trace on, which slows it: their times are not used);
#   mft_sets_log   (ibsmd) the Sets of the plain run, from ibsmd's log;
#   tree_switches  switches of the final tree.
# SMS="..." picks SMs (default "opensm ibsmd"; "ibsmd_ctl" adds a row where
# all joins are one `ibsmctl mcast_join ... all` request: it calls the
# manager the SA calls, its answered_ms is that round trip and it is not in
# the default because it does not compare), RUNS="..." the plain runs
# (default 1 2 3), TRACE_RUNS the traced runs per SM (default 1),
# IBSMD_OPTS adds ibsmd options (e.g. "-o mcast_batch_ms=20").
# Prints every run, then per metric the medians and the ratio ibsmd/opensm
# (times: below 1 ibsmd is faster; joins_per_s: above 1).
set -u
here=$(cd "$(dirname "$0")" && pwd)
: "${top_srcdir:=$(cd "$here/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
. "$top_srcdir/tests/integration/lib.sh"
skip_unless_tools opensm ibnetdiscover ibswitches

IBSMD=$top_builddir/daemon/ibsmd
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
work=$SIM_DIR   # median.sh reads $work/runs
: >"$work/runs"
NET=${1:-}
if [ -z "$NET" ]; then
	NET=$SIM_DIR/ft36.net
	topo_gen "$NET" ft2 36
	label="ft2 36 (648 hosts, 54 switches)"
else
	label=$NET
fi
export SIM_HOST=H00001
ms() { echo $(($(date +%s%N) / 1000000)); }

# Port GUIDs of the hosts' port 1, one per line, from ibnetdiscover.
host_ports() {
	python3 -c '
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
' <"$SIM_DIR/disc.txt"
}

switch_lids() {
	sim_run ibswitches | sed -n 's/.* lid \([0-9]*\) .*/\1/p'
}

# The fabric as the judge needs it, read before the storm.
prepare() {
	sim_run ibnetdiscover >"$SIM_DIR/disc.txt"
	members=$(sed -n 's/^\(Ca\|Hca\).*"\(H[0-9]*\)".*/\2/p' "$SIM_DIR/disc.txt" |
		tr '\n' ',' | sed 's/,$//')
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

# programmed: wait for the poller; $done_at (epoch ms of the round that
# saw the whole tree, or empty) and the tree's switches in tree.txt (not a
# $(...): the poller is this shell's child).
programmed() {
	wait "$POLL"
	[ -n "${BENCH_DEBUG:-}" ] && cp "$SIM_DIR/check.txt" "$SIM_DIR/check.err" "$SIM_DIR/mft.txt" "$SIM_DIR/disc.txt" "$BENCH_DEBUG/"
	done_at=$(sed -n 's/.*done_at_ms \([0-9]*\).*/\1/p' "$SIM_DIR/check.txt")
	tree=$(sed -n 's/.*tree of \([0-9]*\) switches.*/\1/p' "$SIM_DIR/check.txt")
	[ -n "$tree" ] || tree=NA
}

# (block, position) MFT writes the last dump needs: non-empty (switch,
# block, position) triples. ibroute -M / mftdump rows mark port p in
# column 12 + 2p; the block of MLID m is (m - 0xC000) / 32, the position
# of port p is p / 16.
mft_needed() {
	awk '
	function hex(s,   i, v) {
		v = 0
		for (i = 1; i <= length(s); i++)
			v = v * 16 + index("0123456789abcdef", tolower(substr(s, i, 1))) - 1
		return v
	}
	/^Multicast mlids / { sw++; next }
	/^0x[0-9a-fA-F][0-9a-fA-F][0-9a-fA-F][0-9a-fA-F] / {
		b = int((hex(substr($1, 3)) - 49152) / 32)
		for (c = 13; c <= length($0); c += 2)
			if (substr($0, c, 1) == "x") need[sw " " b " " int((c - 13) / 2 / 16)] = 1
	}
	END { n = 0; for (k in need) n++; print n }' "$SIM_DIR/mft.txt"
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
	sim_bg env OSM_TMP_DIR="$osm" OSM_CACHE_DIR="$osm" opensm -f "$osm/osm.log" -R ftree -d2 \
		>"$osm/stdout" 2>&1
	SM=$SIM_BG_PID
	i=0
	until grep -q "SUBNET UP" "$osm/osm.log" 2>/dev/null; do
		i=$((i + 1))
		[ $i -gt 1200 ] && fail "OpenSM not up"
		sleep 0.1
	done
	sleep 1   # its first idle-time work settles (-d2: the log is flushed per line)
}

ibsmd_up() {
	LOG=$SIM_DIR/ibsmd.$1.log
	SOCK=$SIM_DIR/ibsmd.$1.sock
	# shellcheck disable=SC2086
	sim_bg sh -c 'f=$1; shift; exec "$@" 2>"$f"' sh "$LOG" "$IBSMD" \
		-o socket_path="$SOCK" -o state_dir="$SIM_DIR/state.$1" -o log_level=info ${IBSMD_OPTS:-}
	SM=$SIM_BG_PID
	i=0
	until timeout 10 "$CTL" -s "$SOCK" --json status 2>/dev/null | grep -q '"subnet_up":true'; do
		i=$((i + 1))
		[ $i -gt 1200 ] && fail "ibsmd not up"
		sleep 0.1
	done
}
ibsmd_ctl_up() { ibsmd_up "ctl$1"; }

# SA joins, part 1: the clients started, ready and waiting at the FIFO.
sa_ready() {
	rm -f "$SIM_DIR/go" "$SIM_DIR"/part.*
	mkfifo "$SIM_DIR/go" || hard_error "mkfifo failed"
	split -n l/$CLIENTS -d "$SIM_DIR/ports.txt" "$SIM_DIR/part."
	k=2
	pids=
	for f in "$SIM_DIR"/part.??; do
		sim_run_at "$(printf 'H%05d' $k)" "$MCJOIN" --go "$SIM_DIR/go" -w 16 -f "$f" >"$f.out" 2>&1 &
		pids="$pids $!"
		k=$((k + 1))
	done
	i=0
	until [ "$(cat "$SIM_DIR"/part.??.out 2>/dev/null | grep -c '^mcjoin: ready')" -eq $CLIENTS ]; do
		i=$((i + 1))
		[ $i -gt 600 ] && fail "mcjoin clients not ready: $(cat "$SIM_DIR"/part.??.out)"
		sleep 0.05
	done
}

# SA joins, part 2: release them, wait, sum up from their own clocks.
sa_go() {
	printf go >"$SIM_DIR/go"
	# shellcheck disable=SC2086
	wait $pids
	cat "$SIM_DIR"/part.??.out >"$SIM_DIR/clients.out"
	sent=$(wc -l <"$SIM_DIR/ports.txt")
	ok=$(sed -n 's/.* \([0-9]*\) ok,.*/\1/p' "$SIM_DIR/clients.out" | awk '{ s += $1 } END { print s + 0 }')
	t0=$(sed -n 's/.*go_epoch_ms \([0-9.]*\),.*/\1/p' "$SIM_DIR/clients.out" | sort -n | head -n 1)
	t0_last=$(sed -n 's/.*go_epoch_ms \([0-9.]*\),.*/\1/p' "$SIM_DIR/clients.out" | sort -n | tail -n 1)
	last=$(sed -n 's/.*last_epoch_ms \([0-9.]*\).*/\1/p' "$SIM_DIR/clients.out" | sort -n | tail -n 1)
	if [ -z "$t0" ] || [ -z "$last" ]; then
		sed 's/^/  mcjoin: /' "$SIM_DIR/clients.out" >&2
		fail "no client timestamps"
	fi
	answered=$(awk -v a="$t0" -v b="$last" 'BEGIN { printf "%.1f", b - a }')
	spread=$(awk -v a="$t0" -v b="$t0_last" 'BEGIN { printf "%.1f", b - a }')
}
opensm_ready() { sa_ready; }
opensm_go() { sa_go; }
ibsmd_ready() { sa_ready; }
ibsmd_go() { sa_go; }

ibsmd_ctl_ready() { :; }
ibsmd_ctl_go() {
	t0=$(ms)
	timeout 60 "$CTL" -s "$SOCK" --json mcast_join "$BCAST" all >"$SIM_DIR/join.json"
	answered=$(($(ms) - t0))
	spread=0
	sent=$(wc -l <"$SIM_DIR/ports.txt")
	ok=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["result"]["joined"])' <"$SIM_DIR/join.json")
}

stop_sm() {
	kill "$POLL" "$SM" 2>/dev/null
	wait "$POLL" "$SM" 2>/dev/null
	sim_stop
}

# one SM RUN MODE: a fresh simulator, the SM up, the storm; one line in
# $work/runs. MODE trace: only the counts (mft_sets, mft_needed).
one() {
	sim_start "$NET"
	LOG=
	"$1_up" "$2"
	prepare
	"$1_ready"
	poll_start
	mark=$(($(wc -l <"$SIM_LOG") + 1))
	[ "$3" = trace ] && sim_cmd "Verbose 3" && mark=$(($(wc -l <"$SIM_LOG") + 1))
	logmark=0
	[ -n "$LOG" ] && logmark=$(wc -l <"$LOG")
	"$1_go"
	programmed
	need=NA
	[ -n "$done_at" ] && need=$(mft_needed)
	if [ "$3" = trace ]; then
		sleep 1   # Sets sent after the tree was whole count too
		sim_cmd "Verbose 0"
		line="$1 run=t$2 joins_ok=$ok joins_sent=$sent mft_sets=$(mft_sets "$mark") mft_needed=$need tree_switches=$tree"
	else
		prog=NA
		[ -n "$done_at" ] && prog=$(awk -v a="$t0" -v b="$done_at" 'BEGIN { printf "%.1f", b - a }')
		rate=$(awk -v n="$ok" -v t="$answered" 'BEGIN { printf "%.0f", (t > 0 ? n * 1000 / t : 0) }')
		line="$1 run=$2 joins_ok=$ok joins_sent=$sent answered_ms=$answered joins_per_s=$rate programmed_ms=$prog"
		line="$line mft_needed=$need tree_switches=$tree release_spread_ms=$spread"
		if [ -n "$LOG" ]; then
			sleep 1   # a batch still running logs its Sets
			line="$line mft_sets_log=$(tail -n +"$((logmark + 1))" "$LOG" |
				sed -n 's/.*multicast: batch .* \([0-9]*\) written,.*/\1/p' |
				awk '{ s += $1 } END { print s + 0 }')"
		fi
	fi
	echo "$line" | tee -a "$work/runs"
	[ -n "$LOG" ] && tail -n +"$((logmark + 1))" "$LOG" | grep "multicast: batch" |
		sed 's/^<[0-9]>/  ibsmd log: /'
	[ -z "$done_at" ] && echo "  $1: the tree was never whole: $(head -n 3 "$SIM_DIR/check.txt")"
	stop_sm
}

SMS=${SMS:-opensm ibsmd}
for run in ${RUNS:-1 2 3}; do
	for sm in $SMS; do
		one "$sm" "$run" plain
	done
done
t=0
while [ "$t" -lt "${TRACE_RUNS:-1}" ]; do
	t=$((t + 1))
	for sm in $SMS; do
		one "$sm" "$t" trace
	done
done

# shellcheck source=bench/median.sh
. "$here/median.sh"
echo
echo "fabric: $label; runs: ${RUNS:-1 2 3} (+ ${TRACE_RUNS:-1} traced for mft_sets); medians"
cols="opensm ibsmd"
case " $SMS " in *" ibsmd_ctl "*) cols="$cols ibsmd_ctl" ;; esac
printf '%-14s' metric
for c in $cols; do printf ' %10s' "$c"; done
printf ' %13s\n' ibsmd/opensm
for m in joins_sent joins_ok answered_ms joins_per_s programmed_ms mft_sets mft_sets_log \
	mft_needed tree_switches; do
	printf '%-14s' "$m"
	for c in $cols; do printf ' %10s' "$(median "$c" "$m")"; done
	o=$(median opensm "$m")
	b=$(median ibsmd "$m")
	awk -v o="$o" -v b="$b" 'BEGIN {
		if (b !~ /^[0-9.]+$/ || o !~ /^[0-9.]+$/ || o == 0) printf " %13s\n", "-"
		else printf " %13.2f\n", b / o }'
done
