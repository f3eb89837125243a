#!/bin/sh
# DOC: reroute after an unplugged link: ibsmd against OpenSM on ibsim.
#
# Usage: bench/bench-reroute.sh [-n RUNS] [-u 'NODE[PORT]'] [NETFILE]
#        bench/bench-reroute.sh [-n RUNS] [-u 'NODE[PORT]'] -g "GEN_TOPO ARGS"
#
# Defaults: 3 runs, -g "ft2 36" (648 hosts, 36 leaves, 18 spines) and
# -u 'L0001[19]' (a leaf-spine link).  Each run starts a fresh simulator
# per SM, OpenSM first, then ibsmd, so neither profits from the other's
# tables or from a warm simulator.  Prints every run, then the median of
# each metric per SM and the ratio ibsmd/OpenSM (below 1: ibsmd is faster,
# changes fewer entries, loads links less).  See bench/reroute-once.sh
# for what each metric means and how it is taken from each SM.
#
# min_changes depends on each SM's routes before the failure (how many
# entries they put on the lost link): it is what the failure forces on
# that SM's own tables, a lower bound for any repair that keeps every
# route working.  The ibsmd binary is $IBSMD, else $top_builddir/daemon/ibsmd.  An ibsmd run that fails (for instance because
# it logs no "last LFT block acknowledged" line) is reported and counts
# as missing; the script then exits 1.  Without an ibsmd binary only
# OpenSM is measured, without opensm only ibsmd.  SIM_KEEP=1 keeps each
# run's directory (logs, ibnetdiscover output, LFT dumps before/after).

set -u
here=$(cd "$(dirname "$0")" && pwd)
: "${top_srcdir:=$(cd "$here/.." && pwd)}"
export top_srcdir
runs=3
gen=
link='L0001[19]'
usage() {
	echo "usage: $0 [-n RUNS] [-u 'NODE[PORT]'] [NETFILE | -g 'GEN ARGS']" >&2
	exit 2
}
while getopts n:g:u: opt; do
	case $opt in
	n) runs=$OPTARG ;;
	g) gen=$OPTARG ;;
	u) link=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
node=$(printf '%s\n' "$link" | sed -n 's/^"\{0,1\}\([^"[]*\)"\{0,1\}\[\([0-9]*\)\]$/\1/p')
port=$(printf '%s\n' "$link" | sed -n 's/^"\{0,1\}\([^"[]*\)"\{0,1\}\[\([0-9]*\)\]$/\2/p')
{ [ -n "$node" ] && [ -n "$port" ]; } || usage

work=$(mktemp -d "${TMPDIR:-/tmp}/ibsmd-bench.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM
if [ $# -ge 1 ]; then
	netfile=$1
	label=$netfile
else
	[ -n "$gen" ] || gen="ft2 36"
	netfile=$work/fabric.net
	# shellcheck disable=SC2086
	python3 "$top_srcdir/tests/topo/gen_topo.py" $gen >"$netfile" || exit 1
	label=$gen
fi

have_opensm=1
have_ibsmd=1
failed=0

# run SM I: one measured run, its line printed; a missing SM (exit 77) is
# remembered, a failed run reported and counted as missing.
run() {
	sh "$here/reroute-once.sh" "$1" "$netfile" "$node" "$port" >>"$work/runs"
	case $? in
	0) tail -n 1 "$work/runs" ;;
	77) eval "have_$1=0" ;;
	*) echo "$1 run $2 failed (no number taken)" >&2; failed=1 ;;
	esac
}

i=0
while [ "$i" -lt "$runs" ]; do
	i=$((i + 1))
	[ "$have_opensm" = 1 ] && run opensm "$i"
	[ "$have_ibsmd" = 1 ] && run ibsmd "$i"
done

# shellcheck source=bench/median.sh
. "$here/median.sh"

if [ "$have_opensm$have_ibsmd" = 00 ]; then
	echo "$0: neither opensm nor an ibsmd binary: nothing measured" >&2
	exit 77
fi
echo "fabric: $label; unplugged: ${node}[$port]; runs: $runs (medians)"
printf '%-20s %10s %10s %13s\n' metric opensm ibsmd ibsmd/opensm
for m in trap_to_last_ack_ms entries_changed min_changes a2a_max a2a_bound ratio \
	unrouted trap_to_up_ms; do
	o=$(median opensm "$m")
	b=$(median ibsmd "$m")
	[ "$have_opensm" = 0 ] && o="(missing)"
	[ "$have_ibsmd" = 0 ] && b="(no-binary)"
	r=$(awk -v o="$o" -v b="$b" 'BEGIN {
		if (b !~ /^[0-9.]+$/ || o !~ /^[0-9.]+$/ || o == 0) print "-"
		else printf "%.2f\n", b / o }')
	printf '%-20s %10s %10s %13s\n' "$m" "$o" "$b" "$r"
done
exit "$failed"
