#!/bin/sh
# DOC: control socket latency: "status" round trip and "nodes" on a big
# fabric.
#
# Starts ibsim on a generated fabric (default: ft3 24, 3456 hosts), runs
# ibsmd on it, waits for the subnet to come up, then measures on one
# connection: N "status" round trips and M "nodes" round trips (request
# written to complete reply parsed), and the wall time of one ibsmctl run
# of each. Prints min / median / p99 in milliseconds.
#
#   bench/ctl-bench.sh [gen_topo args...]      e.g. bench/ctl-bench.sh ft2 8
# Environment: top_builddir (default .), N (1000), M (20).
set -u
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
top_builddir=${top_builddir:-.}
. "$top_srcdir/tests/integration/lib.sh"
skip_unless_tools
[ $# -gt 0 ] || set -- ft3 24
IBSMD=$top_builddir/sm/ibsmd
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
