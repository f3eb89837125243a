#!/bin/sh
# DOC: SM high availability on ibsim: election, takeover, handover, rogue
# SMInfo Sets, a master whose ActCount freezes, and ibsmd beside OpenSM.
#
#   election   two SMs started together, then a third: one master (the
#              highest), the others standby; `ibsmctl sms` of each lists
#              the others with their state and priority
#   takeover   kill -9 of the master: the highest standby takes over within
#              3 s, no LID changed, no LFT block written, no port state
#              changed (its own log and the simulator's packet trace)
#   handover   a higher SM joins: the master hands over to it
#   standby    `ibsmctl reroute` on a standby: refused (not_master), and
#              the simulator sees no Set meanwhile; then a sanity check
#              that the trace does count Sets: a rogue LFT Set and the
#              master's repair of it are seen
#   rogue      SMInfo Sets from a host that is no master (sminfo -s ...),
#              also with the master's GUID and SM_Key forged (rogue_smp):
#              refused, logged, no state change
#   frozen     a master (sm_agent) that answers with an ActCount that never
#              moves: the standby takes over
#   opensm     ibsmd and OpenSM (same SM_Key, OpenSM's default) in both
#              orders and both priority orders: exactly one master, then no
#              LFT or PortInfo Set for 10 s
# Every SM's state is also read with infiniband-diags' sminfo.
. "$top_srcdir/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/sm_lib.sh"
skip_unless_tools sminfo opensm

IBSMD=$top_builddir/sm/ibsmd
CTL=$top_builddir/cli/ibsmctl
AGENT=$top_builddir/tests/agent/sm_agent
ROGUE=$top_builddir/tests/agent/rogue_smp
TRACE="python3 $top_srcdir/tests/integration/simtrace.py"
[ -x "$IBSMD" ] && [ -x "$CTL" ] && [ -x "$AGENT" ] && [ -x "$ROGUE" ] ||
	hard_error "build ibsmd, ibsmctl, sm_agent, rogue_smp"

sim_setup
topo_gen "$SIM_DIR/ft2-8.net" ft2 8
sim_start "$SIM_DIR/ft2-8.net"

# sm_state LID: the SMInfo state (0-3) read with sminfo from H00008.
sm_state() {
	T=5 sim_run_at H00008 sminfo "$1" 2>/dev/null | sed -n 's/.* state \([0-9]\) .*/\1/p'
}

# masters LID...: how many of those SMs say MASTER.
masters() {
	_n=0
	for _l in "$@"; do [ "$(sm_state "$_l")" = 3 ] && _n=$((_n + 1)); done
	echo "$_n"
}

lid_of() {
	sim_dump "$SIM_DIR/lid.dump"
	simstate --lid-of "$1" "$SIM_DIR/lid.dump"
}

# ---------------------------------------------------------------- election
start_sm a H00001 0
start_sm b H00002 5
until_state b master 5
until_state a standby 5
start_sm c H00003 3
until_state c standby 5
LA=$(lid_of H00001) LB=$(lid_of H00002) LC=$(lid_of H00003)
[ "$(masters "$LA" "$LB" "$LC")" = 1 ] || fail "election: $(masters "$LA" "$LB" "$LC") masters by sminfo"
[ "$(sm_state "$LB")" = 3 ] || fail "election: sminfo does not see b as master"
# sms_view NAME: "GUID state priority" for each other SM NAME knows.
sms_view() {
	T=5 sim_run "$CTL" -s "$SIM_DIR/$1/sock" -j sms 2>/dev/null | python3 -c '
import json, sys
for o in json.load(sys.stdin)["result"]["others"]:
    print(o["guid"], o["state"], o["priority"])'
}
sm_guid() {
	T=5 sim_run "$CTL" -s "$SIM_DIR/$1/sock" -j sms 2>/dev/null |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["result"]["guid"])'
}
GA=$(sm_guid a) GB=$(sm_guid b) GC=$(sm_guid c)
sms_view a | grep -qx "$GB master 5" || fail "election: a's sms: $(sms_view a)"
sms_view c | grep -qx "$GB master 5" || fail "election: c's sms: $(sms_view c)"
# b lists the standbys as their SMInfo last said: it re-asks after its
# heavy sweeps and on Trap 144, so c, which b found while c was still
# discovering, may show so until then
sms_view b | grep -qx "$GA standby 0" || fail "election: b's sms: $(sms_view b)"
sms_view b | grep -Eqx "$GC (standby|discovering) 3" || fail "election: b's sms: $(sms_view b)"
T=5 sim_run "$CTL" -s "$SIM_DIR/a/sock" sms 2>/dev/null | grep -q "${GB#0x}" ||
	fail "election: a's ibsmctl sms (text) does not list b"
msg "election: b (priority 5) master, a (0) and c (3) standby, by ibsmctl, ibsmctl sms and sminfo"

# ---------------------------------------------------------------- standby
# sets FROM-LINE: "lft=L portinfo=P switchinfo=S other=O" as positional
# parameters 2, 4, 6, 8 (every SMP Set the simulator handled since then).
sets() {
	set -- $($TRACE "$SIM_LOG" --from-line "$1" | tr '=' ' ')
	echo "$2 $4 $6 $8"
}
line=$(wc -l <"$SIM_LOG")
sim_cmd "Verbose 3"
T=5 sim_run "$CTL" -s "$SIM_DIR/a/sock" -j reroute >"$SIM_DIR/reroute.out" 2>&1 &&
	fail "standby: reroute on a standby succeeded: $(cat "$SIM_DIR/reroute.out")"
grep -q '"not_master"' "$SIM_DIR/reroute.out" ||
	fail "standby: reroute on a standby: $(cat "$SIM_DIR/reroute.out")"
T=5 sim_run "$CTL" -s "$SIM_DIR/c/sock" reroute >/dev/null 2>&1 && fail "standby: c rerouted"
sleep 1
sim_cmd "Verbose 0"
[ "$(sets "$line")" = "0 0 0 0" ] || fail "standby: Sets (lft portinfo switchinfo other) while standbys were asked to reroute: $(sets "$line")"
[ "$(state a)" = standby ] && [ "$(state c)" = standby ] || fail "standby: a or c changed state"
grep -q 'BUG: SMP Set' "$SIM_DIR/a.log" "$SIM_DIR/c.log" && fail "standby: a Set reached the engine's gate"
# Sanity: the trace counts Sets (a parser mismatch would give 0 above): a
# rogue LFT Set and the master's repair of it (its audit or the sweep,
# which reads every block back) are both seen; nobody else writes LFTs.
LSW=$(lid_of L0001)
line=$(wc -l <"$SIM_LOG")
sim_cmd "Verbose 3"
T=10 sim_run_at H00008 "$ROGUE" lft "$LSW" 0 255 || [ $? = 3 ] || fail "standby: rogue LFT Set failed"
T=20 sim_run "$CTL" -s "$SIM_DIR/b/sock" sweep --wait >/dev/null 2>&1 || fail "standby: b's sweep failed"
sim_cmd "Verbose 0"
set -- $(sets "$line")
[ "$1" -ge 2 ] || fail "standby: the trace saw $1 LFT Sets for a rogue Set and its repair"
msg "standby: reroute refused by a and c (not_master), no Set meanwhile; the trace saw $1 LFT Sets for a rogue Set and b's repair"

# ---------------------------------------------------------------- takeover
sim_dump "$SIM_DIR/before.dump"
line=$(wc -l <"$SIM_LOG")
sim_cmd "Verbose 3"
t0=$(date +%s%N)
kill9 b
until_state c master 3
until grep -q 'done in.*subnet UP' "$SIM_DIR/c.log"; do sleep 0.1; done
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
sleep 1
sim_cmd "Verbose 0"
grep 'done in.*subnet UP' "$SIM_DIR/c.log" | tail -n 1 | grep -q ' 0 LFT blocks written.* 0 port state changes' ||
	fail "takeover: c wrote: $(grep 'done in' "$SIM_DIR/c.log" | tail -n 1)"
set -- $($TRACE "$SIM_LOG" --from-line "$line" | tr '=' ' ')
[ "$2" = 0 ] || fail "takeover: the simulator saw $2 LFT Sets"
sim_dump "$SIM_DIR/after.dump"
simstate --same-lids "$SIM_DIR/before.dump" "$SIM_DIR/after.dump" >"$SIM_DIR/moved" ||
	fail "takeover: LIDs changed: $(cat "$SIM_DIR/moved")"
until_state a standby 3
msg "takeover: b killed, c master and its first sweep done in $ms ms; 0 LID changes, 0 LFT Sets, 0 port state changes"

# ---------------------------------------------------------------- handover
start_sm d H00004 10
until_state d master 8
until_state c standby 3
LD=$(lid_of H00004)
[ "$(masters "$LA" "$LC" "$LD")" = 1 ] || fail "handover: not one master by sminfo"
grep -q 'handed over to SM' "$SIM_DIR/c.log" || fail "handover: c did not hand over"
msg "handover: d (priority 10) joined; c handed over, d master, a and c standby"

# ---------------------------------------------------------------- rogue
T=5 sim_run_at H00008 sminfo -s 3 -p 15 "$LA" 1 >/dev/null 2>&1
T=5 sim_run_at H00008 sminfo -s 3 -p 15 "$LD" 3 >/dev/null 2>&1
sleep 0.5
[ "$(state a)" = standby ] || fail "rogue: a HANDOVER from a host made a $(state a)"
[ "$(state d)" = master ] || fail "rogue: a DISABLE from a host made d $(state d)"
grep -q 'refused SMInfo Set HANDOVER' "$SIM_DIR/a.log" || fail "rogue: a did not log the refusal"
grep -q 'refused SMInfo Set DISABLE' "$SIM_DIR/d.log" || fail "rogue: d did not log the refusal"
msg "rogue: HANDOVER to a standby and DISABLE to the master from a plain host: refused, logged"
# The same with the master's GUID and SM_Key forged in the payload: only
# where the Set came from gives it away.
GD=$(T=5 sim_run "$CTL" -s "$SIM_DIR/d/sock" -j sms |
	python3 -c 'import json,sys; print(json.load(sys.stdin)["result"]["guid"])')
T=5 sim_run_at H00008 "$ROGUE" sminfo "$LA" 1 "$GD" 1 3 10 2>/dev/null &&
	fail "rogue: a accepted a forged HANDOVER"
T=5 sim_run_at H00008 "$ROGUE" sminfo "$LC" 3 "$GD" 1 3 10 2>/dev/null &&
	fail "rogue: c accepted a forged DISABLE"
sleep 0.5
[ "$(state a)" = standby ] || fail "rogue: a forged HANDOVER made a $(state a)"
[ "$(state c)" = standby ] || fail "rogue: a forged DISABLE made c $(state c)"
[ "$(masters "$LA" "$LC" "$LD")" = 1 ] || fail "rogue: not one master by sminfo after forged Sets"
grep -q "refused SMInfo Set HANDOVER from SM .*${GD#0x}.*not sent by the SM it names" "$SIM_DIR/a.log" ||
	fail "rogue: a did not log the forged HANDOVER"
grep -q "refused SMInfo Set DISABLE from SM .*${GD#0x}.*not sent by the SM it names" "$SIM_DIR/c.log" ||
	fail "rogue: c did not log the forged DISABLE"
msg "rogue: HANDOVER and DISABLE from a host with the master's GUID and SM_Key: refused, logged"
stop a
stop c
stop d

# ---------------------------------------------------------------- frozen
SIM_HOST=H00006 T=60 sim_bg "$AGENT" -s 3 -p 1 -f -t 50
AG=$SIM_BG_PID
sleep 0.5
start_sm e H00001 0
until_state e standby 5
until_state e master 8
grep -q "ActCount stopped moving" "$SIM_DIR/e.log" || fail "frozen: no takeover for a frozen ActCount"
msg "frozen: a master answering with a frozen ActCount: e took over"
stop e
kill "$AG" 2>/dev/null
wait "$AG" 2>/dev/null

# ---------------------------------------------------------------- opensm
start_osm() {
	rm -rf "$SIM_DIR/osm" && mkdir -p "$SIM_DIR/osm"
	SIM_HOST=$1 sim_bg sh -c 'exec "$@" >/dev/null 2>&1' sh env OSM_TMP_DIR="$SIM_DIR/osm" \
		OSM_CACHE_DIR="$SIM_DIR/osm" opensm -f "$SIM_DIR/osm/osm.log" -p "$2" -R ftree
	PID_osm=$SIM_BG_PID
}

# quiet WHAT: one master for 10 s, and no LFT or PortInfo Set meanwhile.
quiet() {
	line=$(wc -l <"$SIM_LOG")
	sim_cmd "Verbose 3"
	for i in 1 2 3 4 5; do
		[ "$(masters "$LI" "$LO")" = 1 ] || fail "$1: $(masters "$LI" "$LO") masters by sminfo"
		sleep 2
	done
	sim_cmd "Verbose 0"
	set -- "$1" $($TRACE "$SIM_LOG" --from-line "$line" | tr '=' ' ')
	[ "$3" = 0 ] && [ "$5" = 0 ] || fail "$1: $3 LFT and $5 PortInfo Sets while settled"
}

for order in ibsmd-first osm-first; do
	for prios in "5 1" "5 10"; do
		set -- $prios
		ip=$1 op=$2
		if [ $order = ibsmd-first ]; then
			start_sm i H00001 "$ip"
			until_state i master 5
			start_osm H00002 "$op"
		else
			start_osm H00002 "$op"
			sleep 3
			start_sm i H00001 "$ip"
		fi
		want=master
		[ "$op" -gt "$ip" ] && want=standby
		until_state i $want 30
		LI=$(lid_of H00001) LO=$(lid_of H00002)
		sleep 2
		quiet "ibsmd $ip + OpenSM $op, $order"
		msg "opensm: $order, ibsmd priority $ip, OpenSM $op: ibsmd $want, one master, 10 s without an LFT or PortInfo Set"
		stop i
		stop osm
	done
done
exit 0
