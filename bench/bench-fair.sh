#!/bin/sh
# DOC: one hostile host against the SA, on ibsim: what it takes, and what
# another host still gets, for ibsmd and for OpenSM on the same fabric.
#
# Usage: bench/bench-fair.sh [ibsmd|opensm] [ATTACK...]
#   IBSMD=path (default: the build's) picks the ibsmd binary; ATTACK is
#   any of creates proxy reports squat trusted log (default: all); RW=n
#   the rogue's requests outstanding in "reports" (default 32).
#
# Each attack runs on a fresh ibsim (gen_topo ft2 12: 72 hosts) and a
# fresh SM at H00001; the rogue is tests/agent/sa_rogue at H00010, the
# victim H00040 (tests/integration/fair_lib.sh has the steps):
#   creates  2000 group creates from the rogue's own port
#   proxy    2000 proxy creates with the other 70 hosts' GIDs, each group
#            then joined by all 70 (proxy joins); then the rogue's link
#            goes down (ibsim Unlink) and the SM sweeps
#   reports  32 subscriptions to every trap, never acknowledged, and a
#            create/leave loop for 15 s; meanwhile the victim's check
#   squat    a ServiceRecord under the victim's GID (untrusted, then with
#            the public SM_Key 0x1), then the victim's own registration;
#            then 8 services of the rogue and its link goes down
#   trusted  5000 ServiceRecords with the public SM_Key 0x1; then the
#            rogue's Delete of a service the victim registered before
#   log      a create/leave loop for 20 s
# After each: the victim creates a group, its Reports 66/67 reach a
# subscriber (3 groups: 6 Reports), it registers and deletes a service;
# and the SM's RSS (VmRSS, peak VmHWM, kB from /proc) and log growth.
# One line per attack:
#   SM ATTACK: rogue <its summary> | victim <checks> | rss_kb A->B (peak P) log +N B
set -u
here=$(cd "$(dirname "$0")" && pwd)
: "${top_srcdir:=$(cd "$here/.." && pwd)}"
: "${top_builddir:=$top_srcdir/build}"
. "$top_srcdir/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/sm_lib.sh"
. "$top_srcdir/tests/integration/fair_lib.sh"
skip_unless_tools saquery opensm

IBSMD=${IBSMD:-$top_builddir/sm/ibsmd}
JOIN=$top_builddir/tests/agent/mcjoin
AGENT=$top_builddir/tests/agent/sa_agent
ROGUE_BIN=$top_builddir/tests/agent/sa_rogue
SM=${1:-ibsmd}
[ $# -gt 0 ] && shift
ATTACKS=${*:-creates proxy reports squat trusted log}

sim_setup
topo_gen "$SIM_DIR/ft.net" ft2 12

begin() {
	sim_start "$SIM_DIR/ft.net"
	fair_up "$SM"
	fair_guids
	sleep 2
	RSS0=$(fair_rss)
	LOG0=$(fair_logsize)
}

end() {
	printf '%s %s: rogue %s | victim %s | rss_kb %s->%s (peak %s) log +%s B\n' "$SM" "$1" \
		"$R" "$V" "$RSS0" "$(fair_rss)" "$(fair_hwm)" $(($(fair_logsize) - LOG0))
	kill "$SM_BG" 2>/dev/null
	wait "$SM_BG" 2>/dev/null
	sim_stop
	rm -rf "$SIM_DIR/sm"
}

# gone HOST: its link down, and the SM's sweeps had time to see it.
gone() {
	sim_cmd "Unlink \"$1\""
	sleep 6
}

for a in $ATTACKS; do
	begin
	case $a in
	creates)
		R=$(rogue create 2000 | sed 's/^sa_rogue: //')
		V=$(victim_all)
		;;
	proxy)
		# shellcheck disable=SC2046
		R=$(RT=300 rogue -a proxy-create 2000 $(cat "$SIM_DIR/victims") | sed 's/^sa_rogue: //')
		V="$(victim_all); rogue gone: "
		gone "$ROGUE"
		V="$V$(victim_all)"
		;;
	reports)
		rogue -w "${RW:-32}" -s 32 churn 15 >"$SIM_DIR/churn.out" &
		rp=$!
		sleep 2
		V=$(victim_all)
		wait "$rp"
		R=$(sed 's/^sa_rogue: //' "$SIM_DIR/churn.out")
		;;
	squat)
		R="untrusted: $(rogue squat "$(fguid "$VICTIM")" $FAIR_SID | rsum)"
		V="after it: $(victim_service)"
		R="$R; key 0x1: $(rogue -k 1 squat "$(fguid "$VICTIM")" $FAIR_SID | rsum)"
		V="$V; after it: $(victim_service)"
		R="$R; 8 own: $(rogue services 8 | rsum)"
		gone "$ROGUE"
		V="$V; rogue gone, its services left: $(services_left "$ROGUE" 8)/8"
		;;
	trusted)
		# the victim's own service first, with another ServiceID
		_t="$(printf '%016x' $((FAIR_SID + 1))) $(gid_hex "$(fguid "$VICTIM")") ffff 0000 ffffffff"
		T=10 sim_run_at "$VICTIM" "$AGENT" req 0x02 0x31 0x17 "$_t" >/dev/null 2>&1
		R=$(RT=300 rogue -k 1 services 5000 | sed 's/^sa_rogue: //')
		V="$(victim_all)"
		V="$V; the rogue deletes the victim's: $(rogue -k 1 delete "$(fguid "$VICTIM")" $((FAIR_SID + 1)) | rsum)"
		;;
	log)
		R=$(rogue churn 20 | sed 's/^sa_rogue: //')
		V=$(victim_all)
		;;
	*)
		fail "unknown attack $a"
		;;
	esac
	end "$a"
done
