#!/bin/sh
# DOC: the control socket under abuse (issue 17), on ibsim's 90-node fat
# tree, while a flapping link keeps ibsmd sweeping.
#
# First, events never split a streamed reply (a slow subscriber pipelines
# "ports" while sweeps run). Then users without admin rights (setpriv as
# nobody and more uids, through tests/integration/ctl_abuse.py):
#  1. flood: 30 connections each that pipeline "nodes" and never read.
#     Asserts: peak RSS within 64 MiB of the idle RSS, and back to what
#     it was before the flood once the clients are gone, an admin's
#     "status" round trip below 10 ms (p90) and 50 ms (p99), heavy sweeps
#     not slowed by more than 10 % (+2 ms of noise; against windows before
#     and after without abuse; a round that misses either of these two is
#     run once more), the daemon not busy and alive, at most max_clients_per_uid
#     connections per user.
#  2. lockout: 64 idle connections from four users. Root's status and
#     sweep still work, a fifth user is refused (busy), 1000 refusals log
#     only a few lines, and the idle timeout closes the idle ones.
#  3. configuration: a FIFO (or a huge file) as the configuration file is
#     refused at once by --check-config and by SIGHUP, which does not
#     freeze the event loop.
# The figures are measured by bench/ctl-bench.sh; the bounds asserted here
# are the issue's, on medians and percentiles that held with margin on a
# loaded 2-core machine in the ASan build (see the comments).
. "$top_srcdir/tests/integration/lib.sh"
skip_unless_tools setpriv
[ "$(id -u)" = 0 ] || skip "needs root to act as other users"

IBSMD=$top_builddir/daemon/ibsmd
CTL=$top_builddir/cli/ibsmctl
[ -x "$IBSMD" ] && [ -x "$CTL" ] || hard_error "ibsmd or ibsmctl not built"
# The abusers run as other users: they need a python3 outside /root.
PY=/usr/bin/python3
as_user() {
	_u=$1
	shift
	setpriv --reuid="$_u" --regid="$_u" --clear-groups "$@"
}
as_user 65534 "$PY" -c 'import json, selectors' 2>/dev/null || skip "no python3 that nobody may run"

sim_setup
topo_gen "$SIM_DIR/ft.net" ft2 12
sim_start "$SIM_DIR/ft.net"
chmod 711 "$SIM_DIR"
mkdir -m 755 "$SIM_DIR/sock"
cp "$top_srcdir/tests/integration/ctl_abuse.py" "$SIM_DIR/ctl_abuse.py"
chmod 644 "$SIM_DIR/ctl_abuse.py"
SOCK=$SIM_DIR/sock/ibsmd.sock
CONF=$SIM_DIR/ibsmd.conf
cat >"$CONF" <<EOF
socket_path "$SOCK"
state_dir "$SIM_DIR"
log_level notice
sweep_interval 0
light_sweep_interval 1
flap_holddown_s 0
EOF
# Phase 2 shortens the idle timeout by a reload; a daemon without the
# option (older code) is left as it is and fails the phases below.
HAVE_IDLE=false
"$IBSMD" -c "$CONF" --dump-config 2>/dev/null | grep -q '^client_idle_timeout ' && HAVE_IDLE=true

# ASan keeps freed blocks in a quarantine (256 MiB by default), which is
# not our heap growing: keep it small so that RSS shows what we hold.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=8" \
SIM_HOST=H00001 T=300 sim_bg "$IBSMD" -c "$CONF" 2>"$SIM_DIR/ibsmd.log"
DAEMON=$SIM_BG_PID

ctl() { timeout 30 "$CTL" -s "$SOCK" "$@"; }
abuse() { _u=$1; shift; as_user "$_u" timeout 120 "$PY" "$SIM_DIR/ctl_abuse.py" "$@"; }
admin() { timeout 120 "$PY" "$SIM_DIR/ctl_abuse.py" "$@"; }
# jf FILE EXPR: a Python expression on the JSON object in FILE (r).
jf() { python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print($2)" "$1"; }
die() { tail -n 30 "$SIM_DIR/ibsmd.log" >&2; fail "$*"; }
loglines() { grep -c "$1" "$SIM_DIR/ibsmd.log"; }

i=0
until [ "$(ctl --json status 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["result"]["subnet_up"])' 2>/dev/null)" = True ]; do
	i=$((i + 1))
	[ $i -gt 300 ] && die "subnet not up within 30 s"
	kill -0 "$DAEMON" 2>/dev/null || die "ibsmd died"
	sleep 0.1
done
PID=$(ctl --json status | python3 -c 'import json,sys; print(json.load(sys.stdin)["result"]["pid"])')

# A link that goes down and up all the time: light sweeps (every second)
# see it, each time a reroute or a heavy sweep follows.
(
	while :; do
		sim_cmd 'Unlink "L0003"[7]'
		sleep 0.7
		sim_cmd 'ReLink "L0003"[7]'
		sleep 0.7
	done
) >/dev/null 2>&1 &
SIM_BG_PIDS="$SIM_BG_PIDS $!"

# measure SECONDS OUT: an admin's status round trips and RSS, and heavy
# sweeps back to back, for SECONDS; results in OUT.probe and OUT.sweeps.
measure() {
	admin probe "$SOCK" "$1" "$PID" >"$2.probe" &
	_p=$!
	admin sweeper "$SOCK" "$1" >"$2.sweeps" || die "sweeper failed"
	wait "$_p" || die "probe failed"
	msg "$(basename "$2"): status $(jf "$2.probe" '"median %s p90 %s p99 %s max %s ms" % (r["rtt_median_ms"], r["rtt_p90_ms"], r["rtt_p99_ms"], r["rtt_max_ms"])'); sweeps $(jf "$2.sweeps" '"%d, median %s p90 %s ms" % (r["sweeps"], r["median_ms"], r["p90_ms"])'); RSS max $(jf "$2.probe" 'r["rss_max_kb"]') kB; ibsmd CPU $(jf "$2.probe" 'r["daemon_cpu_pct"]') %; load $(cut -d' ' -f1 /proc/loadavg)"
}

IDLE_KB=$(awk '/^VmRSS/ { print $2 }' "/proc/$PID/status")

# ---- 0. events and streamed replies ----
# A subscriber's events never land inside a streamed reply: one that
# reads 200 KB/s pipelines "ports" (about 70 KB each, several chunks, so
# a reply is half written most of the time) while another connection
# sweeps again and again and the link flaps.
python3 - "$SOCK" <<'EOF' || die "events and streamed replies"
import json, socket, sys, threading, time
path = sys.argv[1]
done = False

def conn():
    s = socket.socket(socket.AF_UNIX)
    s.connect(path)
    f = s.makefile("rwb")
    f.readline()
    return s, f

def sweeps():
    s, f = conn()
    i = 0
    while not done:
        i += 1
        f.write(b'{"id":%d,"cmd":"sweep","args":{"wait":true}}\n' % i); f.flush()
        while json.loads(f.readline()).get("id") != i:
            pass
    s.close()

s, f = conn()
f.write(b'{"id":0,"cmd":"subscribe"}\n'); f.flush()
assert json.loads(f.readline())["id"] == 0
t = threading.Thread(target=sweeps)
t.start()
s.sendall(b"".join(b'{"id":%d,"cmd":"ports"}\n' % i for i in range(1, 13)))
buf, ids, events, want = b"", [], 0, None
while len(ids) < 12:
    buf += s.recv(4096)
    time.sleep(0.02)
    while b"\n" in buf:
        line, buf = buf.split(b"\n", 1)
        m = json.loads(line)    # a line split by an event would not parse
        if "event" in m:
            events += 1
            continue
        n = len(m["result"]["ports"])
        assert want in (None, n), (want, n)
        want = n
        ids.append(m["id"])
done = True
t.join()
assert ids == list(range(1, 13)), ids
assert events > 10, "only %d events came meanwhile" % events
print("ctl_abuse.sh: streamed replies: 12 in order, %d ports each, %d events between them"
      % (want, events), file=sys.stderr)
EOF

# ---- 1. flood ----
# flood_round: a window without abuse, the flood with a window under it,
# and one after; the windows' files are $SIM_DIR/base, abuse and after.
flood_round() {
	measure 12 "$SIM_DIR/base"
	FLOODERS=
	for u in 65534 65533 65532; do
		abuse "$u" flood "$SOCK" 30 18 >"$SIM_DIR/flood.$u" &
		FLOODERS="$FLOODERS $!"
	done
	sleep 3    # connected and blocked: the flood as it lasts
	measure 14 "$SIM_DIR/abuse"
	for p in $FLOODERS; do
		wait "$p" || die "a flooder failed"
	done
	kill -0 "$DAEMON" 2>/dev/null || die "ibsmd died under the flood"
	measure 12 "$SIM_DIR/after"
	AFTER_KB=$(awk '/^VmRSS/ { print $2 }' "/proc/$PID/status")
}

sleep 2    # the first light sweeps and the flapping under way
flood_round
HWM_KB=$(awk '/^VmHWM/ { print $2 }' "/proc/$PID/status")
msg "flood: idle RSS $IDLE_KB kB, peak $HWM_KB kB; per user: $(cat "$SIM_DIR"/flood.* | tr '\n' ' ')"
for u in 65534 65533 65532; do
	[ "$(jf "$SIM_DIR/flood.$u" 'r["first_admitted"] == 16 and r["refused"] > 0')" = True ] ||
		die "user $u: not limited to 16 connections: $(cat "$SIM_DIR/flood.$u")"
	[ "$(jf "$SIM_DIR/flood.$u" 'r["bytes_sent"] < 48 << 20')" = True ] ||
		die "user $u: the daemon took all these requests: $(cat "$SIM_DIR/flood.$u")"
done
# Was 1.6-1.9 GB. Measured in the ASan build: peak 21-27 MiB above the
# RSS right after start, of which about 10 MiB come with the sweeps alone
# (ASan's shadow and quarantine); the plain build: 0.9 MiB (ctl-bench.sh).
[ $((HWM_KB - IDLE_KB)) -lt 65536 ] || die "peak RSS $HWM_KB kB, idle $IDLE_KB kB: more than 64 MiB"
# Memory goes back after the burst (was 696 MB kept): the RSS at the end
# of the window after the flood (clients gone for 12 s) against the most
# of the window before it, with the same sweeps and flapping. Plain
# build: +0.0-0.1 MiB, and +0.9-1.0 MiB when malloc_trim waited for 1 MiB
# of queued output, which backpressure never lets this flood queue (idle
# RSS 5 MiB, 7 MiB at the peak); bound 512 KiB. ASan's allocator keeps
# what it freed (malloc_trim is glibc's) and its quarantine holds up to
# its 8 MiB: +2.9-3.0 MiB (peak +10 MiB); bound 8 MiB + 2 MiB.
BASE_KB=$(jf "$SIM_DIR/base.probe" 'r["rss_max_kb"]')
if ldd "$IBSMD" | grep -q libasan; then KEPT_MAX=10240; else KEPT_MAX=512; fi
msg "RSS: idle $IDLE_KB kB, $BASE_KB kB before the flood, $AFTER_KB kB after it"
[ $((AFTER_KB - BASE_KB)) -le $KEPT_MAX ] ||
	die "RSS $AFTER_KB kB after the flood, $BASE_KB kB before it: more than $KEPT_MAX kB kept"
# Blocked clients cost nothing: a busy loop (libevent re-running the read
# callback of a client whose input waits) once took 45-99 % of a core.
# Measured (ASan): 4-6 % of a core without the flood, 4-8 % with it.
[ "$(python3 -c 'import json,sys; b=json.load(open(sys.argv[1]))["daemon_cpu_pct"]; a=json.load(open(sys.argv[2]))["daemon_cpu_pct"]; print(a < b + 20)' \
	"$SIM_DIR/base.probe" "$SIM_DIR/abuse.probe")" = True ] ||
	die "ibsmd busy under the flood: $(cat "$SIM_DIR/base.probe") then $(cat "$SIM_DIR/abuse.probe")"
[ "$(jf "$SIM_DIR/abuse.probe" 'r["failed"]')" = "{}" ] ||
	die "admin status failed under the flood: $(cat "$SIM_DIR/abuse.probe")"
# Was 0.9-2.9 s. Measured (ASan, machine loaded by other builds): median
# 0.13-0.22 ms, p90 0.25-0.9 ms, single outliers up to 10-50 ms with or
# without the flood (the machine); so the 10 ms are asserted on the p90.
# Under ibsim a status that comes while a sweep drains the simulator waits
# for the end of the daemon's pump slice (daemon/main.c): at 20 ms that
# gave p90 11.8 ms once in CI (sweeps of 20-30 ms every 0.2 s); at 5 ms,
# measured on a 2-core AMD VM in the ASan build under make -j2: p90
# 4.6-5.2 ms under the flood and 1.2-5.7 ms in the windows without it.
# The p99 (about the 3rd slowest of 280) is a status that came while a
# heavy sweep held the loop, plus the machine: with the 20 ms slice
# (ASan, 4 runs, load 0.8-1.6) 1.6, 8.4, 8.7, 9.6 ms under the flood and
# 1.9-21 ms in the windows without it; with the 5 ms slice 7.3-7.7 ms in
# every window. The bound is 50 ms: the tail stays the sweep's and the
# machine's, not seconds as it was. (It fails when one status in 20 takes
# 60 ms under the flood, where the p90 does not.)
status_within() {
	[ "$(jf "$SIM_DIR/abuse.probe" 'r["rtt_p90_ms"] < 10 and r["rtt_p99_ms"] < 50')" = True ] && return 0
	msg "admin status p90 not below 10 ms or p99 not below 50 ms under the flood: $(cat "$SIM_DIR/abuse.probe")"
	return 1
}
# Heavy sweeps (about 60 per window) under the flood against those of the
# windows before and after it, pooled: within 10 %, plus 2 ms. The 2 ms
# are noise: windows without any abuse differed by up to 2.7 ms (25 %) in
# median on the loaded 2-core machine (ASan); bench/ctl-bench.sh measures
# the 10 % more finely. A daemon busy with the flood shows far more (the
# busy loop above made sweeps 40-100 % slower).
sweeps_within() {
	python3 - "$SIM_DIR/base.sweeps" "$SIM_DIR/after.sweeps" "$SIM_DIR/abuse.sweeps" <<'EOF'
import json, statistics, sys
ref = json.load(open(sys.argv[1]))["durations_ms"] + json.load(open(sys.argv[2]))["durations_ms"]
abused = json.load(open(sys.argv[3]))["durations_ms"]
r, a = statistics.median(ref), statistics.median(abused)
print("ctl_abuse.sh: heavy sweeps: median %.2f ms without abuse (%d), %.2f ms under the flood (%d): %+.1f %%"
      % (r, len(ref), a, len(abused), (a / r - 1) * 100), file=sys.stderr)
sys.exit(a > 1.1 * r + 2)
EOF
}
# Under make -j2 another test may load the machine in one window and not
# in the others (+40 % once, against -2 % to +18 % otherwise): a round
# whose status round trips or sweeps miss their bounds is measured again
# with a new flood. A daemon that the flood slows fails both rounds.
if ! status_within || ! sweeps_within; then
	msg "status round trips or heavy sweeps: measuring again"
	flood_round
	status_within || die "admin status too slow under the flood, in two rounds"
	sweeps_within || die "sweeps slowed by more than 10 % + 2 ms, in two rounds"
fi

# ---- 2. lockout ----
# The idle timeout (10 s) leaves the checks below the time they need on a
# loaded machine: the idle users start (python under setpriv), then two
# ibsmctl runs and 1000 refusals must all fall before the first close.
if $HAVE_IDLE; then
	echo "client_idle_timeout 10" >>"$CONF"
	ctl reload >/dev/null || die "reload with client_idle_timeout 10 failed"
fi
REFUSED0=$(loglines 'refused')
mkdir -m 777 "$SIM_DIR/ready"
for u in 65534 65533 65532 65531; do
	abuse "$u" idle "$SOCK" 16 20 "$SIM_DIR/ready/$u" >"$SIM_DIR/idle.$u" &
	IDLERS="${IDLERS:-} $!"
done
i=0
until [ "$(ls "$SIM_DIR/ready" | wc -l)" -eq 4 ]; do
	i=$((i + 1))
	[ $i -gt 200 ] && die "the idle users did not connect within 20 s"
	sleep 0.1
done
LOCK_T0=$(date +%s%N)
ctl status >/dev/null || die "root locked out by idle connections"
ctl --json sweep --wait >/dev/null || die "root cannot sweep while others hold connections"
abuse 65530 refuse "$SOCK" 1 >"$SIM_DIR/fifth"
[ "$(jf "$SIM_DIR/fifth" 'r.get("busy")')" = 1 ] || die "a fifth user got a slot reserved for admins: $(cat "$SIM_DIR/fifth")"
abuse 65534 refuse "$SOCK" 1000 >"$SIM_DIR/refusals"
[ "$(jf "$SIM_DIR/refusals" 'r.get("busy")')" = 1000 ] || die "1000 refusals: $(cat "$SIM_DIR/refusals")"
N=$(($(loglines 'refused') - REFUSED0))
msg "lockout: status, sweep and 1001 refusals took $((($(date +%s%N) - LOCK_T0) / 1000000)) ms after the idle users connected"
# Was one line per refusal (947 for 1000).
[ "$N" -le 3 ] || die "$N log lines about refused connections"
for p in $IDLERS; do
	wait "$p" || die "an idle client failed"
done
msg "lockout: idle users: $(cat "$SIM_DIR"/idle.* | tr '\n' ' '); $N log lines for 1000+ refusals"
ADMITTED=$(cat "$SIM_DIR"/idle.* | python3 -c 'import json,sys; print(sum(json.loads(l)["admitted"] for l in sys.stdin))')
[ "$ADMITTED" = 56 ] || die "$ADMITTED idle connections admitted, expected 64 - 8 for admins"
for u in 65534 65533 65532 65531; do
	[ "$(jf "$SIM_DIR/idle.$u" 'r["closed_by_daemon"] == r["admitted"] and r["reasons"].get("idle_timeout") == r["admitted"] and (r["admitted"] == 0 or 9 <= r["first_close_s"] and r["last_close_s"] <= 14)')" = True ] ||
		die "user $u: idle connections not closed by the 10 s timeout: $(cat "$SIM_DIR/idle.$u")"
done

# ---- 3. a configuration file that is not a regular file ----
mkfifo "$SIM_DIR/fifo.conf"
t0=$(date +%s%N)
timeout 10 "$IBSMD" -c "$SIM_DIR/fifo.conf" --check-config 2>"$SIM_DIR/err"
rc=$?
[ $rc = 2 ] && grep -q 'a FIFO, not a regular file' "$SIM_DIR/err" ||
	die "--check-config on a FIFO: status $rc (124: hung), $(cat "$SIM_DIR/err")"
msg "--check-config on a FIFO: refused in $((($(date +%s%N) - t0) / 1000000)) ms"
mv "$CONF" "$CONF.real"
mkfifo "$CONF"
kill -HUP "$PID"
admin probe "$SOCK" 1 "$PID" >"$SIM_DIR/hup.probe"
[ "$(jf "$SIM_DIR/hup.probe" 'r["ok"] > 5 and not r["failed"] and r["rtt_max_ms"] < 1000')" = True ] ||
	die "the loop froze after SIGHUP with a FIFO as the configuration: $(cat "$SIM_DIR/hup.probe")"
grep -q 'reload rejected.*a FIFO, not a regular file' "$SIM_DIR/ibsmd.log" || die "FIFO reload not rejected"
rm "$CONF"
head -c 2000000 /dev/zero | tr '\0' '#' >"$CONF"
ctl reload 2>"$SIM_DIR/err"
[ $? = 1 ] && grep -q 'too large' "$SIM_DIR/err" || die "2 MB configuration: $(cat "$SIM_DIR/err")"
mv "$CONF.real" "$CONF"
ctl reload >/dev/null || die "reload of the real file failed"
msg "configuration: FIFO and 2 MB file refused, loop kept serving"

kill -0 "$DAEMON" 2>/dev/null || die "ibsmd died"
ctl status >/dev/null || die "no status at the end"
kill "$DAEMON"
wait "$DAEMON" 2>/dev/null
msg "PASS"
exit 0
