#!/bin/sh
# DOC: multicast on the simulator: MFTs read back with ibroute -M.
#
# On a 72-host two-level tree (gen_topo ft2 12) with a partitions file of
# the default partition and a tenant partition, both with IPoIB, ibsmd runs
# as a daemon and ports join through `ibsmctl mcast_join` (the manager's
# own API, as an SA join from the SM itself; SA joins from hosts are the
# SA's integration test):
#   - both broadcast groups exist before anybody joins, and no switch holds
#     a bit for them;
#   - every host joins the default broadcast group in one request: the MFTs
#     (ibroute -M, judged by mftcheck.py) form a tree that reaches every
#     member from every member and no other port, written in one batch
#     with exactly one block per tree switch;
#   - a host outside the tenant is refused the tenant's group;
#   - a new group with a send-only member: it reaches the others, receives
#     nothing; a leave prunes its branch;
#   - `ibsmctl path HOST MLID` walks the tree completely;
#   - a heavy sweep writes no MFT block;
#   - a host's link going down removes it from its groups;
#   - the failure of a link of the tree repairs it along the new routes.
. "$top_srcdir/tests/integration/lib.sh"
skip_unless_tools ibswitches ibroute

IBSMD=$top_builddir/daemon/ibsmd
CTL=$top_builddir/cli/ibsmctl
CHECK="python3 $top_srcdir/tests/integration/mftcheck.py"
[ -x "$IBSMD" ] && [ -x "$CTL" ] || hard_error "ibsmd or ibsmctl not built"
export SIM_HOST=H00001

sim_setup
topo_gen "$SIM_DIR/ft.net" ft2 12
sim_start "$SIM_DIR/ft.net"
SOCK=$SIM_DIR/ibsmd.sock
PARTS=$SIM_DIR/partitions.conf
guid_of() { sim_run_at "$1" smpquery -D nodeinfo 0 | sed -n 's/^PortGuid:\.*//p'; }
T1=$(guid_of H00002)
T2=$(guid_of H00040)
cat >"$PARTS" <<EOF
Default=0x7fff, ipoib : ALL=full ;
tenant=0x0010, ipoib : SELF=full, $T1=full, $T2=full ;
EOF
sim_bg sh -c 'exec "$0" -o socket_path="$1" -o state_dir="$2" -o partitions_file="$3" \
	-o log_level=info -o light_sweep_interval=1 -o flap_holddown_s=0 2>"$4"' \
	"$IBSMD" "$SOCK" "$SIM_DIR/state" "$PARTS" "$SIM_DIR/ibsmd.log"
DAEMON=$SIM_BG_PID

ctl() { timeout 30 "$CTL" -s "$SOCK" "$@"; }
jget() { python3 -c "import json,sys; r=json.load(sys.stdin)['result']; print($1)"; }
die() { tail -n 30 "$SIM_DIR/ibsmd.log" >&2; fail "$*"; }

wait_log() {
	i=0
	while c=$(grep -cs "$1" "$SIM_DIR/ibsmd.log"); [ "${c:-0}" -lt "$2" ]; do
		i=$((i + 1))
		[ "$i" -gt 300 ] && die "timed out waiting for '$1' x$2"
		kill -0 "$DAEMON" 2>/dev/null || die "ibsmd died"
		sleep 0.1
	done
}

# Programming done: no batch running or waiting.
wait_idle() {
	i=0
	until [ "$(ctl --json tables 2>/dev/null | jget 'not r["multicast"]["busy"] and not r["multicast"]["pending"]' 2>/dev/null)" = True ]; do
		i=$((i + 1))
		[ $i -gt 300 ] && die "multicast programming did not settle"
		sleep 0.1
	done
}

# ibroute -M LID from the first host that reaches the switch: after a link
# failure some leaves reach a spine's own LID only over the lost link.
ibroute_any() {
	for h in H00001 H00072 H00036 H00013; do
		sim_run_at "$h" ibroute -M "$1" 0xc000 0xc01f 2>/dev/null && return 0
	done
	return 1
}

# mft MLID MEMBERS [SEND_ONLY]: judge the switches' MFTs for MLID.
mft() {
	sim_run ibnetdiscover >"$SIM_DIR/disc.txt" || die "ibnetdiscover failed"
	for l in $(sim_run ibswitches | sed -n 's/.* lid \([0-9]*\) .*/\1/p'); do
		ibroute_any "$l" || die "ibroute -M $l failed"
	done >"$SIM_DIR/mft.txt"
	$CHECK --strict --topo "$SIM_DIR/disc.txt" --mft "$SIM_DIR/mft.txt" --mlid "$1" \
		--members "$2" --send-only "${3:-}" || die "MFTs of MLID $1 wrong"
}

wait_log "subnet UP" 1
wait_idle
ctl --json mcast >"$SIM_DIR/g0.json" || die "mcast failed"
[ "$(jget 'len(r["groups"])' <"$SIM_DIR/g0.json")" = 2 ] || die "not 2 pre-created groups"
[ "$(jget '[g["mlid"] for g in r["groups"] if g["mgid"] == "ff12:401b:8010::ffff:ffff"]' \
	<"$SIM_DIR/g0.json")" = "['0xc001']" ] || die "no tenant broadcast group at 0xc001"
mft 0xc000 ""
msg "$(jget 'len(r["groups"])' <"$SIM_DIR/g0.json") broadcast groups from the partitions file, empty"

ALL=$(seq -f 'H%05g' 1 72 | tr '\n' ',' | sed 's/,$//')
ctl mcast_join ff12:401b:ffff::ffff:ffff all >/dev/null || die "join failed"
wait_idle
mft 0xc000 "$ALL"
ctl --json mcast 0xc000 >"$SIM_DIR/g1.json"
nsw=$(jget 'r["tree"]["switches"]' <"$SIM_DIR/g1.json")
ctl --json tables >"$SIM_DIR/t1.json"
wr=$(jget 'r["multicast"]["last_batch"]["blocks_written"]' <"$SIM_DIR/t1.json")
[ "$wr" = "$nsw" ] || die "72 joins wrote $wr MFT blocks for a tree of $nsw switches"
msg "72 hosts joined: $nsw tree switches, $wr MFT blocks written in one batch"

ctl --json mcast_join ff12:401b:8010::ffff:ffff H00002,H00040,H00003 >"$SIM_DIR/j2.json" ||
	die "tenant join failed"
[ "$(jget 'r["joined"], r["refused"][0]["status"]' <"$SIM_DIR/j2.json")" = \
	"2 ERR_REQ_INVALID" ] || die "tenant join: $(cat "$SIM_DIR/j2.json")"
wait_idle
mft 0xc001 "H00002,H00040"
msg "a host outside the tenant is refused its group"

G=ff15:a01b:fe80::42
ctl mcast_join $G H00001,H00030,H00070 >/dev/null || die "create failed"
ctl mcast_join $G H00050 state=sendonly_full >/dev/null || die "send-only join failed"
wait_idle
mft 0xc002 "H00001,H00030,H00070" H00050
ctl mcast_leave $G H00030 >/dev/null || die "leave failed"
wait_idle
mft 0xc002 "H00001,H00070" H00050
msg "new group with a send-only member; a leave pruned its branch"

ctl --json path H00001 0xc000 >"$SIM_DIR/p.json" || die "path failed"
[ "$(jget 'r["complete"], len(r["reached"])' <"$SIM_DIR/p.json")" = "True 71" ] ||
	die "path H00001 -> 0xc000: $(jget 'r["problem"]' <"$SIM_DIR/p.json")"

ctl sweep --wait >/dev/null || die "sweep failed"
ctl --json tables >"$SIM_DIR/t2.json"
[ "$(jget 'r["multicast"]["last_batch"]["blocks_written"]' <"$SIM_DIR/t2.json")" = 0 ] ||
	die "a heavy sweep rewrote MFT blocks"
msg "path walks the tree to all 71 other hosts; a heavy sweep wrote no MFT block"

sim_cmd 'Unlink "H00010"'
wait_log "port .* is down or gone" 1
wait_idle
[ "$(ctl --json mcast 0xc000 | jget 'r["members"]')" = 71 ] || die "H00010 still a member"
ALL=$(echo "$ALL" | sed 's/H00010,//')
mft 0xc000 "$ALL"
msg "a host whose link went down left its groups"

ctl --json mcast 0xc000 >"$SIM_DIR/g3.json"
set -- $(jget '[(t["desc"], t["up_port"]) for t in r["tree_switches"] if t["depth"] == 1][0]' \
	<"$SIM_DIR/g3.json" | tr -d "(),'")
root=$(jget 'r["tree"]["root"]' <"$SIM_DIR/g3.json")
n=$(grep -c "reroute .* done" "$SIM_DIR/ibsmd.log")
sim_cmd "Unlink \"$1\"[$2]"
wait_log "reroute .* done" $((n + 1))
wait_idle
mft 0xc000 "$ALL"
mft 0xc002 "H00001,H00070" H00050
new=$(ctl --json mcast 0xc000 | jget 'r["tree"]["root"]')
msg "tree link $1[$2] failed: trees repaired (root $root -> $new)"

kill "$DAEMON"
wait "$DAEMON" 2>/dev/null
grep -q "ERROR: AddressSanitizer\|runtime error" "$SIM_DIR/ibsmd.log" && die "sanitizer report"
exit 0
