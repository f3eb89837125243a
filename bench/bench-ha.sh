#!/bin/sh
# DOC: SM failover and coexistence, ibsmd against OpenSM on one fabric.
#
# Usage: bench/bench-ha.sh [-n RUNS] [-g "GEN ARGS"] [-q SECONDS]
#   -n RUNS     takeover runs per SM pair (default 3; median reported)
#   -g ARGS     tests/topo/gen_topo.py arguments (default "ft2 12")
#   -q SECONDS  how long to watch for Sets once settled (default 30)
#
# One judge for both SMs: "the fabric is up with SM X" means the
# simulator's own state (console Dump, judged by
# tests/integration/simstate.py with no MAD) has no LID held twice, every
# linked port Active, no LFT entry toward a dead port, every (CA, LID)
# pair reachable through the LFTs, and every LID-holding port's
# MasterSMLID set to X's LID.
#
# Takeover: a master (priority 5, at the first host) and a standby
# (priority 0, at the second), both ibsmd or both OpenSM, each at its
# default poll settings (ibsmd: sm_poll_interval 1 s, sm_poll_retries 2;
# OpenSM: sminfo_polling_timeout 10 s, polling_retry_number 4). Once the
# fabric is up with the master and the standby says STANDBY (sminfo), the
# master gets kill -9 and we time, from the kill:
#   master_ms  until the standby says MASTER (sminfo, infiniband-diags)
#   up_ms      until the fabric is up with the standby (the judge above)
#   self_ms    until the standby itself says the subnet is up (ibsmd:
#              `ibsmctl status` master and subnet_up; OpenSM: a new
#              "SUBNET UP" line in its log, which it logs at INFO level,
#              flushed only because we run it with -d 2)
# and count, from the kill until 2 s after the last of those: LIDs that
# changed (the simulator's Dump before and after) and LFT and PortInfo
# Sets (ibsim's Verbose 3 packet trace, tests/integration/simtrace.py).
# The three are checked in turn, one round every ~0.2 s on the default
# fabric (sminfo ~25 ms, Dump and judgement ~125 ms, then a 50 ms pause),
# so they agree within that; a whole sweep of either SM is shorter. The
# table shows medians over the runs where all three were seen within
# 150 s; the per-run lines follow it ("-" = not seen).
#
# Coexistence: ibsmd and OpenSM (both with SM_Key 1, OpenSM's default) in
# both orders and both priority orders. Once the fabric is up with the
# first, the second starts; we time until one says MASTER and the other
# STANDBY (sminfo), then watch -q seconds, sampling both SMs' states once
# a second. Reported: that time, the LFT/PortInfo Sets (Verbose 3 trace)
# from the second's start to that point and in the watched window, which
# SM (name and priority) said MASTER at the end, how many samples did not
# show exactly one MASTER and one STANDBY, and whether the fabric was up
# with the final master at the end.
#
# Known simulator artefact: ibsim drops every TrapRepress ("got trap
# repress - dropping" in its log) and umad2sim never times a send out, so
# a trap OpenSM sends (expecting a response) stays outstanding for ever;
# a kernel MAD layer would time it out. A higher-priority OpenSM that
# joins as standby sends Trap 144 to the master to ask for the handover;
# after the handover its sweep waits for that trap and never programs the
# fabric, so "ibsmd (prio 1) then opensm (prio 5)" ends with OpenSM MASTER
# and fabric_ok "no" here.
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
IBSMD=$top_builddir/daemon/ibsmd
CTL=$top_builddir/cli/ibsmctl
[ -x "$IBSMD" ] || skip "no $IBSMD"
TRACE="python3 $top_srcdir/tests/integration/simtrace.py"

sim_setup
# shellcheck disable=SC2086
topo_gen "$SIM_DIR/fabric.net" $gen
HOSTS=$(sed -n 's/^\(Hca\|Ca\)[[:space:]].*"\([^"]*\)".*/\2/p' "$SIM_DIR/fabric.net")
H1=$(echo "$HOSTS" | sed -n 1p) H2=$(echo "$HOSTS" | sed -n 2p) HQ=$(echo "$HOSTS" | tail -n 1)
now_ms() { echo $(($(date +%s%N) / 1000000)); }

# start SM NAME HOST PRIO: pid in PID_NAME. Its stdout is /dev/null: a
# process holding the caller's stdout would keep a $(...) waiting.
start() {
	d=$SIM_DIR/$2
	rm -rf "$d" && mkdir -p "$d"
	if [ "$1" = ibsmd ]; then
		SIM_HOST=$3 sim_bg sh -c 'f=$1; shift; exec "$@" 2>"$f"' sh "$d/log" "$IBSMD" \
			-o state_dir="$d" -o socket_path="$d/sock" -o sm_priority="$4" >/dev/null
	else
		# -d 2: flush the log after each line, or "SUBNET UP" (INFO)
		# stays in stdio's buffer until OpenSM exits.
		SIM_HOST=$3 sim_bg sh -c 'exec "$@" >/dev/null 2>&1' sh env OSM_TMP_DIR="$d" \
			OSM_CACHE_DIR="$d" opensm -f "$d/log" -d 2 -p "$4" -R ftree >/dev/null
	fi
	eval "PID_$2=\$SIM_BG_PID"
}

kill9() { eval "pkill -KILL -P \$PID_$1; wait \$PID_$1" 2>/dev/null; }

# end_case: stop every SM this case started (TERM; kill9 ones are gone
# already), then the simulator.
end_case() {
	for _p in $SIM_BG_PIDS; do kill -TERM "$_p" 2>/dev/null; done
	for _p in $SIM_BG_PIDS; do wait "$_p" 2>/dev/null; done
	SIM_BG_PIDS=
	sim_stop
}

sm_state() { T=5 sim_run_at "$HQ" sminfo "$1" 2>/dev/null | sed -n 's/.* state \([0-9]\) .*/\1/p'; }
is_state() { [ "$(sm_state "$1")" = "$2" ]; }

# dump_lid NODE FILE: the LID of a CA's first port in a Dump
dump_lid() {
	awk -v n="\"$1\"" '($1 == "Ca" || $1 == "Hca") && $3 == n { getline
		for (i = 1; i < NF; i++) if ($i == "lid") { print $(i + 1); exit } }' "$2"
}
lid_of() { sim_dump "$SIM_DIR/l.dump"; dump_lid "$1" "$SIM_DIR/l.dump"; }

# fabric_ok NODE: the fabric is up with the SM at NODE (see the top)
fabric_ok() {
	sim_dump "$SIM_DIR/j.dump"
	_l=$(dump_lid "$1" "$SIM_DIR/j.dump")
	[ -n "$_l" ] && [ "$_l" != 0 ] || return 1
	case $(simstate --smlid "$_l" "$SIM_DIR/j.dump") in
	"dups=0 inactive=0 dead=0 unreachable=0 smlid=0 "*) return 0 ;;
	esac
	return 1
}

# self_up SM NAME [N]: the SM itself says the subnet is up (OpenSM: more
# than N "SUBNET UP" lines in its log)
self_up() {
	if [ "$1" = ibsmd ]; then
		T=5 sim_run "$CTL" -s "$SIM_DIR/$2/sock" -j status 2>/dev/null |
			grep -q '"state":"master".*"subnet_up":true\|"subnet_up":true.*"state":"master"'
	else
		[ "$(subnet_ups "$2")" -gt "${3:-0}" ]
	fi
}
subnet_ups() { _c=$(grep -c 'SUBNET UP' "$SIM_DIR/$1/log" 2>/dev/null); echo "${_c:-0}"; }

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

# takeover SM: prints "master_ms up_ms self_ms lid_changes lft_sets portinfo_sets"
takeover() {
	sim_start "$SIM_DIR/fabric.net"
	start "$1" m "$H1" 5
	wait_for 60 fabric_ok "$H1" || { echo "- - - - - -"; end_case; return; }
	start "$1" s "$H2" 0
	L2=$(lid_of "$H2")
	wait_for 60 is_state "$L2" 2 || { echo "- - - - - -"; end_case; return; }
	sim_dump "$SIM_DIR/before.dump"
	n0=$(subnet_ups s)
	line=$(wc -l <"$SIM_LOG")
	sim_cmd "Verbose 3"
	t0=$(now_ms)
	kill9 m
	tm=- tu=- ts=-
	while [ $(( $(now_ms) - t0 )) -lt 150000 ]; do
		[ "$tm" = - ] && is_state "$L2" 3 && tm=$(( $(now_ms) - t0 ))
		[ "$tu" = - ] && fabric_ok "$H2" && tu=$(( $(now_ms) - t0 ))
		[ "$ts" = - ] && self_up "$1" s "$n0" && ts=$(( $(now_ms) - t0 ))
		[ "$tm" != - ] && [ "$tu" != - ] && [ "$ts" != - ] && break
		sleep 0.05
	done
	sleep 2
	sim_cmd "Verbose 0"
	sim_dump "$SIM_DIR/after.dump"
	set -- $($TRACE "$SIM_LOG" --from-line "$line" | tr '=' ' ')
	echo "$tm $tu $ts $(lids_changed "$SIM_DIR/before.dump" "$SIM_DIR/after.dump") $2 $4"
	end_case
}

# sets FROM_LINE: "LFT/PortInfo" Sets in the trace since that log line
sets() {
	set -- $($TRACE "$SIM_LOG" --from-line "$1" | tr '=' ' ')
	echo "$2/$4"
}

# coexist FIRST FPRIO SECOND SPRIO: prints "ms_one_master sets_to_one
# master not_one_samples sets_quiet fabric_ok"
coexist() {
	sim_start "$SIM_DIR/fabric.net"
	start "$1" a "$H1" "$2"
	wait_for 60 fabric_ok "$H1" || { echo "- - - - - -"; end_case; return; }
	L1=$(lid_of "$H1")
	line=$(wc -l <"$SIM_LOG")
	sim_cmd "Verbose 3"
	t0=$(now_ms)
	start "$3" b "$H2" "$4"
	L2=$(lid_of "$H2")
	one() { case "$(sm_state "$L1")$(sm_state "$L2")" in 32|23) return 0 ;; esac; return 1; }
	if wait_for 60 one; then ms=$(( $(now_ms) - t0 )); else ms=-; fi
	s1=$(sets "$line")
	line=$(wc -l <"$SIM_LOG")
	bad=0 st=
	_end=$(( $(now_ms) + quiet * 1000 ))
	while [ "$(now_ms)" -lt "$_end" ]; do
		st=$(sm_state "$L1")$(sm_state "$L2")
		case $st in 32|23) ;; *) bad=$((bad + 1)) ;; esac
		sleep 1
	done
	sim_cmd "Verbose 0"
	s2=$(sets "$line")
	case $st in
	32) who=$1$2 host=$H1 ;;
	23) who=$3$4 host=$H2 ;;
	*) who="?$st" host= ;;
	esac
	ok=no
	[ -n "$host" ] && fabric_ok "$host" && ok=yes
	echo "$ms $s1 $who $bad $s2 $ok"
	end_case
}

median() {
	sort -n | awk '$1 != "-" { v[++n] = $1 } END { print n ? v[int((n + 1) / 2)] : "-" }'
}

fmt='%-8s %7s %10s %8s %8s %12s %9s %14s\n'
echo "takeover after kill -9 of the master ($runs runs each; medians)"
printf "$fmt" SM runs master_ms up_ms self_ms lid_changes lft_sets portinfo_sets
for sm in ibsmd opensm; do
	f=$SIM_DIR/t.$sm
	: >"$f"
	i=0
	while [ $i -lt "$runs" ]; do
		takeover "$sm" >>"$f"
		i=$((i + 1))
	done
	# Medians over the runs where all three times were seen.
	awk '$1 != "-" && $2 != "-" && $3 != "-"' "$f" >"$f.ok"
	col() { awk -v c="$1" '{ print $c }' "$f.ok" | median; }
	printf "$fmt" "$sm" "$(wc -l <"$f.ok")/$runs" "$(col 1)" "$(col 2)" "$(col 3)" \
		"$(col 4)" "$(col 5)" "$(col 6)"
done
for sm in ibsmd opensm; do
	sed "s/^/  $sm run: /" "$SIM_DIR/t.$sm"
done

echo
echo "two SMs: time to one MASTER and one STANDBY, then $quiet s watched"
cfmt='%-34s %13s %10s %9s %8s %10s %9s\n'
printf "$cfmt" case ms_one_master sets_to_one master not_one sets_quiet fabric_ok
for c in "ibsmd 5 ibsmd 0" "ibsmd 0 ibsmd 5" "ibsmd 5 opensm 1" "ibsmd 1 opensm 5" \
	 "opensm 1 ibsmd 5" "opensm 5 ibsmd 1"; do
	set -- $c
	coexist "$@" >"$SIM_DIR/c.out"
	# shellcheck disable=SC2046
	printf "$cfmt" "$1 (prio $2) then $3 (prio $4)" $(cat "$SIM_DIR/c.out")
done
echo "(sets: LFT/PortInfo Sets; master: SM and priority that said MASTER at the end)"
