#!/bin/sh
# DOC: never harm a live fabric: ibsmd under MAD loss, missing nodes, stale
# state, changes behind its back and fresh machines, judged by the
# simulator's own state (simstate.py over ibsim's Dump: no MAD involved, so
# exact even while the simulator drops MADs).
#
#   loss       5 % and 10 % loss on every port: LID uniqueness sampled every
#              100 ms (one process dumping the simulator; the loop that
#              waits for a working fabric adds its own samples) while the
#              daemon converges (0 duplicates allowed); the
#              subnet comes up fully (every port Active, every pair
#              reachable) and stays up; no LFT block written after that
#   overlap    --once on one fabric, then on another whose GUIDs partly
#              overlap, same state_dir: no LID given twice, file reloads
#   failures   a leaf-spine link, then a whole spine: no LFT entry toward a
#              dead port, every pair still reachable
#   flaps      50 random flaps of host and switch links; back-to-back
#              Unlink/ReLink of a host and a switch port, traps kept and
#              lost: every port Active again
#   reset      a host port Cleared then ReLinked gets its LID back
#   kill -9    during the first programming of a fresh fabric and during
#              a reroute (LFT Sets slowed by loss so the kill lands mid-way):
#              LIDs kept, none twice, the restart writes blocks and works;
#              at random moments of sweeps: LIDs kept, 0 LFT blocks written
#   rogue      an LFT block and two LIDs (a host's, the SM's own) changed
#              behind our back: repaired within one audit period
#   audit off  (audit_period=0) a rogue LFT block stays wrong through light
#              sweeps, `ibsmctl sweep --wait` reads it back and repairs it;
#              the SM's own port moved by a rogue PortInfo Set is set back by
#              the next light sweep; a bounce held down: status degraded,
#              the port listed, not active in `ibsmctl ports`; up after
#   dup GUIDs  a switch (farther from the SM than the owner, and nearer),
#              a CA node and a CA port taking another's GUID: reported,
#              status degraded, no LID or route taken from the owner
#   drift      rogue LFT Sets of block 0 and of block 1, then `ibsmctl sweep
#              --wait` (audit off): every switch's LFT as before, read from
#              the simulator and with ibroute, the repaired blocks logged; a
#              host link lost unseen plus a rogue block: only the lost LID's
#              entries change; a first start (no links file) on a fabric
#              OpenSM programmed keeps its working routes: 0 blocks written
#   dirs       missing state and socket directories are created; one that
#              cannot be is one error before any SMP
#
# FAULTS="loss overlap failures live drift dirs" runs only the parts named (live:
# kill -9, flaps, bounces, reset, rogue, dup GUIDs and audit off, which
# share fabrics).
. "$top_srcdir/tests/integration/lib.sh"
skip_unless_tools opensm

IBSMD=$top_builddir/daemon/ibsmd
CTL=$top_builddir/cli/ibsmctl
ROGUE=$top_builddir/tests/agent/rogue_smp
[ -x "$IBSMD" ] && [ -x "$CTL" ] && [ -x "$ROGUE" ] || hard_error "build ibsmd, ibsmctl, rogue_smp"
export SIM_HOST=H00001

# start_sm NAME [options]: ibsmd in the background, stderr to NAME.log.
start_sm() {
	log=$SIM_DIR/$1.log
	shift
	sim_bg sh -c 'f=$1; shift; exec "$@" 2>"$f"' sh "$log" \
		"$IBSMD" -o state_dir="$SIM_DIR/state" -o socket_path="$SIM_DIR/sock" \
		-o log_level=info -o light_sweep_interval=1 -o flap_holddown_s=1 \
		-o audit_period=4 "$@"
	SM_PID=$SIM_BG_PID
}

stop_sm() {
	if [ "${1:-}" = -KILL ]; then
		pkill -KILL -P "$SM_PID" 2>/dev/null
	else
		kill -TERM "$SM_PID" 2>/dev/null
	fi
	wait "$SM_PID" 2>/dev/null
}

ctl() {
	T=20 sim_run "$CTL" -s "$SIM_DIR/sock" "$@"
}

# state NAME: the simulator's view, judged; sets DUPS INACTIVE DEAD UNREACH.
state() {
	sim_dump "$SIM_DIR/$1.dump"
	eval "$(simstate "$SIM_DIR/$1.dump" --pairs "${PAIRS:-3000}" --json | python3 -c '
import json, sys
r = json.load(sys.stdin)
print("DUPS=%d INACTIVE=%d DEAD=%d UNREACH=%d" % (r["dups"], r["inactive"], r["dead"], r["unreachable"]))')"
}

healthy() {
	[ "$DUPS" = 0 ] && [ "$INACTIVE" = 0 ] && [ "$DEAD" = 0 ] && [ "$UNREACH" = 0 ]
}

# until_healthy WHAT SECONDS: sample the simulator until the fabric works.
until_healthy() {
	_t=0
	while :; do
		state h
		healthy && return 0
		_t=$((_t + 1))
		[ "$_t" -gt "$(($2 * 2))" ] && fail "$1: not healthy after $2 s: dups=$DUPS inactive=$INACTIVE dead=$DEAD unreachable=$UNREACH ($(simstate "$SIM_DIR/h.dump" -v | sed -n 2,4p | tr '\n' ' '))"
		kill -0 "$SM_PID" 2>/dev/null || fail "$1: ibsmd died"
		sleep 0.5
	done
}

# LFT blocks written by sweeps logged after line N of LOG.
blocks_after() {
	tail -n +"$(($2 + 1))" "$1" | sed -n 's/.*done in.* \([0-9]*\) LFT blocks written.*/\1/p' |
		awk '{ s += $1 } END { print s + 0 }'
}

# wait_up LOG: until LOG has a sweep's end with the subnet up. A fabric
# that was healthy before a restart is healthy at once, before the new
# daemon's first sweep (which reads every LFT block back) is done.
wait_up() {
	_i=0
	until grep -q 'done in.*subnet UP' "$1"; do
		_i=$((_i + 1))
		[ "$_i" -gt 300 ] && fail "no sweep ended with the subnet up in $1 after 30 s"
		sleep 0.1
	done
}

# LFT blocks written by the first sweep logged in LOG; an error if none is.
first_sweep_blocks() {
	_n=$(sed -n 's/.*done in.* \([0-9][0-9]*\) LFT blocks written.*/\1/p' "$1" | head -n 1)
	[ -n "$_n" ] || hard_error "no sweep with its LFT block count in $1"
	echo "$_n"
}

# kill_at LOG OFFSET REGEX MS: once a line matching REGEX appears in LOG
# after byte OFFSET, wait MS milliseconds and SIGKILL the daemon (the
# children of SM_PID). Polls every millisecond, in one process. Prints how
# long after the line the kill came; status 1 if the line never came (10 s).
# LOG.watching appears once it watches (when run in the background).
kill_at() {
	python3 - "$@" "$SM_PID" <<'EOF'
import os, re, signal, sys, time
log, off, rx, ms, pid = sys.argv[1], int(sys.argv[2]), re.compile(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
end = time.monotonic() + 10
buf = ''
open(log + '.watching', 'w').close()
while time.monotonic() < end:
    try:
        with open(log, errors='replace') as f:
            f.seek(off)
            buf = f.read()
    except OSError:
        pass
    if rx.search(buf):
        t0 = time.monotonic()
        time.sleep(ms / 1000)
        kids = open('/proc/%s/task/%s/children' % (pid, pid)).read().split()
        for k in kids:
            os.kill(int(k), signal.SIGKILL)
        print('%.1f' % ((time.monotonic() - t0) * 1000))
        sys.exit(0 if kids else 2)
    time.sleep(0.001)
sys.exit(1)
EOF
}

part() {
	[ -z "${FAULTS:-}" ] && return 0
	case " $FAULTS " in *" $1 "*) return 0 ;; esac
	return 1
}

# ---------------------------------------------------------------- loss
sim_setup
topo_gen "$SIM_DIR/ft2-12.net" ft2 12
NODES=$(sed -n 's/^\(Switch\|Hca\|Ca\)[[:space:]].*"\([^"]*\)".*/\2/p' "$SIM_DIR/ft2-12.net")

# dup_sampler STOPFILE: every 100 ms, a console Dump and the number of
# LIDs held twice in it, in one long-running process (a shell loop that
# runs a Dump and simstate per sample manages one every ~200-300 ms). Runs
# until STOPFILE exists, then prints "SAMPLES MAXDUP MEAN_MS MAX_MS".
dup_sampler() {
	python3 - "$top_srcdir/tests/integration" "$SIM_LOG" "$SIM_DIR/console" "$1" <<'EOF'
import os, sys, time
sys.path.insert(0, sys.argv[1])
import simstate
log, fifo, stop = sys.argv[2:5]
con = open(fifo, 'w')
n = maxdup = 0
gaps, last = [], None
while not os.path.exists(stop):
    t = time.monotonic()
    off = os.path.getsize(log)
    con.write('Dump\n')
    con.flush()
    nodes, end = {}, t + 5
    while not nodes and time.monotonic() < end:
        time.sleep(0.002)
        with open(log, errors='replace') as f:
            f.seek(off)
            nodes = simstate.parse(simstate.last_dump(f.read().splitlines()))
    if not nodes:
        continue
    held = simstate.lid_holders(nodes)
    maxdup = max(maxdup, sum(1 for h in held.values() if len(h) > 1))
    n += 1
    if last is not None:
        gaps.append(t - last)
    last = t
    time.sleep(max(0.0, 0.1 - (time.monotonic() - t)))
mean = 1000 * sum(gaps) / len(gaps) if gaps else 0
print('%d %d %d %d' % (n, maxdup, mean, 1000 * max(gaps) if gaps else 0))
EOF
}

loss_run() {
	pct=$1
	sim_start "$SIM_DIR/ft2-12.net"
	for n in $NODES; do printf 'Error "%s" %s\n' "$n" "$pct" >&9; done
	sim_cmd 'Attached'
	rm -rf "$SIM_DIR/state" "$SIM_DIR/stop"
	dup_sampler "$SIM_DIR/stop" >"$SIM_DIR/samples" &
	sp=$!
	start_sm loss$pct
	t0=$(date +%s%N) maxdup=0 up=
	while [ "$(( ($(date +%s%N) - t0) / 1000000000 ))" -lt 90 ]; do
		PAIRS=300 state s
		[ "$DUPS" -gt "$maxdup" ] && maxdup=$DUPS
		if healthy; then up=$(( ($(date +%s%N) - t0) / 1000000 )); break; fi
		sleep 0.1
	done
	touch "$SIM_DIR/stop"
	wait $sp || fail "loss $pct %: the LID sampler failed"
	read -r samples smax smean sworst <"$SIM_DIR/samples"
	[ "$smax" = 0 ] || fail "loss $pct %: $smax LIDs held twice at once during convergence (sampler)"
	[ "$maxdup" = 0 ] || fail "loss $pct %: $maxdup LIDs held twice at once during convergence"
	[ "$samples" -ge 2 ] || fail "loss $pct %: the LID sampler took $samples samples"
	[ -n "$up" ] || fail "loss $pct %: not working after 90 s (inactive=$INACTIVE unreachable=$UNREACH)"
	# the sweep that brought it up may still be logging its end
	i=0
	until line=$(grep -n -m1 'done in.*subnet UP' "$SIM_DIR/loss$pct.log" | cut -d: -f1) &&
	    [ -n "$line" ]; do
		i=$((i + 1))
		[ $i -gt 100 ] && fail "loss $pct %: the working fabric is never called up"
		sleep 0.1
	done
	ctl sweep --wait >/dev/null || fail "loss $pct %: sweep --wait"
	ctl sweep --wait >/dev/null || fail "loss $pct %: sweep --wait"
	# stays up: two more heavy sweeps and a few light ones under loss
	for i in 1 2 3 4 5 6; do
		PAIRS=300 state k
		[ "$DUPS" = 0 ] || fail "loss $pct %: duplicate LIDs after convergence"
		healthy || fail "loss $pct %: fell out of working state (inactive=$INACTIVE unreachable=$UNREACH)"
		sleep 0.5
	done
	w=$(blocks_after "$SIM_DIR/loss$pct.log" "$line")
	[ "$w" = 0 ] || fail "loss $pct %: $w LFT blocks written by sweeps after convergence"
	msg "loss $pct %: working after $up ms, 0 duplicate LIDs in $samples samples (every $smean ms, at worst $sworst), 0 LFT blocks written afterwards"
	stop_sm
	sim_stop
}
if part loss; then
	loss_run 5
	loss_run 10
fi

# ---------------------------------------------------------------- overlap
part_overlap() {
	# Fabric A: ft2-12 (single-port hosts, ports 0x100001, 0x100003 ...).
	# Fabric B: dual-port hosts (ports 0x100001, 0x100002, 0x100004 ...): some
	# GUIDs in both, some in one only.
	topo_gen "$SIM_DIR/mp.net" multiport 8
	rm -rf "$SIM_DIR/state"
	sim_start "$SIM_DIR/ft2-12.net"
	sim_run "$IBSMD" --once -o state_dir="$SIM_DIR/state" >/dev/null 2>"$SIM_DIR/a.err" ||
		fail "overlap: --once on A failed"
	cp "$SIM_DIR/state/lids" "$SIM_DIR/lids.a"
	sim_stop
	sim_start "$SIM_DIR/mp.net"
	sim_run "$IBSMD" --once -o state_dir="$SIM_DIR/state" >/dev/null 2>"$SIM_DIR/b.err" ||
		fail "overlap: --once on B failed ($(tail -n 2 "$SIM_DIR/b.err"))"
	sim_run "$IBSMD" --once -o state_dir="$SIM_DIR/state" >/dev/null 2>"$SIM_DIR/b2.err" ||
		fail "overlap: the state file B wrote is refused: $(tail -n 1 "$SIM_DIR/b2.err")"
	python3 - "$SIM_DIR/lids.a" "$SIM_DIR/state/lids" <<'EOF' || fail "overlap: state file check"
import sys
def load(p):
    m = {}
    for l in open(p):
        f = l.split()
        if len(f) >= 3 and f[0].startswith('0x'):
            m[int(f[0], 16)] = (int(f[1]), int(f[2]))
    return m
a, b = load(sys.argv[1]), load(sys.argv[2])
used = {}
for g, (lid, lmc) in b.items():
    for l in range(lid, lid + (1 << lmc)):
        assert l not in used, "LID %d twice (%x, %x)" % (l, g, used[l])
        used[l] = g
absent = [g for g in a if g in b and a[g] != b[g]]
assert not absent, "reservations of A moved: %s" % absent
assert all(g in b for g in a), "reservations of A dropped"
print("overlap: %d GUIDs of A kept, %d added by B, no LID twice" % (len(a), len(b) - len(a)))
EOF
	sim_stop
}
part overlap && part_overlap

# ---------------------------------------------------------------- failures
part_failures() {
	topo_gen "$SIM_DIR/ft2-16.net" ft2 16
	sim_start "$SIM_DIR/ft2-16.net"
	rm -rf "$SIM_DIR/state"
	start_sm fail
	until_healthy "bring-up" 30
	sim_cmd 'Unlink "L0001"[9]'
	sleep 1
	until_healthy "leaf-spine link" 20
	for p in $(seq 1 16); do sim_cmd "Unlink \"S0003\"[$p]"; done
	sleep 1
	until_healthy "whole spine" 20
	msg "failures: leaf-spine link and whole spine: no dead-port entry, every pair reachable"
	for p in $(seq 1 16); do sim_cmd "ReLink \"S0003\"[$p]"; done
	sim_cmd 'ReLink "L0001"[9]'
	until_healthy "recovery" 30
	stop_sm
	sim_stop
}
part failures && part_failures

# ---------------------------------------------------------------- live
# flaps, bounces, a host reset, kill -9, rogue changes and duplicate GUIDs
# on one fabric, one daemon after another.
part_live() {
	# ft2-12 with two dual-port hosts on L0012 for a duplicate CA port GUID
	# (ibsim 0.10 has no working way to change one: `Guid "node"[port]`
	# does not parse, and NodeInfo keeps the old PortGUID anyway). H00071
	# (node 0xff000) is linked by port 2, 0xff002; H00072 (node 0xff001)
	# by port 1, which is also 0xff002: unlinked until that test.
	awk '
	/^Hca.*"H00071"/ { print "caguid=0xff000"; print "Hca\t2 \"H00071\""; h71 = 1; next }
	/^Hca.*"H00072"/ { print "caguid=0xff001"; print "Hca\t2 \"H00072\""; next }
	h71 && /^\[1\]/ { sub(/^\[1\]/, "[2]"); h71 = 0 }
	/^\[5\].*"H00071"\[1\]/ { sub(/\[1\]$/, "[2]") }
	{ print }' "$SIM_DIR/ft2-12.net" >"$SIM_DIR/live.net"
	sim_start "$SIM_DIR/live.net"
	sim_cmd 'Unlink "H00072"[1]'

	# kill -9 during the first programming of a fresh fabric. Unhindered it
	# takes about a millisecond, so the switches drop 80 % of the LFT
	# Sets (attribute 0x19) meanwhile: retries stretch it, and the kill,
	# 3 ms after routing, lands while some blocks are written, others not.
	# Routing may finish before the LID file is on disk and the LIDs are
	# Set (a fresh fabric's P_KeyTables are not read, so nothing else
	# keeps the loop busy): the kill waits for the last CA's LID Set too.
	rm -rf "$SIM_DIR/state"
	SWITCHES=$(echo "$NODES" | grep -v '^H')
	for n in $SWITCHES; do printf 'Error "%s" 80 25\n' "$n" >&9; done
	# a LID no allocator would pick by itself, kept because the port holds it
	sim_cmd 'Baselid "H00010"[1] 300'
	start_sm fresh
	ms=$(kill_at "$SIM_DIR/fresh.log" 0 '(?s)(?=.*routing: engine)(?=.*CA ports told, 0 left)' 3) ||
		fail "kill -9, fresh fabric: never routed and gave every CA its LID"
	stop_sm
	for n in $SWITCHES; do printf 'Error "%s" 0\n' "$n" >&9; done
	sim_cmd 'Attached'
	PAIRS=0 state fresh-kill
	[ "$DUPS" = 0 ] || fail "kill -9, fresh fabric: $DUPS LIDs held twice after the kill"
	[ "$(simstate --lid-of H00010 "$SIM_DIR/fresh-kill.dump")" = 300 ] || fail "kill -9, fresh fabric: H00010's LID 300 not kept"
	[ "$UNREACH" -gt 0 ] || fail "kill -9, fresh fabric: the kill ($ms ms after routing and the LIDs) came after programming"
	fresh_unreach=$UNREACH
	start_sm flap
	until_healthy "bring-up" 30
	simstate --same-lids "$SIM_DIR/fresh-kill.dump" "$SIM_DIR/h.dump" >"$SIM_DIR/moved" ||
		fail "kill -9, fresh fabric: LIDs moved: $(cat "$SIM_DIR/moved")"
	w=$(first_sweep_blocks "$SIM_DIR/flap.log") || exit 99
	[ "$w" -gt 0 ] || fail "kill -9, fresh fabric: the restart wrote no LFT block"
	[ "$(blocks_after "$SIM_DIR/flap.log" 0)" -gt 0 ] || fail "blocks_after counts nothing"
	msg "kill -9: during the first programming ($ms ms after routing and the LIDs, $fresh_unreach pairs unrouted): LIDs kept, none twice, restart wrote $w blocks and works"
	LINKS=$(python3 - "$SIM_DIR/live.net" <<'EOF'
import random, re, sys
cur, out = None, []
for l in open(sys.argv[1]):
    m = re.match(r'(Switch|Hca)\s+\d+\s+"([^"]+)"', l)
    if m:
        cur = m.group(2)
        continue
    m = re.match(r'\s*\[(\d+)\]\s+"([^"]+)"', l)
    if m and cur and {cur, m.group(2)}.isdisjoint({'H00001', 'H00072'}):
        out.append('%s:%s' % (cur, m.group(1)))
random.seed(7)
print(' '.join(random.choice(out) for _ in range(50)))
EOF
	)
	for l in $LINKS; do
		n=${l%:*} p=${l#*:}
		sim_cmd "Unlink \"$n\"[$p]"
		sleep 0.0$(( $(od -An -N1 -tu1 /dev/urandom) % 5 ))
		sim_cmd "ReLink \"$n\"[$p]"
	done
	sleep 3
	until_healthy "50 flaps" 40
	msg "flaps: 50 random flaps, every port Active again, no dead entry, every pair reachable"
	for l in 'H00040 1' 'L0003 8'; do
		set -- $l
		sim_cmd "Unlink \"$1\"[$2]"
		sim_cmd "ReLink \"$1\"[$2]"
		until_healthy "bounce of $1 port $2" 15
	done
	stop_sm
	export IBSMD_TEST_IGNORE_TRAPS=1
	start_sm flap-notrap
	unset IBSMD_TEST_IGNORE_TRAPS
	until_healthy "restart" 30
	for l in 'H00041 1' 'L0004 9'; do
		set -- $l
		sim_cmd "Unlink \"$1\"[$2]"
		sim_cmd "ReLink \"$1\"[$2]"
		until_healthy "bounce of $1 port $2 with traps lost" 15
	done
	msg "bounces: host and switch ports Unlinked and ReLinked back to back, with and without traps: Active again"

	# ---------------------------------------------------------------- reset
	lid_before=$(simstate --lid-of H00050 "$SIM_DIR/h.dump")
	sim_cmd 'Clear "H00050"[1]'
	sleep 0.5
	sim_cmd 'ReLink "H00050"[1]'
	until_healthy "host reset" 20
	lid_after=$(simstate --lid-of H00050 "$SIM_DIR/h.dump")
	[ "$lid_before" = "$lid_after" ] || fail "reset: H00050 had LID $lid_before, now $lid_after"
	msg "reset: H00050 Cleared and ReLinked, LID $lid_after back"
	stop_sm

	# ---------------------------------------------------------------- kill -9
	state before
	cp "$SIM_DIR/before.dump" "$SIM_DIR/kill-ref.dump"
	# kill -9 a few ms into a reroute after a leaf-spine link went down.
	# The reroute's routes arrive about 3 ms after it starts here, and its
	# dozen LFT blocks follow at once (ibsim fails a dropped MAD at once,
	# so loss does not stretch them): a kill 3 ms in lands
	# before, among or after those Sets, as the machine's load has it. So
	# L0005, whose entries toward the dead port must change, takes none of
	# them, and the others lose 80 %: wherever the kill lands, the reroute
	# has not fixed everything, and the restart must.
	start_sm kill-rr
	until_healthy "restart" 30
	wait_up "$SIM_DIR/kill-rr.log"
	off=$(wc -c <"$SIM_DIR/kill-rr.log")
	for n in $SWITCHES; do printf 'Error "%s" 80 25\n' "$n" >&9; done
	printf 'Error "%s" 100 25\n' L0005 >&9
	kill_at "$SIM_DIR/kill-rr.log" "$off" 'reroute [0-9]+ started' 3 >"$SIM_DIR/ms" &
	kp=$!
	while [ ! -e "$SIM_DIR/kill-rr.log.watching" ]; do sleep 0.01; done
	printf '%s\n' 'Unlink "L0005"[9]' >&9
	wait $kp || fail "kill -9 in a reroute: no reroute started"
	stop_sm
	for n in $SWITCHES; do printf 'Error "%s" 0\n' "$n" >&9; done
	PAIRS=0 state rr-kill
	[ "$DUPS" = 0 ] || fail "kill -9 in a reroute: $DUPS LIDs held twice after the kill"
	[ "$DEAD" -gt 0 ] || fail "kill -9 in a reroute: the kill ($(cat "$SIM_DIR/ms") ms in) came after the reroute"
	rr_dead=$DEAD
	start_sm kill-rr2
	until_healthy "restart after a kill in a reroute" 30
	simstate --same-lids "$SIM_DIR/kill-ref.dump" "$SIM_DIR/h.dump" >"$SIM_DIR/moved" ||
		fail "kill -9 in a reroute: LIDs moved: $(cat "$SIM_DIR/moved")"
	w=$(first_sweep_blocks "$SIM_DIR/kill-rr2.log") || exit 99
	[ "$w" -gt 0 ] || fail "kill -9 in a reroute: the restart wrote no LFT block"
	msg "kill -9: $(cat "$SIM_DIR/ms") ms into a reroute ($rr_dead dead entries left): LIDs kept, none twice, restart wrote $w blocks and works"
	sim_cmd 'ReLink "L0005"[9]'
	until_healthy "relink after the reroute kill" 20
	# the fabric works on the degraded routes too: until the sweep that
	# takes the link back has written its blocks, a restart has blocks to
	# write (seen when the first sample came before that sweep's end)
	ctl sweep --wait >/dev/null || fail "kill -9: sweep --wait after the relink"
	stop_sm
	i=0
	while [ $i -lt 6 ]; do
		start_sm kill$i
		sleep 0.$(( $(od -An -N1 -tu1 /dev/urandom) % 9 ))
		[ $((i % 2)) = 1 ] && ctl sweep >/dev/null 2>&1
		sleep 0.0$(( $(od -An -N1 -tu1 /dev/urandom) % 9 ))
		stop_sm -KILL
		i=$((i + 1))
	done
	start_sm kill-last
	until_healthy "restart after kill -9" 30
	wait_up "$SIM_DIR/kill-last.log"
	w=$(first_sweep_blocks "$SIM_DIR/kill-last.log") || exit 99
	[ "$w" = 0 ] || fail "kill -9: restart wrote $w LFT blocks: $(grep -m1 'done in' "$SIM_DIR/kill-last.log")"
	simstate --same-lids "$SIM_DIR/kill-ref.dump" "$SIM_DIR/h.dump" >"$SIM_DIR/moved" ||
		fail "kill -9: LIDs moved: $(cat "$SIM_DIR/moved")"
	msg "kill -9: 6 kills at random moments, restart kept every LID and wrote 0 LFT blocks"

	# ---------------------------------------------------------------- rogue
	SWLID=$(simstate --lid-of L0003 "$SIM_DIR/h.dump")
	off=$(wc -l <"$SIM_DIR/kill-last.log")
	sim_run_at H00030 "$ROGUE" lft "$SWLID" 0 255 || [ $? = 3 ] || fail "rogue: LFT Set failed"
	sim_cmd 'Baselid "H00020"[1] 333'
	sim_cmd 'Baselid "H00001"[1] 444'
	state r
	# an audit may repair all before this sample on a slow machine: then
	# its log lines below show that the changes took
	healthy && ! tail -n +"$((off + 1))" "$SIM_DIR/kill-last.log" | grep -q 'audit:' &&
		fail "rogue: the rogue changes did not take"
	until_healthy "rogue LFT block and LIDs (audit_period 4 s)" 8
	tail -n +"$((off + 1))" "$SIM_DIR/kill-last.log" >"$SIM_DIR/rogue.log"
	grep -q 'audit:.*LFT block 0' "$SIM_DIR/rogue.log" || fail "rogue: LFT repair not logged"
	grep -q 'audit:.*H00001.*setting back' "$SIM_DIR/rogue.log" || fail "rogue: SM port repair not logged"
	msg "rogue: LFT block and two LIDs repaired within one audit period"

	# ---------------------------------------------------------------- dup GUIDs
	sim_cmd 'Guid "L0002" 0x200000'
	ctl sweep --wait >/dev/null
	ctl -j status >"$SIM_DIR/st.json"
	grep -q '"subnet":"degraded"\|"subnet": "degraded"' "$SIM_DIR/st.json" || fail "dup switch GUID: status not degraded"
	grep -q 'duplicate_guid' "$SIM_DIR/st.json" || fail "dup switch GUID: not in the problem list"
	grep -q 'duplicate GUID' "$SIM_DIR/kill-last.log" || fail "dup switch GUID: not logged"
	PAIRS=0 state d
	[ "$DUPS" = 0 ] && [ "$UNREACH" = 0 ] || fail "dup switch GUID: routes or LIDs lost (dups=$DUPS unreachable=$UNREACH)"
	sim_cmd 'Guid "L0002" 0x200001'
	sim_cmd 'Guid "H00005" 0x100006'
	ctl sweep --wait >/dev/null
	ctl -j status >"$SIM_DIR/st2.json"
	grep -q 'duplicate_guid' "$SIM_DIR/st2.json" || fail "dup CA GUID: not in the problem list"
	lid4=$(simstate --lid-of H00004 "$SIM_DIR/kill-ref.dump")
	PAIRS=0 state d2
	[ "$(simstate --lid-of H00004 "$SIM_DIR/d2.dump")" = "$lid4" ] || fail "dup CA GUID: the owner's LID moved"
	[ "$DUPS" = 0 ] || fail "dup CA GUID: a LID held twice"
	simstate "$SIM_DIR/d2.dump" -v | grep "unreachable:.*-> lid $lid4\$" && fail "dup CA GUID: the owner lost routes"
	sim_cmd 'Guid "H00005" 0x100008'

	# a CA port GUID: H00072 comes up with H00071's port GUID
	lid71=$(simstate --lid-of H00071 "$SIM_DIR/d2.dump")
	[ "$lid71" != 0 ] || hard_error "dup port GUID: H00071 has no LID"
	sim_cmd 'ReLink "H00072"[1]'
	ctl sweep --wait >/dev/null
	PAIRS=0 state d3
	[ "$(simstate --lid-of H00071 "$SIM_DIR/d3.dump")" = "$lid71" ] || fail "dup port GUID: the owner's LID moved"
	[ "$DUPS" = 0 ] || fail "dup port GUID: a LID held twice"
	simstate "$SIM_DIR/d3.dump" -v | grep "unreachable:.*-> lid $lid71\$" && fail "dup port GUID: the owner lost routes"
	ctl -j status >"$SIM_DIR/st3.json"
	grep -q '"subnet":"degraded"\|"subnet": "degraded"' "$SIM_DIR/st3.json" || fail "dup port GUID: status not degraded"
	grep -q 'duplicate_guid[^}]*port GUID 0*ff002' "$SIM_DIR/st3.json" || fail "dup port GUID: not in the problem list"
	grep -q 'duplicate GUID: port GUID 0*ff002 kept by 0*ff000 "H00071" port 2, left out on 0*ff001 "H00072" port 1' \
		"$SIM_DIR/kill-last.log" || fail "dup port GUID: not logged with both places"
	sim_cmd 'Unlink "H00072"[1]'

	# a switch nearer the SM than the owner of the node GUID it takes: the
	# spine S0001 (2 hops) takes the GUID of the leaf L0012 (3 hops)
	g12=$(sed -n 's/^Switch.*"L0012"\tnodeguid \([0-9a-f]*\).*/\1/p' "$SIM_DIR/d3.dump")
	gs1=$(sed -n 's/^Switch.*"S0001"\tnodeguid \([0-9a-f]*\).*/\1/p' "$SIM_DIR/d3.dump")
	lid12=$(simstate --lid-of L0012 "$SIM_DIR/d3.dump")
	sim_cmd "Guid \"S0001\" 0x$g12"
	ctl sweep --wait >/dev/null
	PAIRS=0 state d4
	[ "$(simstate --lid-of L0012 "$SIM_DIR/d4.dump")" = "$lid12" ] || fail "dup switch GUID, newcomer nearer: the owner's LID moved"
	[ "$DUPS" = 0 ] || fail "dup switch GUID, newcomer nearer: a LID held twice"
	simstate "$SIM_DIR/d4.dump" -v >"$SIM_DIR/d4.v"
	for h in H00067 H00068 H00069 H00070 H00071; do
		l=$(simstate --lid-of $h "$SIM_DIR/d4.dump")
		grep "unreachable:.*-> lid $l\$" "$SIM_DIR/d4.v" &&
			fail "dup switch GUID, newcomer nearer: the owner's host $h lost routes"
	done
	ctl -j status >"$SIM_DIR/st4.json"
	grep -q '"subnet":"degraded"\|"subnet": "degraded"' "$SIM_DIR/st4.json" || fail "dup switch GUID, newcomer nearer: status not degraded"
	grep -q "duplicate_guid.*node GUID 0*$g12" "$SIM_DIR/st4.json" || fail "dup switch GUID, newcomer nearer: not in the problem list"
	sim_cmd "Guid \"S0001\" 0x$gs1"
	ctl sweep --wait >/dev/null
	ctl -j status | grep -q '"subnet":"up"\|"subnet": "up"' || fail "dup GUIDs gone: status not up again"
	msg "dup GUIDs: switch (newcomer farther and nearer), CA node and CA port reported, degraded, owners kept LIDs and routes; up again once fixed"
	stop_sm

	# ---------------------------------------------------------------- audit off
	start_sm noaudit -o audit_period=0 -o flap_holddown_s=6
	until_healthy "restart with the audit off" 30
	wait_up "$SIM_DIR/noaudit.log"
	# `sweep --wait` reads every LFT block back
	SWLID=$(simstate --lid-of L0004 "$SIM_DIR/h.dump")
	sim_run_at H00030 "$ROGUE" lft "$SWLID" 0 255 || [ $? = 3 ] || fail "rogue, audit off: LFT Set failed"
	sleep 2.5
	state r2
	healthy && fail "rogue, audit off: repaired without the audit or a sweep (or the Set did not take)"
	ctl sweep --wait >/dev/null || fail "rogue, audit off: sweep --wait"
	state r3
	healthy || fail "rogue, audit off: sweep --wait left the LFT broken (unreachable=$UNREACH dead=$DEAD)"
	msg "rogue, audit off: an LFT block still wrong after 2.5 s of light sweeps, right after sweep --wait"

	# the SM's own port moved by a rogue PortInfo Set: the light sweep repairs it
	smlid=$(simstate --lid-of H00001 "$SIM_DIR/r3.dump")
	off=$(wc -l <"$SIM_DIR/noaudit.log")
	sim_run_at H00030 "$ROGUE" lid "$smlid" 1 444 || [ $? = 3 ] || fail "rogue, own port: PortInfo Set failed"
	sim_dump "$SIM_DIR/o1.dump" H00001
	# a light sweep may set it back before this dump: then its log says it
	[ "$(simstate --lid-of H00001 "$SIM_DIR/o1.dump")" = 444 ] ||
		tail -n +"$((off + 1))" "$SIM_DIR/noaudit.log" | grep -q '"H00001" port 1 holds LID 444' ||
		fail "rogue, own port: the Set did not take"
	# light_sweep_interval=1: set back by the next light sweep, so within
	# a second and its sweep; 10 s allowed for a slow, loaded machine, the
	# log below tells that it was the light sweep's audit
	i=0
	while sleep 0.25; sim_dump "$SIM_DIR/o2.dump" H00001
	    [ "$(simstate --lid-of H00001 "$SIM_DIR/o2.dump")" != "$smlid" ]; do
		i=$((i + 1))
		[ $i -gt 40 ] && fail "rogue, own port: LID not set back within 10 s"
	done
	tail -n +"$((off + 1))" "$SIM_DIR/noaudit.log" | grep -q 'audit:.*"H00001" port 1 holds LID 444.*setting back LID '"$smlid" ||
		fail "rogue, own port: repair not logged"
	msg "rogue, own port: LID moved by a PortInfo Set, set back by the next light sweep (audit off), logged"

	# status during a bounce held down (flap_holddown_s=6)
	sim_cmd 'Unlink "H00060"[1]'
	sim_cmd 'ReLink "H00060"[1]'
	g60=$(sed -n 's/^Ca.*"H00060"\tnodeguid \([0-9a-f]*\).*/\1/p' "$SIM_DIR/r3.dump")
	i=0
	until ctl -j status >"$SIM_DIR/sb.json" && grep -q '"kind":"held"' "$SIM_DIR/sb.json"; do
		i=$((i + 1))
		[ $i -gt 100 ] && fail "bounce: never held: $(cat "$SIM_DIR/sb.json")"
		sleep 0.1
	done
	grep -q '"subnet":"degraded"' "$SIM_DIR/sb.json" || fail "bounce: status not degraded while held"
	grep -q '"kind":"held","guid":"[^"]*","port":[0-9]*,"text":"\\"\(H00060\\" port 1\|L0010\\" port 6\):' "$SIM_DIR/sb.json" ||
		fail "bounce: the held port is not listed: $(cat "$SIM_DIR/sb.json")"
	ctl ports >"$SIM_DIR/ports.txt" || fail "bounce: ibsmctl ports"
	awk '($NF == "L0010" && $2 == 6) || $NF == "H00060" { n++; if ($3 == "active") a++ }
	     END { exit !(n && !a) }' "$SIM_DIR/ports.txt" ||
		fail "bounce: ibsmctl ports says active (or lists neither end): $(grep 'H00060' "$SIM_DIR/ports.txt")"
	until_healthy "bounce held down" 15
	ctl -j status | grep -q '"subnet":"up"' || fail "bounce: status not up after recovery"
	msg "bounce held down: status degraded listing the port, ports not active; up after recovery"
	stop_sm
	sim_stop
}
part live && part_live

# ---------------------------------------------------------------- drift
# lft_diff A B [LID]: how many LFT entries differ between two dumps (LID
# left out), then the first few as SWITCH:LID.
lft_diff() {
	python3 - "$top_srcdir/tests/integration" "$@" <<'EOF'
import sys
sys.path.insert(0, sys.argv[1])
import simstate
def load(p):
    return simstate.parse(simstate.last_dump(open(p, errors='replace').read().splitlines()))
a, b = load(sys.argv[2]), load(sys.argv[3])
skip = int(sys.argv[4]) if len(sys.argv) > 4 else -1
d = sorted((n, l) for n in a if n in b for l in set(a[n].lft) | set(b[n].lft)
           if l != skip and a[n].lft.get(l, 255) != b[n].lft.get(l, 255))
print(len(d), ' '.join('%s:%d' % x for x in d[:5]))
EOF
}

# Rogue LFT Sets read back by `ibsmctl sweep --wait` are drift: written
# back to the SM's own routes, never taken as the routes to repair. Traps
# are ignored and light sweeps off, so that only the operator's sweep acts.
part_drift() {
	sim_start "$SIM_DIR/ft2-12.net"
	rm -rf "$SIM_DIR/state"
	export IBSMD_TEST_IGNORE_TRAPS=1
	start_sm drift -o audit_period=0 -o light_sweep_interval=0
	unset IBSMD_TEST_IGNORE_TRAPS
	until_healthy "drift: bring-up" 30
	cp "$SIM_DIR/h.dump" "$SIM_DIR/drift0.dump"
	swlid=$(simstate --lid-of L0003 "$SIM_DIR/drift0.dump")
	sim_run ibroute "$swlid" >"$SIM_DIR/ibroute0" || fail "drift: ibroute $swlid"
	for b in 1 0; do
		off=$(wc -l <"$SIM_DIR/drift.log")
		sim_run_at H00030 "$ROGUE" lft "$swlid" $b 255 || [ $? = 3 ] || fail "drift: LFT Set of block $b failed"
		sim_dump "$SIM_DIR/t$b.dump"
		set -- $(lft_diff "$SIM_DIR/drift0.dump" "$SIM_DIR/t$b.dump")
		[ "$1" -gt 0 ] || fail "drift: the rogue Set of block $b did not take"
		hit=$1
		ctl sweep --wait >/dev/null || fail "drift: sweep --wait after block $b"
		sim_dump "$SIM_DIR/s$b.dump"
		set -- $(lft_diff "$SIM_DIR/drift0.dump" "$SIM_DIR/s$b.dump")
		[ "$1" = 0 ] || fail "drift: block $b: $1 LFT entries differ after sweep --wait: $*"
		tail -n +"$((off + 1))" "$SIM_DIR/drift.log" | grep -q "LFT drift: [0-9a-f]* \"L0003\" block $b changed.*: $hit entries written back" ||
			fail "drift: the repair of L0003 block $b is not logged"
		msg "drift: $hit entries of L0003 block $b changed behind our back, sweep --wait wrote back every one, logged"
	done
	sim_run ibroute "$swlid" >"$SIM_DIR/ibroute1" || fail "drift: ibroute $swlid after"
	cmp -s "$SIM_DIR/ibroute0" "$SIM_DIR/ibroute1" ||
		fail "drift: ibroute of L0003 differs: $(diff "$SIM_DIR/ibroute0" "$SIM_DIR/ibroute1" | head -n 4)"
	# a host link lost unseen (traps ignored) and a block changed: the
	# repair starts from our routes, so only the lost host's LID changes
	lid40=$(simstate --lid-of H00040 "$SIM_DIR/drift0.dump")
	sim_cmd 'Unlink "H00040"[1]'
	sim_run_at H00030 "$ROGUE" lft "$swlid" 1 255 || [ $? = 3 ] || fail "drift: LFT Set failed"
	ctl sweep --wait >/dev/null || fail "drift: sweep --wait after a link loss"
	sim_dump "$SIM_DIR/s2.dump"
	set -- $(lft_diff "$SIM_DIR/drift0.dump" "$SIM_DIR/s2.dump" "$lid40")
	[ "$1" = 0 ] || fail "drift: a link lost and block 1 changed: $1 entries for other LIDs than the lost one differ: $*"
	grep -q 'route repair:.*entries broken' "$SIM_DIR/drift.log" || fail "drift: the link loss was not repaired"
	msg "drift: a host link lost and a block changed: repaired from our routes, only the lost LID's entries changed"
	stop_sm
	sim_stop
	# no link history (a first start, or the links file lost) on a fabric
	# another SM programmed: what the switches hold seeds a repair, so
	# working routes stay as they are (OpenSM's minhop differs from our
	# ftree in 12 blocks of this tree)
	sim_start "$SIM_DIR/ft2-12.net"
	mkdir -p "$SIM_DIR/osm"
	OSM_TMP_DIR="$SIM_DIR/osm" OSM_CACHE_DIR="$SIM_DIR/osm" T=60 \
		sim_run opensm -f "$SIM_DIR/osm/log" -o >/dev/null 2>&1 || fail "drift: opensm -o"
	T=60 sim_run "$IBSMD" --once -o state_dir="$SIM_DIR/nolinks" -o log_level=info \
		>"$SIM_DIR/nolinks.out" 2>"$SIM_DIR/nolinks.log" || fail "drift: --once after OpenSM"
	grep -q 'repairing the routes the switches hold' "$SIM_DIR/nolinks.log" ||
		fail "drift: without link history the switches' routes did not seed a repair"
	n=$(sed -n 's/.* lft_blocks_written=\([0-9]*\).*/\1/p' "$SIM_DIR/nolinks.out")
	[ "$n" = 0 ] || fail "drift: ${n:-no count of} LFT blocks written over OpenSM's working routes"
	msg "drift: no link history, fabric programmed by OpenSM: its routes repaired, 0 LFT blocks written"
	# OpenSM gave every port its LID and SM LID: every P_KeyTable is read
	grep -q 'P_Keys: [0-9]* ports (0 untouched since reset: not read), [1-9][0-9]* blocks read' \
		"$SIM_DIR/nolinks.log" ||
		fail "drift: after OpenSM, P_KeyTables not read: $(grep 'P_Keys:' "$SIM_DIR/nolinks.log")"
	msg "drift: after OpenSM, $(sed -n 's/.*P_Keys: \([0-9]* ports\).*, \([0-9]* blocks read\).*/\1, \2/p' "$SIM_DIR/nolinks.log" | head -n 1)"
	sim_stop
}
part drift && part_drift

# ---------------------------------------------------------------- dirs
part_dirs() {
	sim_start "$SIM_DIR/ft2-12.net"
	sim_run "$IBSMD" --once -o state_dir="$SIM_DIR/new/a/b" >/dev/null 2>&1 || fail "dirs: --once with a missing state_dir"
	[ "$(stat -c %a "$SIM_DIR/new/a/b")" = 750 ] || fail "dirs: state_dir mode $(stat -c %a "$SIM_DIR/new/a/b")"
	# a missing socket directory: created 0755, and the daemon serves on it
	T=20 sim_bg sh -c 'umask 022; exec "$@" 2>/dev/null' sh "$IBSMD" -o state_dir="$SIM_DIR/new/a/b" \
		-o socket_path="$SIM_DIR/run2/x/s.sock"
	SM_PID=$SIM_BG_PID
	i=0
	until [ -S "$SIM_DIR/run2/x/s.sock" ]; do
		i=$((i + 1))
		[ $i -gt 100 ] && fail "dirs: no socket in a missing socket directory"
		sleep 0.1
	done
	[ "$(stat -c %a "$SIM_DIR/run2/x")" = 755 ] || fail "dirs: socket dir mode $(stat -c %a "$SIM_DIR/run2/x")"
	T=20 sim_run "$CTL" -s "$SIM_DIR/run2/x/s.sock" status >/dev/null || fail "dirs: no answer on the new socket"
	stop_sm
	sim_stop
	sim_start "$SIM_DIR/ft2-12.net"
	touch "$SIM_DIR/plain"
	sim_run "$IBSMD" --once -o state_dir="$SIM_DIR/plain/x" >/dev/null 2>"$SIM_DIR/dir.err" &&
		fail "dirs: ran although state_dir cannot be created"
	[ "$(wc -l <"$SIM_DIR/dir.err")" = 1 ] || fail "dirs: not one error line: $(cat "$SIM_DIR/dir.err")"
	T=5 sim_run "$IBSMD" -o state_dir="$SIM_DIR/st2" -o socket_path="$SIM_DIR/plain/s.sock" \
		>/dev/null 2>"$SIM_DIR/sock.err" && fail "dirs: daemon ran without its socket"
	sim_dump "$SIM_DIR/untouched.dump"
	[ "$(grep -c 'lid [1-9]' "$SIM_DIR/untouched.dump")" = 0 ] || fail "dirs: SMPs were sent before the error"
	msg "dirs: missing state dir created (0750), socket dir (0755); uncreatable state or socket dir: one error, fabric untouched"
}
part dirs && part_dirs

exit 0
