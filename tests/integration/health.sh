#!/bin/sh
# DOC: the performance manager on ibsim, judged by perfquery, promtool and
# a real Prometheus server.
#
# A 2-level tree of 32 hosts whose link H00001 - L0001 is a 1x link (w=1
# on both ends in the net file: 1x active and enabled, 4x supported).
# ibsmd polls every second. Checked:
#   - both ends of the 1x link have link_width_degraded, each naming the
#     other as its peer, and no other port has a problem;
#   - symbol errors injected with the console (PerformanceSet) become
#     symbol_errors in `ibsmctl health --json`, one log line and a
#     "health" event in `ibsmctl watch`;
#   - our totals against perfquery from a host: equal for the error
#     counter, and for data and packets between our reading before and
#     after perfquery's (MADs keep them growing);
#   - a 16-bit counter set to its maximum (saturated), cleared by ibsmd,
#     then more errors; then a clear behind our back (perfquery -R) and
#     more errors: the total only ever grows, by exactly what was added;
#   - the metrics page passes `promtool check metrics`, and a Prometheus
#     server scraping it every second answers a counter's value and a
#     rate() of a data counter above zero;
#   - a link unplugged and plugged back twice (console) is flapping at
#     the end(s) the SM saw come back (the far end when it still knew it),
#     and nowhere else;
#   - with health_action = isolate (set by a reload), a switch link over
#     its threshold is routed around (ibroute: no LFT entry of either end
#     uses it; status degraded), a CA link and a second link (over
#     health_isolate_max) are refused, and after the quiet period the
#     link is routed over again;
#   - when a second ibsmd of higher priority takes over, it polls and
#     ours, now standby, sends no more PMA queries.
. "$top_srcdir/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/sm_lib.sh"
skip_unless_tools perfquery promtool prometheus

IBSMD=$top_builddir/daemon/ibsmd
CTL=$top_builddir/cli/ibsmctl
[ -x "$IBSMD" ] && [ -x "$CTL" ] || hard_error "ibsmd or ibsmctl not built"

sim_setup
sed -e 's/^\[1\]	"L0001"\[1\]$/[1]	"L0001"[1] w=1/' \
	-e 's/^\[1\]	"H00001"\[1\]$/[1]	"H00001"[1] w=1/' \
	"$top_srcdir/tests/topo/small.net" >"$SIM_DIR/net"
[ "$(grep -c 'w=1' "$SIM_DIR/net")" = 2 ] || hard_error "the 1x link is not in the net file"
sim_start "$SIM_DIR/net"

# start_ibsmd NAME HOST PRIORITY [OPTIONS]: ibsmd polling every second.
start_ibsmd() {
	_n=$1 _h=$2 _p=$3
	shift 3
	mkdir -p "$SIM_DIR/$_n"
	SIM_HOST=$_h sim_bg sh -c 'f=$1; shift; exec "$@" 2>"$f"' sh "$SIM_DIR/$_n.log" \
		"$IBSMD" -o state_dir="$SIM_DIR/$_n" -o socket_path="$SIM_DIR/$_n/sock" \
		-o log_level=info -o sm_priority="$_p" -o light_sweep_interval=1 \
		-o perfmgr_interval=1 "$@"
	eval "PID_$_n=\$SIM_BG_PID"
}
ctl() { timeout 10 "$CTL" -s "$SIM_DIR/sm/sock" "$@"; }
rounds() { grep -c 'PM: round .* done' "$SIM_DIR/$1.log"; }
# wait_rounds N: N more complete polling rounds of the master.
wait_rounds() {
	_want=$(($(rounds sm) + $1))
	_i=0
	while [ "$(rounds sm)" -lt "$_want" ]; do
		_i=$((_i + 1))
		[ "$_i" -gt 100 ] && fail "no polling round for 10 s"
		sleep 0.1
	done
}
health() { ctl health --json >"$SIM_DIR/health.json" || fail "ibsmctl health failed"; }
# total NODE PORT COUNTER: our total, from ibsmctl counters --json.
total() {
	ctl counters "$1" "$2" --json | python3 -c '
import json, sys
print(json.load(sys.stdin)["result"]["ports"][0]["totals"][sys.argv[1]])' "$3"
}
# pq HOST LID FIELD [perfquery options]: a counter as perfquery reads it.
pq() {
	_h=$1 _l=$2 _f=$3
	shift 3
	sim_run_at "$_h" perfquery "$@" "$_l" 1 | sed -n "s/^$_f:\.*\([0-9]*\)$/\1/p"
}

# health_window comes from the file, so that reloads may change it
echo 'health_window 3' >"$SIM_DIR/sm.conf"
start_ibsmd sm H00032 5 -c "$SIM_DIR/sm.conf" -o metrics_listen=localhost:0
until_log sm 'PM: round 2 done' 30

# --- the 1x link ---
health
python3 - "$SIM_DIR/health.json" <<'EOF' || fail "link_width_degraded not as expected"
import json, sys
r = json.load(open(sys.argv[1]))["result"]
ports = {(p["node"], p["port"]): p for p in r["ports"]}
want = {("H00001", 1): ("L0001", 1), ("L0001", 1): ("H00001", 1)}
assert set(ports) == set(want), ports
for k, (pn, pp) in want.items():
    p = ports[k]
    assert p["problems"] == ["link_width_degraded"], p
    assert p["peer_node"] == pn and p["peer_port"] == pp, p
    assert p["guid"].startswith("0x") and len(p["guid"]) == 18, p
assert r["polling"] is True and r["ports_watched"] == 128, r
EOF
msg "1x link: link_width_degraded on both ends"

# --- symbol errors ---
timeout -k 2 60 "$CTL" -s "$SIM_DIR/sm/sock" watch >"$SIM_DIR/watch.out" 2>&1 &
WATCH=$!
SIM_BG_PIDS="$SIM_BG_PIDS $WATCH"
sleep 0.5
sim_cmd 'PerformanceSet "H00002"[1] PortCounters.SymbolErrorCounter=50'
wait_rounds 2
health
python3 - "$SIM_DIR/health.json" <<'EOF' || fail "no symbol_errors on H00002 port 1"
import json, sys
r = json.load(open(sys.argv[1]))["result"]
p = [p for p in r["ports"] if p["node"] == "H00002" and p["port"] == 1]
assert p and "symbol_errors" in p[0]["problems"], r["ports"]
EOF
grep -q 'health: 0x0000000000100002 port 1 (H00002): symbol_errors' "$SIM_DIR/sm.log" ||
	fail "no log line for the new problem"
i=0
until grep -q 'health .*what=problem .*port=1 .*node=H00002 problem=symbol_errors' "$SIM_DIR/watch.out"; do
	i=$((i + 1))
	[ "$i" -gt 25 ] && fail "no health event in ibsmctl watch: $(cat "$SIM_DIR/watch.out")"
	sleep 0.2
done
# done with it: ibsmctl of a sanitizer build has been seen to spin on
# its way out after SIGTERM, so its process goes at once
pkill -KILL -P "$WATCH" 2>/dev/null
wait "$WATCH" 2>/dev/null
msg "symbol errors: symbol_errors, a log line and a watch event"

# --- against perfquery ---
LID=$(ctl counters H00002 1 --json | python3 -c '
import json, sys; print(json.load(sys.stdin)["result"]["ports"][0]["lid"])')
[ "$(total H00002 1 symbol_error)" = 50 ] || fail "symbol_error total is not 50"
[ "$(pq H00003 "$LID" SymbolErrorCounter)" = 50 ] || fail "perfquery does not read 50"
before=$(total H00002 1 transmit_packets)
bytes_before=$(total H00002 1 transmit_data_bytes)
pkts=$(pq H00003 "$LID" PortXmitPkts -x)
words=$(pq H00003 "$LID" PortXmitData -x)
wait_rounds 2
after=$(total H00002 1 transmit_packets)
bytes_after=$(total H00002 1 transmit_data_bytes)
[ -n "$pkts" ] && [ "$before" -le "$pkts" ] && [ "$pkts" -le "$after" ] ||
	fail "PortXmitPkts: perfquery $pkts not between ours $before and $after"
[ -n "$words" ] && [ "$bytes_before" -le $((words * 4)) ] && [ $((words * 4)) -le "$bytes_after" ] ||
	fail "PortXmitData: perfquery 4 x $words not between ours $bytes_before and $bytes_after"
msg "perfquery: symbol errors equal, packets $before <= $pkts <= $after"

# --- the arguments of counters ---
# expect ERROR ARGS...: ibsmctl counters ARGS fails with that error code.
expect() {
	_e=$1
	shift
	ctl counters "$@" --json >"$SIM_DIR/err.json" 2>&1 && fail "counters $*: no error"
	grep -q "\"code\":\"$_e\"" "$SIM_DIR/err.json" || fail "counters $*: $(cat "$SIM_DIR/err.json")"
}
expect invalid_args
expect not_found nosuch
expect invalid_args H00002 9
expect invalid_args H00002 0
expect invalid_args H00002 1x
expect invalid_args 0xzz
expect not_found 65000
[ "$(total "$LID" 1 symbol_error)" = 50 ] || fail "counters by LID"
[ "$(total 0x0000000000100002 1 symbol_error)" = 50 ] || fail "counters by GUID"
msg "counters: node by name, LID or GUID; bad arguments refused"

# --- saturation, our clear, a clear behind our back ---
sim_cmd 'PerformanceSet "H00002"[1] PortCounters.SymbolErrorCounter=65535'
i=0
# ibsmd clears a 16-bit counter past 3/4 of its range
until [ "$(pq H00003 "$LID" SymbolErrorCounter)" = 0 ]; do
	i=$((i + 1))
	[ "$i" -gt 50 ] && fail "ibsmd did not clear the saturated counter"
	sleep 0.2
done
[ "$(total H00002 1 symbol_error)" = 65535 ] || fail "total $(total H00002 1 symbol_error), not 65535"
sim_cmd 'PerformanceSet "H00002"[1] PortCounters.SymbolErrorCounter=10'
wait_rounds 2
[ "$(total H00002 1 symbol_error)" = 65545 ] ||
	fail "after the clear: total $(total H00002 1 symbol_error), not 65535 + 10"
sim_run_at H00003 perfquery -R "$LID" 1 >/dev/null || fail "perfquery -R failed"
sim_cmd 'PerformanceSet "H00002"[1] PortCounters.SymbolErrorCounter=7'
wait_rounds 2
t=$(total H00002 1 symbol_error)
[ "$t" = 65552 ] || fail "after a clear behind our back: total $t, not 65545 + 7"
[ "$t" -ge "$(pq H00003 "$LID" SymbolErrorCounter)" ] || fail "ours below perfquery"
msg "saturation and clears: the total went 50, 65535, 65545, 65552"

# --- the metrics page, promtool, Prometheus ---
MPORT=$(sed -n 's/.*metrics: serving .*(port \([0-9]*\)).*/\1/p' "$SIM_DIR/sm.log")
[ -n "$MPORT" ] || fail "no metrics port in the log"
python3 -c 'import sys, urllib.request
sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=10).read().decode())' \
	"http://127.0.0.1:$MPORT/metrics" >"$SIM_DIR/metrics.txt" || fail "GET /metrics failed"
promtool check metrics <"$SIM_DIR/metrics.txt" >"$SIM_DIR/promtool.out" 2>&1 ||
	fail "promtool: $(head -n 5 "$SIM_DIR/promtool.out")"
grep -q '^infiniband_hca_port_symbol_error_total{guid="0x0000000000100002",port="1"} 65552$' \
	"$SIM_DIR/metrics.txt" || fail "the page does not carry the symbol error total"
grep -q '^ibsmd_health_problems{problem="link_width_degraded"} 2$' "$SIM_DIR/metrics.txt" ||
	fail "the page does not count the degraded ports"
PPORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat >"$SIM_DIR/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: ibsmd
    static_configs:
      - targets: ['127.0.0.1:$MPORT']
EOF
timeout 120 prometheus --config.file="$SIM_DIR/prometheus.yml" \
	--storage.tsdb.path="$SIM_DIR/prom" --web.listen-address="127.0.0.1:$PPORT" \
	>"$SIM_DIR/prometheus.log" 2>&1 &
PROM=$!
SIM_BG_PIDS="$SIM_BG_PIDS $PROM"
python3 - "$PPORT" <<'EOF' || { tail -n 5 "$SIM_DIR/prometheus.log" >&2; fail "Prometheus did not answer as expected"; }
import json, sys, time, urllib.parse, urllib.request
base = "http://127.0.0.1:%s/api/v1/query?query=" % sys.argv[1]
def q(expr):
    try:
        r = json.load(urllib.request.urlopen(base + urllib.parse.quote(expr), timeout=5))
    except OSError:
        return None
    res = r.get("data", {}).get("result", [])
    return float(res[0]["value"][1]) if res else None
v = r = None
for _ in range(60):
    v = q('infiniband_hca_port_symbol_error_total{guid="0x0000000000100002",port="1"}')
    r = q('rate(infiniband_switch_port_transmit_data_bytes_total{port="1"}[5s])')
    if v is not None and r:
        break
    time.sleep(0.5)
print("prometheus: symbol errors %s, switch port 1 transmit rate %s bytes/s" % (v, r))
sys.exit(0 if v == 65552 and r and r > 0 else 1)
EOF
msg "Prometheus scraped the page: value and rate() as expected"

# --- flapping: bounces the SM saw ---
# windows are aligned on multiples of their length (of CLOCK_MONOTONIC,
# Python's time.monotonic() on Linux): a long one keeps the two bounces,
# 4 s apart, in one window, once the window has 20 s left (a bounce is
# seen a sweep after the link comes back)
printf 'health_window 600\nhealth_flap_bounces 2\n' >"$SIM_DIR/sm.conf"
ctl reload >/dev/null || fail "reload failed"
sleep 1.5   # the PM takes reloaded options at its next one-second tick
python3 -c 'import time; r = 600 - time.monotonic() % 600; time.sleep(r + 1 if r < 20 else 0)'
for i in 1 2; do
	sim_cmd 'Unlink "L0003"[5]'
	sleep 2
	sim_cmd 'Link "L0003"[5] "S0001"[3]'
	sleep 2
done
i=0
until ctl health --json | python3 -c '
import json, sys
r = json.load(sys.stdin)["result"]
f = set((p["node"], p["port"]) for p in r["ports"] if "flapping" in p["problems"])
sys.exit(not f or not f <= {("L0003", 5), ("S0001", 3)})'; do
	i=$((i + 1))
	[ "$i" -gt 50 ] && fail "no flapping on the bounced link (or elsewhere): $(ctl health)"
	sleep 0.2
done
msg "two bounces of L0003 - S0001: flapping on the end(s) the SM saw bounce"

# --- health_action = isolate, set by a reload ---
printf 'health_window 3\nhealth_action isolate\nhealth_isolate_quiet 4\n' >"$SIM_DIR/sm.conf"
ctl reload >/dev/null || fail "reload failed"
sim_cmd 'PerformanceSet "L0001"[5] PortCounters.SymbolErrorCounter=50'
sim_cmd 'PerformanceSet "L0002"[6] PortCounters.SymbolErrorCounter=50'
sim_cmd 'PerformanceSet "H00004"[1] PortCounters.SymbolErrorCounter=50'
until_log sm 'isolating link' 15
until_log sm 'reroute .* done' 15
# The PM may read H00004's or the second switch's counter a poll after the
# first link's, so their refusals can follow the reroute: wait for them.
until_log sm 'not isolating 0x[0-9a-f]* port 1 (H00004, symbol_errors): the fabric would not stay connected' 15
until_log sm 'not isolating .*: health_isolate_max links are isolated already' 15
[ "$(grep -c 'isolating link' "$SIM_DIR/sm.log")" = 1 ] || fail "more than one link isolated"
ctl status --json >"$SIM_DIR/status.json" || fail "status failed"
python3 - "$SIM_DIR/status.json" >"$SIM_DIR/isolated.txt" <<'EOF' ||
import json, re, sys
r = json.load(open(sys.argv[1]))["result"]
assert r["subnet"] == "degraded", r["subnet"]
iso = [p for p in r["problems"] if p["kind"] == "isolated"]
assert len(iso) == 1, r["problems"]
m = re.match(r"link ([0-9a-f]{16}) port (\d+) <-> ([0-9a-f]{16}) port (\d+)", iso[0]["text"])
print(m.group(1), m.group(2), m.group(3), m.group(4))
EOF
	fail "status does not say degraded with the isolated link"
set -- $(cat "$SIM_DIR/isolated.txt")
# lft_ports GUID: the ports a switch's LFT forwards to, by ibroute.
lft_ports() { sim_run_at H00010 ibroute -G "0x$1" | awk '/^0x/ { print $2 + 0 }' | sort -un; }
# 'reroute .* done' above may be an earlier bounce's: the isolation's own
# reroute may still be programming, so each end gets 10 s.
for end in "$1 $2" "$3 $4"; do
	set -- $end
	i=0
	while lft_ports "$1" >"$SIM_DIR/lft.ports" || fail "ibroute of 0x$1 failed"
	      grep -qx "$2" "$SIM_DIR/lft.ports"; do
		i=$((i + 1))
		[ "$i" -gt 50 ] && fail "0x$1 still routes out of isolated port $2"
		sleep 0.2
	done
	[ -s "$SIM_DIR/lft.ports" ] || fail "ibroute of 0x$1 shows no route"
done
msg "isolated one link, refused the CA link and a second one; ibroute: no route uses it"
until_log sm 'routing over link .* again: no error problem for 4 s' 30
# The reroute that follows that line may still be programming the switch.
i=0
until lft_ports "$1" | grep -qx "$2"; do
	i=$((i + 1))
	[ "$i" -gt 50 ] && fail "0x$1 does not route out of port $2 again"
	sleep 0.2
done
msg "the link is routed over again after its quiet period"

# --- polling follows mastership ---
# A second ibsmd of higher priority: ours hands over to it and stands by.
start_ibsmd sb H00031 10 -o health_window=3
until_log sm 'SM state .* standby' 60
until_log sm 'PM: stops polling' 5
until_log sb 'PM: round 2 done' 30
q1=$(ctl health --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["result"]["queries"])')
sleep 3
ctl health --json >"$SIM_DIR/sb.json" || fail "ibsmctl health at the standby failed"
python3 - "$SIM_DIR/sb.json" "$q1" <<'EOF' || fail "the standby polls"
import json, sys
r = json.load(open(sys.argv[1]))["result"]
assert r["polling"] is False and r["queries"] == int(sys.argv[2]), (r, sys.argv[2])
EOF
msg "handover: the new master polls, the standby sent no PMA query in 3 s"

# --- both stop cleanly, without a sanitizer report (sanitizer builds) ---
for n in sm sb; do
	eval "kill -TERM \$PID_$n; wait \$PID_$n" 2>/dev/null
	! grep -q "ERROR: AddressSanitizer\|ERROR: LeakSanitizer\|runtime error" "$SIM_DIR/$n.log" ||
		{ grep -A 20 "Sanitizer\|runtime error" "$SIM_DIR/$n.log" | head -n 40 >&2; fail "$n: sanitizer report"; }
done
msg "both daemons stopped without a sanitizer report"
