# DOC: shell helpers for integration tests that run programs against ibsim.
#
# Source this from a test script (POSIX sh; dash and bash both work).  It
# gives each test its own simulator socket name and scratch directory,
# drives the ibsim console through a FIFO that stays open for the whole
# test (ibsim spins on EOF), runs clients with the umad2sim preload under a
# timeout (clients block forever if the simulator goes away), and tears
# everything down on exit, whatever the exit path.
#
# Typical use:
#   . "$top_srcdir/tests/integration/lib.sh"
#   skip_unless_tools
#   sim_start "$top_srcdir/tests/topo/small.net"
#   sim_run ibnetdiscover > "$SIM_DIR/disc.txt" || fail "ibnetdiscover failed"
#   sim_cmd 'Unlink "L0001"[5]'
#
# Clients run with $SIM_DIR/run as their working directory (umad2sim leaves
# sys-<pid> directories in the cwd of a client that dies), so pass them
# absolute paths.  Exit codes follow automake: 0 pass, 77 skip, 99 error.

SIM_PRELOAD=${SIM_PRELOAD:-/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so}
if [ -z "${top_srcdir:-}" ]; then
	top_srcdir=$(cd "$(dirname "$0")/../.." && pwd)
fi
top_builddir=${top_builddir:-$top_srcdir}
SIM_DIR=
SIM_PID=
SIM_BG_PIDS=
SIM_LOG=

# Messages go to stderr so that stdout of a test stays usable.
msg() { printf '%s: %s\n' "${0##*/}" "$*" >&2; }
fail() { msg "FAIL: $*"; exit 1; }
hard_error() { msg "ERROR: $*"; exit 99; }
skip() { msg "SKIP: $*"; exit 77; }

# Skip (77) when the simulator or a named extra tool is not installed.  CI
# installs them all, so a skip there is a configuration bug, and
# IBSM_REQUIRE_SIM=1 (set by CI) turns it into a hard error.
skip_unless_tools() {
	for _sim_t in ibsim ibnetdiscover smpquery timeout python3 "$@"; do
		command -v "$_sim_t" >/dev/null 2>&1 && continue
		[ "${IBSM_REQUIRE_SIM:-0}" = 1 ] && hard_error "$_sim_t missing"
		skip "$_sim_t not installed"
	done
	[ -r "$SIM_PRELOAD" ] && return 0
	[ "${IBSM_REQUIRE_SIM:-0}" = 1 ] && hard_error "$SIM_PRELOAD missing"
	skip "$SIM_PRELOAD not installed"
}

# Create the scratch directory and socket name, and arm the cleanup trap.
# Idempotent; sim_start calls it, call it yourself to generate files first.
sim_setup() {
	[ -n "$SIM_DIR" ] && return 0
	SIM_DIR=$(mktemp -d "${TMPDIR:-/tmp}/ibsmd-sim.XXXXXX") ||
		hard_error "mktemp failed"
	mkdir "$SIM_DIR/run"
	_sim_rnd=$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')
	IBSIM_SOCKNAME="t$$_$_sim_rnd"
	export IBSIM_SOCKNAME
	trap sim_cleanup EXIT
	trap 'exit 129' HUP
	trap 'exit 130' INT
	trap 'exit 143' TERM
}

# Kill what we started, remove the scratch directory.  On failure show the
# end of the simulator log in the test's .log file.  SIM_KEEP=1 keeps the
# directory for post-mortems.
sim_cleanup() {
	_sim_rc=$?
	trap - EXIT
	for _sim_p in $SIM_BG_PIDS; do
		kill "$_sim_p" 2>/dev/null
	done
	for _sim_p in $SIM_BG_PIDS; do
		wait "$_sim_p" 2>/dev/null
	done
	sim_stop
	if [ "$_sim_rc" -ne 0 ] && [ "$_sim_rc" -ne 77 ] && [ -n "$SIM_LOG" ] &&
	    [ -f "$SIM_LOG" ]; then
		msg "exit $_sim_rc; last lines of $SIM_LOG:"
		grep -v 'cannot parse remote lid' "$SIM_LOG" | tail -n 20 >&2
	fi
	if [ -n "$SIM_DIR" ] && [ "${SIM_KEEP:-0}" != 1 ]; then
		rm -rf "$SIM_DIR"
	elif [ -n "$SIM_DIR" ]; then
		msg "kept $SIM_DIR"
	fi
	exit "$_sim_rc"
}

# Print "-N n -S s -P p" when NETFILE exceeds ibsim's default limits
# (2048 nodes, 256 switches, 13312 ports; a switch uses nports+1 ports).
sim_limits() {
	awk '
	/^(Switch|Hca|Ca|Rt)[ \t]/ {
		n++; p += $2
		if ($1 == "Switch") { s++; p++ }
	}
	END {
		if (n > 2048 || s > 256 || p > 13312)
			printf "-N %d -S %d -P %d\n", n + 64, s + 64, p + 1024
	}' "$1"
}

# Start ibsim on NETFILE (extra arguments go to ibsim before the file) and
# wait until a client gets an answer from it.  Sets SIM_PID and SIM_LOG.
# SIM_PIN=yes (the benchmarks set it): ibsim runs on the last CPU, and the
# clients sim_run and sim_bg start on the others. On two cores the
# simulator's one thread and a client's two (its own and umad2sim's
# receiver) otherwise share the cores as the scheduler places them, and
# one flood measured 186k or 339k queries/s from one run to the next on
# the same fabric. Pinned, the simulator has a core of its own: the limit
# of the bed is its own rate, the same for every client. No-op with one
# CPU or without taskset. sim_pin sim|client prints the prefix.
sim_pin() {
	[ "${SIM_PIN:-no}" = yes ] && command -v taskset >/dev/null 2>&1 || return 0
	_sim_n=$(nproc 2>/dev/null || echo 1)
	[ "$_sim_n" -ge 2 ] || return 0
	if [ "$1" = sim ]; then
		echo "taskset -c $((_sim_n - 1))"
	else
		echo "taskset -c 0-$((_sim_n - 2))"
	fi
}

sim_start() {
	[ -r "$1" ] || hard_error "sim_start: cannot read $1"
	[ -z "$SIM_PID" ] || hard_error "sim_start: already running; sim_stop first"
	sim_setup
	_sim_net=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
	shift
	SIM_LOG=$SIM_DIR/ibsim.log
	mkfifo "$SIM_DIR/console" || hard_error "mkfifo failed"
	# Read-write open does not block and keeps a writer for ever, so the
	# simulator never reads EOF.  ibsim inherits it too: if this shell is
	# SIGKILLed, ibsim blocks instead of spinning, until its own timeout.
	exec 9<>"$SIM_DIR/console"
	# shellcheck disable=SC2046
	$(sim_pin sim) timeout -k 2 "${SIM_LIFETIME:-1800}" ibsim -s $(sim_limits "$_sim_net") \
		"$@" "$_sim_net" <"$SIM_DIR/console" >"$SIM_LOG" 2>&1 &
	SIM_PID=$!
	sim_wait_ready || hard_error "ibsim did not come up (see $SIM_LOG)"
}

# Wait for the "ready" banner, then for a directed-route SMP to the
# default node to be answered.
sim_wait_ready() {
	_sim_i=0
	while ! grep -q 'Network simulator ready' "$SIM_LOG" 2>/dev/null; do
		kill -0 "$SIM_PID" 2>/dev/null || return 1
		_sim_i=$((_sim_i + 1))
		[ "$_sim_i" -gt 600 ] && return 1
		sleep 0.1
	done
	_sim_i=0
	until T=5 sim_run smpquery -D nodeinfo 0 >/dev/null 2>&1; do
		_sim_i=$((_sim_i + 1))
		[ "$_sim_i" -gt 20 ] && return 1
		sleep 0.2
	done
	return 0
}

# Quit the simulator (idempotent).
sim_stop() {
	[ -n "$SIM_PID" ] || return 0
	kill "$SIM_PID" 2>/dev/null
	wait "$SIM_PID" 2>/dev/null
	SIM_PID=
	exec 9>&-
	rm -f "$SIM_DIR/console"
}

sim_prompts() {
	grep -o 'sim[^>]*> ' "$SIM_LOG" | wc -l
}

# Send one console command and wait until ibsim has processed it (it prints
# a new prompt after each command).  Example: sim_cmd 'Unlink "S0001"[3]'
sim_cmd() {
	[ -n "$SIM_PID" ] || hard_error "sim_cmd: simulator not running"
	_sim_before=$(sim_prompts)
	printf '%s\n' "$*" >&9
	_sim_i=0
	while [ "$(sim_prompts)" -le "$_sim_before" ]; do
		_sim_i=$((_sim_i + 1))
		[ "$_sim_i" -gt 100 ] && hard_error "sim_cmd: no prompt after: $*"
		sleep 0.1
	done
}

# sim_dump FILE [NODE]: the simulator's own state (console `Dump`) into
# FILE, exactly one complete dump (see simstate.py, which judges it).
sim_dump() {
	_sim_off=$(wc -c <"$SIM_LOG")
	if [ -n "${2:-}" ]; then sim_cmd "Dump \"$2\""; else sim_cmd Dump; fi
	tail -c +"$((_sim_off + 1))" "$SIM_LOG" | grep -v 'cannot parse remote lid' >"$1"
}

# sim_ca_lids FILE: the LIDs of every CA port, one a line, from the
# simulator's own Dump; fails when there is none.
sim_ca_lids() {
	sim_dump "$SIM_DIR/dump.txt"
	python3 -c '
import sys
sys.path.insert(0, sys.argv[1])
import simstate
nodes = simstate.parse(simstate.last_dump(open(sys.argv[2]).read().splitlines()))
for n in nodes.values():
    if n.kind == "Ca":
        for p in n.ports.values():
            if p.get("lid"):
                print(p["lid"])
' "$top_srcdir/tests/integration" "$SIM_DIR/dump.txt" >"$1"
	[ -s "$1" ] || fail "no CA LIDs in the simulator's Dump"
}

# simstate FILE [ARGS]: judge a dump (tests/integration/simstate.py).
simstate() {
	python3 "$top_srcdir/tests/integration/simstate.py" "$@"
}

# Run a client against the simulator under `timeout -k 2 ${T:-60}`.
# SIM_HOST (environment) picks the node it attaches at; sim_run_at is the
# explicit form.  Returns the client's status (124: timed out).
sim_run() {
	(cd "$SIM_DIR/run" &&
		exec $(sim_pin client) env LD_PRELOAD="$SIM_PRELOAD" IBSIM_SOCKNAME="$IBSIM_SOCKNAME" \
			timeout -k 2 "${T:-60}" "$@") 9>&-
}

sim_run_at() {
	_sim_node=$1
	shift
	(SIM_HOST=$_sim_node && export SIM_HOST && sim_run "$@")
}

# sim_timed TIMEFILE NODE CMD...: sim_run_at NODE CMD..., and write
# "wall_ms cpu_ms" to TIMEFILE.  cpu_ms is the user+sys CPU time of CMD and
# of what it waited for.  (OpenSM's grows with load too: it polls.)
sim_timed() {
	_sim_tf=$1
	shift
	_sim_t0=$(date +%s%N)
	(
		sim_run_at "$@"
		_sim_st=$?
		# Not in a pipeline: that would fork and report a fresh shell.
		times >"$_sim_tf"
		exit "$_sim_st"
	)
	_sim_st=$?
	_sim_t1=$(date +%s%N)
	# Line 2 of `times`: user and system time of waited-for children.
	_sim_cpu=$(awk 'NR == 2 { for (i = 1; i <= 2; i++) {
		split($i, a, "m"); sub("s", "", a[2]); s += a[1] * 60 + a[2] }
		printf "%d\n", s * 1000 }' "$_sim_tf")
	echo "$(((_sim_t1 - _sim_t0) / 1000000)) ${_sim_cpu:-NA}" >"$_sim_tf"
	return "$_sim_st"
}

# Start a long-running client (an SM) in the background, killed at exit.
# Its pid is in SIM_BG_PID.  T bounds its lifetime (default 600 s).
sim_bg() {
	(cd "$SIM_DIR/run" &&
		exec $(sim_pin client) env LD_PRELOAD="$SIM_PRELOAD" IBSIM_SOCKNAME="$IBSIM_SOCKNAME" \
			timeout -k 2 "${T:-600}" "$@") 9>&- &
	SIM_BG_PID=$!
	SIM_BG_PIDS="$SIM_BG_PIDS $SIM_BG_PID"
}

# topo_gen OUTFILE GEN_TOPO_ARGS...: write a generated net file.
topo_gen() {
	_sim_out=$1
	shift
	python3 "$top_srcdir/tests/topo/gen_topo.py" "$@" >"$_sim_out" ||
		hard_error "gen_topo.py $* failed"
}

# Count nodes of a type ("Switch" or "Ca") in ibnetdiscover output.
ibnet_count() {
	grep -c "^$1[[:space:]]" "$2"
}

# ibnet_norm FILE [--lids]: canonical node/link listing (see ibnet_norm.py).
ibnet_norm() {
	python3 "$top_srcdir/tests/integration/ibnet_norm.py" "$@"
}
