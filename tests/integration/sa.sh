#!/bin/sh
# DOC: the SA end to end on ibsim: saquery and our test client against
# the fabric's truth, and an InformInfo subscriber receiving Reports.
#
# Fabrics: a 2-level fat tree, a 3-level one with 15 % of its switch links
# removed, a 3x3 torus, and dual-ported HCAs. On each, ibsmd brings the
# subnet up and sa_check.py asks for every record type saquery can ask
# (NR, PIR, LR, SWIR, LFTR, MFTR, GIR, PKTR, SL2VL, VLAR, SMIR, PR, SR,
# IIR, CPI) and MultiPathRecord through tests/agent/sa_agent, narrowed to
# 1-2 records (only 224 bytes of an answer cross the simulator), and
# compares them field by field with the simulator's Dump, smpquery,
# smpdump, sminfo and ibtracert; plus component-mask queries (LID, GUID,
# node description) and error statuses. On the 2-level tree a subscriber
# (sa_agent subscribe) gets Report 65 when a host's link goes down and 64
# when it comes back, and saquery IIR shows its subscription. ibsmctl's
# "sa" counters and "sa query" are checked against the same records.
. "$top_srcdir/tests/integration/lib.sh"
skip_unless_tools saquery smpdump sminfo ibtracert ibroute

IBSMD=${IBSMD:-$top_builddir/daemon/ibsmd}
AGENT=$top_builddir/tests/agent/sa_agent
CTL=$top_builddir/cli/ibsmctl
[ -x "$IBSMD" ] && [ -x "$AGENT" ] || hard_error "ibsmd or sa_agent not built"
export SIM_HOST=H00001

start_sm() {
	sim_bg sh -c 'f=$1; shift; exec "$@" 2>"$f"' sh "$SIM_DIR/sm.log" \
		"$IBSMD" -o state_dir="$SIM_DIR/state" -o log_level=info \
		-o socket_path="$SIM_DIR/sm.sock" -o light_sweep_interval=1
	SM_PID=$SIM_BG_PID
	i=0
	until grep -q 'subnet UP' "$SIM_DIR/sm.log" 2>/dev/null; do
		i=$((i + 1))
		[ "$i" -gt 300 ] && { tail -n 20 "$SIM_DIR/sm.log" >&2; fail "subnet not up"; }
		sleep 0.1
	done
}

stop_all() {
	kill -TERM "$SM_PID" 2>/dev/null
	wait "$SM_PID" 2>/dev/null
	sim_stop
	rm -rf "$SIM_DIR/state"
	mv "$SIM_DIR/sm.log" "$SIM_DIR/sm-$fabric.log"
}

# check NAME NETFILE [sa_check options]
check() {
	fabric=$1
	msg "$1"
	sim_start "$2"
	start_sm
	sim_dump "$SIM_DIR/dump.txt"
	SIM_PRELOAD=$SIM_PRELOAD SIM_DIR=$SIM_DIR \
		python3 "$top_srcdir/tests/integration/sa_check.py" "$SIM_DIR/dump.txt" "$AGENT" "$3" \
		>"$SIM_DIR/check-$1.txt" 2>&1
	rc=$?
	tail -n 1 "$SIM_DIR/check-$1.txt" >&2
	[ $rc -eq 0 ] || { grep FAIL "$SIM_DIR/check-$1.txt" | head -n 20 >&2; fail "$1: SA answers differ"; }
}

# a subscriber on H00005: 65 when H00010's link goes down, 64 when back
wait_for() {
	i=0
	until grep -q "$1" "$2" 2>/dev/null; do
		i=$((i + 1))
		[ "$i" -gt 150 ] && { cat "$2" >&2; fail "waiting for '$1' in $2"; }
		sleep 0.1
	done
}

subscriber() {
	gid=$(python3 -c '
import ipaddress, re, sys
m = re.search(r"\"H00010\"\tnodeguid ([0-9a-fx]+)", open(sys.argv[1]).read())
print(ipaddress.IPv6Address((0xfe80000000000000 << 64) | (int(m.group(1), 16) + 1)))
' "$SIM_DIR/dump.txt")
	T=40 sim_run_at H00005 "$AGENT" -t 30 subscribe 64,65 2 >"$SIM_DIR/sub.out" 2>&1 &
	sub=$!
	wait_for subscribed "$SIM_DIR/sub.out"
	T=10 sim_run saquery IIR >"$SIM_DIR/iir.txt" || fail "saquery IIR"
	[ "$(grep -c 'InformInfoRecord dump' "$SIM_DIR/iir.txt")" -eq 2 ] ||
		{ cat "$SIM_DIR/iir.txt" >&2; fail "saquery IIR: not the 2 subscriptions"; }
	peer=$(sed -n '/^Hca.*"H00010"/{n;p}' "$SIM_DIR/ft2.net" | sed 's/^\[1\][[:space:]]*//')
	sim_cmd 'Unlink "H00010"[1]'
	wait_for "report trap 65 gid $gid " "$SIM_DIR/sub.out"
	sim_cmd "Link \"H00010\"[1] $peer"
	wait "$sub" || { cat "$SIM_DIR/sub.out" >&2; fail "subscriber did not get both Reports"; }
	grep -q "report trap 64 gid $gid " "$SIM_DIR/sub.out" ||
		{ cat "$SIM_DIR/sub.out" >&2; fail "no Report 64 for $gid"; }
	msg "subscriber: $(grep report "$SIM_DIR/sub.out" | tr '\n' ';')"
}

# the control socket: counters, and a whole table no MAD could carry here
ctl_checks() {
	"$CTL" -s "$SIM_DIR/sm.sock" -j sa >"$SIM_DIR/ctl-sa.json" || fail "ibsmctl sa"
	python3 - "$SIM_DIR/ctl-sa.json" <<'PY' || fail "ibsmctl sa counters"
import json, sys
r = json.load(open(sys.argv[1]))['result']
a = {x['attribute']: x for x in r['attributes']}
assert r['serving'] and r['totals']['received'] > 50, r['totals']
assert a['NodeRecord']['requests'] > 0 and a['PathRecord']['records'] > 0
assert a['PathRecord']['p99_us'] >= a['PathRecord']['p50_us'] > 0
PY
	"$CTL" -s "$SIM_DIR/sm.sock" -j sa query NR >"$SIM_DIR/ctl-nr.json" || fail "ibsmctl sa query NR"
	python3 - "$SIM_DIR/ctl-nr.json" "$SIM_DIR/dump.txt" <<'PY' || fail "ibsmctl sa query NR: not the whole table"
import json, re, sys
r = json.load(open(sys.argv[1]))['result']
names = set(re.findall(r'^(?:Switch|Ca|Hca)\s+\d+\s+"([^"]*)"', open(sys.argv[2]).read(), re.M))
# every switch once, every CA port (single-ported here) once: names once each
got = [x['NodeDescription'] for x in r['records']]
assert r['count'] == len(got) == len(names) == len(set(got)) and set(got) == names, (r['count'], len(names))
PY
}

sim_setup
topo_gen "$SIM_DIR/ft2.net" ft2 8
topo_gen "$SIM_DIR/ft3.net" ft3 4 --remove-links 15 --keep-connected --seed 3
topo_gen "$SIM_DIR/torus.net" torus 3 3 --hosts 2
topo_gen "$SIM_DIR/multi.net" multiport 4

check ft2 "$SIM_DIR/ft2.net"
subscriber
ctl_checks
stop_all
check ft3-degraded "$SIM_DIR/ft3.net"
stop_all
check torus "$SIM_DIR/torus.net"
stop_all
check multiport "$SIM_DIR/multi.net" --multiport
stop_all
exit 0
