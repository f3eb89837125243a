#!/bin/sh
# DOC: the performance manager yields to the SA.
#
# ibsim's 648-host 2-level tree (gen_topo ft2 36: 2,592 linked ports, so
# 5,184 counter queries a round), ibsmd polling every second. Alone the PM
# asks about a round's worth every second. While two hosts keep PathRecord
# queries coming (bench/sa-load), it keeps one query in flight and sends
# at most one a millisecond (daemon/pmhost.c PM_SA_GAP_MS), and close to
# that: the round goes on. The SA answers every query all the while.
. "$top_srcdir/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/sm_lib.sh"
skip_unless_tools

IBSMD=$top_builddir/daemon/ibsmd
CTL=$top_builddir/cli/ibsmctl
LOAD=$top_builddir/bench/sa-load
[ -x "$IBSMD" ] && [ -x "$CTL" ] && [ -x "$LOAD" ] || hard_error "ibsmd, ibsmctl or sa-load not built"

sim_setup
topo_gen "$SIM_DIR/net" ft2 36
sim_start "$SIM_DIR/net"
SM=H00001
mkdir -p "$SIM_DIR/sm"
SIM_HOST=$SM sim_bg sh -c 'f=$1; shift; exec "$@" 2>"$f"' sh "$SIM_DIR/sm.log" \
	"$IBSMD" -o state_dir="$SIM_DIR/sm" -o socket_path="$SIM_DIR/sm/sock" \
	-o log_level=info -o perfmgr_interval=1
until_log sm 'PM: round 2 done' 60

# queries: the PM's queries so far (ibsmctl health).
queries() {
	timeout 10 "$CTL" -s "$SIM_DIR/sm/sock" health --json | python3 -c '
import json, sys
print(json.load(sys.stdin)["result"]["queries"])' || fail "ibsmctl health failed"
}

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# window SECONDS: the PM's queries in that many seconds from now, and the
# milliseconds from the start of the first count to the end of the second
# (the longest the daemon can have counted them in).
window() {
	_t0=$(now_ms)
	_q0=$(queries)
	sleep "$1"
	_q1=$(queries)
	echo "$((_q1 - _q0)) $(($(now_ms) - _t0))"
}

set -- $(window 4)
alone=$1
msg "alone: $alone queries in 4 s"
[ "$alone" -ge 10000 ] || fail "the PM asked only $alone queries in 4 s without SA load"

# The CAs' LIDs, between which sa-load asks for paths.
sim_ca_lids "$SIM_DIR/lids"

loaders=
for h in H00100 H00400; do
	T=40 sim_run_at "$h" "$LOAD" -l "$SIM_DIR/lids" -w 4 -d 12 -s "${h#H}" \
		-o "$SIM_DIR/lat.$h" >"$SIM_DIR/load.$h" 2>&1 &
	loaders="$loaders $!"
done
# The loaders run 12 s: the window (2 s on, 4 s long, plus two ibsmctl
# runs of 0.3-0.5 s each under ASan) must end before they do, or the PM
# goes back to its full rate within it.
sleep 2
set -- $(window 4)
loaded=$1 span=$2
for p in $loaders; do
	kill -0 "$p" 2>/dev/null || fail "an sa-load ended before the count window did ($span ms)"
done
for p in $loaders; do
	wait "$p" || fail "sa-load failed: $(cat "$SIM_DIR"/load.*)"
done
msg "under SA load: $loaded queries in 4 s ($span ms from the first count's start to the second's end); $(cat "$SIM_DIR"/load.* | tr '\n' ' ')"
# at most one a millisecond of the time the counts can span (and the one
# the round's start may add)
[ "$loaded" -le $((span + 1)) ] ||
	fail "the PM asked $loaded queries in $span ms while the SA was busy (at most one a ms)"
# and about that: its gap ends in the simulator's pump loop, not when
# libevent gets round to the timer (about 265 a second then)
[ "$loaded" -ge 1600 ] || fail "the PM asked only $loaded queries in 4 s under SA load"
for f in "$SIM_DIR"/load.*; do
	awk '{ for (i = 1; i < NF; i++) if (($i == "errors" || $i == "lost") && $(i + 1) != 0) bad = 1
	       for (i = 1; i < NF; i++) if ($i == "answered" && $(i + 1) > 0) ok = 1 }
	     END { exit !(ok && !bad) }' "$f" || fail "the SA lost or failed queries: $(cat "$f")"
done
kill -TERM "$SIM_BG_PID"
wait "$SIM_BG_PID" 2>/dev/null
! grep -q "ERROR: AddressSanitizer\|ERROR: LeakSanitizer\|runtime error" "$SIM_DIR/sm.log" ||
	{ grep -A 20 "Sanitizer\|runtime error" "$SIM_DIR/sm.log" | head -n 40 >&2; fail "sanitizer report"; }
msg "the PM yielded to the SA and went on"
