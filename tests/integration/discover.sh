#!/bin/sh
# DOC: discovery equals ibnetdiscover, node for node and link for link.
#
# For each fabric: start ibsim, run `ibsmd --once --discover-only
# --dump-topology`, run ibnetdiscover from the same node, normalise both
# (ibnet_norm.py) and diff. Fabrics: the ibsim examples (parallel links,
# multi-port HCAs), generated fat trees, a degraded tree, a torus and a
# random graph, hundreds of nodes at least.
. "$top_srcdir/tests/integration/lib.sh"
skip_unless_tools

IBSMD=$top_builddir/daemon/ibsmd
[ -x "$IBSMD" ] || hard_error "$IBSMD not built"
EX=/usr/share/doc/ibsim-utils/net-examples

check_fabric() {
	name=$1 net=$2 host=$3
	sim_start "$net"
	sim_run_at "$host" "$IBSMD" --once --discover-only -o log_level=warning \
		--dump-topology "$SIM_DIR/ours.txt" >"$SIM_DIR/summary.txt" 2>"$SIM_DIR/ibsmd.err" ||
		{ cat "$SIM_DIR/ibsmd.err" >&2; fail "$name: ibsmd failed"; }
	sim_run_at "$host" ibnetdiscover >"$SIM_DIR/theirs.txt" 2>/dev/null ||
		fail "$name: ibnetdiscover failed"
	ibnet_norm "$SIM_DIR/ours.txt" >"$SIM_DIR/ours.norm"
	ibnet_norm "$SIM_DIR/theirs.txt" >"$SIM_DIR/theirs.norm"
	diff -u "$SIM_DIR/theirs.norm" "$SIM_DIR/ours.norm" >&2 ||
		fail "$name: discovery differs from ibnetdiscover"
	nodes=$(grep -c '^NODE' "$SIM_DIR/ours.norm")
	links=$(grep -c '^LINK' "$SIM_DIR/ours.norm")
	msg "$name: $nodes nodes, $links links match ibnetdiscover; $(cat "$SIM_DIR/summary.txt")"
	sim_stop
	rm -f "$SIM_DIR"/*.txt "$SIM_DIR"/*.norm
}

check_fabric net.2sw2path4hca2port "$EX/net.2sw2path4hca2port" Hca1
check_fabric net "$EX/net" Hca1

sim_setup
topo_gen "$SIM_DIR/ft2-16.net" ft2 16
check_fabric ft2-16 "$SIM_DIR/ft2-16.net" H00001
topo_gen "$SIM_DIR/ft2-24-deg.net" ft2 24 --remove-links 10 --seed 7
check_fabric ft2-24-degraded "$SIM_DIR/ft2-24-deg.net" H00001
topo_gen "$SIM_DIR/ft3-8.net" ft3 8
check_fabric ft3-8 "$SIM_DIR/ft3-8.net" H00001
topo_gen "$SIM_DIR/torus.net" torus 4 4 2 --hosts 2
check_fabric torus-4x4x2 "$SIM_DIR/torus.net" H00001
topo_gen "$SIM_DIR/random.net" random 40 4 --hosts-per-switch 4 --seed 3
check_fabric random-40 "$SIM_DIR/random.net" H00001
topo_gen "$SIM_DIR/multiport.net" multiport 8
check_fabric multiport "$SIM_DIR/multiport.net" H00001
topo_gen "$SIM_DIR/ft2-36.net" ft2 36
check_fabric ft2-36 "$SIM_DIR/ft2-36.net" H00001

# A switch that takes another's GUID: reported, not trusted, no crash; the
# rest of the fabric is still discovered.
sim_start "$top_srcdir/tests/topo/small.net"
sim_cmd 'Guid "L0002" 0x200000'
sim_run_at H00001 "$IBSMD" --once --discover-only -o log_level=warning \
	>"$SIM_DIR/summary.txt" 2>"$SIM_DIR/ibsmd.err" || fail "duplicate GUID: ibsmd failed"
grep -q 'duplicate GUID' "$SIM_DIR/ibsmd.err" || fail "duplicate GUID not reported"
grep -q 'dup_guids=[1-9]' "$SIM_DIR/summary.txt" || fail "duplicate GUID not counted"
grep -q 'switches=11 ' "$SIM_DIR/summary.txt" || fail "duplicate GUID: other switches lost"
msg "duplicate GUID: $(grep -c 'duplicate GUID' "$SIM_DIR/ibsmd.err") conflicts reported; $(cat "$SIM_DIR/summary.txt")"
sim_stop

# A switch that answers nothing costs its own retries only: everything not
# behind it is found, and the sweep ends at once (umad2sim fails dropped
# MADs immediately, our retries included).
sim_start "$top_srcdir/tests/topo/small.net"
sim_cmd 'Error "S0001" 100'
sim_run_at H00001 "$IBSMD" --once --discover-only -o log_level=warning \
	>"$SIM_DIR/summary.txt" 2>"$SIM_DIR/ibsmd.err" || fail "dead switch: ibsmd failed"
grep -q 'nodes=43 switches=11 cas=32' "$SIM_DIR/summary.txt" ||
	fail "dead switch: $(cat "$SIM_DIR/summary.txt")"
msg "dead switch: $(cat "$SIM_DIR/summary.txt")"
sim_stop
exit 0
