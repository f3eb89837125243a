#!/bin/sh
# DOC: self-test of gen_topo.py.
#
# For each family checks the node and link counts the construction promises,
# that every link is listed from both of its ends and no port is used twice
# (ibnet_norm --strict), that output depends only on the arguments, and,
# when ibsim is installed, that the simulator loads the file and
# ibnetdiscover finds exactly the generated nodes and links.

set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$top_srcdir/tests/integration/lib.sh"
gen=$top_srcdir/tests/topo/gen_topo.py
sim_setup
have_sim=1
# shellcheck disable=SC2119
(skip_unless_tools) >/dev/null 2>&1 || have_sim=0
if [ "$have_sim" = 0 ]; then
	[ "${IBSM_REQUIRE_SIM:-0}" = 1 ] && hard_error "simulator tools missing"
	msg "ibsim missing: checking generated files only"
fi
n=0

# counts NSW NCA NLINKS GEN_ARGS...: generate, check symmetry and counts.
counts() {
	want_sw=$1 want_ca=$2 want_links=$3
	shift 3
	n=$((n + 1))
	f=$SIM_DIR/t$n.net
	python3 "$gen" "$@" >"$f" || fail "gen_topo $* failed"
	ibnet_norm --by-desc --strict "$f" >"$f.norm" || fail "$*: asymmetric"
	sw=$(grep -c '^NODE Switch ' "$f.norm")
	ca=$(grep -c '^NODE Ca ' "$f.norm")
	links=$(grep -c '^LINK ' "$f.norm")
	[ "$sw $ca $links" = "$want_sw $want_ca $want_links" ] ||
		fail "$*: got $sw switches $ca CAs $links links," \
			"want $want_sw $want_ca $want_links"
	msg "ok: $* ($sw switches, $ca CAs, $links links)"
}

# simload: the last generated file, as ibnetdiscover sees it in ibsim.
simload() {
	[ "$have_sim" = 1 ] || return 0
	sim_start "$f"
	T=300 sim_run ibnetdiscover >"$f.disc" 2>"$f.err" ||
		fail "ibnetdiscover failed on $f"
	ibnet_norm --by-desc --strict "$f.disc" >"$f.found" ||
		fail "cannot normalise ibnetdiscover output for $f"
	diff "$f.norm" "$f.found" >&2 || fail "ibsim fabric differs from $f"
	sim_stop
	msg "ok: ibsim + ibnetdiscover see the same fabric"
}

counts 6 8 16 ft2 4
counts 12 32 64 ft2 8
simload
counts 12 16 48 ft2 8 --hosts-per-leaf 2
counts 54 648 1296 ft2 36
simload
counts 20 16 48 ft3 4
simload
counts 80 128 384 ft3 8
counts 720 3456 10368 ft3 24
# 720 switches and 4176 nodes: needs the raised -N/-S/-P limits.
simload
counts 12 16 64 multiport 8
simload
counts 16 32 64 torus 4 4 --hosts 2
counts 24 24 84 torus 2 3 4
simload
counts 27 27 108 torus 3 3 3
counts 36 72 162 dragonfly 4 2 2 9
simload
counts 12 32 96 ft2 8 --parallel 2
simload
# 10% of 648 leaf-spine links.
counts 54 648 1231 ft2 36 --remove-links 10 --seed 5
counts 54 648 1231 ft2 36 --remove-links 10 --seed 5 --keep-connected
simload
counts 77 128 360 ft3 8 --remove-switches 3
# Only leaf-mid links (128 of 256) are candidates: 50% of them.
counts 80 128 320 ft3 8 --remove-links 50 --links leaf-spine --seed 2

# --uneven: 1..4 hosts per leaf, not all the same, reproducible.
python3 "$gen" ft2 8 --uneven --seed 4 >"$SIM_DIR/u1" || fail "--uneven"
ibnet_norm --by-desc --strict "$SIM_DIR/u1" |
	sed -n 's/^LINK H[0-9]*:1 \(L[0-9]*\):.*/\1/p' | sort | uniq -c |
	awk '$1 < 1 || $1 > 4 { bad = 1 } { seen[$1] = 1; n++ }
	     END { exit bad || n != 8 || length(seen) < 2 }' ||
	fail "--uneven: want 8 leaves with 1..4 hosts, not all equal"
f=$SIM_DIR/u1
ibnet_norm --by-desc --strict "$f" >"$f.norm"
simload

# Random graphs: a spanning tree, then edges while degree allows.
counts 20 40 80 random 20 4 --hosts-per-switch 2 --seed 3
simload
for s in 7:r1 7:r2 8:r3; do
	python3 "$gen" random 30 3 --seed "${s%:*}" >"$SIM_DIR/${s#*:}" ||
		fail "random --seed ${s%:*}"
done
grep -v '^#' "$SIM_DIR/r1" >"$SIM_DIR/r1b"
grep -v '^#' "$SIM_DIR/r3" >"$SIM_DIR/r3b"
cmp -s "$SIM_DIR/r1" "$SIM_DIR/r2" || fail "same seed, different output"
cmp -s "$SIM_DIR/r1b" "$SIM_DIR/r3b" && fail "different seeds, same fabric"
python3 "$gen" ft2 36 --remove-links 30 --seed 1 | grep -v '^#' >"$SIM_DIR/d1"
python3 "$gen" ft2 36 --remove-links 30 --seed 2 | grep -v '^#' >"$SIM_DIR/d2"
cmp -s "$SIM_DIR/d1" "$SIM_DIR/d2" && fail "--remove-links ignores --seed"

# Removing "all" links while keeping the fabric connected leaves a spanning
# tree of the 54 switches: 53 switch links.
counts 54 648 701 ft2 36 --remove-links 100 --seed 4 --keep-connected
simload

# The committed demo fabric is what the generator makes.
python3 "$gen" ft2 8 | grep -v '^#' >"$SIM_DIR/small"
grep -v '^#' "$top_srcdir/tests/topo/small.net" | cmp -s - "$SIM_DIR/small" ||
	fail "tests/topo/small.net is stale: regenerate with gen_topo.py ft2 8"

# Bad arguments are refused, not turned into broken fabrics.
for bad in "ft2 7" "ft2 8 --hosts-per-leaf 5" "torus" "random 5 5" \
    "ft3 8 --remove-switches 999" "torus 3 --uneven" "ft2 8 --parallel 0"; do
	# shellcheck disable=SC2086
	if python3 "$gen" $bad >/dev/null 2>&1; then
		fail "gen_topo accepted: $bad"
	fi
done
msg "all gen_topo checks passed"
