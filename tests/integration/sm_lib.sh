# DOC: shell helpers for integration tests that run ibsmd (one or several,
# beside OpenSM) and hosts that talk to its SA. Source it after lib.sh.
# They use $IBSMD and $CTL, $JOIN for join, $SOCK for wait_idle, and the
# test's die() to fail when it has one (fail otherwise).

sm_fail() {
	if command -v die >/dev/null 2>&1; then die "$@"; else fail "$@"; fi
}

# start_sm NAME HOST PRIORITY: ibsmd at HOST, state and socket in
# $SIM_DIR/NAME, log in $SIM_DIR/NAME.log; its pid (timeout's) in PID_NAME.
start_sm() {
	mkdir -p "$SIM_DIR/$1"
	SIM_HOST=$2 sim_bg sh -c 'f=$1; shift; exec "$@" 2>"$f"' sh "$SIM_DIR/$1.log" \
		"$IBSMD" -o state_dir="$SIM_DIR/$1" -o socket_path="$SIM_DIR/$1/sock" \
		-o log_level=info -o sm_priority="$3" -o light_sweep_interval=1
	eval "PID_$1=\$SIM_BG_PID"
}

# kill9 NAME: kill -9 of the SM (the child of the timeout sim_bg started).
kill9() {
	eval "pkill -KILL -P \$PID_$1"
	eval "wait \$PID_$1" 2>/dev/null
}

stop() {
	eval "kill -TERM \$PID_$1" 2>/dev/null
	eval "wait \$PID_$1" 2>/dev/null
}

# state NAME: ibsmd's own view of its state.
state() {
	T=5 sim_run "$CTL" -s "$SIM_DIR/$1/sock" -j status 2>/dev/null |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["result"]["state"])' 2>/dev/null
}

# until_state NAME STATE SECONDS
until_state() {
	_i=0
	while [ "$(state "$1")" != "$2" ]; do
		_i=$((_i + 1))
		[ "$_i" -gt $(($3 * 10)) ] && sm_fail "$1 is $(state "$1"), not $2, after $3 s"
		sleep 0.1
	done
}

# until_log NAME PATTERN SECONDS: $SIM_DIR/NAME.log says PATTERN (grep).
until_log() {
	_i=0
	until grep -q "$2" "$SIM_DIR/$1.log" 2>/dev/null; do
		_i=$((_i + 1))
		[ "$_i" -gt $(($3 * 10)) ] && sm_fail "$1's log has no \"$2\" after $3 s"
		sleep 0.1
	done
}

# wait_idle: no multicast batch running or waiting at the SM of $SOCK.
wait_idle() {
	_i=0
	until [ "$(timeout 10 "$CTL" -s "$SOCK" --json tables 2>/dev/null | python3 -c '
import json, sys
m = json.load(sys.stdin)["result"]["multicast"]
print(not m["busy"] and not m["pending"])' 2>/dev/null)" = True ]; do
		_i=$((_i + 1))
		[ "$_i" -gt 300 ] && sm_fail "multicast programming did not settle"
		sleep 0.1
	done
}

# guid_of HOST: the port GUID of HOST's port 1, 16 hex digits.
guid_of() { sim_run_at "$1" smpquery -D nodeinfo 0 | sed -n 's/^PortGuid:\.*0x//p'; }

# join HOST [mcjoin options] GUID...: mcjoin at HOST, answers in
# $SIM_DIR/j.out; field NAME: that field of the first answer.
join() {
	_h=$1
	shift
	T=30 sim_run_at "$_h" "$JOIN" -v "$@" >"$SIM_DIR/j.out" 2>&1
}
field() { sed -n "s/.* $1 \([^ ]*\).*/\1/p" "$SIM_DIR/j.out" | head -n 1; }

# join_hosts MGID HOST...: each HOST joins MGID for its own port as IPoIB
# does; they are added to $MEMBERS.
join_hosts() {
	_g=$1
	shift
	for _h in "$@"; do
		MEMBERS="$MEMBERS $_h"
		join "$_h" -g "$_g" "$(guid_of "$_h")" ||
			{ cat "$SIM_DIR/j.out" >&2; sm_fail "$_h: join of $_g failed"; }
	done
}

# sq HOST ARGS...: saquery at HOST, again if it times out (a sweep that a
# trap started may hold the SA's answer past saquery's 1 s).
sq() {
	_h=$1
	shift
	for _i in 1 2 3; do
		sim_run_at "$_h" saquery "$@" 2>/dev/null && return 0
		sleep 0.5
	done
	return 1
}

# sa_view FILE HOST...: what the SA says about the hosts' state, asked at
# H00032: each HOST's MCMemberRecords (a trusted narrow query: MGID, MLID,
# JoinState, ProxyJoin), then the ServiceRecords.
sa_view() {
	_f=$1
	shift
	for _h in "$@"; do
		_g=$(guid_of "$_h")
		echo "== $_h"
		sq H00032 --smkey 1 MCMR --gid "fe80::$(echo "$_g" |
			sed 's/\(....\)\(....\)\(....\)\(....\)/\1:\2:\3:\4/')" |
			grep -iE "mgid|mlid|joinstate|proxyjoin" || echo "(none)"
	done >"$_f" 2>&1
	echo "== services" >>"$_f"
	sq H00032 SR | grep -E "ServiceID|ServiceGID|ServiceName" >>"$_f" 2>&1 ||
		echo "(none)" >>"$_f"
}
