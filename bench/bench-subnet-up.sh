#!/bin/sh
# DOC: time-to-SUBNET-UP of OpenSM and ibsmd on the same simulated fabric,
# and of ibsmd against the test bed's own limit.
#
# Usage: bench/bench-subnet-up.sh [-n RUNS] [-b BASE_IBSMD] [-r] NETFILE
#        bench/bench-subnet-up.sh [-n RUNS] [-b BASE_IBSMD] [-r] -g "GEN_TOPO ARGS"
#
# Each of RUNS rounds (default 3) runs, each on a freshly started
# simulator so that none profits from another's programming or from a warm
# simulator: opensm-once.sh, ibsmd-once.sh, and with -b the same for the
# ibsmd binary BASE_IBSMD (column "base": a before/after comparison in one
# run); with -r also ibsmd-once.sh --restart for each ibsmd (a restart
# with the state files on a power-cycled fabric: columns "restart",
# "base-restart"). Every ibsmd run is flanked by two floods of bench/smp-
# flood (FLOOD_SMPS, default 200000) on its own simulator: the bed's SMP
# rate at the time of that run (flood_rate), so that the ratio holds up
# while the load of a shared machine comes and goes. Prints every run,
# then the median of each metric and:
#
#   limit_ms   the bring-up's minimum SMPs (smps_min, see ibsmd-once.sh)
#              at the run's flood rate: how long the bed needs for them at
#              best (median over runs)
#   ratio      up_ms / limit_ms of each run (median over runs); every SMP
#              ibsmd sends beyond the minimum counts against it
#   ratio_disc the same for discovery alone: discover_ms over its
#              discover_smps at the run's flood rate
#   ratio_rest and for the rest of the bring-up: up_ms - discover_ms over
#              the other smps_min - discover_smps (the Sets), routing
#              included (it runs meanwhile, on the same cores)
#   opensm/X   OpenSM's up_ms over X's (above 1: X is faster)
#
# If there is no ibsmd binary yet, only OpenSM is measured. See the
# *-once.sh scripts for what each metric means. The machine's load
# average at the start is printed: timings on a shared machine are noisy.
#
# SIM_PIN (default yes, see tests/integration/lib.sh sim_pin): ibsim on the
# last CPU and every SM and flood on the others, the same for all, so that
# the flood measures the simulator's own rate rather than where the
# scheduler put three busy threads on two cores. SIM_PIN=no measures as
# before (on two cores ibsmd's routing then has the second core too).

set -u
here=$(cd "$(dirname "$0")" && pwd)
: "${top_srcdir:=$(cd "$here/.." && pwd)}"
export top_srcdir
runs=3
gen=
base=
restart=0
while getopts n:g:b:r opt; do
	case $opt in
	n) runs=$OPTARG ;;
	g) gen=$OPTARG ;;
	b) base=$OPTARG ;;
	r) restart=1 ;;
	*) echo "usage: $0 [-n RUNS] [-b BASE_IBSMD] [-r] NETFILE | -g 'GEN ARGS'" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))

: "${FLOOD_SMPS:=200000}"
: "${SIM_PIN:=yes}"
export FLOOD_SMPS SIM_PIN
work=$(mktemp -d "${TMPDIR:-/tmp}/ibsmd-bench.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM
if [ -n "$gen" ]; then
	netfile=$work/fabric.net
	# shellcheck disable=SC2086
	python3 "$top_srcdir/tests/topo/gen_topo.py" $gen >"$netfile" || exit 1
	label=$gen
else
	[ $# -ge 1 ] || { echo "usage: $0 [-n RUNS] [-b BASE] [-r] NETFILE | -g 'GEN ARGS'" >&2; exit 2; }
	netfile=$1
	label=$netfile
fi
load=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo NA)

# once SCRIPT LABEL [args]: one run, its line tagged with the round.
once() {
	script=$1
	shift
	"$here/$script" "$netfile" "$@" >"$work/line"
	rc=$?
	[ "$rc" = 0 ] || return "$rc"
	sed "s/\$/ round=$i/" "$work/line" >>"$work/runs"
	cat "$work/line"
}

# sms: the SM columns, in order.
sms=opensm
have_ibsmd=1
i=0
while [ "$i" -lt "$runs" ]; do
	i=$((i + 1))
	once opensm-once.sh || exit 1
	[ "$have_ibsmd" = 1 ] || continue
	once ibsmd-once.sh
	case $? in
	0) ;;
	77) have_ibsmd=0; continue ;;
	*) echo "ibsmd run $i failed" >&2; exit 1 ;;
	esac
	[ -z "$base" ] || IBSMD=$base IBSMD_LABEL=base once ibsmd-once.sh ||
		{ echo "base run $i failed" >&2; exit 1; }
	[ "$restart" = 1 ] || continue
	IBSMD_LABEL=restart once ibsmd-once.sh --restart ||
		{ echo "restart run $i failed" >&2; exit 1; }
	[ -z "$base" ] || IBSMD=$base IBSMD_LABEL=base-restart once ibsmd-once.sh --restart ||
		{ echo "base restart run $i failed" >&2; exit 1; }
done
[ "$have_ibsmd" = 1 ] && sms="$sms ibsmd"
[ -n "$base" ] && [ "$have_ibsmd" = 1 ] && sms="$sms base"
[ "$restart" = 1 ] && [ "$have_ibsmd" = 1 ] && sms="$sms restart"
[ "$restart" = 1 ] && [ -n "$base" ] && [ "$have_ibsmd" = 1 ] && sms="$sms base-restart"

# shellcheck source=bench/median.sh
. "$here/median.sh"

# per SM WHAT: median over SM's runs of limit_ms (the run's smps_min at
# its flood_rate), of ratio (up_ms over that), or of ratio_disc and
# ratio_rest (the same for discovery and for what follows it).
per() {
	awk -v sm="$1" -v what="$2" '
	function get(k,   i, kv) { for (i = 2; i <= NF; i++) { split($i, kv, "=");
		if (kv[1] == k) return kv[2] } return "" }
	$1 == sm && get("flood_rate") > 0 && get("smps_min") > 0 && get("up_ms") ~ /^[0-9.]+$/ {
		r = get("flood_rate") / 1000
		lim = get("smps_min") / r
		if (what == "limit_ms")
			v[n++] = lim
		else if (what == "ratio")
			v[n++] = get("up_ms") / lim
		else if (get("discover_smps") > 0 && get("discover_ms") ~ /^[0-9.]+$/) {
			d = get("discover_smps") / r
			if (what == "ratio_disc")
				v[n++] = get("discover_ms") / d
			else if (lim > d)
				v[n++] = (get("up_ms") - get("discover_ms")) / (lim - d)
		}
	}
	END {
		if (!n) { print "-"; exit }
		for (i = 0; i < n; i++) for (j = i + 1; j < n; j++)
			if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
		m = n % 2 ? v[(n - 1) / 2] : (v[n / 2 - 1] + v[n / 2]) / 2
		printf (what == "limit_ms" ? "%.0f\n" : "%.2f\n"), m
	}' "$work/runs"
}

echo "fabric: $label; runs: $runs (medians); load average at start: $load; pinned: $SIM_PIN"
printf '%-12s' metric
for sm in $sms; do printf ' %12s' "$sm"; done
echo
for m in up_ms wall_ms cpu_ms discover_ms smps_sent smps_xmit smps_min rss_kb flood_rate; do
	printf '%-12s' "$m"
	for sm in $sms; do printf ' %12s' "$(median "$sm" "$m")"; done
	echo
done
for w in limit_ms ratio ratio_disc ratio_rest; do
	printf '%-12s' "$w"
	for sm in $sms; do printf ' %12s' "$([ "$sm" = opensm ] && echo - || per "$sm" "$w")"; done
	echo
done
printf '%-12s' opensm/X
o=$(median opensm up_ms)
for sm in $sms; do
	awk -v o="$o" -v b="$(median "$sm" up_ms)" 'BEGIN {
		if (o == "NA" || b !~ /^[0-9.]+$/ || b == 0) printf " %12s", "-"
		else printf " %12.2f", o / b }'
done
echo
