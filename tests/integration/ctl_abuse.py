#!/usr/bin/env python3
# DOC: abusive and measuring control-socket clients for ctl_abuse.sh and
# bench/ctl-bench.sh.
#
#   ctl_abuse.py flood SOCK N SECONDS [CMD]   keep N connections that
#       pipeline CMD (default nodes) as fast as the socket takes it and
#       never read a reply; a connection refused or closed by the daemon is
#       tried again after a second, so the pressure lasts SECONDS.
#   ctl_abuse.py idle SOCK N SECONDS [READY]  open N connections (each
#       reads its hello, nothing else) and hold them up to SECONDS; report
#       when and why the daemon closed them. Once all N are tried, create
#       the file READY.
#   ctl_abuse.py refuse SOCK N                N connections one after the
#       other, each closed after its first line; count the first lines.
#   ctl_abuse.py probe SOCK SECONDS PID [INTERVAL_MS]   as an admin: every
#       INTERVAL_MS (default 50) a fresh connection, hello, "status",
#       reply; sample VmRSS and VmHWM of PID.
#   ctl_abuse.py sweeper SOCK SECONDS [PAUSE_MS]   as an admin: "sweep"
#       with wait, then a pause (default 200 ms), again and again; the
#       duration_ms of each heavy sweep.
#
# Each mode prints one JSON object on stdout when it is done. The abusers
# run as unprivileged users (setpriv); whatever the daemon does to them
# (refusal, stall, close) is counted, never raised.
import json
import os
import selectors
import socket
import statistics
import sys
import time


def connect(path):
    s = socket.socket(socket.AF_UNIX)
    s.connect(path)
    return s


def first_line(s, timeout=5.0):
    """The first message from the daemon (hello or refusal), or None."""
    s.settimeout(timeout)
    buf = b""
    try:
        while b"\n" not in buf:
            chunk = s.recv(4096)
            if not chunk:
                return None
            buf += chunk
    except (socket.timeout, ConnectionResetError):
        return None
    return json.loads(buf.split(b"\n", 1)[0])


def admitted(path, st):
    """A new connection that got a hello, or None (counted in st)."""
    try:
        s = connect(path)
    except OSError:
        st["connect_failed"] += 1
        return None
    h = first_line(s)
    if h is None or "hello" not in h:
        st["refused"] += 1
        s.close()
        return None
    st["admitted"] += 1
    s.setblocking(False)
    return s


def flood(path, n, seconds, cmd="nodes"):
    req = (b'{"id":1,"cmd":"%s"}\n' % cmd.encode()) * 4096
    st = {"admitted": 0, "refused": 0, "connect_failed": 0, "closed_by_daemon": 0,
          "bytes_sent": 0, "first_admitted": None}
    live, retry_at = [], 0.0
    end = time.time() + seconds
    while time.time() < end:
        if len(live) < n and time.time() >= retry_at:
            while len(live) < n:
                s = admitted(path, st)
                if s is None:
                    retry_at = time.time() + 1
                    break
                live.append(s)
        # before the daemon closed any (a close is only seen at the next
        # send, so later counts of "live" may include closed ones)
        if st["first_admitted"] is None:
            st["first_admitted"] = len(live)
        progress = False
        for s in list(live):
            try:
                k = s.send(req)
                st["bytes_sent"] += k
                progress = progress or k > 0
            except BlockingIOError:
                pass
            except (BrokenPipeError, ConnectionResetError):
                st["closed_by_daemon"] += 1
                live.remove(s)
                s.close()
        if not progress:
            time.sleep(0.02)
    for s in live:
        s.close()
    return st


def idle(path, n, seconds, ready=None):
    st = {"admitted": 0, "refused": 0, "connect_failed": 0}
    t0 = time.time()
    socks = [s for s in (admitted(path, st) for _ in range(n)) if s]
    if ready:   # every connection is made: the test may go on
        open(ready, "w").close()
    sel = selectors.DefaultSelector()
    for s in socks:
        sel.register(s, selectors.EVENT_READ)
    closed_at, reasons = [], {}
    while time.time() < t0 + seconds and len(closed_at) < len(socks):
        for key, _ in sel.select(0.2):
            try:
                data = key.fileobj.recv(4096)
            except ConnectionResetError:
                data = b""
            for line in data.splitlines():
                code = json.loads(line).get("error", {}).get("code", "?")
                reasons[code] = reasons.get(code, 0) + 1
            if not data:
                sel.unregister(key.fileobj)
                closed_at.append(round(time.time() - t0, 2))
    for s in socks:
        s.close()
    st.update({"closed_by_daemon": len(closed_at), "reasons": reasons,
               "first_close_s": min(closed_at) if closed_at else None,
               "last_close_s": max(closed_at) if closed_at else None})
    return st


def refuse(path, n):
    codes = {}
    for _ in range(n):
        try:
            s = connect(path)
        except OSError as e:
            codes[e.strerror] = codes.get(e.strerror, 0) + 1
            continue
        r = first_line(s)
        code = "none" if r is None else "hello" if "hello" in r else r["error"]["code"]
        codes[code] = codes.get(code, 0) + 1
        s.close()
    return codes


def vm_kb(pid):
    with open("/proc/%d/status" % pid) as f:
        return {ln.split(":")[0]: int(ln.split()[1]) for ln in f
                if ln.startswith(("VmRSS", "VmHWM"))}


def cpu_s(pid):
    """User and system CPU seconds of pid so far."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def pct(v, p):
    v = sorted(v)
    return round(v[min(len(v) - 1, int(len(v) * p))], 3) if v else None


def status_once(path):
    """(ms connect to hello, ms request to reply), or (None, why)."""
    t0 = time.perf_counter()
    s = connect(path)
    try:
        h = first_line(s, 10.0)
        t1 = time.perf_counter()
        if h is None or "hello" not in h:
            return None, (h or {}).get("error", {}).get("code", "closed")
        f = s.makefile("rwb")
        t2 = time.perf_counter()
        f.write(b'{"id":1,"cmd":"status"}\n')
        f.flush()
        s.settimeout(10.0)
        r = json.loads(f.readline())
        t3 = time.perf_counter()
    finally:
        s.close()
    if "result" not in r:
        return None, r["error"]["code"]
    return ((t1 - t0) * 1e3, (t3 - t2) * 1e3), None


def probe(path, seconds, pid, interval_ms=50):
    rtt, hello, fails, rss = [], [], {}, []
    t0, cpu0 = time.time(), cpu_s(pid)
    end = t0 + seconds
    while time.time() < end:
        try:
            t, why = status_once(path)
        except (OSError, ValueError) as e:
            t, why = None, type(e).__name__
        if t is None:
            fails[why] = fails.get(why, 0) + 1
        else:
            hello.append(t[0])
            rtt.append(t[1])
        try:
            rss.append(vm_kb(pid)["VmRSS"])
        except OSError:
            fails["daemon_gone"] = 1
            break
        time.sleep(interval_ms / 1e3)
    out = {"ok": len(rtt), "failed": fails, "rss_max_kb": max(rss) if rss else None,
           "rtt_median_ms": pct(rtt, 0.5), "rtt_p90_ms": pct(rtt, 0.9),
           "rtt_p99_ms": pct(rtt, 0.99), "rtt_max_ms": pct(rtt, 1.0),
           "hello_median_ms": pct(hello, 0.5), "hello_max_ms": pct(hello, 1.0)}
    try:
        out["hwm_kb"] = vm_kb(pid)["VmHWM"]
        out["daemon_cpu_pct"] = round(100 * (cpu_s(pid) - cpu0) / (time.time() - t0), 1)
    except OSError:
        pass
    return out


def sweeper(path, seconds, pause_ms=200):
    s = connect(path)
    f = s.makefile("rwb")
    first_line(s)
    s.settimeout(60.0)
    out = []
    end = time.time() + seconds
    i = 0
    while time.time() < end:
        i += 1
        f.write(b'{"id":%d,"cmd":"sweep","args":{"wait":true}}\n' % i)
        f.flush()
        while True:
            m = json.loads(f.readline())
            if m.get("id") == i:
                break
        r = m.get("result", {})
        if r.get("duration_ms") is not None and not r.get("reroute"):
            out.append(r["duration_ms"])
        time.sleep(pause_ms / 1e3)
    s.close()
    return {"sweeps": len(out), "median_ms": statistics.median(out) if out else None,
            "p90_ms": pct(out, 0.9), "max_ms": pct(out, 1.0),
            "durations_ms": out}


def main(argv):
    mode, path = argv[1], argv[2]
    if mode == "flood":
        r = flood(path, int(argv[3]), float(argv[4]), *argv[5:6])
    elif mode == "idle":
        r = idle(path, int(argv[3]), float(argv[4]), *argv[5:6])
    elif mode == "refuse":
        r = refuse(path, int(argv[3]))
    elif mode == "probe":
        r = probe(path, float(argv[3]), int(argv[4]), *[float(a) for a in argv[5:6]])
    elif mode == "sweeper":
        r = sweeper(path, float(argv[3]), *[float(a) for a in argv[4:5]])
    else:
        sys.exit("unknown mode " + mode)
    print(json.dumps(r))


if __name__ == "__main__":
    main(sys.argv)
