#!/bin/sh
# DOC: proves the ibsim harness works before any SM test relies on it.
#
# Starts ibsim on the demo fabric, checks that ibnetdiscover sees exactly
# the generated nodes and links, that console commands take effect before
# sim_cmd returns, that SIM_HOST moves the attach point, and that a
# background client is reaped at exit.

set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$top_srcdir/tests/integration/lib.sh"
# shellcheck disable=SC2119
skip_unless_tools

net=$top_srcdir/tests/topo/small.net
sim_start "$net"
d=$SIM_DIR

sim_run ibnetdiscover >"$d/disc" 2>"$d/disc.err" || fail "ibnetdiscover: $?"
[ "$(ibnet_count Switch "$d/disc")" = 12 ] || fail "want 12 switches"
[ "$(ibnet_count Ca "$d/disc")" = 32 ] || fail "want 32 CAs"
ibnet_norm --by-desc --strict "$net" >"$d/want" || fail "norm $net"
ibnet_norm --by-desc --strict "$d/disc" >"$d/got" || fail "norm discovery"
diff "$d/want" "$d/got" >&2 || fail "discovered fabric differs from $net"

# Nobody assigned LIDs yet: every port reports LID 0.
ibnet_norm --lids "$d/disc" | grep '^LID ' >"$d/lids"
[ "$(wc -l <"$d/lids")" = 44 ] || fail "want 44 LID lines (12 + 32)"
grep -qv ' 0$' "$d/lids" && fail "a LID is set before any SM ran"

# ibsim numbers CAs from 0x100000 in file order, nports + 1 GUIDs each.
ibnet_norm "$d/disc" | grep -q '^NODE Ca 0x0000000000100002 1$' ||
	fail "H00002 is not at GUID 0x100002"

# A console command is applied by the time sim_cmd returns.
sim_cmd 'Unlink "L0001"[5]'
sim_run ibnetdiscover 2>/dev/null | ibnet_norm --by-desc >"$d/got2" ||
	fail "ibnetdiscover after Unlink"
diff "$d/want" "$d/got2" | grep -qx '< LINK L0001:5 S0001:1' ||
	fail "Unlink \"L0001\"[5] not seen"
[ "$(diff "$d/want" "$d/got2" | grep -c '^[<>]')" = 1 ] ||
	fail "Unlink changed more than one link"
sim_cmd 'Link "L0001"[5] "S0001"[1]'
sim_run ibnetdiscover 2>/dev/null | ibnet_norm --by-desc | cmp -s - "$d/want" ||
	fail "Link did not restore the fabric"

# SIM_HOST picks the attach point.
sim_run_at H00007 ibnetdiscover 2>/dev/null >"$d/disc7" || fail "attach at H00007"
grep -q 'Initiated from node 000000000010000c port 000000000010000d' "$d/disc7" ||
	fail "sim_run_at H00007 did not attach at H00007 (GUID 0x10000c)"

# A client that never answers is stopped by T, with timeout's status.
T=1 sim_run sleep 5
[ $? = 124 ] || fail "T=1 did not time out"

# With a real SM (OpenSM, if installed) every port gets a distinct LID, and
# ibnet_norm --lids reads them from ibnetdiscover.
if command -v opensm >/dev/null 2>&1; then
	mkdir "$d/osm"
	T=120 sim_run env OSM_TMP_DIR="$d/osm" OSM_CACHE_DIR="$d/osm" \
		opensm -f "$d/osm/log" -o >"$d/osm/out" 2>&1 || fail "opensm -o failed"
	sim_run ibnetdiscover 2>/dev/null | ibnet_norm --lids | grep '^LID ' >"$d/lids2"
	[ "$(wc -l <"$d/lids2")" = 44 ] || fail "want 44 LIDs after OpenSM"
	[ "$(awk '$3 > 0 { print $3 }' "$d/lids2" | sort -u | wc -l)" = 44 ] ||
		fail "OpenSM LIDs not all distinct and non-zero"
	msg "ok: OpenSM assigned 44 distinct LIDs"
fi

# A background client stays up until cleanup.
sim_bg sleep 300
sleep 0.2
kill -0 "$SIM_BG_PID" || fail "background client died"
msg "ok: harness works"
