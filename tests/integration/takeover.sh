#!/bin/sh
# DOC: groups, services and subscriptions across a takeover (issue 23,
# section 3), on ibsim's 32-host two-level tree:
#   - ibsmd a (priority 5) is master, ibsmd b (0) standby. Hosts join the
#     IPoIB broadcast group and a second group, one registers a service,
#     one subscribes to trap 66; b copies it all through a's SA (its log:
#     "copied the master's state", with the counts) and sends no Set;
#   - kill -9 of a: b takes over serving the same MCMemberRecords (MGID,
#     MLID, JoinState of every member port, saquery narrow queries) and
#     the service at once, the switches' MFTs reach the members
#     (mftcheck.py), a new host's plain join of the existing group works,
#     and no port gets ClientReregister (the simulator's packet trace);
#   - OpenSM master, ibsmd c standby (it cannot copy OpenSM's state and
#     says so); kill -9 of OpenSM: c takes over and sets ClientReregister
#     on every CA port, once (trace: 32 Sets to 32 different ports).
. "$top_srcdir/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/sm_lib.sh"
skip_unless_tools saquery ibroute ibswitches ibnetdiscover opensm

IBSMD=$top_builddir/daemon/ibsmd
CTL=$top_builddir/cli/ibsmctl
JOIN=$top_builddir/tests/agent/mcjoin
AGENT=$top_builddir/tests/agent/sa_agent
TRACE="python3 $top_srcdir/tests/integration/simtrace.py"
CHECK="python3 $top_srcdir/tests/integration/mftcheck.py"
for x in "$IBSMD" "$CTL" "$JOIN" "$AGENT"; do
	[ -x "$x" ] || hard_error "$x not built"
done

sim_setup
topo_gen "$SIM_DIR/ft.net" ft2 8
sim_start "$SIM_DIR/ft.net"
die() {
	for f in "$SIM_DIR"/*.log; do
		[ "$f" = "$SIM_LOG" ] || { echo "== $f"; tail -n 15 "$f"; } >&2
	done
	fail "$*"
}

# ---------------------------------------------------------------- ibsmd to ibsmd
start_sm a H00001 5
until_state a master 10
start_sm b H00002 0
until_state b standby 10
BC=ff12:401b:ffff::ffff:ffff
G2=ff12:401b:ffff::1:ff00:2
MEMBERS=
join_hosts $BC H00003 H00004 H00009 H00010 H00017 H00025
join H00005 --create -g $G2 "$(guid_of H00005)" || { cat "$SIM_DIR/j.out" >&2; die "create failed"; }
M2=$(field mlid)
MEMBERS="$MEMBERS H00005"
join_hosts $G2 H00011
G7=$(guid_of H00007)
T=10 sim_run_at H00007 "$AGENT" req 0x02 0x31 0x57 \
	"00000000000012ab fe80000000000000$G7 ffff 0000 00000e10 00000000000000000000000000000000 6b6565702d74657374" \
	>"$SIM_DIR/sr.out" 2>&1 && grep -q "^status 0x0000" "$SIM_DIR/sr.out" ||
	die "service registration: $(cat "$SIM_DIR/sr.out")"
line=$(wc -l <"$SIM_DIR/b.log")
until_log b "copied the master's state: 2 groups, 8 memberships, 1 services, 0 subscriptions" 30
grep -q 'BUG: SMP Set' "$SIM_DIR/b.log" && die "the standby tried a Set"
# shellcheck disable=SC2086
sa_view "$SIM_DIR/before.txt" $MEMBERS
grep -q "$M2" "$SIM_DIR/before.txt" || { cat "$SIM_DIR/before.txt" >&2; die "no $M2 in the view"; }
msg "a master, b standby: b copied 2 groups, 8 memberships and a service through a's SA"

line=$(wc -l <"$SIM_LOG")
sim_cmd "Verbose 3"
kill9 a
until_state b master 5
until_log b "done in.*subnet UP" 10
sleep 1
sim_cmd "Verbose 0"
grep -q "taken over from the master's state as the standby copied it: 2 multicast groups" \
	"$SIM_DIR/b.log" || die "b did not take the copy over"
set -- $($TRACE "$SIM_LOG" --from-line "$line" | tr '=' ' ')
[ "${12}" = 0 ] || die "the takeover set ClientReregister ${12} times"
# shellcheck disable=SC2086
sa_view "$SIM_DIR/after.txt" $MEMBERS
diff -u "$SIM_DIR/before.txt" "$SIM_DIR/after.txt" >&2 || die "MCMemberRecords or services differ after the takeover"
join H00030 -g $BC "$(guid_of H00030)" || { cat "$SIM_DIR/j.out" >&2; die "plain join after the takeover"; }
[ "$(field mlid)" = 0xc000 ] || die "the broadcast group moved to $(field mlid)"
sim_run ibnetdiscover >"$SIM_DIR/disc.txt" || die "ibnetdiscover failed"
SOCK=$SIM_DIR/b/sock
wait_idle   # the join's tables go out in a batch after its answer
for l in $(sim_run ibswitches | sed -n 's/.* lid \([0-9]*\) .*/\1/p'); do
	sim_run ibroute -M "$l" 0xc000 0xc01f || die "ibroute -M $l failed"
done >"$SIM_DIR/mft.txt"
$CHECK --strict --topo "$SIM_DIR/disc.txt" --mft "$SIM_DIR/mft.txt" --mlid 0xc000 \
	--members "H00003,H00004,H00009,H00010,H00017,H00025,H00030" || die "MFTs of 0xc000 wrong"
$CHECK --strict --topo "$SIM_DIR/disc.txt" --mft "$SIM_DIR/mft.txt" --mlid "$M2" \
	--members "H00005,H00011" || die "MFTs of $M2 wrong"
msg "kill -9 of a: b serves the same records and service at once, MFTs reach the members, a new host joins at 0xc000, no ClientReregister"
stop b

# ---------------------------------------------------------------- OpenSM to ibsmd
rm -rf "$SIM_DIR/osm" && mkdir -p "$SIM_DIR/osm"
SIM_HOST=H00002 sim_bg sh -c 'exec "$@" >/dev/null 2>&1' sh env OSM_TMP_DIR="$SIM_DIR/osm" \
	OSM_CACHE_DIR="$SIM_DIR/osm" opensm -f "$SIM_DIR/osm/osm.log" -p 1 -R ftree
PID_osm=$SIM_BG_PID
sleep 3   # OpenSM's log is not flushed line by line: c's election says when it is master
start_sm c H00001 0
until_state c standby 10
until_log c "does not show its clients' state to us" 10
grep -q 'BUG: SMP Set' "$SIM_DIR/c.log" && die "the standby tried a Set"
line=$(wc -l <"$SIM_LOG")
sim_cmd "Verbose 3"
kill9 osm
until_state c master 10
until_log c "done in.*subnet UP" 10
sleep 1
sim_cmd "Verbose 0"
set -- $($TRACE "$SIM_LOG" --from-line "$line" | tr '=' ' ')
[ "${12}" = 32 ] && [ "${14}" = 32 ] ||
	die "ClientReregister: ${12} Sets to ${14} ports, not one to each of the 32 CA ports"
msg "OpenSM master, c standby: no copy; kill -9 of OpenSM: c set ClientReregister on all 32 CA ports, once each"
stop c
exit 0
