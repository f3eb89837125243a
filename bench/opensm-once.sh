#!/bin/sh
# DOC: one OpenSM bring-up on a simulated fabric, measured.
#
# Usage: bench/opensm-once.sh NETFILE [--exact] [-- extra opensm args]
#
# Starts ibsim on NETFILE, runs `opensm -o -R ftree` once at SIM_HOST
# (default: the first node of the file) and prints one line:
#
#   opensm wall_ms=W cpu_ms=C up_ms=U discover_ms=D smps_xmit=X [smps_exact=E]
#
# wall_ms      launch of opensm to its exit (includes process start/exit)
# cpu_ms       opensm's user+sys CPU time (the simulator's is not included)
# up_ms        opensm log: "Entering DISCOVERING state" to "SUBNET UP"
# discover_ms  opensm log: "Entering DISCOVERING state" to "Entering MASTER
#              state"; OpenSM enters MASTER after its first discovery sweep,
#              before routing and table upload, so this is the discovery cost
# smps_xmit    PortXmitPkts of the SM's port, cleared just before opensm
#              starts: every MAD that left the SM's HCA.  MADs to the SM's
#              own HCA (directed route, hop count 0) never leave it and are
#              not counted (9 of 1046 on small.net).
# smps_exact   with --exact: every MAD opensm handed to the simulator,
#              counted from ibsim's "Verbose 3" trace (slows the run, so its
#              times are not comparable).

set -u
here=$(cd "$(dirname "$0")" && pwd)
: "${top_srcdir:=$(cd "$here/.." && pwd)}"
. "$top_srcdir/tests/integration/lib.sh"

[ $# -ge 1 ] || { echo "usage: $0 NETFILE [--exact] [-- opensm args]" >&2; exit 2; }
netfile=$1
shift
exact=0
if [ "${1:-}" = --exact ]; then
	exact=1
	shift
fi
[ "${1:-}" = -- ] && shift
skip_unless_tools opensm perfquery

# The SM attaches where SIM_HOST says, else at the file's first node.
sm_node=${SIM_HOST:-$(sed -n 's/^\(Switch\|Hca\|Ca\)[[:space:]].*"\([^"]*\)".*/\2/p' \
	"$netfile" | head -n 1)}
sm_port=1

sim_start "$netfile"
osm=$SIM_DIR/osm
mkdir "$osm"
sim_cmd "PerformanceSet \"$sm_node\"[$sm_port] PortCounters.PortXmitPkts=0"
[ "$exact" = 1 ] && sim_cmd "Verbose 3"
mark=$(wc -l <"$SIM_LOG")

T=${T:-600} sim_timed "$SIM_DIR/times" "$sm_node" env OSM_TMP_DIR="$osm" \
	OSM_CACHE_DIR="$osm" opensm -f "$osm/osm.log" -o -R ftree "$@" \
	>"$osm/stdout" 2>&1 || fail "opensm exited with $? (see $osm/stdout)"
read -r wall cpu <"$SIM_DIR/times"
[ "$exact" = 1 ] && sim_cmd "Verbose 0"
grep -q 'SUBNET UP' "$osm/osm.log" || fail "opensm never reached SUBNET UP"

# Log lines start "Mon DD HH:MM:SS usec"; print ms between two messages.
log_ms() {
	awk -v a="$1" -v b="$2" '
	function us(line, t) { split($3, t, ":"); return ((t[1] * 60 + t[2]) * 60 + t[3]) * 1e6 + $4 }
	index($0, a) && !ta { ta = us($0) }
	index($0, b) && !tb { tb = us($0) }
	END { if (!ta || !tb) exit 1; d = tb - ta; if (d < 0) d += 86400e6; printf "%d\n", d / 1000 }
	' "$osm/osm.log"
}
up_ms=$(log_ms "Entering DISCOVERING state" "SUBNET UP") || up_ms=NA
disc_ms=$(log_ms "Entering DISCOVERING state" "Entering MASTER state") || disc_ms=NA

xmit=$(sim_run_at "$sm_node" perfquery 2>/dev/null |
	sed -n 's/^PortXmitPkts:\.*\([0-9]*\)$/\1/p')
line="opensm wall_ms=$wall cpu_ms=$cpu up_ms=$up_ms discover_ms=$disc_ms smps_xmit=${xmit:-NA}"
if [ "$exact" = 1 ]; then
	# Only opensm was attached while the trace was on: sim_cmd uses the
	# console, not a client.
	n=$(tail -n +"$mark" "$SIM_LOG" | grep -c "process_packet: client [0-9]*, size")
	line="$line smps_exact=$n"
fi
echo "$line"
