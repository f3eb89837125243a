#!/bin/sh
# DOC: one ibsmd bring-up on a simulated fabric, measured like OpenSM's.
#
# Usage: bench/ibsmd-once.sh NETFILE [-- extra ibsmd args]
#
# Starts ibsim on NETFILE, runs `ibsmd --once` at SIM_HOST (default: the
# first node of the file) with a fresh state directory and prints:
#
#   ibsmd wall_ms=W cpu_ms=C up_ms=U discover_ms=D smps_sent=S smps_xmit=X lids=L
#
# wall_ms      launch to exit, as in opensm-once.sh
# cpu_ms       ibsmd's user+sys CPU time, as in opensm-once.sh
# up_ms        the daemon's own elapsed_ms (start of sweep to subnet up)
# discover_ms  the daemon's own discovery_ms
# smps_sent    the daemon's own count of SMPs sent
# smps_xmit    PortXmitPkts of the SM's port, measured exactly as for
#              OpenSM (cleared first; MADs to the SM's own HCA excluded), so
#              the two SMs are compared by the same independent counter
# lids         ports that ibnetdiscover finds with a non-zero LID afterwards
#
# The binary is $IBSMD, else $top_builddir/sm/ibsmd, else ibsmd in PATH;
# $IBSMD_CONF, if set, is passed with -c.  Exit 77 when there is no binary.

set -u
here=$(cd "$(dirname "$0")" && pwd)
: "${top_srcdir:=$(cd "$here/.." && pwd)}"
. "$top_srcdir/tests/integration/lib.sh"

[ $# -ge 1 ] || { echo "usage: $0 NETFILE [-- ibsmd args]" >&2; exit 2; }
netfile=$1
shift
[ "${1:-}" = -- ] && shift
skip_unless_tools perfquery

ibsmd=${IBSMD:-}
[ -z "$ibsmd" ] && [ -x "$top_builddir/sm/ibsmd" ] && ibsmd=$top_builddir/sm/ibsmd
[ -z "$ibsmd" ] && ibsmd=$(command -v ibsmd)
if [ -z "$ibsmd" ] || [ ! -x "$ibsmd" ]; then
	skip "no ibsmd binary (build sm/ibsmd or set IBSMD)"
fi
case $ibsmd in /*) ;; *) ibsmd=$(pwd)/$ibsmd ;; esac

sm_node=${SIM_HOST:-$(sed -n 's/^\(Switch\|Hca\|Ca\)[[:space:]].*"\([^"]*\)".*/\2/p' \
	"$netfile" | head -n 1)}

sim_start "$netfile"
st=$SIM_DIR/state
mkdir "$st"
sim_cmd "PerformanceSet \"$sm_node\"[1] PortCounters.PortXmitPkts=0"

set -- --once --state-dir "$st" "$@"
[ -n "${IBSMD_CONF:-}" ] && set -- -c "$IBSMD_CONF" "$@"
T=${T:-600} sim_timed "$SIM_DIR/times" "$sm_node" "$ibsmd" "$@" \
	>"$SIM_DIR/stdout" 2>"$SIM_DIR/stderr" ||
	fail "ibsmd exited with $? ($(tail -n 3 "$SIM_DIR/stderr"))"
read -r wall cpu <"$SIM_DIR/times"

summary=$(grep '^subnet ' "$SIM_DIR/stdout" | tail -n 1)
case $summary in
"subnet up:"*) ;;
*) fail "no 'subnet up' summary: $summary" ;;
esac
field() {
	printf '%s\n' "$summary" | tr ' ' '\n' | sed -n "s/^$1=//p" | head -n 1
}

xmit=$(sim_run_at "$sm_node" perfquery 2>/dev/null |
	sed -n 's/^PortXmitPkts:\.*\([0-9]*\)$/\1/p')
lids=$(sim_run ibnetdiscover 2>/dev/null | ibnet_norm --lids | grep -c '^LID .* [1-9][0-9]*$')
# Integer milliseconds, like opensm-once.sh.
up=$(field elapsed_ms | sed 's/\..*//')
disc=$(field discovery_ms | sed 's/\..*//')
echo "ibsmd wall_ms=$wall cpu_ms=$cpu up_ms=${up:-NA} discover_ms=${disc:-NA}" \
	"smps_sent=$(field smps_sent) smps_xmit=${xmit:-NA} lids=$lids"
