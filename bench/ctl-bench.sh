#!/bin/sh
# DOC: control socket latency: "status" round trip and "nodes" on a big
# fabric; and the daemon under abuse (issue 17).
#
# Starts ibsim on a generated fabric (default: ft3 24, 3456 hosts), runs
# ibsmd on it, waits for the subnet to come up, then measures on one
# connection: N "status" round trips and M "nodes" round trips (request
# written to complete reply parsed), and the wall time of one ibsmctl run
# of each. Prints min / median / p99 in milliseconds. Then a heavy sweep
# alone and with 100 clients polling "status".
#
# Abuse (as root, skipped otherwise; ABUSE=0 skips it): with a link
# flapping, R rounds (default 2) of three windows of W seconds (default
# 15): without abuse, under the abuse of tests/integration/ctl_abuse.sh
# (three users without admin rights with 30 connections each that
# pipeline FLOOD_CMD, default "nodes", and never read, and a fourth holding
# 16 idle ones), and without again. In each: an admin's "status" round
# trip every 50 ms on a fresh connection, heavy sweeps every 200 ms, VmRSS
# and the daemon's CPU. Prints idle, peak (VmHWM) and final RSS, status
# latency and sweep durations per window, and the sweeps under abuse
# against the pooled windows without.
#
#   bench/ctl-bench.sh [gen_topo args...]      e.g. bench/ctl-bench.sh ft2 12
# Environment: top_builddir (default .), N (1000), M (20), S (5), ABUSE,
# R, W, FLOOD_CMD, FLAP (0: no flapping link, to see the control
# socket's memory apart from the sweeps').
set -u
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
top_builddir=${top_builddir:-.}
. "$top_srcdir/tests/integration/lib.sh"
skip_unless_tools
[ $# -gt 0 ] || set -- ft3 24
IBSMD=$top_builddir/daemon/ibsmd
CTL=$top_builddir/cli/ibsmctl

sim_setup
topo_gen "$SIM_DIR/fabric.net" "$@"
sim_start "$SIM_DIR/fabric.net"
SOCK=$SIM_DIR/ctl.sock
SIM_HOST=H00001 sim_bg "$IBSMD" -o socket_path="$SOCK" -o state_dir="$SIM_DIR" \
	-o sweep_interval=0 -o log_level=warning -o max_clients=128 2>"$SIM_DIR/ibsmd.log"
t0=$(date +%s)
until "$CTL" -s "$SOCK" --json status 2>/dev/null | grep -q '"subnet_up":true'; do
	[ $(($(date +%s) - t0)) -gt 900 ] && { cat "$SIM_DIR/ibsmd.log"; fail "subnet not up"; }
	sleep 0.5
done
msg "subnet up after $(($(date +%s) - t0)) s: $("$CTL" -s "$SOCK" status | grep fabric)"

python3 - "$SOCK" "${N:-1000}" "${M:-20}" <<'EOF'
import json, socket, sys, time
path, n, m = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
s = socket.socket(socket.AF_UNIX)
s.connect(path)
f = s.makefile("rwb")
f.readline()

def rtt(cmd, count):
    out = []
    size = 0
    for i in range(count):
        t = time.perf_counter()
        f.write(b'{"id":%d,"cmd":"%s"}\n' % (i, cmd.encode()))
        f.flush()
        line = f.readline()
        r = json.loads(line)
        out.append((time.perf_counter() - t) * 1e3)
        assert r["id"] == i and "result" in r, r
        size = len(line)
    out.sort()
    print("%-7s x%-5d min %.3f ms  median %.3f ms  p99 %.3f ms  (%d bytes)" % (
        cmd, count, out[0], out[len(out) // 2], out[min(len(out) - 1, int(len(out) * 0.99))], size))

rtt("status", n)
rtt("nodes", m)
EOF
for c in status nodes; do
	t=$(date +%s%N)
	"$CTL" -s "$SOCK" "$c" >/dev/null || fail "ibsmctl $c"
	msg "ibsmctl $c (process start to exit, text output): $((($(date +%s%N) - t) / 1000000)) ms"
done

# A heavy sweep alone, then with 100 clients polling "status" as fast as
# the daemon answers: the sweep's own duration_ms (target: < 10 % slower).
python3 - "$SOCK" "${S:-5}" <<'EOF2'
import json, selectors, socket, statistics, sys, threading, time
path, runs = sys.argv[1], int(sys.argv[2])

def sweep_ms():
    s = socket.socket(socket.AF_UNIX)
    s.connect(path)
    f = s.makefile("rwb")
    f.readline()
    f.write(b'{"id":1,"cmd":"sweep","args":{"wait":true}}\n')
    f.flush()
    while True:
        r = json.loads(f.readline())
        if r.get("id") == 1:
            s.close()
            return float(r["result"]["duration_ms"])

stop = False
polls = [0]

def pollers(n):
    sel = selectors.DefaultSelector()
    for i in range(n):
        s = socket.socket(socket.AF_UNIX)
        s.connect(path)
        s.setblocking(False)
        sel.register(s, selectors.EVENT_READ, bytearray())
        s.send(b'{"id":0,"cmd":"status"}\n')
    while not stop:
        for key, _ in sel.select(0.5):
            buf = key.data
            try:
                buf += key.fileobj.recv(65536)
            except BlockingIOError:
                continue
            while b"\n" in buf:
                line, _, rest = buf.partition(b"\n")
                buf[:] = rest
                if b'"result"' in line:
                    polls[0] += 1
                    key.fileobj.send(b'{"id":0,"cmd":"status"}\n')

idle = [sweep_ms() for _ in range(runs)]
t = threading.Thread(target=pollers, args=(100,))
t.start()
time.sleep(0.5)
p0, t0 = polls[0], time.time()
busy = [sweep_ms() for _ in range(runs)]
rate = (polls[0] - p0) / (time.time() - t0)
stop = True
t.join()
mi, mb = statistics.median(idle), statistics.median(busy)
print("heavy sweep median: alone %.1f ms, with 100 polling clients %.1f ms (%+.1f %%), "
      "%.0f status replies/s meanwhile" % (mi, mb, (mb / mi - 1) * 100, rate))
EOF2

# ---- the abuse ----
[ "${ABUSE:-1}" = 0 ] && exit 0
if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null; then
	msg "abuse case skipped: needs root and setpriv to act as other users"
	exit 0
fi
PY=/usr/bin/python3
chmod 711 "$SIM_DIR"
cp "$top_srcdir/tests/integration/ctl_abuse.py" "$SIM_DIR/ctl_abuse.py"
chmod 644 "$SIM_DIR/ctl_abuse.py"
chmod 666 "$SOCK"
PID=$("$CTL" -s "$SOCK" --json status | python3 -c 'import json,sys; print(json.load(sys.stdin)["result"]["pid"])')
W=${W:-15}
abuse() { _u=$1; shift; setpriv --reuid="$_u" --regid="$_u" --clear-groups timeout 600 "$PY" "$SIM_DIR/ctl_abuse.py" "$@"; }
window() {   # NAME: the admin's probe and sweeps for W seconds
	timeout 600 "$PY" "$SIM_DIR/ctl_abuse.py" probe "$SOCK" "$W" "$PID" >"$SIM_DIR/$1.probe" &
	_p=$!
	timeout 600 "$PY" "$SIM_DIR/ctl_abuse.py" sweeper "$SOCK" "$W" >"$SIM_DIR/$1.sweeps"
	wait "$_p"
}
# the first uplink of the first leaf switch ("L..." to a switch that is not a host)
LINK=$(awk '/^Switch/ { sw = $0 } /^\[[0-9]+\]/ && sw ~ /"L/ && $2 !~ /^"H/ { split(sw, a, "\""); split($0, b, /[][]/); print "\"" a[2] "\"[" b[2] "]"; exit }' "$SIM_DIR/fabric.net")
[ "${FLAP:-1}" = 0 ] && LINK=
(
	while [ -n "$LINK" ]; do
		sim_cmd "Unlink $LINK"
		sleep 0.7
		sim_cmd "ReLink $LINK"
		sleep 0.7
	done
) >/dev/null 2>&1 &
SIM_BG_PIDS="$SIM_BG_PIDS $!"
sleep 2
IDLE_KB=$(awk '/^VmRSS/ { print $2 }' "/proc/$PID/status")
msg "abuse: flapping ${LINK:-nothing}; idle RSS $IDLE_KB kB; $W s windows"
for r in $(seq 1 "${R:-2}"); do
	window "base$r"
	F=
	for u in 65534 65533 65532; do
		abuse "$u" flood "$SOCK" 30 $((W + 5)) "${FLOOD_CMD:-nodes}" >"$SIM_DIR/flood$r.$u" &
		F="$F $!"
	done
	abuse 65531 idle "$SOCK" 16 $((W + 5)) >"$SIM_DIR/idle$r" &
	F="$F $!"
	sleep 3
	window "abuse$r"
	for p in $F; do wait "$p"; done
	window "after$r"
done
sleep 2
python3 - "$SIM_DIR" "${R:-2}" "$IDLE_KB" "$PID" <<'EOF'
import json, statistics, sys
d, rounds, idle, pid = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
load = lambda n: json.load(open("%s/%s" % (d, n)))
vm = {l.split(":")[0]: int(l.split()[1]) for l in open("/proc/%d/status" % pid) if l.startswith("Vm")}
print("RSS: idle %d kB, peak %d kB (+%.1f MiB), now %d kB" % (
    idle, vm["VmHWM"], (vm["VmHWM"] - idle) / 1024, vm["VmRSS"]))
pooled = {"without": [], "under": []}
for r in range(1, rounds + 1):
    for w in ("base", "abuse", "after"):
        p, s = load("%s%d.probe" % (w, r)), load("%s%d.sweeps" % (w, r))
        pooled["under" if w == "abuse" else "without"] += s["durations_ms"]
        print("round %d %-5s: admin status median %.3f p90 %.3f p99 %.3f max %.3f ms (%d, %d failed); "
              "connect to hello median %.3f ms; ibsmd CPU %.1f %%, RSS up to %d kB; "
              "heavy sweeps %d, median %.2f ms" % (
                  r, w, p["rtt_median_ms"], p["rtt_p90_ms"], p["rtt_p99_ms"], p["rtt_max_ms"], p["ok"],
                  sum(p["failed"].values()), p["hello_median_ms"], p["daemon_cpu_pct"],
                  p["rss_max_kb"], s["sweeps"], s["median_ms"] or 0))
    fl = [load("flood%d.%d" % (r, u)) for u in (65534, 65533, 65532)]
    print("round %d abusers: %d connections admitted, %d refused, %d request bytes taken; idle user: %s" % (
        r, sum(f["admitted"] for f in fl), sum(f["refused"] for f in fl),
        sum(f["bytes_sent"] for f in fl), json.dumps(load("idle%d" % r))))
a, b = statistics.median(pooled["under"]), statistics.median(pooled["without"])
print("heavy sweeps: median %.2f ms without abuse (%d), %.2f ms under it (%d): %+.1f %%" % (
    b, len(pooled["without"]), a, len(pooled["under"]), (a / b - 1) * 100))
EOF
