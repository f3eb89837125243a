#!/bin/sh
# Demo: build ibsmd, start ibsim on tests/topo/small.net (12 switches, 32
# hosts), run ibsmd on it as a daemon, and show the result through ibsmctl
# and through infiniband-diags, which nobody here wrote (sminfo, ibtracert,
# saquery against the SA).
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
mkdir -p "$SIM_DIR/state"
sock=$SIM_DIR/ibsmd.sock
export SIM_HOST=H00001
sim_bg sh -c 'exec "$@" 2>"$0"' "$SIM_DIR/ibsmd.log" "$top_builddir/daemon/ibsmd" \
	-o state_dir="$SIM_DIR/state" -o socket_path="$sock" -o log_level=notice
i=0
until grep -qs 'subnet UP' "$SIM_DIR/ibsmd.log"; do
	i=$((i + 1))
	[ "$i" -gt 300 ] && { cat "$SIM_DIR/ibsmd.log"; exit 1; }
	sleep 0.1
done
ctl() { echo "\$ ibsmctl $*"; "$top_builddir/cli/ibsmctl" -s "$sock" "$@"; echo; }
echo "== ibsmd log"
cat "$SIM_DIR/ibsmd.log"
echo
ctl status
ctl switches
# the first "routing" after a sweep starts its verification on a worker
for _ in 1 2 3 4 5 6 7 8 9 10; do
	ctl routing >"$SIM_DIR/routing" && ! grep -q 'being computed' "$SIM_DIR/routing" && break
	sleep 0.2
done
cat "$SIM_DIR/routing"
ctl path H00001 H00032
ctl lft L0001
echo "== sminfo (infiniband-diags, from H00020)"
sim_run_at H00020 sminfo || true
echo
echo "== ibtracert from H00001 to H00032 (infiniband-diags)"
lids=$("$top_builddir/cli/ibsmctl" -s "$sock" --json nodes | python3 -c '
import json, sys
nodes = {n["desc"]: n["lid"] for n in json.load(sys.stdin)["result"]["nodes"]}
print(nodes["H00001"], nodes["H00032"])')
# shellcheck disable=SC2086
sim_run ibtracert $lids
echo
echo "== saquery: the SA's PathRecord from H00001 to H00032, asked at H00020 (infiniband-diags)"
# shellcheck disable=SC2086
set -- $lids
sim_run_at H00020 saquery -p --slid "$1" --dlid "$2" || true
echo
# link health from the performance manager, and the same counters as
# infiniband-diags' perfquery reads them
ctl health
ctl counters H00032 1
echo "== perfquery of H00032 port 1, asked at H00020 (infiniband-diags)"
sim_run_at H00020 perfquery "$2" 1 || true
echo
ctl mcast
ctl sa
# the harness's exit trap stops ibsmd and ibsim; it must not trip set -e
set +e
exit 0
