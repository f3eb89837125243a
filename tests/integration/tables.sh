#!/bin/sh
# DOC: partitions and QoS tables on the simulator, judged by smpquery.
#
# On the 32-host tree (tests/topo/small.net), ibsmd runs as a daemon with a
# partitions file of a default partition, a tenant with full and limited
# members and a storage partition of all CAs (limited) and the SM (full):
#   - every host's P_KeyTable (smpquery pkeys) holds exactly its partitions,
#     the default one at index 0; the switch port facing a limited tenant
#     member holds that host's table;
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
#     enforcement bit.
. "$top_srcdir/tests/integration/lib.sh"
skip_unless_tools ibswitches

IBSMD=$top_builddir/sm/ibsmd
CTL=$top_builddir/cli/ibsmctl
[ -x "$IBSMD" ] && [ -x "$CTL" ] || hard_error "ibsmd or ibsmctl not built"
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

# pkeys HOST [LID PORT]: "index:P_Key" of the non-empty entries.
pkeys() {
	if [ $# -eq 1 ]; then
		sim_run_at "$1" smpquery -D pkeys 0
	else
		sim_run smpquery pkeys "$2" "$3"
	fi | awk '/^ *[0-9]+:/ { i = $1 + 0; for (k = 2; k <= NF; k++) {
		if ($k != "0x0000") printf "%d:%s ", i + k - 2, $k } }
		END { print "" }' | sed 's/ $//'
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
ctl sweep --wait >/dev/null || die "sweep failed"
ctl --json tables >"$SIM_DIR/t2.json"
r2=$(jget 'r["partitions"]["blocks_read"], r["partitions"]["blocks_written"]' <"$SIM_DIR/t2.json")
[ "$r2" = "0 0" ] || die "second sweep read/wrote P_Key blocks: $r2"
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
echo "part_enforce off" >>"$CONF"
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

kill "$DAEMON"
wait "$DAEMON" 2>/dev/null
grep -q "ERROR: AddressSanitizer\|runtime error" "$SIM_DIR/ibsmd.log" && die "sanitizer report"
exit 0
