#!/bin/sh
# DOC: one reroute of one SM after an unplugged link, measured.
#
# Usage: bench/reroute-once.sh opensm|ibsmd NETFILE NODE PORT
#
# Starts ibsim on NETFILE, runs the SM as a daemon at SIM_HOST (default:
# the first node of the file), waits for the subnet to come up, dumps
# every switch's LFT (ibroute), unplugs NODE[PORT] (`Unlink "NODE"[PORT]`
# on the ibsim console), waits for the SM to finish the reroute, dumps the
# LFTs again and prints one line:
#
#   SM trap_to_last_ack_ms=T entries_changed=E min_changes=M a2a_max=A
#      a2a_bound=B ratio=R unrouted=U [trap_to_up_ms=P]
#
# trap_to_last_ack_ms  from the trap's arrival to the last LFT block
#                      acknowledged, as each SM logs it (see below)
# entries_changed      (switch, LID) entries that differ between the two
#                      dumps (diag_check.py lftdiff)
# min_changes          entries that forwarded into the unplugged link
#                      before: no repair can change fewer
# a2a_max, a2a_bound, ratio, unrouted
#                      all-to-all load on the repaired routes, see
#                      bench/congestion.py
# trap_to_up_ms        OpenSM only: trap to its next "SUBNET UP"
#
# ibsmd ($IBSMD, else $top_builddir/daemon/ibsmd) runs with -o state_dir=DIR
# -o log_level=info; the time is X from its own line "reroute N: last LFT
# block acknowledged X ms after the trap arrived".  Without that line the
# run fails: there is no other ibsmd number to take.
#
# OpenSM runs `opensm -R ftree` without -o, with its default log level
# (ERROR and INFO) except VERBOSE for osm_state_mgr.c (per-module logging)
# and the log flushed at every line.  Its log lines carry microsecond
# timestamps; the time is the difference between
#   start: the first "log_trap_info: Received Generic Notice ... num:128"
#          after the unplug (osm_trap_rcv.c, ERROR level: logged by the
#          dispatcher thread as it handles the trap, shortly after the
#          receive thread took the MAD off the wire);
#   end:   the first "SWITCHES CONFIGURED FOR UNICAST" box after it
#          (osm_state_mgr.c do_sweep, VERBOSE): OpenSM logs it once the
#          unicast manager has sent every changed LFT block and the wait
#          for pending transactions has seen every one of them answered.
# Its periodic light sweep (every 10 s) would land in the middle of some
# runs, so the unplug waits for one to finish first: the next is then
# 10 s away, well after the reroute.

set -u
here=$(cd "$(dirname "$0")" && pwd)
: "${top_srcdir:=$(cd "$here/.." && pwd)}"
. "$top_srcdir/tests/integration/lib.sh"

[ $# -eq 4 ] || { echo "usage: $0 opensm|ibsmd NETFILE NODE PORT" >&2; exit 2; }
sm=$1 netfile=$2 node=$3 port=$4
skip_unless_tools ibroute
cong="python3 $here/congestion.py"

sm_node=${SIM_HOST:-$(sed -n 's/^\(Switch\|Hca\|Ca\)[[:space:]].*"\([^"]*\)".*/\2/p' \
	"$netfile" | head -n 1)}

# wait_for FILE FROM_LINE REGEX SECONDS: until a line after FROM_LINE of
# FILE matches; fails when the time is up or the SM has died.
wait_for() {
	_n=0
	until tail -n +"$(($2 + 1))" "$1" 2>/dev/null | grep -q "$3"; do
		kill -0 "$SIM_BG_PID" 2>/dev/null || return 1
		_n=$((_n + 1))
		[ "$_n" -gt $(($4 * 10)) ] && return 1
		sleep 0.1
	done
}

# retry OUT DIAG ARGS...: a diag into OUT, tried three times.  A rare DR
# query fails once while the SM is busy (seen once in a few dozen runs).
retry() {
	_out=$1
	shift
	for _try in 1 2 3; do
		sim_run "$@" >"$_out" 2>"$SIM_DIR/diag.err" && return 0
		sleep 0.5
	done
	return 1
}

# dump_lfts TAG: ibnetdiscover to TAG.net, every switch's LFT to TAG.routes.
# Directed routes: the SM may rightly leave a switch unreachable by LID
# once a link is gone (up/down routing cannot reach a spine that lost its
# link to the SM's leaf), and -n skips a LID-routed query per entry.
dump_lfts() {
	retry "$SIM_DIR/$1.net" ibnetdiscover ||
		fail "ibnetdiscover failed: $(tail -n 2 "$SIM_DIR/diag.err")"
	: >"$SIM_DIR/$1.routes"
	$cong paths "$SIM_DIR/$1.net" >"$SIM_DIR/$1.paths" || fail "no path to some switch"
	while read -r path; do
		retry "$SIM_DIR/one.routes" ibroute -n -D "$path" ||
			fail "ibroute -D $path failed: $(tail -n 2 "$SIM_DIR/diag.err")"
		# -n drops the " : (destination)" tail that lftdiff expects.
		sed 's/^\(0x[0-9a-fA-F]* [0-9]*\) *$/\1 :/' "$SIM_DIR/one.routes" \
			>>"$SIM_DIR/$1.routes"
	done <"$SIM_DIR/$1.paths"
}

start_opensm() {
	osm=$SIM_DIR/osm
	mkdir "$osm"
	printf 'osm_state_mgr.c 0x07\n' >"$osm/permod.conf"
	printf 'per_module_logging_file %s\nforce_log_flush TRUE\n' \
		"$osm/permod.conf" >"$osm/opensm.conf"
	log=$osm/osm.log
	: >"$log"
	SIM_HOST=$sm_node sim_bg sh -c 'f=$1; shift; exec "$@" >"$f" 2>&1' sh \
		"$osm/stdout" env OSM_TMP_DIR="$osm" OSM_CACHE_DIR="$osm" \
		opensm -F "$osm/opensm.conf" -f "$log" -R ftree
	wait_for "$log" 0 'SUBNET UP' 600 || fail "opensm: no SUBNET UP"
}

start_ibsmd() {
	ibsmd=${IBSMD:-}
	[ -z "$ibsmd" ] && [ -x "${top_builddir:-}/daemon/ibsmd" ] && ibsmd=$top_builddir/daemon/ibsmd
	if [ -z "$ibsmd" ] || [ ! -x "$ibsmd" ]; then
		skip "no ibsmd binary (build daemon/ibsmd or set IBSMD)"
	fi
	case $ibsmd in /*) ;; *) ibsmd=$(pwd)/$ibsmd ;; esac
	mkdir "$SIM_DIR/state"
	log=$SIM_DIR/ibsmd.err
	: >"$log"
	SIM_HOST=$sm_node sim_bg sh -c 'f=$1; shift; exec "$@" 2>"$f"' sh "$log" \
		"$ibsmd" -o state_dir="$SIM_DIR/state" -o socket_path="$SIM_DIR/ibsmd.sock" -o log_level=info
	wait_for "$log" 0 'subnet UP' 600 || fail "ibsmd: no subnet UP ($(tail -n 3 "$log"))"
}

# opensm_ms START_LINE MSG: ms from the first trap 128 after START_LINE of
# the log to the first line after it containing MSG.  A box message sits
# on the lines after its time-stamped header, so keep the last stamp seen.
# Stamps look like "Nov 23 02:53:24 098199" (time of day, microseconds).
opensm_ms() {
	tail -n +"$(($1 + 1))" "$log" | awk -v msg="$2" '
	function us(t) { split($3, t, ":"); return ((t[1] * 60 + t[2]) * 60 + t[3]) * 1e6 + $4 }
	/^[A-Z][a-z][a-z] [ 0-9][0-9] [0-9:]+ [0-9]+ / { stamp = us() }
	!t0 && /log_trap_info: Received Generic Notice .*num:128/ { t0 = stamp; next }
	t0 && index($0, msg) { d = stamp - t0; if (d < 0) d += 86400e6
		printf "%.1f\n", d / 1000; found = 1; exit }
	END { if (!found) exit 1 }'
}

case $sm in
opensm) skip_unless_tools opensm ;;
ibsmd) ;;
*) echo "$0: unknown SM $sm" >&2; exit 2 ;;
esac

sim_start "$netfile"
"start_$sm"
dump_lfts before
min=$($cong mustchange "$SIM_DIR/before.net" "$SIM_DIR/before.routes" "$node" "$port") ||
	fail "cannot find the link ${node}[$port]"
mark=$(wc -l <"$log")
if [ "$sm" = opensm ]; then
	wait_for "$log" "$mark" 'LIGHT SWEEP COMPLETE' 15 || msg "no light sweep seen in 15 s"
	mark=$(wc -l <"$log")
fi
sim_cmd "Unlink \"$node\"[$port]"

extra=
ack='reroute [0-9]*: last LFT block acknowledged'
if [ "$sm" = opensm ]; then
	wait_for "$log" "$mark" 'SUBNET UP' 300 || fail "opensm: no SUBNET UP after the unplug"
	ms=$(opensm_ms "$mark" "SWITCHES CONFIGURED FOR UNICAST") ||
		fail "opensm: no trap 128, or no unicast configuration after it"
	up=$(opensm_ms "$mark" "SUBNET UP") || up=NA
	extra=" trap_to_up_ms=$up"
else
	wait_for "$log" "$mark" 'reroute [0-9]* done\|sweep [0-9]* done' 300 ||
		fail "ibsmd: no reroute or sweep finished after the unplug"
	# The time follows the "done" line at once; allow for the poll.
	wait_for "$log" "$mark" "$ack" 2 ||
		fail "ibsmd: no 'last LFT block acknowledged' line; it logged:" \
			"$(tail -n +"$((mark + 1))" "$log" | head -n 5)"
	ms=$(tail -n +"$((mark + 1))" "$log" | sed -n "s/.*$ack \([0-9.]*\) ms after.*/\1/p" |
		head -n 1)
fi
# A second pass (a trap that came in during the first) would still change
# the tables: give it time before reading them back.
sleep "${SETTLE:-1}"
dump_lfts after

changed=$(python3 "$top_srcdir/tests/integration/diag_check.py" lftdiff \
	"$SIM_DIR/before.routes" "$SIM_DIR/after.routes") || fail "lftdiff failed"
a2a=$($cong a2a "$SIM_DIR/after.net" "$SIM_DIR/after.routes") || fail "congestion.py failed"
echo "$sm trap_to_last_ack_ms=$ms entries_changed=$changed min_changes=$min $a2a$extra"
