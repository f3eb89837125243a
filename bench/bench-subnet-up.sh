#!/bin/sh
# DOC: time-to-SUBNET-UP of OpenSM and ibsmd on the same simulated fabric.
#
# Usage: bench/bench-subnet-up.sh [-n RUNS] NETFILE
#        bench/bench-subnet-up.sh [-n RUNS] -g "GEN_TOPO ARGS"   (e.g. "ft2 36")
#
# Alternates opensm-once.sh and ibsmd-once.sh RUNS times (default 3), each
# on a freshly started simulator, so neither SM profits from the other's
# programming or from a warm simulator.  Prints every run, then the median
# of each metric and the ratio opensm/ibsmd (above 1: ibsmd is faster or
# sends fewer SMPs).  If there is no ibsmd binary yet, only OpenSM is
# measured and the ibsmd column says so.  See the two *-once.sh scripts
# for what each metric means.

set -u
here=$(cd "$(dirname "$0")" && pwd)
: "${top_srcdir:=$(cd "$here/.." && pwd)}"
export top_srcdir
runs=3
gen=
while getopts n:g: opt; do
	case $opt in
	n) runs=$OPTARG ;;
	g) gen=$OPTARG ;;
	*) echo "usage: $0 [-n RUNS] NETFILE | -g 'GEN ARGS'" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))

work=$(mktemp -d "${TMPDIR:-/tmp}/ibsmd-bench.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM
if [ -n "$gen" ]; then
	netfile=$work/fabric.net
	# shellcheck disable=SC2086
	python3 "$top_srcdir/tests/topo/gen_topo.py" $gen >"$netfile" || exit 1
	label=$gen
else
	[ $# -ge 1 ] || { echo "usage: $0 [-n RUNS] NETFILE | -g 'GEN ARGS'" >&2; exit 2; }
	netfile=$1
	label=$netfile
fi

have_ibsmd=1
i=0
while [ "$i" -lt "$runs" ]; do
	i=$((i + 1))
	"$here/opensm-once.sh" "$netfile" >>"$work/runs" || exit 1
	tail -n 1 "$work/runs"
	if [ "$have_ibsmd" = 1 ]; then
		"$here/ibsmd-once.sh" "$netfile" >>"$work/runs"
		case $? in
		0) tail -n 1 "$work/runs" ;;
		77) have_ibsmd=0 ;;
		*) echo "ibsmd run $i failed" >&2; exit 1 ;;
		esac
	fi
done

# shellcheck source=bench/median.sh
. "$here/median.sh"

echo "fabric: $label; runs: $runs (medians)"
printf '%-12s %12s %12s %14s\n' metric opensm ibsmd opensm/ibsmd
for m in up_ms wall_ms cpu_ms discover_ms smps_xmit smps_sent; do
	o=$(median opensm "$m")
	b=$(median ibsmd "$m")
	[ "$have_ibsmd" = 0 ] && b="(no-binary)"
	r=$(awk -v o="$o" -v b="$b" 'BEGIN {
		if (o == "NA" || b !~ /^[0-9.]+$/ || b == 0) print "-"
		else printf "%.2f\n", o / b }')
	printf '%-12s %12s %12s %14s\n' "$m" "$o" "$b" "$r"
done
