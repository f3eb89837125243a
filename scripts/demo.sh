#!/bin/sh
# Demo: build ibsmd, start ibsim on tests/topo/small.net, bring the subnet
# up with `ibsmd --once`, then let infiniband-diags show the result.
set -e
cd "$(dirname "$0")/.."
top=$(pwd)
sh scripts/install-deps.sh
[ -x configure ] || ./autogen.sh >/dev/null
mkdir -p build-demo
cd build-demo
[ -f Makefile ] || "$top/configure" -q
make -s -j"$(nproc 2>/dev/null || echo 2)"
top_srcdir=$top top_builddir=$(pwd)
export top_srcdir top_builddir
. "$top/tests/integration/lib.sh"
sim_start "$top/tests/topo/small.net"
state=$SIM_DIR/state
mkdir -p "$state"
echo "== ibsmd --once on tests/topo/small.net"
sim_run_at H00001 "$top_builddir/sm/ibsmd" --once --state-dir "$state" -o log_level=notice
echo
echo "== LID state file ($state/lids), first lines"
head -n 5 "$state/lids"
echo
echo "== sminfo (queried from H00020)"
sim_run_at H00020 sminfo || true
echo
echo "== ibnetdiscover: switches and hosts with their LIDs"
sim_run_at H00020 ibnetdiscover 2>/dev/null | grep -E '^(Switch|Ca)' | head -n 8
echo "   ..."
echo
echo "== ibtracert from H00001 to H00032"
slid=$(sim_run_at H00001 smpquery -D portinfo 0,1 2>/dev/null | sed -n 's/^Lid:\.*//p' | head -n 1)
dlid=$(awk '$1 ~ /^0x/ {print $2}' "$state/lids" | sort -n | tail -n 1)
sim_run_at H00001 ibtracert "$slid" "$dlid" 2>/dev/null || true
