#!/bin/sh
# DOC: the performance manager's queries go over the nodes side by side.
#
# ibsim's 128-host 2-level tree (gen_topo ft2 16: 16-port switches, so 32
# counter queries a round to each switch's one LID), ibsmd polling every
# second, ibsim's packet trace on for the first rounds. ibsim processes one
# MAD at a time in the order they came, so queries sent to one node back
# to back reach it back to back; and it answers each as it processes it,
# so a node's slots come free in the order its queries went out, by when
# the round has gone on to other nodes (answers in another order could
# give a node more than 4 in a row without ever more than 4 outstanding,
# on hardware; not under ibsim). With perfmgr_per_node 4 (the default) the
# first half of the trace's PerfMgt queries never has more than 4 in a row
# to one node (tests/integration/simtrace.py --pma-runs), where all 32 of a
# switch's went out together before. The rounds still read every port.
. "$top_srcdir/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/sm_lib.sh"
skip_unless_tools

IBSMD=$top_builddir/daemon/ibsmd
TRACE="python3 $top_srcdir/tests/integration/simtrace.py"
[ -x "$IBSMD" ] || hard_error "build ibsmd"

sim_setup
topo_gen "$SIM_DIR/net" ft2 16
sim_start "$SIM_DIR/net"
mkdir -p "$SIM_DIR/sm"
sim_cmd "Verbose 3"
mark=$(wc -l <"$SIM_LOG")
SIM_HOST=H00001 sim_bg sh -c 'f=$1; shift; exec "$@" 2>"$f"' sh "$SIM_DIR/sm.log" \
	"$IBSMD" -o state_dir="$SIM_DIR/sm" -o socket_path="$SIM_DIR/sm/sock" \
	-o log_level=info -o perfmgr_interval=1
until_log sm 'PM: round 2 done' 60
sim_cmd "Verbose 0"

grep 'PM: round 2 done' "$SIM_DIR/sm.log" | grep -q ' 512 ports, 1024 queries, 0 failed' ||
	fail "round 2 did not read all 512 ports: $(grep 'PM: round' "$SIM_DIR/sm.log")"
$TRACE "$SIM_LOG" --from-line "$mark" --pma-runs >"$SIM_DIR/runs" || fail "simtrace failed"
msg "trace: $(cat "$SIM_DIR/runs")"
set -- $(tr ' =' '  ' <"$SIM_DIR/runs")
# pma Q nodes N longest L
[ "$2" -ge 2048 ] || fail "only $2 PerfMgt queries in the trace"
[ "$4" -eq 152 ] || fail "the queries reached $4 nodes, not the 24 switches and 128 CAs"
[ "$6" -ge 1 ] && [ "$6" -le 4 ] || fail "$6 PerfMgt queries in a row to one node (perfmgr_per_node 4)"
kill -TERM "$SIM_BG_PID"
wait "$SIM_BG_PID" 2>/dev/null
! grep -q "ERROR: AddressSanitizer\|ERROR: LeakSanitizer\|runtime error" "$SIM_DIR/sm.log" ||
	{ grep -A 20 "Sanitizer\|runtime error" "$SIM_DIR/sm.log" | head -n 40 >&2; fail "sanitizer report"; }
msg "at most $6 PerfMgt queries in a row to one node"
