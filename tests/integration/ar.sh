#!/bin/sh
# DOC: adaptive routing end to end over ibsim.
#
# 1. A radix-4 two-level fat tree (4 leaves, 2 spines, 8 hosts) whose six
#    switches carry an NVIDIA vendor ID and are all played by ar_agent:
#    ibsmd --once detects AR on every switch and programs it; each agent's
#    tables equal ibsmd's --dump-ar; the groups follow the hand rule (a
#    leaf: up ports 3,4 for every other leaf, nothing for itself; a spine:
#    the one port cabled to that leaf); group ids are persisted.  One agent
#    fails its 4th Set: that switch ends with AR off, its static LFT
#    complete (ibroute = ibsmd's tables), the subnet still comes up.
# 2. ibsmd as a daemon, the same agent failing again in sweep 1: it falls
#    back, sweep 2 retries and enables it; sweeps that change nothing send
#    no AR Set; an agent restarted with empty tables (a reset switch) is
#    reprogrammed; after a leaf-spine link is lost the groups shrink on the
#    running fabric and every agent again holds exactly ibsmd's tables.
# 3. An agent failing every Set: its errors trip the fabric-wide breaker
#    and AR goes off on every switch.
# 4. Plain ibsim fabrics with ar_enable: no AR anywhere, static routing,
#    no stall; the time AR detection adds is printed.
. "$top_srcdir/tests/integration/lib.sh"
skip_unless_tools ibroute

IBSMD=$top_builddir/daemon/ibsmd
AGENT=$top_builddir/tests/agent/ar_agent
[ -x "$IBSMD" ] || hard_error "$IBSMD not built"
[ -x "$AGENT" ] || hard_error "$AGENT not built"
SWITCHES="L0001 L0002 L0003 L0004 S0001 S0002"
BAD=L0003

sim_setup
# ibsim gives switches vendor ID 0 unless the net file sets one
topo_gen "$SIM_DIR/plain.net" ft2 4
awk '/^Switch/ { print "vendid=0x2c9"; print "devid=0xcb20" } { print }' \
	"$SIM_DIR/plain.net" >"$SIM_DIR/nv.net"

start_agent() {   # NAME [agent options]
	_n=$1
	shift
	rm -f "$SIM_DIR/agent-$_n.txt"
	eval "READY_BASE_$_n=$(cat "$SIM_DIR/agent-$_n.log" 2>/dev/null | grep -c 'ready on')"
	SIM_HOST=$_n sim_bg sh -c 'exec "$@" 2>>"$0"' "$SIM_DIR/agent-$_n.log" \
		"$AGENT" -o "$SIM_DIR/agent-$_n.txt" -t 300 "$@"
	eval "AGENT_PID_$_n=\$SIM_BG_PID"
}

wait_ready() {   # NAME...: until each started agent says it is attached
	for _n; do
		_i=0
		eval "_b=\$READY_BASE_$_n"
		until [ "$(grep -c 'ready on' "$SIM_DIR/agent-$_n.log" 2>/dev/null)" -gt "$_b" ]; do
			_i=$((_i + 1))
			[ "$_i" -gt 100 ] && fail "agent $_n did not attach"
			sleep 0.1
		done
	done
}

stop_agent() {   # NAME: TERM makes it dump its tables and exit
	eval "_p=\$AGENT_PID_$1"
	kill "$_p" 2>/dev/null
	wait "$_p" 2>/dev/null
	[ -s "$SIM_DIR/agent-$1.txt" ] || fail "agent $1 wrote no dump"
}

dump_agent() {   # NAME: SIGUSR1 to the agent (child of timeout), wait for the dump
	eval "_p=\$AGENT_PID_$1"
	rm -f "$SIM_DIR/agent-$1.txt"
	pkill -USR1 -P "$_p"
	_i=0
	until [ -s "$SIM_DIR/agent-$1.txt" ]; do
		_i=$((_i + 1))
		[ "$_i" -gt 50 ] && fail "agent $1 did not dump"
		sleep 0.1
	done
}

wait_sweeps() {   # N: wait until N more sweeps of the daemon are done
	_n=$(grep -c 'sweep [0-9]* done' "$SIM_DIR/err2.txt")
	_i=0
	until [ "$(grep -c 'sweep [0-9]* done' "$SIM_DIR/err2.txt")" -ge $((_n + $1)) ]; do
		_i=$((_i + 1))
		[ "$_i" -gt 200 ] && fail "daemon: no sweep in 20 s"
		sleep 0.1
	done
}

guid_of() {   # agent dump -> switch GUID
	sed -n 's/^switch \(0x[0-9a-f]*\) .*/\1/p' "$1"
}

# ibsmd's section for a switch against the agent's tables
same_tables() {   # NAME OURS
	g=$(guid_of "$SIM_DIR/agent-$1.txt")
	awk -v g="$g" '/^switch/ { on = ($2 == g) } on && !/^json /' "$2" >"$SIM_DIR/ours-$1.txt"
	grep -v '^sets \|^info ' "$SIM_DIR/agent-$1.txt" >"$SIM_DIR/theirs-$1.txt"
	diff -u "$SIM_DIR/ours-$1.txt" "$SIM_DIR/theirs-$1.txt" >&2 ||
		fail "$1: the agent's AR tables differ from ibsmd's"
}

sets_of() {
	sed -n 's/^sets //p' "$SIM_DIR/agent-$1.txt"
}

# The hand rule for groups, from the net file and the persisted ids.
check_groups() {
	python3 - "$SIM_DIR/nv.net" "$SIM_DIR/state/ar-groups" "$SIM_DIR"/agent-*.txt <<'PY' ||
import re, sys
net, ids_file, dumps = sys.argv[1], sys.argv[2], sys.argv[3:]
links, name, guid_of = {}, None, {}
for line in open(net):
    m = re.match(r'Switch\s+\d+\s+"([^"]+)"', line)
    if m:
        name = m.group(1); links[name] = {}; continue
    m = re.match(r'\[(\d+)\]\s+"([^"]+)"', line)
    if m and name:
        links[name][int(m.group(1))] = m.group(2)
    if not line.strip():
        name = None
lines = open(ids_file).read().split('\n')
assert lines[0] == 'ibsmd-ar-groups 1', lines[0]
ids = {int(l.split()[0], 16): int(l.split()[1]) for l in lines[1:] if l and not l.startswith('#')}
assert len(ids) == 4 and sorted(ids.values()) == [1, 2, 3, 4], ids
bad = 0
for d in dumps:
    txt = open(d).read()
    m = re.match(r'switch (0x[0-9a-f]+) enabled 1', txt)
    if not m:
        continue
    sw = d.split('agent-')[1][:-4]
    groups = {int(g): p for g, p in re.findall(r'^group (\d+) ports (\S+)$', txt, re.M)}
    for leaf_guid, gid in ids.items():
        # ibsim numbers switch GUIDs in file order from 0x200000
        leaf = ['L0001', 'L0002', 'L0003', 'L0004'][leaf_guid - 0x200000]
        if sw.startswith('L'):
            want = '-' if sw == leaf else '3,4'
        else:
            want = ','.join(str(p) for p, n in sorted(links[sw].items()) if n == leaf)
        if groups.get(gid) != want:
            print(f'{sw}: group {gid} (leaf {leaf}) is {groups.get(gid)}, want {want}')
            bad = 1
sys.exit(bad)
PY
	fail "groups do not follow the up/down rule"
}

check_static_lft() {   # NAME: ibroute of the switch equals ibsmd's LFT dump
	lid=$(awk -v n="($1):" '/^Unicast lids/ && index($0, n) { sub(/.*switch Lid /, ""); print $1 }' \
		"$SIM_DIR/lfts.txt")
	[ -n "$lid" ] || fail "$1 not in the LFT dump"
	sim_run_at H00001 ibroute "$lid" >"$SIM_DIR/ibroute.txt" 2>/dev/null || fail "ibroute $lid failed"
	awk -v l="$lid" '/^Unicast lids/ { on = ($0 ~ ("switch Lid " l " ")) } on' "$SIM_DIR/lfts.txt" \
		>"$SIM_DIR/ours-lft.txt"
	diff -u "$SIM_DIR/ibroute.txt" "$SIM_DIR/ours-lft.txt" >&2 ||
		fail "$1: static LFT incomplete after the fallback"
}

# --- 1. every switch an agent, one failing mid-programming ---
sim_start "$SIM_DIR/nv.net"
for sw in $SWITCHES; do
	if [ "$sw" = "$BAD" ]; then start_agent "$sw" -f 3; else start_agent "$sw"; fi
done
wait_ready $SWITCHES
mkdir -p "$SIM_DIR/state"
sim_run_at H00001 "$IBSMD" --once -o state_dir="$SIM_DIR/state" -o ar_enable=yes \
	-o ar_mode=bounded -o ar_sl_mask=0x00ff -o ar_ageing_time_us=77 \
	-o log_level=info --dump-ar "$SIM_DIR/ar1.txt" --dump-lfts "$SIM_DIR/lfts.txt" \
	>"$SIM_DIR/out1.txt" 2>"$SIM_DIR/err1.txt" ||
	{ cat "$SIM_DIR/err1.txt" >&2; fail "ibsmd --once failed"; }
grep -q '^subnet up' "$SIM_DIR/out1.txt" || fail "subnet not up with AR"
for sw in $SWITCHES; do
	stop_agent "$sw"
	same_tables "$sw" "$SIM_DIR/ar1.txt"
	if [ "$sw" = "$BAD" ]; then
		grep -q 'enabled 0' "$SIM_DIR/agent-$sw.txt" || fail "$sw: AR still on after its failure"
		grep -q "\"$sw\": static routing (AR off)" "$SIM_DIR/err1.txt" ||
			fail "$sw: no fallback logged"
		check_static_lft "$sw"
	else
		grep -q 'enabled 1 group_top 4' "$SIM_DIR/agent-$sw.txt" || fail "$sw: AR not enabled"
		# the configuration reached ARInfo (transport mask 0xa: UD, UC off)
		grep -q '^info by_sl_en 1 sl_mask 0x00ff transport_disable 0x5 ageing 77$' \
			"$SIM_DIR/agent-$sw.txt" || fail "$sw: ARInfo fields not as configured"
		case $sw in L*) grep -q '^lid [0-9]* bounded ' "$SIM_DIR/agent-$sw.txt" ||
			fail "$sw: no Bounded entry with ar_mode=bounded" ;;
		esac
	fi
done
check_groups
# what the control socket will show (sm_ar_switch_json / sm_ar_groups_json)
python3 - "$SIM_DIR/ar1.txt" <<'PY' || fail "JSON view of the AR state is wrong"
import json, sys
sw = {}
for line in open(sys.argv[1]):
    if line.startswith('switch '):
        guid = line.split()[1]
    elif line.startswith('json '):
        sw[guid] = json.loads(line[5:])
assert len(sw) == 6, sw
for guid, j in sw.items():
    assert j['supported'] is True and j['group_cap'] == 64, j
    if guid == '0x0000000000200002':   # L0003, failed mid-programming
        assert j['enabled'] is False and j['errors'] == 1 and 'group table' in j['last_error'], j
        assert j['groups'] == 0, j
    else:
        assert j['enabled'] is True and j['last_error'] is None and j['groups'] == 4, j
    gt = {g['group']: g['ports'] for g in j['group_table']}
    if guid == '0x0000000000200000':   # L0001: up ports to the 3 other leaves
        assert sorted(gt) == [2, 3, 4], gt
        assert all(p == [3, 4] for p in gt.values()), gt
    if guid in ('0x0000000000200004', '0x0000000000200005'):   # spines
        assert len(gt) == 4 and all(len(p) == 1 for p in gt.values()), gt
PY
msg "run 1: AR on 5 switches, tables equal ibsmd's; $BAD fell back with a complete static LFT"

# --- 2. daemon: fallback in sweep 1, retry in sweep 2, no redundant Sets ---
cp "$SIM_DIR/state/ar-groups" "$SIM_DIR/ar-groups.1"
for sw in $SWITCHES; do
	if [ "$sw" = "$BAD" ]; then start_agent "$sw" -f 2; else start_agent "$sw"; fi
done
wait_ready $SWITCHES
SIM_HOST=H00001 sim_bg sh -c 'exec "$@" 2>"$0"' "$SIM_DIR/err2.txt" "$IBSMD" \
	-o state_dir="$SIM_DIR/state" -o socket_path="$SIM_DIR/ibsmd.sock" -o ar_enable=yes -o sweep_interval=1 -o log_level=info \
	--dump-ar "$SIM_DIR/ar2.txt"
SM_PID=$SIM_BG_PID
i=0
until grep -qs 'sweep 3 done' "$SIM_DIR/err2.txt"; do
	i=$((i + 1))
	[ "$i" -gt 150 ] && { cat "$SIM_DIR/err2.txt" >&2; fail "no third sweep in 15 s"; }
	sleep 0.1
done
grep -q "sweep 1 done.*subnet UP" "$SIM_DIR/err2.txt" || fail "daemon: subnet not up in sweep 1"
grep -q "\"$BAD\": static routing (AR off)" "$SIM_DIR/err2.txt" || fail "daemon: $BAD did not fall back"
for sw in $SWITCHES; do dump_agent "$sw"; done
for sw in $SWITCHES; do eval "sets_$sw=$(sets_of "$sw")"; done
wait_sweeps 2
for sw in $SWITCHES; do
	dump_agent "$sw"
	eval "before=\$sets_$sw"
	[ "$(sets_of "$sw")" = "$before" ] ||
		fail "$sw: $before Sets, then $(sets_of "$sw") two sweeps later (nothing changed)"
done
# a switch that loses its AR state (here: a fresh agent) is reprogrammed
stop_agent L0001
start_agent L0001
wait_ready L0001
# (noticed as "AR found off", or, if a sweep ran while no agent was
# attached, as a failure and a fallback first; either way AR comes back)
i=0
until [ "$(grep -c '"L0001": adaptive routing on' "$SIM_DIR/err2.txt")" -ge 2 ]; do
	i=$((i + 1))
	[ "$i" -gt 100 ] && fail "L0001: not reprogrammed after its reset"
	sleep 0.1
done
wait_sweeps 1
for sw in $SWITCHES; do
	dump_agent "$sw"
	same_tables "$sw" "$SIM_DIR/ar2.txt"
	grep -q 'enabled 1 group_top 4' "$SIM_DIR/agent-$sw.txt" || fail "$sw: AR not on after the retry"
done
grep -q "\"$BAD\": adaptive routing on" "$SIM_DIR/err2.txt" || fail "$BAD: not retried"
cmp -s "$SIM_DIR/state/ar-groups" "$SIM_DIR/ar-groups.1" || fail "group ids changed across restarts"
check_groups

# a lost link changes groups on a running fabric (make-before-break path):
# L0004 loses spine S0002, so every leaf reaches L0004 only through port 3
sim_cmd 'Unlink "L0004"[4]'
wait_sweeps 3
kill "$SM_PID"
wait "$SM_PID" 2>/dev/null
id4=$(awk '$1 == "0x0000000000200003" { print $2 }' "$SIM_DIR/state/ar-groups")
for sw in $SWITCHES; do
	stop_agent "$sw"
	same_tables "$sw" "$SIM_DIR/ar2.txt"
	case $sw in
	L0004) want="-" ;; L*) want=3 ;; S0002) want="-" ;; S0001) want=4 ;;
	esac
	grep -q "^group $id4 ports $want\$" "$SIM_DIR/agent-$sw.txt" ||
		fail "$sw: group $id4 (leaf L0004) is not '$want' after the unlink"
done
msg "run 2: $BAD fell back in sweep 1, enabled later; idle sweeps sent no AR Sets; a reset switch was reprogrammed; groups follow a lost link"
sim_stop

# --- 3. the breaker: a switch failing every Set trips it, AR goes off everywhere ---
sim_start "$SIM_DIR/nv.net"
for sw in $SWITCHES; do
	if [ "$sw" = "$BAD" ]; then start_agent "$sw" -f 1 -F 1000000; else start_agent "$sw"; fi
done
wait_ready $SWITCHES
: >"$SIM_DIR/err2.txt"
SIM_HOST=H00001 sim_bg sh -c 'exec "$@" 2>"$0"' "$SIM_DIR/err2.txt" "$IBSMD" \
	-o state_dir="$SIM_DIR/state" -o socket_path="$SIM_DIR/ibsmd.sock" -o ar_enable=yes -o sweep_interval=1 -o log_level=info
SM_PID=$SIM_BG_PID
i=0
until grep -qs 'adaptive routing off fabric-wide' "$SIM_DIR/err2.txt"; do
	i=$((i + 1))
	[ "$i" -gt 300 ] && { tail -20 "$SIM_DIR/err2.txt" >&2; fail "breaker did not trip in 30 s"; }
	sleep 0.1
done
wait_sweeps 2
kill "$SM_PID"
wait "$SM_PID" 2>/dev/null
for sw in $SWITCHES; do
	stop_agent "$sw"
	grep -q 'enabled 0' "$SIM_DIR/agent-$sw.txt" || fail "$sw: AR still on after the breaker tripped"
done
msg "breaker: tripped after $(grep -c 'falling back' "$SIM_DIR/err2.txt") errors; AR off on all switches"
sim_stop

# --- 4. plain ibsim: no AR, static routing, no stall ---
for net in plain nv; do
	sim_start "$SIM_DIR/$net.net"
	for ar in warmup no yes; do
		rm -rf "$SIM_DIR/state3"
		mkdir -p "$SIM_DIR/state3"
		sim_run_at H00001 "$IBSMD" --once -o state_dir="$SIM_DIR/state3" \
			-o ar_enable="$( [ $ar = yes ] && echo yes || echo no)" \
			-o log_level=info --dump-ar "$SIM_DIR/ar3.txt" \
			>"$SIM_DIR/out3.txt" 2>"$SIM_DIR/err3.txt" ||
			{ cat "$SIM_DIR/err3.txt" >&2; fail "$net ar_enable=$ar: ibsmd failed"; }
		grep -q '^subnet up' "$SIM_DIR/out3.txt" || fail "$net ar_enable=$ar: subnet not up"
		[ $ar = warmup ] && continue
		msg "$net.net ar_enable=$ar: $(sed -n 's/.*\(smps_sent=[0-9]*\).*\(smps_failed=[0-9]*\).*\(elapsed_ms=.*\)/\1 \2 \3/p' "$SIM_DIR/out3.txt")"
	done
	grep -q 'adaptive routing on' "$SIM_DIR/err3.txt" && fail "$net: AR claimed without agents"
	n=$(grep -c 'AR: .*not supported' "$SIM_DIR/err3.txt")
	python3 -c 'import json, sys
j = [json.loads(l[5:]) for l in open(sys.argv[1]) if l.startswith("json ")]
assert len(j) == 6 and all(x["supported"] is False and not x["enabled"] and x["reason"] for x in j), j
' "$SIM_DIR/ar3.txt" || fail "$net: JSON does not say unsupported"
	[ "$n" -eq 6 ] || fail "$net: $n of 6 switches marked unsupported"
	sim_stop
done
exit 0
