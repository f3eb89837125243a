#!/bin/sh
# DOC: partitions and QoS tables on the simulator, judged by smpquery.
#
# On the 32-host tree (tests/topo/small.net), ibsmd runs as a daemon with a
# partitions file of a default partition, a tenant with full and limited
# members and a storage partition of all CAs (limited) and the SM (full):
#   - every host's P_KeyTable (smpquery pkeys) holds exactly its partitions,
#     the default one at index 0; the switch port facing a limited tenant
#     member holds that host's table; on this fabric fresh from the
#     simulator no port was configured since its reset, so no P_KeyTable
#     is read in the bring-up (ibsim's packet trace shows no Get of one
#     before the last PortInfo Set): each is taken to hold the reset
#     content, and only what differs is written; right after the sweep
#     every block of each enforcing switch port facing a CA is read back,
#     and no other (light sweeps off: no audit);
#   - with part_enforce both (the default), every switch port facing a CA
#     was sent PartitionEnforcementInbound/Outbound, no inter-switch port
#     either bit (judged from ibsim's packet trace by enfcheck.py: ibsim
#     does not keep the bits, so smpquery portinfo reads them as 0);
#   - a second sweep reads and writes no P_Key block;
#   - a reload that drops the storage partition and adds one keeps every
#     surviving P_Key at its index (the new one takes the freed index);
#   - a reload with a broken partitions file is refused with FILE:LINE and
#     changes nothing;
#   - with every port a limited member of Default, SELF included, the SM's
#     own port still gets the full default P_Key;
#   - a reload that turns QoS on (4 data VLs, switch ports with their own
#     low-priority table) programs SL2VL and VLArbitration tables as
#     smpquery sl2vl/vlarb read them back, and a second sweep writes none;
#     every switch maps every SL to one of VL0-3 for every (input, output)
#     pair, input port 0 (its own packets) included; the same reload's
#     packet_life_time is every switch's LifeTimeValue (smpquery
#     switchinfo), and the second sweep sends no SwitchInfo Set;
#   - a new daemon with part_enforce off sends no PortInfo Set with an
#     enforcement bit; on this configured fabric it reads the P_KeyTables
#     (none taken for the reset content) and adds a partition new in the
#     file beside the P_Keys the hosts hold, each kept at its index;
#   - on a fresh simulator, a host whose P_KeyTable someone changed before
#     any SM ran (LID 0 still) is taken to hold the reset content by the
#     bring-up, and the audit (audit_period 4 s) finds both blocks that
#     differ from what we laid out, writes them back and logs them; a host
#     given a changed table, a LID and an SM LID (as by an SM that stopped
#     before arming it) is read by the bring-up and right without the
#     audit;
#   - on a fresh simulator, a switch port facing a limited member whose
#     table someone changed before any SM ran (rogue_smp pkey-dr) is taken
#     for the reset table, and the read-back right after the sweep writes
#     it back and logs it, with ibsmd --once, the audit off (no light
#     sweeps, audit_period 3600): switch and CA ports then hold the
#     partitions' tables (limited 0x0010, full 0x8010).
. "$top_srcdir/tests/integration/lib.sh"
skip_unless_tools ibswitches

IBSMD=${IBSMD:-$top_builddir/daemon/ibsmd}   # another build's, to compare
CTL=$top_builddir/cli/ibsmctl
ROGUE=$top_builddir/tests/agent/rogue_smp
[ -x "$IBSMD" ] && [ -x "$CTL" ] && [ -x "$ROGUE" ] || hard_error "build ibsmd, ibsmctl, rogue_smp"
SIMTRACE="python3 $top_srcdir/tests/integration/simtrace.py"
export SIM_HOST=H00001

sim_start "$top_srcdir/tests/topo/small.net"
SOCK=$SIM_DIR/ibsmd.sock
CONF=$SIM_DIR/ibsmd.conf
PARTS=$SIM_DIR/partitions.conf

ENFCHECK="python3 $top_srcdir/tests/integration/enfcheck.py"
ctl() { timeout 30 "$CTL" -s "$SOCK" "$@"; }
jget() { python3 -c "import json,sys; r=json.load(sys.stdin)['result']; print($1)"; }
die() { tail -n 30 "$SIM_DIR/ibsmd.log" >&2; fail "$*"; }
guid_of() { sim_run_at "$1" smpquery -D nodeinfo 0 | sed -n 's/^PortGuid:\.*//p'; }

# pk_list: "index:P_Key" of the non-empty entries of smpquery pkeys.
pk_list() {
	awk '/^ *[0-9]+:/ { i = $1 + 0; for (k = 2; k <= NF; k++) {
		if ($k != "0x0000") printf "%d:%s ", i + k - 2, $k } }
		END { print "" }' | sed 's/ $//'
}

# pkeys HOST [LID PORT]: "index:P_Key" of the non-empty entries.
pkeys() {
	if [ $# -eq 1 ]; then
		sim_run_at "$1" smpquery -D pkeys 0
	else
		sim_run smpquery pkeys "$2" "$3"
	fi | pk_list
}

expect_pkeys() {
	got=$(pkeys "$@")
	want=$(eval echo "\$WANT")
	[ "$got" = "$want" ] || die "P_Keys of $*: got '$got', want '$want'"
}

H2=$(guid_of H00002)
H5=$(guid_of H00005)
[ -n "$H2" ] && [ -n "$H5" ] || hard_error "cannot read the hosts' port GUIDs"
cat >"$PARTS" <<EOF
Default=0x7fff, ipoib : ALL=full ;
tenantA=0x0010, ipoib, mtu=4 : SELF=full, $H2=full, $H5=limited ;
storage=0x0020 : ALL_CAS=limited, SELF=full ;
EOF
cat >"$CONF" <<EOF
socket_path "$SOCK"
state_dir "$SIM_DIR/state"
partitions_file "$PARTS"
log_level info
light_sweep_interval 0
EOF
# The first sweep's SMPs, for enfcheck.py (Verbose 3: ibsim dumps each MAD).
sim_cmd "Verbose 3"
sim_bg sh -c 'exec "$0" -c "$1" 2>"$2"' "$IBSMD" "$CONF" "$SIM_DIR/ibsmd.log"
DAEMON=$SIM_BG_PID

wait_sweeps() {
	i=0
	until [ "$(ctl --json status 2>/dev/null | jget 'r["sweeps"] >= '"$1"' and not r["sweeping"] and r["subnet_up"]' 2>/dev/null)" = True ]; do
		i=$((i + 1))
		[ $i -gt 300 ] && die "sweep $1 did not finish within 30 s"
		kill -0 "$DAEMON" 2>/dev/null || die "ibsmd died"
		sleep 0.1
	done
}
wait_sweeps 1
# wait_log PATTERN: until ibsmd's log has a line matching PATTERN.
wait_log() {
	i=0
	until grep -q "$1" "$SIM_DIR/ibsmd.log"; do
		i=$((i + 1))
		[ $i -gt 100 ] && die "no '$1' in the log within 10 s"
		kill -0 "$DAEMON" 2>/dev/null || die "ibsmd died"
		sleep 0.1
	done
}
# The switch ports' tables taken for the reset content are read back
# right after the sweep (light sweeps are off: the audit reads nothing).
wait_log 'blocks verified after the sweep'
sim_cmd "Verbose 0"

# L0002 port 1 faces H00005, a limited tenant member.
L2=$(sim_run ibswitches | sed -n 's/.*"L0002" .* lid \([0-9]*\) .*/\1/p')
[ -n "$L2" ] || hard_error "no LID for L0002"

WANT='0:0xffff 1:0x8010 2:0x8020'; expect_pkeys H00001
WANT='0:0xffff 1:0x8010 2:0x0020'; expect_pkeys H00002
WANT='0:0xffff 1:0x0020'; expect_pkeys H00003
WANT='0:0xffff 1:0x0010 2:0x0020'; expect_pkeys H00005
WANT='0:0xffff 1:0x0010 2:0x0020'; expect_pkeys H00001 "$L2" 1
msg "P_Key tables as the partitions file says"

sim_run ibnetdiscover >"$SIM_DIR/disc.txt" || die "ibnetdiscover failed"
cp "$SIM_LOG" "$SIM_DIR/trace1.txt"
$ENFCHECK --topo "$SIM_DIR/disc.txt" --trace "$SIM_DIR/trace1.txt" --expect both \
	>"$SIM_DIR/enf1.out" || { cat "$SIM_DIR/enf1.out" >&2; die "enforcement bits (both)"; }
pe=$(sim_run smpquery portinfo "$L2" 1 | sed -n 's/^PartEnforce\(Inb\|Outb\):\.*/\1 /p' | tr '\n' ' ')
msg "part_enforce both: $(cat "$SIM_DIR/enf1.out") (smpquery reads back ${pe% }: ibsim keeps no bits)"

ctl --json tables >"$SIM_DIR/t1.json" || die "tables failed"
w1=$(jget 'r["partitions"]["blocks_written"]' <"$SIM_DIR/t1.json")
[ "$w1" -gt 0 ] || die "the first sweep wrote no P_Key block"
pk1=$($SIMTRACE "$SIM_DIR/trace1.txt" --pkey)
# No port is read during the bring-up: every one is taken to hold the
# reset table. Right after it, each enforcing switch port facing a CA is
# read back (every block), and none other.
nca=$(awk '/^(Ca|Hca)[ \t]/ { ca = 1; next } /^Switch[ \t]/ { ca = 0; next }
	ca && /^\[[0-9]+\].*"S-/ { n++ } END { print n + 0 }' "$SIM_DIR/disc.txt")
[ "$nca" -gt 0 ] || die "no CA port linked to a switch in ibnetdiscover's output"
case "$pk1" in *" get_ports=$nca early_gets=0") ;;
	*) die "fresh fabric: P_KeyTable Gets during the bring-up, or read back from ports other than the $nca switch ports facing a CA: $pk1" ;; esac
gets=${pk1%% *}
gets=${gets#pkey_get=}
u1=$(jget 'r["partitions"]["ports_untouched"], r["partitions"]["ports"], r["partitions"]["blocks_read"],
	r["partitions"]["ports_verified"], r["partitions"]["blocks_verified"], r["partitions"]["verify_blocks_repaired"]' \
	<"$SIM_DIR/t1.json") || die "no ports_untouched/blocks_verified in: $(cat "$SIM_DIR/t1.json")"
set -- $u1
[ "$1" = "$2" ] && [ "$3" = 0 ] && [ "$4" = "$nca" ] && [ "$5" = "$gets" ] && [ "$6" = 0 ] ||
	die "fresh fabric: $1 of $2 ports taken as reset, $3 blocks read; $4 ports, $5 blocks read back after the sweep ($nca switch ports facing CAs, $gets Gets in the trace), $6 written back"
grep -q "P_Keys: $nca switch ports' tables assumed, $gets blocks verified after the sweep, 0 written back, 0 not read back, in [0-9]* ms" \
	"$SIM_DIR/ibsmd.log" || die "no read-back line: $(grep 'P_Keys:' "$SIM_DIR/ibsmd.log")"
msg "fresh fabric: all $2 ports taken to hold the reset table, none read in the bring-up; the $nca enforcing switch ports read back right after it ($pk1)"
ctl sweep --wait >/dev/null || die "sweep failed"
ctl --json tables >"$SIM_DIR/t2.json"
r2=$(jget 'r["partitions"]["blocks_read"], r["partitions"]["blocks_written"]' <"$SIM_DIR/t2.json")
[ "$r2" = "0 0" ] || die "second sweep read/wrote P_Key blocks: $r2"
[ "$(jget 'r["partitions"]["blocks_verified"]' <"$SIM_DIR/t2.json")" = 0 ] ||
	die "second sweep read switch port tables back again: $(cat "$SIM_DIR/t2.json")"
msg "first sweep wrote $w1 P_Key blocks, the second read and wrote none"

# Stable indexes: storage goes, 0x0005 comes for H00002.
cat >"$PARTS" <<EOF
Default=0x7fff, ipoib : ALL=full ;
tenantA=0x0010, ipoib, mtu=4 : SELF=full, $H2=full, $H5=limited ;
backup=0x0005 : $H2=full ;
EOF
ctl --json reload >"$SIM_DIR/r1.json" || die "reload failed"
[ "$(jget 'r["partitions"]' <"$SIM_DIR/r1.json")" = changed ] || die "reload saw no change"
wait_sweeps 3
WANT='0:0xffff 1:0x8010 2:0x8005'; expect_pkeys H00002
WANT='0:0xffff 1:0x8010'; expect_pkeys H00001
WANT='0:0xffff'; expect_pkeys H00003
msg "reload: surviving P_Keys kept their index"

printf 'Default=0x7fff : ALL=full ;\nbroken=0x0000 : ALL ;\n' >"$PARTS"
if ctl reload >"$SIM_DIR/r2.out" 2>&1; then
	die "a broken partitions file was accepted"
fi
grep -q "partitions.conf:2:" "$SIM_DIR/r2.out" || die "no FILE:LINE in: $(cat "$SIM_DIR/r2.out")"
ctl sweep --wait >/dev/null
WANT='0:0xffff 1:0x8010 2:0x8005'; expect_pkeys H00002
msg "a broken partitions file is refused: $(head -c 120 "$SIM_DIR/r2.out")"

# Everybody a limited member of Default, even SELF: the SM's port stays full.
printf 'Default=0x7fff : ALL=limited, SELF=limited ;\n' >"$PARTS"
ctl reload >/dev/null || die "reload failed"
wait_sweeps 5
WANT='0:0xffff'; expect_pkeys H00001
WANT='0:0x7fff'; expect_pkeys H00003
msg "the SM's port is a full member of the default partition whatever the file says"

# QoS on: 4 data VLs; switch external ports weigh VL0-3 equally. (The
# partitions file must be valid again: a reload is all or nothing.)
cat >"$PARTS" <<EOF
Default=0x7fff, ipoib : ALL=full ;
tenantA=0x0010, ipoib, mtu=4 : SELF=full, $H2=full, $H5=limited ;
backup=0x0005 : $H2=full ;
EOF
cat >>"$CONF" <<EOF
qos yes
qos_max_vls 4
qos_swe "vlarb_low=0:8,1:8,2:8,3:8"
packet_life_time 16
EOF
ctl --json reload >"$SIM_DIR/r3.json" || die "QoS reload failed"
[ "$(jget 'r["tables_sweep"]' <"$SIM_DIR/r3.json")" = True ] || die "QoS reload started no sweep"
wait_sweeps 6
sl2vl=$(sim_run_at H00003 smpquery -D sl2vl 0 | sed -n 's/^ports: in  0, out  0: //p')
[ "$sl2vl" = "| 0| 1| 2| 3| 0| 1| 2| 3| 0| 1| 2| 3| 0| 1| 2| 3|" ] || die "CA SL2VL: $sl2vl"
sw=$(sim_run smpquery sl2vl "$L2" 3 | sed -n 's/^ports: in  1, out  3: //p')
[ "$sw" = "| 0| 1| 2| 3| 0| 1| 2| 3| 0| 1| 2| 3| 0| 1| 2| 3|" ] || die "switch SL2VL 1->3: $sw"
low=$(sim_run smpquery vlarb "$L2" 3 | sed -n '/Low priority/,/High/ s/^WEIGHT: //p')
[ "$low" = "|0x8 |0x8 |0x8 |0x8 |0x0 |0x0 |0x0 |0x0 |" ] || die "switch VLArb low: $low"
low=$(sim_run_at H00003 smpquery -D vlarb 0 | sed -n '/Low priority/,/High/ s/^WEIGHT: //p')
[ "$low" = "|0x0 |0x4 |0x4 |0x4 |0x0 |0x0 |0x0 |0x0 |" ] || die "CA VLArb low: $low"
# Every switch, every output port (all are linked in small.net): the
# tables of input ports 0..N map every SL into VL0-3; LifeTimeValue set.
nsw=0
for sw in $(sim_run ibswitches | sed -n 's/.* ports \([0-9]*\) .* lid \([0-9]*\) .*/\2:\1/p'); do
	lid=${sw%:*} np=${sw#*:}
	lt=$(sim_run smpquery switchinfo "$lid" | sed -n 's/^LifeTime:\.*//p')
	[ "$lt" = 16 ] || die "switch $lid: LifeTimeValue $lt, packet_life_time 16"
	for out in $(seq 1 "$np"); do
		sim_run smpquery sl2vl "$lid" "$out" | awk -v np="$np" -v out="$out" '
			/^ports: in/ { n++; t = $0; sub(/^ports: in *[0-9]+, out *[0-9]+: /, "", t)
				if (t != "| 0| 1| 2| 3| 0| 1| 2| 3| 0| 1| 2| 3| 0| 1| 2| 3|") { print; bad = 1 } }
			END { if (n != np + 1) print "out " out ": " n " input ports, not " np + 1; exit bad || n != np + 1 }' \
			>"$SIM_DIR/sl2vl.bad" || die "switch $lid SL2VL: $(head -n 3 "$SIM_DIR/sl2vl.bad")"
	done
	nsw=$((nsw + 1))
done
[ "$nsw" = 12 ] || die "ibswitches listed $nsw switches, not 12"
ctl --json tables >"$SIM_DIR/t3.json"
q1=$(jget 'r["qos"]["tables_written"]' <"$SIM_DIR/t3.json")
[ "$q1" -gt 0 ] || die "QoS wrote no table"
n=$(wc -l <"$SIM_LOG")
sim_cmd "Verbose 3"
ctl sweep --wait >/dev/null
sim_cmd "Verbose 0"
tail -n +"$((n + 1))" "$SIM_LOG" | grep -q -- '--- packet ---' || die "no packet in the trace of the second sweep"
sets=$(python3 "$top_srcdir/tests/integration/simtrace.py" "$SIM_LOG" --from-line "$n")
case "$sets" in *" switchinfo=0 "*) ;; *) die "the second sweep sent SwitchInfo Sets: $sets" ;; esac
ctl --json tables >"$SIM_DIR/t4.json"
q2=$(jget 'r["qos"]["tables_read"], r["qos"]["tables_written"]' <"$SIM_DIR/t4.json")
[ "$q2" = "0 0" ] || die "second QoS sweep read/wrote tables: $q2"
msg "QoS: $q1 tables written, SL2VL and VLArbitration as configured, every switch's SL2VL of input ports 0..N in VL0-3, LifeTimeValue 16; the next sweep touched none and sent no SwitchInfo Set ($sets)"

kill "$DAEMON"
wait "$DAEMON" 2>/dev/null
grep -q "ERROR: AddressSanitizer\|runtime error" "$SIM_DIR/ibsmd.log" && die "sanitizer report"

# A new daemon with enforcement off: its first sweep sets no bit anywhere.
# The fabric is configured (LIDs, SM LID, Active): it reads the tables,
# and gives H00005 a partition the old daemon did not know.
echo "part_enforce off" >>"$CONF"
echo "restart=0x0033 : $H5=limited ;" >>"$PARTS"
before5=$(pkeys H00005)
before2=$(pkeys H00002)
mv "$SIM_DIR/ibsmd.log" "$SIM_DIR/ibsmd-1.log"
n=$(wc -l <"$SIM_LOG")
sim_cmd "Verbose 3"
sim_bg sh -c 'exec "$0" -c "$1" 2>"$2"' "$IBSMD" "$CONF" "$SIM_DIR/ibsmd.log"
DAEMON=$SIM_BG_PID
wait_sweeps 1
sim_cmd "Verbose 0"
tail -n +"$((n + 1))" "$SIM_LOG" >"$SIM_DIR/trace2.txt"
grep -q "do_portinfo" "$SIM_DIR/trace2.txt" || die "no PortInfo in the second daemon's trace"
$ENFCHECK --topo "$SIM_DIR/disc.txt" --trace "$SIM_DIR/trace2.txt" --expect off \
	>"$SIM_DIR/enf2.out" || { cat "$SIM_DIR/enf2.out" >&2; die "enforcement bits (off)"; }
msg "part_enforce off: $(cat "$SIM_DIR/enf2.out")"
sets=$(python3 "$top_srcdir/tests/integration/simtrace.py" "$SIM_DIR/trace2.txt")
case "$sets" in *" switchinfo=0 "*) ;; *) die "the restarted daemon sent SwitchInfo Sets: $sets" ;; esac
pk2=$($SIMTRACE "$SIM_DIR/trace2.txt" --pkey)
case "$pk2" in pkey_get=0\ *) die "the restarted daemon read no P_KeyTable: $pk2" ;; esac
ctl --json tables >"$SIM_DIR/t5.json" || die "tables failed"
u2=$(jget 'r["partitions"]["ports_untouched"]' <"$SIM_DIR/t5.json")
[ "$u2" = 0 ] || die "configured fabric: $u2 ports taken to hold the reset table"
after5=$(pkeys H00005)
for e in $before5; do
	case " $after5 " in *" $e "*) ;; *) die "H00005 lost $e: before '$before5', after '$after5'" ;; esac
done
[ "$(echo "$after5" | wc -w)" = $(($(echo "$before5" | wc -w) + 1)) ] &&
	case "$after5" in *:0x0033*) true ;; *) false ;; esac ||
	die "H00005: before '$before5', after '$after5', want 0x0033 added"
WANT=$before2; expect_pkeys H00002
msg "configured fabric: tables read ($pk2), H00005 '$before5' -> '$after5'"

kill "$DAEMON"
wait "$DAEMON" 2>/dev/null
grep -q "ERROR: AddressSanitizer\|runtime error" "$SIM_DIR/ibsmd.log" && die "sanitizer report"

# A fresh simulator where H00003's table was changed before any SM ran:
# its LID is 0, so the bring-up takes it to hold the reset content; the
# audit reads it back and writes back both blocks. H00004's table too, but
# it got a LID and an SM LID as well: the bring-up reads and fixes it.
sim_stop
sim_start "$top_srcdir/tests/topo/small.net"
sim_run_at H00003 "$ROGUE" pkey-here 0 0xffff 0x8044 || hard_error "rogue_smp pkey-here 0 failed"
sim_run_at H00003 "$ROGUE" pkey-here 1 0x8055 || hard_error "rogue_smp pkey-here 1 failed"
WANT='0:0xffff 1:0x8044 32:0x8055'; expect_pkeys H00003
sim_run_at H00004 "$ROGUE" pkey-here 1 0x8066 || hard_error "rogue_smp pkey-here 1 failed"
sim_run_at H00004 "$ROGUE" lid-here 200 1 || hard_error "rogue_smp lid-here failed"
mv "$SIM_DIR/ibsmd.log" "$SIM_DIR/ibsmd-2.log"
cat >"$CONF" <<END
socket_path "$SOCK"
state_dir "$SIM_DIR/state3"
partitions_file "$PARTS"
log_level info
light_sweep_interval 1
audit_period 4
END
sim_bg sh -c 'exec "$0" -c "$1" 2>"$2"' "$IBSMD" "$CONF" "$SIM_DIR/ibsmd.log"
DAEMON=$SIM_BG_PID
wait_sweeps 1
ctl --json tables >"$SIM_DIR/t6.json" || die "tables failed"
u3=$(jget 'r["partitions"]["ports_untouched"], r["partitions"]["ports"]' <"$SIM_DIR/t6.json")
set -- $u3
[ "$1" = $(($2 - 1)) ] ||
	die "fresh fabric with H00004 configured: $1 of $2 ports taken as reset (all but H00004)"
up=$(date +%s)
i=0
until [ "$(pkeys H00003)" = 0:0xffff ] &&
	[ "$(grep -c "audit: [0-9a-f]* \"H00003\" port 1 P_KeyTable block [01] had 1 entries that are not ours (its table was taken for the reset one, not read): written back" "$SIM_DIR/ibsmd.log")" = 2 ]; do
	i=$((i + 1))
	[ $i -gt 40 ] && die "H00003 not repaired by the audit within 10 s: '$(pkeys H00003)'"
	kill -0 "$DAEMON" 2>/dev/null || die "ibsmd died"
	sleep 0.25
done
WANT='0:0xffff'; expect_pkeys H00004
grep -q 'audit:.*"H00004"' "$SIM_DIR/ibsmd.log" && die "H00004 was taken as reset: $(grep 'audit:.*"H00004"' "$SIM_DIR/ibsmd.log")"
ctl --json tables >"$SIM_DIR/t7.json" || die "tables failed"
rep=$(jget 'r["partitions"]["audit_blocks_repaired"], r["partitions"]["audit_blocks_read"]' <"$SIM_DIR/t7.json")
set -- $rep
[ "$1" = 2 ] || die "audit repaired $1 P_KeyTable blocks, not 2 (read $2)"
msg "table changed before the SM: written back by the audit $(($(date +%s) - up)) s after subnet up ($1 blocks repaired of $2 read, logged); with a LID and SM LID: read and right at bring-up"

kill "$DAEMON"
wait "$DAEMON" 2>/dev/null
grep -q "ERROR: AddressSanitizer\|runtime error" "$SIM_DIR/ibsmd.log" && die "sanitizer report"

# A fresh simulator where L0002 port 1's table was changed before any SM
# ran so that it lets the full tenant P_Key through (at index 32, in a
# block the bring-up has no reason to write), while the host behind it
# (H00005) is a limited member: the switch looks untouched (LID 0, SM LID
# 0, no port Armed or Active), so the bring-up takes the port to hold the
# reset table. The read-back right after the sweep finds the block,
# writes it back and logs it, long before the audit could (no light
# sweeps, audit_period 3600), and --once exits only after it.
sim_stop
sim_start "$top_srcdir/tests/topo/small.net"
sim_run_at H00005 "$ROGUE" pkey-dr 1 1 1 0x8010 || hard_error "rogue_smp pkey-dr failed"
got=$(sim_run_at H00005 smpquery -D pkeys 0,1 1 | pk_list)
[ "$got" = '0:0xffff 32:0x8010' ] || hard_error "L0002 port 1 before the SM: '$got'"
cat >"$PARTS" <<EOF
Default=0x7fff, ipoib : ALL=full ;
tenantA=0x0010 : SELF=full, $H2=full, $H5=limited ;
EOF
cat >"$CONF" <<END
state_dir "$SIM_DIR/state4"
partitions_file "$PARTS"
log_level info
light_sweep_interval 0
audit_period 3600
END
sim_run "$IBSMD" --once -c "$CONF" >"$SIM_DIR/once.out" 2>"$SIM_DIR/once.log" ||
	{ tail -n 20 "$SIM_DIR/once.log" >&2; fail "--once failed"; }
grep -q "^subnet up:" "$SIM_DIR/once.out" || fail "--once: $(cat "$SIM_DIR/once.out")"
fixed=$(grep -n 'read-back after the sweep: [0-9a-f]* "L0002" port 1 P_KeyTable block 1 had 1 entries that are not ours (its table was taken for the reset one, not read): written back' \
	"$SIM_DIR/once.log" | cut -d: -f1)
done_at=$(grep -n 'sweep 1 done in' "$SIM_DIR/once.log" | cut -d: -f1)
[ -n "$fixed" ] && [ -n "$done_at" ] && [ "$fixed" -gt "$done_at" ] ||
	{ grep 'P_Keys\|read-back\|audit\|done in' "$SIM_DIR/once.log" >&2; fail "L0002 port 1 not written back by the read-back after the sweep"; }
grep -q "P_Keys: 32 switch ports' tables assumed, [1-9][0-9]* blocks verified after the sweep, 1 written back, 0 not read back, in [0-9]* ms" \
	"$SIM_DIR/once.log" || fail "read-back line: $(grep 'P_Keys:' "$SIM_DIR/once.log")"
grep -q 'audit:' "$SIM_DIR/once.log" && fail "the audit ran: $(grep 'audit:' "$SIM_DIR/once.log")"
# The tables as the partitions say, on switch ports and CA ports alike.
L1=$(sim_run ibswitches | sed -n 's/.*"L0001" .* lid \([0-9]*\) .*/\1/p')
L2=$(sim_run ibswitches | sed -n 's/.*"L0002" .* lid \([0-9]*\) .*/\1/p')
[ -n "$L1" ] && [ -n "$L2" ] || fail "no LID for L0001/L0002 after --once"
WANT='0:0xffff 1:0x0010'; expect_pkeys H00001 "$L2" 1
WANT='0:0xffff 1:0x0010'; expect_pkeys H00005
WANT='0:0xffff 1:0x8010'; expect_pkeys H00001 "$L1" 2
WANT='0:0xffff 1:0x8010'; expect_pkeys H00002
WANT='0:0xffff 1:0x8010'; expect_pkeys H00001
WANT='0:0xffff'; expect_pkeys H00001 "$L1" 3
WANT='0:0xffff'; expect_pkeys H00003
msg "switch port table changed before the SM: written back by the read-back right after the sweep (log line $fixed, sweep done at $done_at), before --once exited; limited member's switch port and CA hold 0x0010, full members 0x8010"
exit 0
