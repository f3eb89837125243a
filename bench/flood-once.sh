#!/bin/sh
# DOC: the test bed's SMP rate on a fabric: bench/smp-flood once.
#
# Usage: bench/flood-once.sh NETFILE [-- smp-flood args]
#
# Starts ibsim on NETFILE and runs smp-flood at SIM_HOST (default: the
# first node of the file), which discovers the fabric with ibsmd's own
# discovery and then keeps ibsmd's window (smp_window, default 64) full of
# directed-route NodeInfo Gets through ibsmd's MAD engine and the same
# umad2sim path, to the nodes a bring-up's SMPs go to and as often (see
# bench/smp_flood.c). Prints one line:
#
#   flood rate=R smps=N ms=T window=W
#
# rate  SMPs answered per second during the flood (discovery not counted)
#
# The binary is $SMP_FLOOD, else $top_builddir/bench/smp-flood. Exit 77
# when there is none.

set -u
here=$(cd "$(dirname "$0")" && pwd)
: "${top_srcdir:=$(cd "$here/.." && pwd)}"
. "$top_srcdir/tests/integration/lib.sh"

[ $# -ge 1 ] || { echo "usage: $0 NETFILE [-- smp-flood args]" >&2; exit 2; }
netfile=$1
shift
[ "${1:-}" = -- ] && shift
skip_unless_tools

flood=${SMP_FLOOD:-$top_builddir/bench/smp-flood}
[ -x "$flood" ] || skip "no smp-flood binary (build bench/smp-flood or set SMP_FLOOD)"
case $flood in /*) ;; *) flood=$(pwd)/$flood ;; esac

sm_node=${SIM_HOST:-$(sed -n 's/^\(Switch\|Hca\|Ca\)[[:space:]].*"\([^"]*\)".*/\2/p' \
	"$netfile" | head -n 1)}

sim_start "$netfile"
out=$(T=${T:-600} sim_run_at "$sm_node" "$flood" "$@") || fail "smp-flood failed: $out"
field() {
	printf '%s\n' "$out" | tr ' ' '\n' | sed -n "s/^$1=//p" | head -n 1
}
echo "flood rate=$(field rate) smps=$(field smps) ms=$(field ms) window=$(field window)"
