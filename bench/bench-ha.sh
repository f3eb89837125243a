#!/bin/sh
# DOC: SM failover and coexistence, ibsmd against OpenSM on one fabric.
#
# Usage: bench/bench-ha.sh [-n RUNS] [-g "GEN ARGS"] [-q SECONDS]
#   -n RUNS     takeover runs per SM pair (default 3; median reported)
#   -g ARGS     tests/topo/gen_topo.py arguments (default "ft2 12")
#   -q SECONDS  how long to watch for Sets once settled (default 30)
#
# Takeover: a master (priority 5, at the first host) and a standby
# (priority 0, at the second), both ibsmd or both OpenSM, each at its
# default poll settings (ibsmd: sm_poll_interval 1 s, sm_poll_retries 2;
# OpenSM: sminfo_polling_timeout 10 s, polling_retry_number 4). Once the
# fabric is up, the master gets kill -9 and we time until the standby
# says MASTER (sminfo, infiniband-diags) and has finished bringing the
# subnet up (ibsmd: ibsmctl status; OpenSM: its log's next SUBNET UP).
# Also counted over that window: LIDs that changed (the simulator's Dump
# before and after) and LFT and PortInfo Sets (ibsim's packet trace, so
# the same judge for both SMs).
#
# Coexistence: ibsmd and OpenSM (both with SM_Key 1, OpenSM's default) in
# both orders and both priority orders; we time until exactly one of them
# says MASTER (sminfo) after the second starts, then watch -q seconds for
# LFT and PortInfo Sets.
set -u
here=$(cd "$(dirname "$0")" && pwd)
: "${top_srcdir:=$(cd "$here/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
. "$top_srcdir/tests/integration/lib.sh"
skip_unless_tools opensm sminfo

runs=3 gen="ft2 12" quiet=30
while getopts n:g:q: o; do
	case $o in
	n) runs=$OPTARG ;; g) gen=$OPTARG ;; q) quiet=$OPTARG ;;
	*) echo "usage: $0 [-n RUNS] [-g GEN] [-q SECONDS]" >&2; exit 2 ;;
	esac
done
IBSMD=$top_builddir/sm/ibsmd
CTL=$top_builddir/cli/ibsmctl
[ -x "$IBSMD" ] || skip "no $IBSMD"
TRACE="python3 $top_srcdir/tests/integration/simtrace.py"

sim_setup
# shellcheck disable=SC2086
topo_gen "$SIM_DIR/fabric.net" $gen
HOSTS=$(sed -n 's/^\(Hca\|Ca\)[[:space:]].*"\([^"]*\)".*/\2/p' "$SIM_DIR/fabric.net")
H1=$(echo "$HOSTS" | sed -n 1p) H2=$(echo "$HOSTS" | sed -n 2p) HQ=$(echo "$HOSTS" | tail -n 1)
now_ms() { echo $(($(date +%s%N) / 1000000)); }

# start SM NAME HOST PRIO: pid in PID_NAME
start() {
	d=$SIM_DIR/$2
	rm -rf "$d" && mkdir -p "$d"
	if [ "$1" = ibsmd ]; then
		SIM_HOST=$3 sim_bg sh -c 'f=$1; shift; exec "$@" 2>"$f"' sh "$d/log" "$IBSMD" \
			-o state_dir="$d" -o socket_path="$d/sock" -o sm_priority="$4"
	else
		SIM_HOST=$3 sim_bg sh -c 'exec "$@" >/dev/null 2>&1' sh env OSM_TMP_DIR="$d" \
			OSM_CACHE_DIR="$d" opensm -f "$d/log" -p "$4" -R ftree
	fi
	eval "PID_$2=\$SIM_BG_PID"
}

stop() { eval "kill -TERM \$PID_$1; wait \$PID_$1" 2>/dev/null; }
kill9() { eval "pkill -KILL -P \$PID_$1; wait \$PID_$1" 2>/dev/null; }
sm_state() { T=5 sim_run_at "$HQ" sminfo "$1" 2>/dev/null | sed -n 's/.* state \([0-9]\) .*/\1/p'; }
lid_of() { sim_dump "$SIM_DIR/l.dump"; simstate --lid-of "$1" "$SIM_DIR/l.dump"; }

# up SM NAME: the SM has the subnet up (ibsmd: status; OpenSM: log lines)
up() {
	if [ "$1" = ibsmd ]; then
		T=5 sim_run "$CTL" -s "$SIM_DIR/$2/sock" -j status 2>/dev/null |
			grep -q '"state":"master".*"subnet_up":true\|"subnet_up":true.*"state":"master"'
	else
		_n=$(grep -c 'SUBNET UP' "$SIM_DIR/$2/log" 2>/dev/null)
		[ "${_n:-0}" -gt "${3:-0}" ]
	fi
}

is_state() { [ "$(sm_state "$1")" = "$2" ]; }

wait_for() { # SECONDS CMD...: until CMD succeeds
	_end=$(( $(now_ms) + $1 * 1000 ))
	shift
	until "$@"; do
		[ "$(now_ms)" -gt "$_end" ] && return 1
		sleep 0.05
	done
}

lids_changed() {
	simstate --same-lids "$1" "$2" | sed -n 's/^lid_changes=\([0-9]*\).*/\1/p'
}

# takeover SM: prints "ms lid_changes lft_sets portinfo_sets"
takeover() {
	sim_start "$SIM_DIR/fabric.net"
	start "$1" m "$H1" 5
	wait_for 30 up "$1" m || { echo "- - - -"; sim_stop; return; }
	start "$1" s "$H2" 0
	sleep 4
	L2=$(lid_of "$H2")
	wait_for 30 is_state "$L2" 2 || { echo "- - - -"; sim_stop; return; }
	sim_dump "$SIM_DIR/before.dump"
	n0=$(grep -c 'SUBNET UP' "$SIM_DIR/s/log" 2>/dev/null)
	n0=${n0:-0}
	line=$(wc -l <"$SIM_LOG")
	sim_cmd "Verbose 3"
	t0=$(now_ms)
	kill9 m
	if wait_for 150 is_state "$L2" 3 && wait_for 60 up "$1" s "$n0"; then
		ms=$(( $(now_ms) - t0 ))
	else
		ms=-
	fi
	sim_cmd "Verbose 0"
	sim_dump "$SIM_DIR/after.dump"
	set -- $($TRACE "$SIM_LOG" --from-line "$line" | tr '=' ' ')
	echo "$ms $(lids_changed "$SIM_DIR/before.dump" "$SIM_DIR/after.dump") $2 $4"
	stop s
	sim_stop
}

# coexist FIRST FPRIO SECOND SPRIO: prints "ms_to_one_master lft_sets portinfo_sets"
coexist() {
	sim_start "$SIM_DIR/fabric.net"
	start "$1" a "$H1" "$2"
	wait_for 30 up "$1" a || { echo "- - -"; sim_stop; return; }
	L1=$(lid_of "$H1")
	t0=$(now_ms)
	start "$3" b "$H2" "$4"
	L2=$(lid_of "$H2")
	one() { [ $(( ($(sm_state "$L1") == 3) + ($(sm_state "$L2") == 3) )) = 1 ] &&
		[ "$(sm_state "$L1")$(sm_state "$L2")" != 33 ] &&
		{ [ "$(sm_state "$L1")" = 2 ] || [ "$(sm_state "$L2")" = 2 ]; }; }
	if wait_for 60 one; then ms=$(( $(now_ms) - t0 )); else ms=-; fi
	sleep 3
	line=$(wc -l <"$SIM_LOG")
	sim_cmd "Verbose 3"
	sleep "$quiet"
	sim_cmd "Verbose 0"
	set -- $($TRACE "$SIM_LOG" --from-line "$line" | tr '=' ' ')
	echo "$ms $2 $4"
	stop a
	stop b
	sim_stop
}

median() {
	sort -n | awk '$1 != "-" { v[++n] = $1 } END { print n ? v[int((n + 1) / 2)] : "-" }'
}

echo "takeover after kill -9 of the master ($runs runs each)"
printf '%-8s %10s %7s %13s %10s %14s\n' SM ms_median runs lid_changes lft_sets portinfo_sets
for sm in ibsmd opensm; do
	: >"$SIM_DIR/t.$sm"
	i=0
	while [ $i -lt "$runs" ]; do
		takeover "$sm" >>"$SIM_DIR/t.$sm"
		i=$((i + 1))
	done
	f=$SIM_DIR/t.$sm
	printf '%-8s %10s %7s %13s %10s %14s\n' "$sm" "$(awk '{ print $1 }' "$f" | median)" \
		"$(awk '$1 != "-"' "$f" | wc -l)/$runs" "$(awk '{ print $2 }' "$f" | median)" \
		"$(awk '{ print $3 }' "$f" | median)" "$(awk '{ print $4 }' "$f" | median)"
done

echo
echo "two SMs: time to exactly one master, then Sets in $quiet s"
printf '%-34s %12s %9s %14s\n' case ms_one_master lft_sets portinfo_sets
for c in "ibsmd 5 ibsmd 0" "ibsmd 0 ibsmd 5" "ibsmd 5 opensm 1" "ibsmd 1 opensm 5" \
	 "opensm 1 ibsmd 5" "opensm 5 ibsmd 1"; do
	set -- $c
	printf '%-34s %12s %9s %14s\n' "$1 (prio $2) then $3 (prio $4)" $(coexist "$@")
done
