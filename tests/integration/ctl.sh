#!/bin/sh
# DOC: the control socket and ibsmctl against a running ibsmd on ibsim.
#
# A two-level fat tree (32 hosts). ibsmd runs as a daemon with its socket
# in a directory everybody may enter. Checks: every command through
# ibsmctl (tables and --json) and the results against the fabric; an
# unprivileged user (setpriv as nobody) may read but not sweep, reload or
# set the log level, and gets admin through socket_group membership;
# malformed, unknown, oversized, not strict (a \u0000, a duplicate
# member, an unknown member or argument, named in "field") requests get
# the right error codes and the connection stays usable; 60 clients at
# once; the client limit; a client that pipelines requests and never reads
# stalls (its requests are not read) without stalling the SM, and is
# closed by the idle timeout while an idle subscriber is not; events
# (sweeps, link down); reload by command and by SIGHUP, and a rejected
# reload; subscribers that never read are dropped (32 MiB for all, 1 MiB
# each); past the 32 MiB the clients with most unread go, and those with
# less and a client that reads stay; the man pages mention every
# command and error code the daemon reports.
. "$top_srcdir/tests/integration/lib.sh"
skip_unless_tools setpriv
command -v setpriv >/dev/null || skip "setpriv missing"

IBSMD=$top_builddir/daemon/ibsmd
CTL=$top_builddir/cli/ibsmctl
[ -x "$IBSMD" ] && [ -x "$CTL" ] || hard_error "ibsmd or ibsmctl not built"
[ "$(id -u)" = 0 ] || skip "needs root to test access as another user"
ADM_GROUP=adm
ADM_GID=$(getent group "$ADM_GROUP" | cut -d: -f3)
[ -n "$ADM_GID" ] || skip "no group $ADM_GROUP"

sim_setup
topo_gen "$SIM_DIR/ft.net" ft2 8
sim_start "$SIM_DIR/ft.net"
chmod 711 "$SIM_DIR"
mkdir -m 755 "$SIM_DIR/sock"
SOCK=$SIM_DIR/sock/ibsmd.sock
CONF=$SIM_DIR/ibsmd.conf
cat >"$CONF" <<EOF
socket_path "$SOCK"
socket_group $ADM_GROUP
state_dir "$SIM_DIR"
max_clients 80
client_idle_timeout 5
log_level notice
sweep_interval 0
EOF

SIM_HOST=H00001 sim_bg "$IBSMD" -c "$CONF" 2>"$SIM_DIR/ibsmd.log"
DAEMON=$SIM_BG_PID

ctl() { timeout 30 "$CTL" -s "$SOCK" "$@"; }
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups timeout 30 "$CTL" -s "$SOCK" "$@"; }
# jget EXPR: evaluate a Python expression on the JSON reply on stdin (r).
jget() { python3 -c "import json,sys; r=json.load(sys.stdin); print($1)"; }
die() { cat "$SIM_DIR/ibsmd.log" >&2; fail "$*"; }

# Readiness: poll the socket, no fixed sleep.
i=0
until [ "$(ctl --json status 2>/dev/null | jget 'r["result"]["subnet_up"]' 2>/dev/null)" = True ]; do
	i=$((i + 1))
	[ $i -gt 300 ] && die "subnet not up within 30 s"
	kill -0 "$DAEMON" 2>/dev/null || die "ibsmd died"
	sleep 0.1
done
PID=$(ctl --json status | jget 'r["result"]["pid"]')

# ---- every command ----
ctl status >"$SIM_DIR/out" || die "status failed"
grep -q '^subnet: *up' "$SIM_DIR/out" || die "status text: $(cat "$SIM_DIR/out")"
[ "$(ctl --json status | jget 'r["result"]["fabric"]["nodes"]')" = 44 ] || die "status: not 44 nodes"
[ "$(ctl --json nodes | jget 'len(r["result"]["nodes"])')" = 44 ] || die "nodes: count"
[ "$(ctl nodes | grep -c ' H000')" = 32 ] || die "nodes table: hosts"
[ "$(ctl --json switches | jget 'len(r["result"]["switches"])')" = 12 ] || die "switches: count"
[ "$(ctl --json links | jget 'len(r["result"]["links"])')" = 64 ] || die "links: count"
[ "$(ctl --json links | jget 'sum(l["state"]=="active" for l in r["result"]["links"])')" = 64 ] ||
	die "links: not all active"
[ "$(ctl --json ports H00001 | jget 'r["result"]["ports"][0]["peer"]["desc"]')" = L0001 ] ||
	die "ports: H00001 peer"
[ "$(ctl --json ports | jget 'len(r["result"]["ports"])')" -gt 64 ] || die "ports: all"
LID5=$(ctl --json nodes | jget '[n["lid"] for n in r["result"]["nodes"] if n["desc"]=="H00005"][0]')
ctl lft L0001 >"$SIM_DIR/out" || die "lft failed"
# the leaf sends H00005's LID up, and its own hosts down their ports
PORT=$(ctl --json lft L0001 | jget "dict((e[0],e[1]) for e in r['result']['entries'])[$LID5]")
[ "$PORT" -gt 4 ] || die "lft: LID $LID5 leaves L0001 through port $PORT, not an uplink"
ctl --json path H00001 H00005 >"$SIM_DIR/path" || die "path failed"
[ "$(jget 'r["result"]["complete"]' <"$SIM_DIR/path")" = True ] || die "path incomplete"
[ "$(jget 'len(r["result"]["hops"])' <"$SIM_DIR/path")" = 5 ] || die "path: not 5 hops (CA leaf spine leaf CA)"
ctl path H00001 "$LID5" | grep -q 'H00005' || die "path by LID"
# the verification runs on a worker after each sweep: it may still be busy
for _ in 1 2 3 4 5 6 7 8 9 10; do
	ctl routing >"$SIM_DIR/out" || die "routing failed"
	grep -q '^verify: *being computed' "$SIM_DIR/out" || break
	sleep 0.2
done
grep -q '^verify: *OK' "$SIM_DIR/out" || die "routing: $(cat "$SIM_DIR/out")"
ctl commands | grep -q 'reroute' || die "commands"
ctl help | grep -q '^limits: 80 connections, 8 of them for admins, 16 per other user; idle ones closed after 5 s' ||
	die "help does not show the limits in force: $(ctl help | tail -3)"
ctl topology --dot >"$SIM_DIR/dot" || die "topology --dot"
grep -q '^graph fabric' "$SIM_DIR/dot" && [ "$(grep -c -- ' -- ' "$SIM_DIR/dot")" = 64 ] ||
	die "topology --dot: not 64 links"
ctl topology | grep -q 'level 1 (4 switches)' || die "topology: spine level"
[ "$(ctl --json sweep --wait | jget 'r["result"]["subnet_up"]')" = True ] || die "sweep --wait"
ctl reroute | grep -q 'routes recomputed' || die "reroute"
# A reroute asked for while one runs becomes the next whole sweep, which
# `reroute --wait` reports as no reroute: let the first one end.
i=0
until [ "$(ctl --json status | jget 'r["result"]["sweeping"]')" = False ]; do
	i=$((i + 1))
	[ "$i" -gt 100 ] && die "still sweeping 10 s after a reroute"
	sleep 0.1
done
ctl --json reroute --wait >"$SIM_DIR/out"
[ "$(jget 'r["result"]["reroute"] and r["result"]["subnet_up"]' <"$SIM_DIR/out")" = True ] ||
	die "reroute --wait: $(cat "$SIM_DIR/out")"
ctl loglevel info | grep -q 'log level info' || die "loglevel set"
ctl loglevel | grep -q 'log level info' || die "loglevel get"
msg "every command answered"

# ---- errors through ibsmctl, exit codes ----
ctl lft H00001 2>"$SIM_DIR/err"; [ $? = 1 ] && grep -q invalid_args "$SIM_DIR/err" || die "lft on a CA"
ctl lft NOSUCH 2>"$SIM_DIR/err"; [ $? = 1 ] && grep -q not_found "$SIM_DIR/err" || die "lft not_found"
ctl loglevel loud 2>/dev/null; [ $? = 1 ] || die "bad loglevel accepted"
ctl status extra=1 2>/dev/null; [ $? = 1 ] || die "unknown argument accepted"
"$CTL" -s "$SIM_DIR/nothing" status 2>/dev/null; [ $? = 3 ] || die "no daemon: exit status"
"$CTL" -s "$SIM_DIR/nothing" help | grep -q 'reroute' || die "offline help"

# ---- access ----
as_nobody status >/dev/null || die "nobody: status refused"
as_nobody nodes >/dev/null || die "nobody: nodes refused"
for c in "sweep" "reroute" "reload" "loglevel debug"; do
	# shellcheck disable=SC2086
	as_nobody $c 2>"$SIM_DIR/err"
	[ $? = 1 ] && grep -q permission_denied "$SIM_DIR/err" || die "nobody may run $c"
done
setpriv --reuid=65534 --regid=65534 --groups="$ADM_GID" timeout 30 "$CTL" -s "$SOCK" \
	loglevel info >/dev/null || die "member of $ADM_GROUP refused"
msg "access: read-only for nobody, admin via socket_group"

# ---- "sa query": whole tables, capped per reply ----
as_nobody --json sa query PR >"$SIM_DIR/out" || die "nobody: sa query PR"
[ "$(jget 'r["result"]["count"] > 1000 and not r["result"]["trusted"]' <"$SIM_DIR/out")" = True ] ||
	die "nobody: sa query PR: $(head -c 300 "$SIM_DIR/out")"
# with sa_max_records below the table, admins and others get reply_too_large
cp "$CONF" "$CONF.orig"
echo "sa_max_records 1000" >>"$CONF"
ctl reload >/dev/null || die "reload sa_max_records"
for who in ctl as_nobody; do
	$who sa query PR 2>"$SIM_DIR/err"
	[ $? = 1 ] && grep -q 'reply_too_large' "$SIM_DIR/err" &&
		grep -q 'narrow the query' "$SIM_DIR/err" ||
		die "$who: sa query PR over the cap: $(cat "$SIM_DIR/err")"
done
lid=$(ctl --json sa query NR NodeDescription=H00002 | jget 'r["result"]["records"][0]["LID"]')
[ "$(as_nobody --json sa query PR SLID="$lid" | jget 'r["result"]["count"]')" -gt 40 ] ||
	die "nobody: a narrowed sa query PR"
cp "$CONF.orig" "$CONF"
ctl reload >/dev/null || die "reload back"
ctl loglevel info >/dev/null || die "loglevel info again"   # the file says notice
msg "sa query: whole tables for anybody, reply_too_large past the cap"

# ---- raw protocol: bad requests, framing, many clients, limits ----
python3 - "$SOCK" <<'EOF' || die "raw protocol checks failed"
import json, socket, sys, time
path = sys.argv[1]

def conn():
    s = socket.socket(socket.AF_UNIX)
    s.connect(path)
    f = s.makefile("rwb")
    hello = json.loads(f.readline())
    assert hello["protocol_version"] == 1, hello
    return s, f

def ask(f, line):
    f.write(line if isinstance(line, bytes) else line.encode())
    f.write(b"\n")
    f.flush()
    return json.loads(f.readline())

s, f = conn()
cases = [
    ('{bad json', None, "parse_error"),
    ('[1,2,3]', None, "invalid_request"),
    ('{"id":5}', 5, "invalid_request", "cmd"),
    ('{"id":6,"cmd":"nosuch"}', 6, "unknown_command", "cmd"),
    ('{"id":7,"cmd":"lft"}', 7, "invalid_args", "switch"),
    ('{"id":8,"cmd":"lft","args":{"switch":5,"x":1}}', 8, "invalid_args", "x"),
    ('{"id":9,"cmd":"sweep","args":{"wait":"yes"}}', 9, "invalid_args", "wait"),
    ('{"id":10,"cmd":"path","args":{"src":"0xzz","dst":"H00001"}}', 10, "invalid_args"),
    ('{"id":"s","cmd":"status"} trailing', None, "parse_error"),
    # strict requests (issue 17): no cut at \u0000, no silent last-wins
    ('{"id":11,"cmd":"ports","args":{"node":"H00001\\u0000x"}}', 11, "parse_error", "node"),
    ('{"id":12,"cmd":"status","cmd":"sweep"}', 12, "parse_error", "cmd"),
    ('{"id":13,"cmd":"status","bogus":1}', 13, "invalid_request", "bogus"),
    ('{"id":14,"cmd":"ports","args":{"node":"H00001","zork":1}}', 14, "invalid_args", "zork"),
    ("{'id':15,'cmd':'status'}", None, "parse_error"),
    ('{"id":16,"cmd":"status",}', None, "parse_error"),
    ('{"id":17,"cmd":"status","args":{"x":"\xff"}}', 17, "parse_error", "x"),
    # "sa" takes any name for its query's fields, and checks them itself
    ('{"id":18,"cmd":"sa","args":{"bogus":1}}', 18, "invalid_args", "bogus"),
    ('{"id":19,"cmd":"sa","args":{"what":"counters","attr":"NR"}}', 19, "invalid_args", "attr"),
    ('{"id":20,"cmd":"sa","args":{"what":"query","attr":"NR","bogus":1}}', 20, "invalid_args",
     "bogus"),
    ('{"id":21,"cmd":"sa","args":{"what":"query","attr":"NR","LID":"x"}}', 21, "invalid_args",
     "LID"),
    ('{"id":22,"cmd":"sa","args":{"what":"query","attr":"nope"}}', 22, "invalid_args", "attr"),
    ('{"id":23,"cmd":"sa","args":{"what":"nope"}}', 23, "invalid_args", "what"),
]
for line, rid, code, *field in cases:
    r = ask(f, line.encode("latin-1"))
    assert r.get("id") == rid and r["error"]["code"] == code, (line, r)
    assert r["error"].get("field") == (field[0] if field else None), (line, r)
    # still usable after every error
    r = ask(f, '{"id":"ok","cmd":"status"}')
    assert r["id"] == "ok" and "result" in r, r
# pipelined requests, one write, replies in order with their ids
f.write(b"".join(b'{"id":%d,"cmd":"status"}\n' % i for i in range(100)))
f.flush()
ids = [json.loads(f.readline())["id"] for _ in range(100)]
assert ids == list(range(100)), ids
# too large: one error, the rest of the line is skipped, still usable
f.write(b'{"id":1,"cmd":"status","args":{"x":"' + b"a" * 300000 + b'"}}\n')
f.flush()
r = json.loads(f.readline())
assert r["error"]["code"] == "too_large", r
r = ask(f, '{"id":"after","cmd":"status"}')
assert r["id"] == "after" and "result" in r, r
s.close()

# 60 clients at once
clients = [conn() for _ in range(60)]
for i, (s, f) in enumerate(clients):
    f.write(b'{"id":%d,"cmd":"nodes"}\n' % i)
    f.flush()
for i, (s, f) in enumerate(clients):
    r = json.loads(f.readline())
    assert r["id"] == i and len(r["result"]["nodes"]) == 44, r
# the limit (max_clients 80): the 81st is refused with busy
more = [conn() for _ in range(20)]
s = socket.socket(socket.AF_UNIX)
s.connect(path)
r = json.loads(s.makefile("rb").readline())
assert r["error"]["code"] == "busy", r
s.close()
for s, f in clients + more:
    s.close()
print("raw protocol: errors, pipelining, 60 clients, limit ok")
EOF

# A client that pipelines requests and never reads its replies: its
# requests stop being read once a reply waits for it, so its writes block
# after the socket buffers (a few hundred KiB), the SM keeps serving
# others, and the idle timeout (5 s here) closes it.
python3 - "$SOCK" <<'EOF' || die "non-reading client check failed"
import json, socket, sys, time
path = sys.argv[1]

def status_ok():
    c = socket.socket(socket.AF_UNIX)
    c.connect(path)
    f = c.makefile("rwb")
    f.readline()
    f.write(b'{"id":1,"cmd":"status"}\n'); f.flush()
    ok = "result" in json.loads(f.readline())
    c.close()
    return ok

# A subscriber that is sent nothing meanwhile outlives the timeout.
sub = socket.socket(socket.AF_UNIX)
sub.connect(path)
sf = sub.makefile("rwb")
sf.readline()
sf.write(b'{"id":"sub","cmd":"subscribe"}\n'); sf.flush()
assert json.loads(sf.readline())["id"] == "sub"
t_sub = time.time()

s = socket.socket(socket.AF_UNIX)
s.connect(path)
s.setblocking(False)
req = b'{"cmd":"links"}\n' * 1000
sent, last_sent, t0 = 0, 0, time.time()
while time.time() - t0 < 20:
    try:
        sent += s.send(req)
        continue
    except BlockingIOError:
        pass
    except (BrokenPipeError, ConnectionResetError):
        break
    if sent != last_sent:
        assert status_ok()
        last_sent = sent
    time.sleep(0.1)
else:
    sys.exit("non-reading client was never closed")
took = time.time() - t0
assert sent < 4 << 20, "the daemon read %d bytes of requests" % sent
assert 4 <= took <= 12, "closed after %.1f s, idle timeout is 5 s" % took
assert status_ok()
time.sleep(max(0, t_sub + 7 - time.time()))
sub.setblocking(False)
try:
    got = sub.recv(4096)
except BlockingIOError:
    got = None
assert got is None, "subscriber idle for 7 s (timeout 5 s) got %r" % got[:200]
sub.setblocking(True)
sf.write(b'{"id":"late","cmd":"status"}\n'); sf.flush()
assert json.loads(sf.readline())["id"] == "late"
sub.close()
print("non-reading client: %d request bytes taken, closed after %.1f s; "
      "a subscriber idle for 7 s kept" % (sent, took))
EOF
grep -q 'idle, closed' "$SIM_DIR/ibsmd.log" || die "no idle close logged"

# ---- events ----
"$CTL" -s "$SOCK" --json watch >"$SIM_DIR/events" 2>&1 &
WATCH=$!
SIM_BG_PIDS="$SIM_BG_PIDS $WATCH"
i=0
until [ -s "$SIM_DIR/events" ] || [ $i -gt 20 ]; do
	ctl sweep >/dev/null
	i=$((i + 1))
	sleep 0.2
done
sim_cmd 'Unlink "L0001"[5]'
ctl sweep --wait >/dev/null || die "sweep after unlink"
[ "$(ctl --json links | jget 'len(r["result"]["links"])')" = 63 ] || die "links after unlink"
sim_cmd 'Link "L0001"[5] "S0001"[1]'
ctl sweep --wait >/dev/null || true
sleep 0.3
kill "$WATCH" 2>/dev/null
wait "$WATCH" 2>/dev/null
grep -q '"event":"sweep_started"' "$SIM_DIR/events" || die "no sweep_started event"
grep -q '"event":"sweep_done"' "$SIM_DIR/events" || die "no sweep_done event"
grep -q '"event":"link_down".*"port1":5' "$SIM_DIR/events" || die "no link_down event: $(cat "$SIM_DIR/events")"
msg "events: $(grep -c event "$SIM_DIR/events") received"

# ---- reload ----
sed -i 's/^log_level .*/log_level debug/; s/^max_clients .*/max_clients 90/' "$CONF"
echo "lmc 1" >>"$CONF"
echo "smp_timeout_ms 300" >>"$CONF"
ctl --json reload >"$SIM_DIR/out" || die "reload: $(cat "$SIM_DIR/out")"
jget '"log_level" in r["result"]["applied"] and "max_clients" in r["result"]["applied"]' \
	<"$SIM_DIR/out" | grep -q True || die "reload: not applied: $(cat "$SIM_DIR/out")"
jget '"smp_timeout_ms" in r["result"]["applied"] and not r["result"]["applied_at_restart"]' \
	<"$SIM_DIR/out" | grep -q True || die "reload: smp_timeout_ms not applied: $(cat "$SIM_DIR/out")"
jget '"lmc" in r["result"]["restart_needed"]' <"$SIM_DIR/out" | grep -q True ||
	die "reload: lmc not reported as restart-needed"
ctl --json sweep --wait >"$SIM_DIR/out" || true # the relinked port may still be held down
jget '"subnet_up" in r["result"]' <"$SIM_DIR/out" | grep -q True ||
	die "no sweep after reloading the MAD engine's options: $(cat "$SIM_DIR/out")"
ctl loglevel | grep -q 'level debug' || die "reload: log level not applied"
echo "bogus_option 1" >>"$CONF"
ctl reload 2>"$SIM_DIR/err"; [ $? = 1 ] && grep -q 'failed.*bogus_option' "$SIM_DIR/err" ||
	die "bad config accepted: $(cat "$SIM_DIR/err")"
ctl loglevel | grep -q 'level debug' || die "rejected reload changed something"
sed -i '/bogus_option/d; s/^log_level .*/log_level warning/' "$CONF"
kill -HUP "$PID"
i=0
until ctl loglevel | grep -q 'level warning'; do
	i=$((i + 1))
	[ $i -gt 50 ] && die "SIGHUP did not reload"
	sleep 0.1
done
msg "reload: command (the MAD engine's options too), rejection and SIGHUP"

# ---- subscribers that never read ----
# Events are not held back by backpressure: 40 subscribers that never
# read get about 180 bytes per reload (9000 reloads: 1.6 MB each). Past
# 32 MiB unread for all clients together the one with most unread goes
# first; past 1 MiB each, the rest.
python3 - "$SOCK" <<'EOF' || die "subscribers that never read"
import json, socket, sys, time
path = sys.argv[1]
subs = []
for _ in range(40):
    s = socket.socket(socket.AF_UNIX)
    s.connect(path)
    s.sendall(b'{"id":1,"cmd":"subscribe"}\n')
    subs.append(s)
c = socket.socket(socket.AF_UNIX)
c.connect(path)
f = c.makefile("rwb")
f.readline()
t0 = time.time()
for i in range(9000):
    f.write(b'{"id":%d,"cmd":"reload"}\n' % i)
    f.flush()
    while json.loads(f.readline()).get("id") != i:
        pass
closed = 0
for s in subs:
    s.setblocking(False)
    try:
        while s.recv(1 << 20):
            pass
    except BlockingIOError:
        continue    # still open: not read to the end, so not closed
    except ConnectionResetError:
        pass
    closed += 1
assert closed == 40, "%d of 40 subscribers that never read were dropped" % closed
print("subscribers that never read: 40 dropped after 9000 reloads (%.1f s)" % (time.time() - t0))
EOF
grep -q 'queued for all clients (limit 33554432)' "$SIM_DIR/ibsmd.log" ||
	die "no client dropped for the 32 MiB of all clients: $(grep -i dropped "$SIM_DIR/ibsmd.log")"

# ---- the slowest goes first ----
# Past 32 MiB unread for all clients, the client with the most unread
# goes, not just any: 64 clients that never read an "sa query PR" reply
# (630 KB, about 570 KB of it unsent each: 35 MiB together), 10 that never
# read a "sa query PIR" reply (144 KB) and, newest, one that reads its
# PIR replies as they come. Some of the 64 are dropped; the 10, the
# reader and the rest of the 64 get their whole replies. The idle timeout
# is off meanwhile, so that only the cap closes anything.
sed -i 's/^client_idle_timeout .*/client_idle_timeout 0/' "$CONF"
ctl reload >/dev/null || die "reload client_idle_timeout 0"
python3 - "$SOCK" <<'EOF' || die "the slowest client is not the one dropped"
import json, socket, sys, threading, time
path = sys.argv[1]
PR = b'{"id":"pr","cmd":"sa","args":{"what":"query","attr":"PR"}}\n'
PIR = b'{"id":"pir","cmd":"sa","args":{"what":"query","attr":"PIR"}}\n'

def conn():
    s = socket.socket(socket.AF_UNIX)
    s.connect(path)
    f = s.makefile("rwb")
    assert "hello" in json.loads(f.readline())
    return s, f

heavy = [conn() for _ in range(64)]
light = [conn() for _ in range(10)]
reader = conn()
done, replies, failed = False, [], []

def read_all():
    s, f = reader
    s.settimeout(20)
    try:
        while not done:
            f.write(PIR); f.flush()
            replies.append(json.loads(f.readline())["result"]["count"])
    except (OSError, ValueError) as e:
        failed.append(repr(e)[:200])

t = threading.Thread(target=read_all)
t.start()
for s, f in light:
    s.sendall(PIR)
for s, f in heavy:
    s.sendall(PR)
time.sleep(1)
n0, end = len(replies), time.time() + 20
while len(replies) < n0 + 5 and not failed and time.time() < end:
    time.sleep(0.1)
done = True
t.join()
assert not failed and len(replies) >= n0 + 5, "the reader: %s" % (failed or "stalled")

def whole(s, f):
    """The reply's count, or None when the daemon closed before its end."""
    s.settimeout(10)
    line = f.readline()
    return json.loads(line)["result"]["count"] if line.endswith(b"\n") else None

pr = [whole(s, f) for s, f in heavy]
pir = [whole(s, f) for s, f in light]
dropped = pr.count(None)
assert 0 < dropped < 64, "%d of 64 PR clients dropped" % dropped
assert len(set(c for c in pr if c)) == 1, pr
assert None not in pir and len(set(pir)) == 1, "PIR clients dropped: %s" % pir
assert set(replies) == set(pir), (replies, pir)
for s, f in heavy + light + [reader]:
    s.close()
print("slowest first: %d of 64 clients with most unread dropped; 10 with less and "
      "a reader (%d replies) kept" % (dropped, len(replies)))
EOF

# ---- documentation covers what the daemon reports ----
ctl --json commands >"$SIM_DIR/cmds"
for w in $(jget '" ".join([c["name"] for c in r["result"]["commands"]] + r["result"]["errors"])' \
	<"$SIM_DIR/cmds"); do
	grep -Eq "^\.B[RI]? $w( |\$)" "$top_srcdir/man/ibsmctl.8" ||
		fail "ibsmctl.8 does not document $w"
done

kill "$DAEMON"
wait "$DAEMON" 2>/dev/null
[ ! -e "$SOCK" ] || fail "socket left behind after shutdown"
msg "PASS"
exit 0
