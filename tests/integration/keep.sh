#!/bin/sh
# DOC: what hosts built through the SA survives a kill -9 and restart of
# ibsmd (issue 23, section 3), on ibsim's 32-host two-level tree:
#   - eight hosts join the IPoIB broadcast group for their own port
#     (mcjoin), one creates a second group that three others join, one
#     joins send-only; a host registers a ServiceRecord with a lease, and
#     another subscribes to trap 66 (sa_agent, kept running);
#   - kill -9, restart with the same state_dir: the MCMemberRecords of
#     every member port (saquery narrow queries), the MLIDs, the switches'
#     MFTs (ibroute -M) are as before; the restarted daemon writes no MFT
#     block (its log, and the simulator's packet trace: no MFT Set) and
#     sets no ClientReregister; a new host's plain IPoIB join of each
#     existing group works (0x0600 without the groups); the service is
#     found (saquery SR) with its lease still running; a group created now
#     gives the old subscriber its Report 66;
#   - a damaged state file: one log line says it was refused, the subnet
#     comes up, the groups are the partitions' only, and every CA port
#     gets ClientReregister once (trace).
. "$top_srcdir/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/sm_lib.sh"
skip_unless_tools saquery ibroute ibswitches

IBSMD=$top_builddir/sm/ibsmd
CTL=$top_builddir/cli/ibsmctl
JOIN=$top_builddir/tests/agent/mcjoin
AGENT=$top_builddir/tests/agent/sa_agent
TRACE="python3 $top_srcdir/tests/integration/simtrace.py"
for x in "$IBSMD" "$CTL" "$JOIN" "$AGENT"; do
	[ -x "$x" ] || hard_error "$x not built"
done
export SIM_HOST=H00001

sim_setup
topo_gen "$SIM_DIR/ft.net" ft2 8
sim_start "$SIM_DIR/ft.net"
SOCK=$SIM_DIR/ibsmd.sock
STATE=$SIM_DIR/state
LOG=$SIM_DIR/ibsmd.log
die() {
	tail -n 30 "$LOG" >&2
	fail "$*"
}

# up N: ibsmd, log in $SIM_DIR/ibsmd.log.N (and $LOG), pid in PID_d; waits
# for the subnet and for multicast programming to settle.
up() {
	LOG=$SIM_DIR/ibsmd.log.$1
	sim_bg sh -c 'exec "$0" -o socket_path="$1" -o state_dir="$2" -o log_level=info \
		-o light_sweep_interval=1 2>"$3"' "$IBSMD" "$SOCK" "$STATE" "$LOG"
	PID_d=$SIM_BG_PID
	i=0
	until grep -q "subnet UP" "$LOG" 2>/dev/null; do
		i=$((i + 1))
		[ $i -gt 300 ] && die "subnet not up"
		kill -0 "$PID_d" 2>/dev/null || die "ibsmd died"
		sleep 0.1
	done
	wait_idle
}

# view FILE: the SA's records of the members and the services
# (sm_lib.sh sa_view), and the MFTs of every switch.
view() {
	# shellcheck disable=SC2086
	sa_view "$1" $MEMBERS
	for l in $(sim_run ibswitches | sed -n 's/.* lid \([0-9]*\) .*/\1/p'); do
		echo "== switch $l"
		sim_run ibroute -M "$l" 0xc000 0xc01f || echo "ibroute -M $l failed"
	done >>"$1" 2>&1
}

up 1
BC=ff12:401b:ffff::ffff:ffff
G2=ff12:401b:ffff::1:ff00:2
MEMBERS=
join_hosts $BC H00001 H00002 H00003 H00004 H00009 H00010 H00017 H00025
join H00005 --create -g $G2 "$(guid_of H00005)" || { cat "$SIM_DIR/j.out" >&2; die "create failed"; }
M2=$(field mlid)
MEMBERS="$MEMBERS H00005"
join_hosts $G2 H00006 H00011 H00026
join H00012 -j 8 -g $G2 "$(guid_of H00012)" || die "send-only join failed"
MEMBERS="$MEMBERS H00012"
msg "8 hosts in the broadcast group, 5 in $G2 (MLID $M2, one send-only)"

# A service with a lease of an hour, named "keep-test", from H00007.
G7=$(guid_of H00007)
PFX=fe80000000000000
NAME=6b6565702d74657374   # "keep-test"
T=10 sim_run_at H00007 "$AGENT" req 0x02 0x31 0x57 \
	"00000000000012ab $PFX$G7 ffff 0000 00000e10 00000000000000000000000000000000 $NAME" \
	>"$SIM_DIR/sr.out" 2>&1 || die "service registration failed: $(cat "$SIM_DIR/sr.out")"
grep -q "^status 0x0000" "$SIM_DIR/sr.out" || die "service registration: $(cat "$SIM_DIR/sr.out")"
# A subscriber to trap 66 that outlives the restart and waits for one Report.
T=90 sim_run_at H00008 "$AGENT" -t 80 subscribe 66 1 >"$SIM_DIR/sub.out" 2>&1 &
sub=$!
i=0
until grep -q subscribed "$SIM_DIR/sub.out" 2>/dev/null; do
	i=$((i + 1))
	[ $i -gt 150 ] && { cat "$SIM_DIR/sub.out" >&2; die "the subscriber did not subscribe"; }
	sleep 0.1
done
sleep 0.5   # the last change reaches the state file
view "$SIM_DIR/before.txt"
grep -q "$M2" "$SIM_DIR/before.txt" && grep -q keep-test "$SIM_DIR/before.txt" ||
	{ cat "$SIM_DIR/before.txt" >&2; die "the view before the restart misses something"; }

# --- kill -9 and restart
line=$(wc -l <"$SIM_LOG")
sim_cmd "Verbose 3"
kill9 d
up 2
sleep 1
sim_cmd "Verbose 0"
set -- $($TRACE "$SIM_LOG" --from-line "$line" | tr '=' ' ')
[ "${10}" = 0 ] || die "the simulator saw ${10} MFT Sets after the restart"
[ "${12}" = 0 ] || die "the simulator saw ${12} PortInfo Sets with ClientReregister"
view "$SIM_DIR/after.txt"
diff -u "$SIM_DIR/before.txt" "$SIM_DIR/after.txt" >&2 ||
	die "MCMemberRecords, MFTs or services differ after the restart"
grep "multicast: sweep batch" "$LOG" | grep -v " 0 written" &&
	die "the restarted daemon wrote MFT blocks"
grep -q "restored from the state file: 2 multicast groups (13 memberships" "$LOG" ||
	die "the restart did not say what it restored: $(grep -i restored "$LOG")"
msg "kill -9 and restart: MCMemberRecords, MLIDs, MFTs and the service as before; 0 MFT Sets, no ClientReregister"

# --- a new host joins the existing groups with IPoIB's plain join
join H00030 -g $BC "$(guid_of H00030)" || { cat "$SIM_DIR/j.out" >&2; die "plain join of $BC after the restart"; }
[ "$(field mlid)" = 0xc000 ] || die "the broadcast group moved to $(field mlid)"
join H00031 -g $G2 "$(guid_of H00031)" || { cat "$SIM_DIR/j.out" >&2; die "plain join of $G2 after the restart"; }
[ "$(field mlid)" = "$M2" ] || die "$G2 moved from $M2 to $(field mlid)"
msg "a new host's plain joins of both groups work, at their MLIDs"

# --- the subscription: a group created now is reported to the old subscriber
join H00016 --create -g ff12:401b:ffff::1:ff00:3 "$(guid_of H00016)" || die "third group not created"
wait "$sub" || { cat "$SIM_DIR/sub.out" >&2; die "the subscriber got no Report 66 after the restart"; }
msg "the subscription made before the restart got Report 66: $(grep report "$SIM_DIR/sub.out" | head -n 1)"

# --- a damaged state file: refused in one line, the subnet comes up, hosts are told
wait_idle
sleep 0.5
kill9 d
sed -i '0,/^member/s/^member/membre/' "$STATE/clients"
line=$(wc -l <"$SIM_LOG")
sim_cmd "Verbose 3"
up 3
sleep 1
sim_cmd "Verbose 0"
[ "$(grep -c "clients.*refused" "$LOG")" = 1 ] || die "no (or more than one) refusal line: $(grep -i clients "$LOG")"
groups=$(timeout 10 "$CTL" -s "$SOCK" --json tables | python3 -c '
import json, sys; print(json.load(sys.stdin)["result"]["multicast"]["groups"])')
[ "$groups" = 1 ] || die "$groups groups after a damaged file, not the partitions' 1"
set -- $($TRACE "$SIM_LOG" --from-line "$line" | tr '=' ' ')
[ "${14}" = 32 ] || die "ClientReregister went to ${14} ports (${12} Sets), not the 32 CA ports"
msg "a damaged state file: refused ($(grep "clients.*refused" "$LOG" | sed 's/^<[0-9]>//' | cut -c1-80)...), subnet up, ClientReregister to all 32 CA ports"
exit 0
