#!/bin/sh
# DOC: the pipelined bring-up on ibsim, judged from the simulator's packet
# trace (Verbose 3, simtrace.py).
#
#   order      `ibsmd --once` on a 2-level tree of 152 nodes, with LMC 7
#              (128 LIDs per host, 257 LFT blocks per switch: the table
#              writes outlast the rest, as on large fabrics) and at window
#              8, so that switches are written in waves: no port is Set
#              ACTIVE before every LFT block and the LinearFDBTop of its
#              switch, and of the switch at the other end of its link, were
#              written, nor ARMED before then while the other end is
#              ACTIVE; and the order is the pipelined one, not a barrier:
#              links went ACTIVE before the last table Set. Again at the
#              default window and LMC.
#   riding     the partition enforcement bits ride on the state Sets: the
#              trace holds exactly the PortInfo Sets ibsmd counts as LID
#              and state Sets, none of their own.
#   restart    the simulator restarted (switches empty, as after a power
#              cycle), ibsmd restarted with the same state directory: the
#              switches hold no tables, so it routes afresh instead of
#              repairing nothing entry by entry; the subnet comes up with
#              the same SMPs as the first time.
. "$top_srcdir/tests/integration/lib.sh"
skip_unless_tools

IBSMD=$top_builddir/sm/ibsmd
TRACE="python3 $top_srcdir/tests/integration/simtrace.py"
[ -x "$IBSMD" ] || hard_error "build ibsmd"

sim_setup
net=$SIM_DIR/ft2-16.net
topo_gen "$net" ft2 16
mkdir "$SIM_DIR/state"

# bringup NAME [ibsmd args]: one traced --once run; its summary in
# $SIM_DIR/NAME.out, the trace's first line in $mark.
bringup() {
	name=$1
	shift
	sim_cmd "Verbose 3"
	mark=$(wc -l <"$SIM_LOG")
	T=120 sim_run "$IBSMD" --once --state-dir "$SIM_DIR/state" -o log_level=info "$@" \
		>"$SIM_DIR/$name.out" 2>"$SIM_DIR/$name.err" ||
		fail "$name: ibsmd --once failed: $(tail -n 3 "$SIM_DIR/$name.err")"
	sim_cmd "Verbose 0"
	grep -q '^subnet up:' "$SIM_DIR/$name.out" || fail "$name: subnet not up"
}

field() {
	tr ' ' '\n' <"$1" | sed -n "s/^$2=//p" | head -n 1
}

# order NAME: the trace since $mark obeys the rule.
order() {
	$TRACE "$SIM_LOG" --from-line "$mark" --order "$net" >"$SIM_DIR/$1.order" ||
		{ cat "$SIM_DIR/$1.order" >&2; fail "$1: a port went ACTIVE before its switches' tables"; }
	msg "$1: $(head -n 1 "$SIM_DIR/$1.order")"
}

sim_start "$net"
bringup narrow -o smp_window=8 -o lmc=7
order narrow
[ "$(field "$SIM_DIR/narrow.order" active_overlapped)" -gt 0 ] ||
	fail "narrow: no link ACTIVE before the last table Set: not pipelined"

# The PortInfo Sets in the trace are exactly the LID and state Sets.
sets=$($TRACE "$SIM_LOG" --from-line "$mark" | tr ' ' '\n' | sed -n 's/^portinfo=//p')
want=$(($(field "$SIM_DIR/narrow.out" portinfo_sets) + $(field "$SIM_DIR/narrow.out" state_sets)))
grep -q 'P_Keys: .* [1-9][0-9]* enforcement changes' "$SIM_DIR/narrow.err" ||
	fail "riding: no enforcement change to carry (the check cannot fail?)"
[ "$sets" = "$want" ] ||
	fail "riding: $sets PortInfo Sets in the trace, $want LID and state Sets"
msg "riding: $sets PortInfo Sets, all LID or state Sets"

sim_stop
rm -rf "$SIM_DIR/state"
mkdir "$SIM_DIR/state"
sim_start "$net"
bringup wide
order wide
first=$(field "$SIM_DIR/wide.out" smps_sent)

sim_stop
sim_start "$net"
bringup restart
order restart
grep -q 'no switch holds routes, routing afresh' "$SIM_DIR/restart.err" ||
	fail "restart: no fresh routing on empty switches"
! grep -q 'route repair:' "$SIM_DIR/restart.err" ||
	fail "restart: repaired routes on switches that hold nothing"
[ "$(field "$SIM_DIR/restart.out" smps_sent)" = "$first" ] ||
	fail "restart: $(field "$SIM_DIR/restart.out" smps_sent) SMPs, $first the first time"
msg "restart: routed afresh, $first SMPs as the first time"
