#!/bin/sh
# DOC: SA multicast joins, partitions and QoS end to end on ibsim.
#
# On a 72-host two-level tree (gen_topo ft2 12) with a partitions file of
# the default partition (everybody) and a tenant partition with SL 3 (two
# full members, one limited), ibsmd runs with QoS on and hosts talk to the
# SA as IPoIB does, through tests/agent/mcjoin (MCMemberRecord Set and
# Delete) and sa_agent, with infiniband-diags as the judge:
#   - smpquery pkeys: the tenant's P_Key sits in its members' tables only
#     (limited: without the membership bit);
#   - hosts on five leaves join the default broadcast group for their own
#     port, one host joins the other 67 by proxy: the MFTs (ibroute -M,
#     judged by mftcheck.py) form one tree over all 72 and no other port;
#   - a tenant member joins the tenant's group (SL 3 in the answer), a host
#     outside the tenant is refused (0x0200); saquery -g from each shows
#     the groups of its own partitions only; saquery MFTR of every switch
#     gives the port masks ibroute -M reads;
#   - a group created with a zero MGID gets an SA-assigned MGID and an
#     MLID, reaches its members, and is gone with its last leave; a leave
#     from the broadcast group prunes that host's branch;
#   - in that group a send-only non-member (JoinState 0x4) gets no bit
#     toward itself but its packets reach the members, non-members (0x2)
#     receive; neither may create a group; their leaves remove them, and
#     a non-member still in the group goes with it when the last full
#     member leaves (saquery --smkey MCMR lists the members);
#   - the next group created takes the MLID the dead group freed, with
#     MFTs that reach its members only; when a member's host link goes
#     down (ibsim Unlink) it leaves its groups and the trees shrink, and
#     a group it was the only member of dies with Report 67;
#   - malformed joins (missing components, a foreign GID prefix, JoinState
#     0, an unknown port) get their SA status and change nothing;
#   - saquery PathRecords: SL 3 in the tenant, SL 0 in the default
#     partition, none with the tenant's P_Key toward a non-member;
#   - an InformInfo subscriber outside the tenant gets Report 66 and 67 for
#     the default-partition group and nothing for a tenant group;
#   - reloaded with every host a limited member of the default partition,
#     two hosts that share no partition get no PathRecord, while a host
#     still reaches the SM's port (full) and the tenant's members each other.
. "$top_srcdir/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/sm_lib.sh"
skip_unless_tools saquery smpquery ibroute ibswitches ibnetdiscover

IBSMD=$top_builddir/sm/ibsmd
CTL=$top_builddir/cli/ibsmctl
JOIN=$top_builddir/tests/agent/mcjoin
AGENT=$top_builddir/tests/agent/sa_agent
CHECK="python3 $top_srcdir/tests/integration/mftcheck.py"
for x in "$IBSMD" "$CTL" "$JOIN" "$AGENT"; do
	[ -x "$x" ] || hard_error "$x not built"
done
export SIM_HOST=H00001

sim_setup
topo_gen "$SIM_DIR/ft.net" ft2 12
sim_start "$SIM_DIR/ft.net"
SOCK=$SIM_DIR/ibsmd.sock
LOG=$SIM_DIR/ibsmd.log
die() {
	tail -n 30 "$LOG" >&2
	[ -f "$SIM_DIR/j.out" ] && sed 's/^/last mcjoin: /' "$SIM_DIR/j.out" >&2
	fail "$*"
}

lid_of() { sim_run_at "$1" smpquery -D portinfo 0 1 | sed -n 's/^Lid:\.*//p'; }
T1=$(guid_of H00002)
T2=$(guid_of H00040)
T3=$(guid_of H00070)
cat >"$SIM_DIR/partitions.conf" <<EOF
Default=0x7fff, ipoib : ALL=full ;
tenant=0x0010, ipoib, sl=3 : SELF=full, 0x$T1=full, 0x$T2=full, 0x$T3=limited ;
EOF
sim_bg sh -c 'exec "$0" -o socket_path="$1" -o state_dir="$2" -o partitions_file="$3" \
	-o qos=yes -o log_level=info -o light_sweep_interval=1 2>"$4"' \
	"$IBSMD" "$SOCK" "$SIM_DIR/state" "$SIM_DIR/partitions.conf" "$LOG"
DAEMON=$SIM_BG_PID

i=0
until grep -q "subnet UP" "$LOG" 2>/dev/null; do
	i=$((i + 1))
	[ $i -gt 300 ] && die "subnet not up"
	kill -0 "$DAEMON" 2>/dev/null || die "ibsmd died"
	sleep 0.1
done

# mft_read: the switches' MFTs once programming settled; mft_judge MLID
# MEMBERS [SEND_ONLY]: judge them for MLID; mft: both.
mft_read() {
	wait_idle
	sim_run ibnetdiscover >"$SIM_DIR/disc.txt" || die "ibnetdiscover failed"
	for l in $(sim_run ibswitches | sed -n 's/.* lid \([0-9]*\) .*/\1/p'); do
		sim_run ibroute -M "$l" 0xc000 0xc01f || die "ibroute -M $l failed"
	done >"$SIM_DIR/mft.txt"
}
mft_judge() {
	$CHECK --strict --topo "$SIM_DIR/disc.txt" --mft "$SIM_DIR/mft.txt" --mlid "$1" --members "$2" \
		--send-only "${3:-}" || die "MFTs of MLID $1 wrong"
}
mft() {
	mft_read
	mft_judge "$@"
}

# mcmr MGID: "GUID:JoinState" of its members, sorted, as a trusted
# saquery MCMR sees them (keep it to 3 members: ibsim passes 224 bytes).
mcmr() {
	sim_run_at H00005 saquery --smkey 1 MCMR --mgid "$1" | python3 -c '
import ipaddress, re, sys
t = sys.stdin.read()
g = [int(ipaddress.IPv6Address(x)) & (2**64 - 1) for x in re.findall(r"PortGid\.+(\S+)", t)]
j = re.findall(r"JoinState\.+(\S+)", t)
print(" ".join(sorted("%016x:%s" % gj for gj in zip(g, j))))'
}

# subscribe_at HOST TRAPS N OUT: a subscriber at HOST that waits for N
# Reports of TRAPS (sa_agent), in the background (pid in $sub), once it
# says it is subscribed.
subscribe_at() {
	T=60 sim_run_at "$1" "$AGENT" -t 40 subscribe "$2" "$3" >"$4" 2>&1 &
	sub=$!
	i=0
	until grep -q subscribed "$4" 2>/dev/null; do
		i=$((i + 1))
		[ $i -gt 150 ] && { cat "$4" >&2; die "subscriber at $1 did not subscribe"; }
		sleep 0.1
	done
}

BC=ff12:401b:ffff::ffff:ffff
TBC=ff12:401b:8010::ffff:ffff

# --- P_Key tables
pk() { sim_run_at "$1" smpquery -D pkeys 0 1 | tr -s ' \t' '\n' | grep -c "^$2$"; }
[ "$(pk H00002 0x8010)" = 1 ] && [ "$(pk H00040 0x8010)" = 1 ] ||
	die "tenant full members lack P_Key 0x8010"
[ "$(pk H00070 0x0010)" = 1 ] || die "the limited member lacks P_Key 0x0010"
[ "$(pk H00005 0x8010)$(pk H00005 0x0010)" = 00 ] || die "a non-member holds the tenant P_Key"
msg "P_Key tables: 0x8010 on both full members, 0x0010 on the limited one, neither elsewhere"

# --- the default broadcast group: own-port joins on five leaves, the rest by proxy
OWN="H00001 H00013 H00030 H00050 H00072"
for h in $OWN; do
	join "$h" -g $BC "$(guid_of "$h")" || { cat "$SIM_DIR/j.out" >&2; die "$h: own join failed"; }
	[ "$(field mlid)" = 0xc000 ] || die "$h joined $(field mlid), not 0xc000"
done
sim_run ibnetdiscover >"$SIM_DIR/disc.txt" || die "ibnetdiscover failed"
python3 - "$SIM_DIR/disc.txt" $OWN >"$SIM_DIR/rest.txt" <<'PY'
import re, sys
own = set(sys.argv[2:])
for m in re.finditer(r'^Ca\s.*#\s+"(H\d+)"\n\[1\]\(([0-9a-f]+)\)', open(sys.argv[1]).read(), re.M):
    if m.group(1) not in own:
        print(m.group(2))
PY
[ "$(wc -l <"$SIM_DIR/rest.txt")" = 67 ] || die "expected 67 other hosts, got $(wc -l <"$SIM_DIR/rest.txt")"
T=60 sim_run "$JOIN" -g $BC -f "$SIM_DIR/rest.txt" >"$SIM_DIR/proxy.out" 2>&1 ||
	{ cat "$SIM_DIR/proxy.out" >&2; die "proxy joins failed"; }
ALL=$(seq -f 'H%05g' 1 72 | tr '\n' ',' | sed 's/,$//')
mft 0xc000 "$ALL"
msg "5 own-port joins and 67 proxy joins: one tree over 72 hosts ($(tail -n 1 "$SIM_DIR/proxy.out" | sed 's/^mcjoin: //;s/,.*//'))"

# --- the tenant's group
join H00002 -p 0x8010 -g $TBC "$T1" || { cat "$SIM_DIR/j.out" >&2; die "tenant member's join failed"; }
[ "$(field mlid) $(field sl) $(field pkey)" = "0xc001 3 0x8010" ] ||
	die "tenant join: $(cat "$SIM_DIR/j.out")"
join H00040 -p 0x8010 -g $TBC "$T2" || die "second tenant member's join failed"
H5=$(guid_of H00005)
join H00005 -g $TBC "$H5" && die "a non-member joined the tenant's group"
grep -q "status 0x0200" "$SIM_DIR/j.out" || die "non-member join: $(cat "$SIM_DIR/j.out")"
mft 0xc001 "H00002,H00040"
sim_run_at H00002 saquery -g >"$SIM_DIR/g-t1.txt" || die "saquery -g from H00002"
sim_run_at H00005 saquery -g >"$SIM_DIR/g-h5.txt" || die "saquery -g from H00005"
grep -q "MGID.*ff12:401b:8010::ffff:ffff" "$SIM_DIR/g-t1.txt" || die "tenant member does not see its group"
grep -q "ff12:401b:8010" "$SIM_DIR/g-h5.txt" && die "a non-member sees the tenant's group"
grep -q "MGID.*ff12:401b:ffff::ffff:ffff" "$SIM_DIR/g-h5.txt" || die "H00005 does not see the broadcast group"
msg "tenant group: members joined with SL 3 at 0xc001, a non-member refused 0x0200 and shown nothing"

# --- MulticastForwardingTableRecords say what ibroute -M reads
sim_run ibswitches >"$SIM_DIR/sw.txt" || die "ibswitches failed"
for l in $(sed -n 's/.* lid \([0-9]*\) .*/\1/p' "$SIM_DIR/sw.txt"); do
	echo "=== $l"
	sim_run_at H00005 saquery MFTR "$l/0/0" || die "saquery MFTR $l/0/0 failed"
done >"$SIM_DIR/mftr.txt"
python3 - "$top_srcdir/tests/integration" "$SIM_DIR/sw.txt" "$SIM_DIR/mft.txt" "$SIM_DIR/mftr.txt" \
	>"$SIM_DIR/mftr.out" <<'PY' || { cat "$SIM_DIR/mftr.out" >&2; die "MFT records differ from the switches"; }
import re, sys
sys.path.insert(0, sys.argv[1])
import mftcheck
sw = open(sys.argv[2]).read()
lid2guid = {int(m.group(2)): int(m.group(1), 16)
            for m in re.finditer(r'^Switch\s*:\s*(0x[0-9a-f]+).* lid (\d+) ', sw, re.M)}
mft = open(sys.argv[3]).read().splitlines()
recs = {}
for part in open(sys.argv[4]).read().split('=== ')[1:]:
    lid = int(part.split()[0])
    for m in re.finditer(r'^\s*(0x[0-9a-f]{4})\s+(0x[0-9a-f]{4})\s*$', part, re.M):
        recs.setdefault(lid, {})[int(m.group(1), 16)] = int(m.group(2), 16)
bad = 0
for mlid in (0xc000, 0xc001):
    want = mftcheck.parse_mfts(mft, mlid)
    for lid, guid in lid2guid.items():
        mask = recs.get(lid, {}).get(mlid, 0)
        got = {p for p in range(16) if mask >> p & 1}
        if got != want.get(guid, set()):
            print("LID %d MLID %#x: MFTR ports %s, ibroute -M %s" %
                  (lid, mlid, sorted(got), sorted(want.get(guid, set()))))
            bad += 1
print("%d switches: %d MFT records, %d masks, as ibroute -M reads them" %
      (len(lid2guid), len(recs), sum(1 for r in recs.values() for v in r.values() if v)))
sys.exit(1 if bad or len(lid2guid) != 18 else 0)
PY
msg "saquery MFTR: $(cat "$SIM_DIR/mftr.out")"

# --- malformed joins change nothing
req() {
	T=10 sim_run_at H00005 "$AGENT" req 0x02 0x38 "$1" "$2" >"$SIM_DIR/req.out" 2>&1
	st=$(sed -n 's/^status \(0x[0-9a-f]*\).*/\1/p' "$SIM_DIR/req.out")
	[ "$st" = "$3" ] || die "$4: status '$st', not $3"
}
PFX=fe80000000000000
REC_BC=ff12401bffff000000000000ffffffff
# MGID, PortGID, Q_Key, MLID, MTU, TClass, P_Key, Rate, PktLife, SL/Flow/Hop, Scope/JoinState
req 0x3 "$REC_BC $PFX$H5" 0x0600 "a join without P_Key and JoinState"
req 0x10083 "$REC_BC 1234567800000000$H5 00000000 0000 00 00 ffff 00 00 00000000 01" 0x0500 \
	"a join from a foreign GID prefix"
req 0x10083 "$REC_BC $PFX$H5 00000000 0000 00 00 ffff 00 00 00000000 00" 0x0200 "JoinState 0"
req 0x10083 "$REC_BC ${PFX}00abcdef00000001 00000000 0000 00 00 ffff 00 00 00000000 01" 0x0200 \
	"a join of an unknown port"
n=$(timeout 10 "$CTL" -s "$SOCK" --json mcast 0xc000 | python3 -c 'import json,sys; print(json.load(sys.stdin)["result"]["members"])')
[ "$n" = 72 ] || die "malformed joins changed the group: $n members"
msg "malformed joins: 0x0600, 0x0500, 0x0200, 0x0200; the group kept its 72 members"

# --- PathRecords and SLs
L1=$(lid_of H00002)
L2=$(lid_of H00040)
L5=$(lid_of H00005)
pr() { sim_run_at H00002 saquery -p --slid "$L1" --dlid "$1" ${2:+--pkey $2} 2>&1; }
pr "$L2" 0x8010 >"$SIM_DIR/pr1.txt"
grep -q "pkey.*0x8010" "$SIM_DIR/pr1.txt" && grep -q "sl\.*0x3$\|sl\.*3$" "$SIM_DIR/pr1.txt" ||
	{ cat "$SIM_DIR/pr1.txt" >&2; die "tenant PathRecord: not P_Key 0x8010 with SL 3"; }
pr "$L5" >"$SIM_DIR/pr2.txt"
grep -q "sl\.*0x0$\|sl\.*0$" "$SIM_DIR/pr2.txt" ||
	{ cat "$SIM_DIR/pr2.txt" >&2; die "default PathRecord: not SL 0"; }
pr "$L5" 0x8010 >"$SIM_DIR/pr3.txt"
grep -q "PathRecord dump" "$SIM_DIR/pr3.txt" &&
	{ cat "$SIM_DIR/pr3.txt" >&2; die "a tenant PathRecord toward a non-member"; }
msg "PathRecords: SL 3 in the tenant, SL 0 in the default partition, none across"

# --- Reports 66/67 go to subscribers in the group's partition only
subscribe_at H00005 66,67 2 "$SIM_DIR/sub.out"
join H00002 -p 0x8010 -s 3 --create -g ff12:601b:8010::77 "$T1" || die "tenant group create failed"
H13=$(guid_of H00013)
join H00013 --create -g :: "$H13" || { cat "$SIM_DIR/j.out" >&2; die "zero-MGID create failed"; }
NG=$(field mgid)
NL=$(field mlid)
case $NG in ff1?:a01b:*) ;; *) die "SA-assigned MGID $NG" ;; esac
join H00030 --create -g "$NG" "$(guid_of H00030)" || die "second member's join failed"
H50=$(guid_of H00050)
H60=$(guid_of H00060)
H70=$(guid_of H00070)
join H00050 -j 4 -g "$NG" "$H50" || die "send-only non-member join failed"
[ "$(field join_state)" = 0x4 ] || die "send-only non-member join: $(cat "$SIM_DIR/j.out")"
join H00060 -j 2 -g "$NG" "$H60" && [ "$(field join_state)" = 0x2 ] || die "non-member join failed"
join H00070 -j 2 -g "$NG" "$H70" || die "second non-member join failed"
mft "$NL" "H00013,H00030,H00060,H00070" H00050
for js in 2 4; do
	join H00050 -j $js --create -g :: "$H50" && die "JoinState $js created a group"
	grep -q "status 0x0200" "$SIM_DIR/j.out" || die "create with JoinState $js: $(cat "$SIM_DIR/j.out")"
done
join H00070 --leave -g "$NG" "$H70" && die "a non-member left with JoinState 0x1"
grep -q "status 0x0200" "$SIM_DIR/j.out" || die "non-member's full leave: $(cat "$SIM_DIR/j.out")"
msg "$NG: send-only non-member H00050 sends and receives nothing, non-members H00060 and H00070 receive; neither creates"
join H00030 --leave -g "$NG" "$(guid_of H00030)" || die "leave failed"
join H00050 -j 4 --leave -g "$NG" "$H50" || die "send-only non-member's leave failed"
join H00070 -j 2 --leave -g "$NG" "$H70" || die "non-member's leave failed"
[ "$(mcmr "$NG")" = "$(printf '%s:0x1\n%s:0x2\n' "$H13" "$H60" | sort | tr '\n' ' ' | sed 's/ $//')" ] ||
	die "members of $NG after the leaves: $(mcmr "$NG")"
mft "$NL" "H00013,H00060"
join H00013 --leave -g "$NG" "$H13" || die "last leave failed"
mft "$NL" ""
[ -z "$(mcmr "$NG")" ] || die "$NG has members after its last full member left: $(mcmr "$NG")"
wait "$sub" || { cat "$SIM_DIR/sub.out" >&2; die "subscriber did not get Reports 66 and 67"; }
grep -q "report trap 66 gid $NG " "$SIM_DIR/sub.out" && grep -q "report trap 67 gid $NG " "$SIM_DIR/sub.out" ||
	{ cat "$SIM_DIR/sub.out" >&2; die "not 66 and 67 for $NG"; }
grep -q "8010" "$SIM_DIR/sub.out" && die "a non-member got a Report of a tenant group"
sim_run_at H00005 saquery -g >"$SIM_DIR/g-gone.txt" 2>&1 || die "saquery -g after the leaves"
grep -q "MGID\.*$NG\$" "$SIM_DIR/g-gone.txt" && die "the deleted group is still listed"
msg "zero MGID -> $NG at $NL; leaves pruned it, the last full one took non-member H00060 along; Reports 66/67 to H00005, none for the tenant group"

# --- a leave from the broadcast group prunes the branch
join H00072 --leave -g $BC "$(guid_of H00072)" || die "H00072's leave failed"
mft 0xc000 "$(echo "$ALL" | sed 's/,H00072//')"
msg "H00072 left the broadcast group: its branch is pruned"

# --- MLID reuse; a member's host link goes down
H25=$(guid_of H00025)
H66=$(guid_of H00066)
join H00025 --create -g :: "$H25" || die "a new group's create failed"
RG=$(field mgid)
[ "$(field mlid)" = "$NL" ] || die "new group $RG got MLID $(field mlid), not $NL that $NG freed"
join H00066 -g "$RG" "$H66" || die "join to $RG failed"
mft "$NL" "H00025,H00066"
msg "the next group ($RG) took the freed MLID $NL; its MFTs reach H00025 and H00066 only"
join H00066 --create -g :: "$H66" || die "H00066's own group: create failed"
OG=$(field mgid)
OL=$(field mlid)
subscribe_at H00005 67 1 "$SIM_DIR/sub2.out"
n=$(grep -c "port .* is down or gone" "$LOG")
sim_cmd 'Unlink "H00066"'
i=0
until [ "$(grep -c "port .* is down or gone" "$LOG")" -gt "$n" ]; do
	i=$((i + 1))
	[ $i -gt 300 ] && die "H00066's link going down was not noticed"
	sleep 0.1
done
mft_read
mft_judge "$NL" "H00025"
mft_judge 0xc000 "$(echo "$ALL" | sed 's/,H00066//;s/,H00072//')"
mft_judge "$OL" ""
[ "$(mcmr "$RG")" = "$H25:0x1" ] || die "members of $RG after H00066 went down: $(mcmr "$RG")"
wait "$sub" || { cat "$SIM_DIR/sub2.out" >&2; die "no Report 67 for $OG"; }
grep -q "report trap 67 gid $OG " "$SIM_DIR/sub2.out" || { cat "$SIM_DIR/sub2.out" >&2; die "not 67 for $OG"; }
msg "H00066's link went down: it left $RG and the broadcast group, both trees pruned; $OG at $OL died with Report 67"

# --- hosts that share no partition get no path
cat >"$SIM_DIR/partitions.conf" <<EOF
Default=0x7fff, ipoib : ALL=limited, SELF=full ;
tenant=0x0010, ipoib, sl=3 : SELF=full, 0x$T1=full, 0x$T2=full, 0x$T3=limited ;
EOF
timeout 30 "$CTL" -s "$SOCK" reload >/dev/null || die "reload failed"
timeout 60 "$CTL" -s "$SOCK" sweep --wait >/dev/null || die "sweep after the reload failed"
[ "$(pk H00005 0x7fff)" = 1 ] || die "H00005 is not a limited member of Default after the reload"
L10=$(lid_of H00010)
L1S=$(lid_of H00001)
sim_run_at H00005 saquery -p --slid "$L5" --dlid "$L10" >"$SIM_DIR/pr4.txt" 2>&1
grep -q "PathRecord dump" "$SIM_DIR/pr4.txt" &&
	{ cat "$SIM_DIR/pr4.txt" >&2; die "a path between two limited members"; }
sim_run_at H00005 saquery -p --slid "$L5" --dlid "$L1S" >"$SIM_DIR/pr5.txt" 2>&1
grep -qi "pkey.*0x7fff" "$SIM_DIR/pr5.txt" ||
	{ cat "$SIM_DIR/pr5.txt" >&2; die "no limited-to-full path to the SM's port"; }
pr "$L2" >"$SIM_DIR/pr6.txt"
grep -q "pkey.*0x8010" "$SIM_DIR/pr6.txt" ||
	{ cat "$SIM_DIR/pr6.txt" >&2; die "tenant members: no path in the partition they share"; }
msg "Default limited for all: no path H00005->H00010, one to the SM's port; the tenant's members still reach each other"

kill "$DAEMON"
wait "$DAEMON" 2>/dev/null
grep -q "ERROR: AddressSanitizer\|runtime error" "$LOG" && die "sanitizer report"
exit 0
