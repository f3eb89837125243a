#!/bin/sh
# DOC: one ibsmd bring-up on a simulated fabric, measured like OpenSM's.
#
# Usage: bench/ibsmd-once.sh NETFILE [--restart] [-- extra ibsmd args]
#
# Starts ibsim on NETFILE, runs `ibsmd --once` at SIM_HOST (default: the
# first node of the file) with a fresh state directory and prints:
#
#   ibsmd wall_ms=W cpu_ms=C up_ms=U discover_ms=D discover_smps=E smps_sent=S smps_min=M
#         smps_xmit=X smps_after_up=A lids=L rss_kb=R
#
# With --restart it then stops the simulator, starts a new one on the same
# file (every switch and port as after a power cycle) and runs ibsmd again
# with the same state directory (its LID and link files kept): the line
# printed is that second run's. $IBSMD_LABEL replaces the first word
# ("ibsmd"), so that two builds can be told apart in one run.
#
# With $FLOOD_SMPS (a count) bench/smp-flood runs on the same simulator
# just before and just after the measured run (its Gets change nothing),
# and flood_rate=R is added: the mean of the two rates, the bed's SMP rate
# at the time of the run (see flood-once.sh).
#
# wall_ms      launch to exit, as in opensm-once.sh
# cpu_ms       ibsmd's user+sys CPU time, as in opensm-once.sh
# up_ms        the daemon's own elapsed_ms (start of sweep to subnet up)
# discover_ms  the daemon's own discovery_ms
# discover_smps  and its discovery_smps: the SMPs discovery sent
# smps_sent    the daemon's own count of SMPs sent, to subnet up
# smps_after_up  and after it, before it exits (the read-back of the P_Key
#              tables it took for the reset ones, and any write-back)
# smps_min     the daemon's count of the SMPs this bring-up could not do
#              without (sm/sweep.c smps_minimum): one NodeInfo across every
#              link and the local one, NodeDescription per node, SwitchInfo
#              per switch, PortInfo of every switch port (0..N) and of every
#              CA port, then the Sets that really changed something: PortInfo
#              (LID, SM LID...), LFT blocks, SwitchInfo (LinearFDBTop) and
#              the two state Sets (ARMED, ACTIVE) of every linked port
# smps_xmit    PortXmitPkts of the SM's port, measured exactly as for
#              OpenSM (cleared first; MADs to the SM's own HCA excluded), so
#              the two SMs are compared by the same independent counter
# lids         ports that ibnetdiscover finds with a non-zero LID afterwards
# rss_kb       ibsmd's peak resident set size (GNU time's %M), NA without
#              /usr/bin/time
#
# The binary is $IBSMD, else $top_builddir/daemon/ibsmd, else ibsmd in PATH;
# $IBSMD_CONF, if set, is passed with -c.  Exit 77 when there is no binary.

set -u
here=$(cd "$(dirname "$0")" && pwd)
: "${top_srcdir:=$(cd "$here/.." && pwd)}"
. "$top_srcdir/tests/integration/lib.sh"

[ $# -ge 1 ] || { echo "usage: $0 NETFILE [--restart] [-- ibsmd args]" >&2; exit 2; }
netfile=$1
shift
restart=0
if [ "${1:-}" = --restart ]; then
	restart=1
	shift
fi
[ "${1:-}" = -- ] && shift
skip_unless_tools perfquery

ibsmd=${IBSMD:-}
[ -z "$ibsmd" ] && [ -x "$top_builddir/daemon/ibsmd" ] && ibsmd=$top_builddir/daemon/ibsmd
[ -z "$ibsmd" ] && ibsmd=$(command -v ibsmd)
if [ -z "$ibsmd" ] || [ ! -x "$ibsmd" ]; then
	skip "no ibsmd binary (build daemon/ibsmd or set IBSMD)"
fi
case $ibsmd in /*) ;; *) ibsmd=$(pwd)/$ibsmd ;; esac

sm_node=${SIM_HOST:-$(sed -n 's/^\(Switch\|Hca\|Ca\)[[:space:]].*"\([^"]*\)".*/\2/p' \
	"$netfile" | head -n 1)}

sim_setup
SIM_DIR_STATE=$SIM_DIR/state
SIM_DIR_RSS=$SIM_DIR/rss
mkdir "$SIM_DIR_STATE"
set -- --once --state-dir "$SIM_DIR_STATE" "$@"
[ -n "${IBSMD_CONF:-}" ] && set -- -c "$IBSMD_CONF" "$@"
timer=
[ -x /usr/bin/time ] && timer="/usr/bin/time -o $SIM_DIR_RSS -f %M"

# flood: smp-flood on the running simulator, its rate appended to $rates.
rates=
flood() {
	[ -n "${FLOOD_SMPS:-}" ] || return 0
	_f=$(T=${T:-600} sim_run_at "$sm_node" "${SMP_FLOOD:-$top_builddir/bench/smp-flood}" \
		-n "$FLOOD_SMPS") || fail "smp-flood failed: $_f"
	rates="$rates $(printf '%s\n' "$_f" | tr ' ' '\n' | sed -n 's/^rate=//p')"
}

# run_once: ibsmd --once on the running simulator, its summary in $summary.
run_once() {
	sim_cmd "PerformanceSet \"$sm_node\"[1] PortCounters.PortXmitPkts=0"
	# shellcheck disable=SC2086
	T=${T:-600} sim_timed "$SIM_DIR/times" "$sm_node" $timer "$ibsmd" "$@" \
		>"$SIM_DIR/stdout" 2>"$SIM_DIR/stderr" ||
		fail "ibsmd exited with $? ($(tail -n 3 "$SIM_DIR/stderr"))"
	summary=$(grep '^subnet ' "$SIM_DIR/stdout" | tail -n 1)
	case $summary in
	"subnet up:"*) ;;
	*) fail "no 'subnet up' summary: $summary" ;;
	esac
}

sim_start "$netfile"
if [ "$restart" = 1 ]; then
	run_once "$@"
	sim_stop
	sim_start "$netfile"
fi
flood
run_once "$@"
read -r wall cpu <"$SIM_DIR/times"
field() {
	printf '%s\n' "$summary" | tr ' ' '\n' | sed -n "s/^$1=//p" | head -n 1
}

xmit=$(sim_run_at "$sm_node" perfquery 2>/dev/null |
	sed -n 's/^PortXmitPkts:\.*\([0-9]*\)$/\1/p')
lids=$(sim_run ibnetdiscover 2>/dev/null | ibnet_norm --lids | grep -c '^LID .* [1-9][0-9]*$')
flood
rss=NA
[ -n "$timer" ] && rss=$(tail -n 1 "$SIM_DIR_RSS")
# Integer milliseconds, like opensm-once.sh.
up=$(field elapsed_ms | sed 's/\..*//')
disc=$(field discovery_ms | sed 's/\..*//')
line="${IBSMD_LABEL:-ibsmd} wall_ms=$wall cpu_ms=$cpu up_ms=${up:-NA} discover_ms=${disc:-NA}"
line="$line discover_smps=$(field discovery_smps)"
line="$line smps_sent=$(field smps_sent) smps_min=$(field smps_min) smps_xmit=${xmit:-NA}"
line="$line smps_after_up=$(field smps_after_up)"
line="$line lids=$lids rss_kb=$rss"
# shellcheck disable=SC2086
[ -n "$rates" ] && line="$line flood_rate=$(echo $rates | awk '{ printf "%.0f", ($1 + $2) / 2 }')"
echo "$line"
