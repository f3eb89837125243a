#!/bin/sh
# DOC: every switch reaches every LID: a switch's own replies and traps.
#
# A spine that lost its link to a leaf has no way down to that leaf's hosts;
# up*/down* routing alone leaves it no LFT entry for them, so its answers
# to LID-routed SMPs and PMA queries from those hosts are dropped. On a
# degraded 2-level tree, a degraded 3-level tree and an intact 2-level tree
# after ibsim's console unplugs one leaf-spine link, with ibsmd running as
# a daemon:
#   - following the simulator's own LFTs (console Dump, simstate.py
#     --switches) from every switch, every assigned LID is reached;
#   - for switches that have to go down through another leaf to reach a
#     host (simstate.py --detours), from that host: smpquery nodeinfo (a
#     LID-routed SMP), ibroute and ibroute -M (read the switch's LFT and MFT
#     with LID-routed SMPs), perfquery (a PMA query, its reply on a data VL)
#     and ibtracert from the switch to the host all work.
. "$top_srcdir/tests/integration/lib.sh"
skip_unless_tools ibtracert ibroute perfquery

IBSMD=$top_builddir/sm/ibsmd
[ -x "$IBSMD" ] || hard_error "$IBSMD not built"

start_sm() {
	sim_bg sh -c 'f=$1; shift; exec "$@" 2>"$f"' sh "$SIM_DIR/sm.log" \
		"$IBSMD" -o state_dir="$SIM_DIR/state" -o socket_path="$SIM_DIR/ibsmd.sock" \
		-o log_level=info -o light_sweep_interval=1
	SM_PID=$SIM_BG_PID
}

# settled: the log has been quiet for 0.6 s and its last sweep or reroute
# brought the subnet up.
settled() {
	i=0
	while [ ! -s "$SIM_DIR/sm.log" ] && [ "$i" -lt 100 ]; do
		i=$((i + 1))
		sleep 0.1
	done
	i=0
	while :; do
		a=$(wc -c <"$SIM_DIR/sm.log")
		sleep 0.6
		b=$(wc -c <"$SIM_DIR/sm.log")
		[ "$a" = "$b" ] && grep 'done in' "$SIM_DIR/sm.log" | tail -n 1 | grep -q 'subnet UP' &&
			return 0
		i=$((i + 1))
		kill -0 "$SM_PID" 2>/dev/null || { tail -n 20 "$SIM_DIR/sm.log" >&2; fail "ibsmd died"; }
		[ "$i" -gt 100 ] && { tail -n 20 "$SIM_DIR/sm.log" >&2; fail "ibsmd did not settle"; }
	done
}

# judge NAME: every (switch, LID) pair by the simulator's LFTs, then the
# diags from hosts to switches that detour (at least MIN such pairs).
judge() {
	name=$1 min=$2
	sim_dump "$SIM_DIR/$name.dump"
	simstate "$SIM_DIR/$name.dump" --switches -v >"$SIM_DIR/$name.state"
	head -n 1 "$SIM_DIR/$name.state" >&2
	head -n 1 "$SIM_DIR/$name.state" | grep -q ' swunreach=0 ' ||
		fail "$name: switches without a route: $(sed -n '1,6p' "$SIM_DIR/$name.state" | tr '\n' ' ')"
	simstate "$SIM_DIR/$name.dump" --detours 200 >"$SIM_DIR/$name.detours"
	n=$(wc -l <"$SIM_DIR/$name.detours")
	[ "$n" -ge "$min" ] || fail "$name: $n switches go down through another leaf, expected $min"
	# a few pairs, spread over the list
	awk -v n="$n" 'NR == 1 || NR == n || NR == int(n / 2) + 1' "$SIM_DIR/$name.detours" |
	while read -r sw swlid host hlid; do
		sim_run_at "$host" smpquery nodeinfo "$swlid" >/dev/null 2>&1 ||
			fail "$name: smpquery nodeinfo $sw (LID $swlid) from $host: no answer"
		sim_run_at "$host" ibroute "$swlid" >"$SIM_DIR/route.txt" 2>&1 ||
			fail "$name: ibroute $sw from $host: $(tail -n 1 "$SIM_DIR/route.txt")"
		sim_run_at "$host" ibroute -M "$swlid" >"$SIM_DIR/route.txt" 2>&1 ||
			fail "$name: ibroute -M $sw from $host: $(tail -n 1 "$SIM_DIR/route.txt")"
		sim_run_at "$host" perfquery "$swlid" 1 >/dev/null 2>&1 ||
			fail "$name: perfquery $sw from $host: no answer"
		sim_run_at "$host" ibtracert "$swlid" "$hlid" >"$SIM_DIR/trace.txt" 2>&1 ||
			fail "$name: ibtracert $sw -> $host: $(tail -n 2 "$SIM_DIR/trace.txt" | tr '\n' ' ')"
		grep -q "\"$host\"" "$SIM_DIR/trace.txt" ||
			fail "$name: ibtracert $sw -> $host does not end at $host"
	done || exit 1
	msg "$name: every switch reaches every LID; $n detours, diags from hosts to 3 of them work"
}

run_tree() {
	name=$1 min=$2
	shift 2
	topo_gen "$SIM_DIR/$name.net" "$@"
	sim_start "$SIM_DIR/$name.net"
	rm -rf "$SIM_DIR/state"
	mkdir -p "$SIM_DIR/state"
	start_sm
	settled
	judge "$name" "$min"
}

stop() {
	kill "$SM_PID" 2>/dev/null
	wait "$SM_PID" 2>/dev/null
	sim_stop
}

sim_setup
export SIM_HOST=H00001
# degraded 2-level tree: leaf-spine links gone, each costs a spine a leaf
run_tree ft2-16-degraded 8 ft2 16 --remove-links 6 --links leaf-spine --seed 12 --keep-connected
stop
# degraded 3-level tree: middles lose leaves, tops lose middles
run_tree ft3-8-degraded 4 ft3 8 --remove-links 5 --seed 2 --keep-connected
stop
# intact tree, then one leaf-spine link unplugged while ibsmd runs
run_tree ft2-16 0 ft2 16
port=$(awk '/^Switch.*"L0001"/ { on = 1 } on && /"S0001"/ { gsub(/[][]/, " "); print $1; exit }' \
	"$SIM_DIR/ft2-16.net")
[ -n "$port" ] || hard_error "no L0001-S0001 link in the net file"
done0=$(grep -c '\(reroute\|sweep\) [0-9]* done' "$SIM_DIR/sm.log")
sim_cmd "Unlink \"L0001\"[$port]"
i=0
while [ "$(grep -c '\(reroute\|sweep\) [0-9]* done' "$SIM_DIR/sm.log")" -le "$done0" ]; do
	i=$((i + 1))
	[ "$i" -gt 300 ] && { tail -n 20 "$SIM_DIR/sm.log" >&2; fail "no reroute after the unplug"; }
	sleep 0.1
done
settled
judge ft2-16-unlinked 8
grep -q '^S0001 ' "$SIM_DIR/ft2-16-unlinked.detours" ||
	fail "unlinked: S0001 does not go down another leaf for L0001's hosts"
stop
exit 0
