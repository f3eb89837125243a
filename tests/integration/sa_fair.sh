#!/bin/sh
# DOC: one hostile host must not deny SA and multicast service to the
# others (issue 27), on ibsim's 72-host two-level tree (gen_topo ft2 12),
# ibsmd at its defaults. A rogue client (tests/agent/sa_rogue, a new host
# for each attack) tries, and after each the victim H00040 still creates
# a group, its Reports 66 and 67 reach a subscriber at H00050, and it
# registers and deletes its own service (tests/integration/fair_lib.sh):
#   - the default SM_Key 0x1 is a warning in ibsmctl status, the subnet
#     stays "up", the log says it at start;
#   - 2000 creates: 64 succeed (sa_groups_per_port), the rest 0x0100,
#     counted in ibsmctl sa; when the rogue's link goes down its groups go
#     and the victim's next group takes a freed MLID;
#   - 2000 proxy creates, each group then joined by the 70 other hosts:
#     the rogue makes at most 1024 memberships (sa_memberships_per_port);
#     its link down, every group it made goes with it;
#   - 32 subscriptions never acknowledged and a create/leave loop: the
#     victim's Reports all arrive, the silent subscriber is dropped (one
#     log line);
#   - a squat under the victim's GID: refused (0x0700) untrusted; with the
#     public key 0x1 allowed, then the victim replaces and deletes it; the
#     rogue's own services go when its link goes down;
#   - 5000 registrations with the public key: at most 1024 (64 x
#     sa_trusted_share);
#   - a create/leave loop for 20 s;
#   - after each attack the log grew by at most 300 KB, and at the end
#     ibsmd's peak RSS stays within 64 MB of its start (not checked under
#     a sanitizer, whose quarantine keeps freed memory).
. "$top_srcdir/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/sm_lib.sh"
. "$top_srcdir/tests/integration/fair_lib.sh"
skip_unless_tools saquery ibnetdiscover

IBSMD=${IBSMD:-$top_builddir/sm/ibsmd}
CTL=$top_builddir/cli/ibsmctl
JOIN=$top_builddir/tests/agent/mcjoin
AGENT=$top_builddir/tests/agent/sa_agent
ROGUE_BIN=$top_builddir/tests/agent/sa_rogue
for x in "$IBSMD" "$CTL" "$JOIN" "$AGENT" "$ROGUE_BIN"; do
	[ -x "$x" ] || hard_error "$x not built"
done
LOG_MAX=300000
RSS_MAX_KB=65536

sim_setup
topo_gen "$SIM_DIR/ft.net" ft2 12
sim_start "$SIM_DIR/ft.net"
die() {
	tail -n 20 "$SM_LOG" >&2
	timeout 10 "$CTL" -s "$SOCK" sa 2>&1 | head -n 8 >&2
	[ -f "$SIM_DIR/vr.mgids" ] && while read -r m; do
		echo "subscriber: $m: $(grep "gid $m " "$SIM_DIR/vr.out" | tr '\n' ' ')"
	done <"$SIM_DIR/vr.mgids" >&2
	fail "$*"
}
fair_up ibsmd
fair_guids
ctl() { timeout 20 "$CTL" -s "$SOCK" "$@"; }
jq() { python3 -c "import json,sys; r=json.load(sys.stdin)['result']; print($1)"; }
ngroups() { ctl -j mcast | jq 'len(r["groups"])'; }
refused() { ctl -j sa | jq "r['refused']['$1']"; }
RSS0=$(fair_rss)

# victim_ok WHAT: the victim's checks all pass.
victim_ok() {
	v=$(victim_all)
	[ "$v" = "create 0x0000, reports 6/6, service 0x0000 0x0000" ] || die "$1: victim: $v"
}

# attack NAME: starts measuring the log; attack_end NAME: its growth.
attack() { LOG0=$(fair_logsize); }
attack_end() {
	grow=$(($(fair_logsize) - LOG0))
	[ "$grow" -le $LOG_MAX ] || die "$1: the log grew by $grow bytes"
	msg "$1: log +$grow B, RSS $(fair_rss) kB"
}

# leaves HOST PATTERN: HOST's link goes down; waits for PATTERN in the log.
leaves() {
	n=$(grep -c "$2" "$SM_LOG")
	sim_cmd "Unlink \"$1\""
	i=0
	until [ "$(grep -c "$2" "$SM_LOG")" -gt "$n" ]; do
		i=$((i + 1))
		[ $i -gt 300 ] && die "$1 left, but no \"$2\" in the log"
		sleep 0.1
	done
	wait_idle
}

# --- the public default key
ctl -j status >"$SIM_DIR/st.json" || die "ibsmctl status failed"
python3 - "$SIM_DIR/st.json" <<'PY' || die "status: no public_key warning, or not up"
import json, sys
r = json.load(open(sys.argv[1]))["result"]
p = [x for x in r["problems"] if x["kind"] == "public_key"]
sys.exit(0 if p and p[0].get("warning") and r["subnet"] == "up" else 1)
PY
grep -q "the SM_Key is 0x1, the well-known default" "$SM_LOG" || die "no warning at start"
msg "the public SM_Key: a warning at start and in ibsmctl status, subnet up"
victim_ok "before the attacks"

# --- creates
attack
G0=$(ngroups)
ROGUE=H00010
r=$(rogue create 2000)
case $r in *" 64 ok, 1936 refused (0x0100:1936)"*) ;; *) die "creates: $r" ;; esac
[ "$(refused groups_per_port)" = 1936 ] || die "creates: refusals not counted"
grep -q "refused: it created sa_groups_per_port groups" "$SM_LOG" || die "creates: not logged"
victim_ok "creates"
leaves H00010 "port .* is down or gone: it left its groups"
[ "$(ngroups)" = "$G0" ] || die "creates: the rogue's groups stayed after it left"
attack_end "2000 creates: $(echo "$r" | rsum), all gone with the rogue"

# --- proxy creates and proxy joins
attack
ROGUE=H00011
# shellcheck disable=SC2046
r=$(RT=300 rogue -a proxy-create 2000 $(cat "$SIM_DIR/victims"))
made=$(echo "$r" | sed 's/.*creates_ok \([0-9]*\), joins_ok \([0-9]*\).*/\1 \2/')
set -- $made
[ "$1" -ge 1 ] && [ "$(($1 + $2))" -le $((1024 + 64 + 70)) ] || die "proxy: $r"
[ "$(refused memberships_per_port)" -gt 0 ] || die "proxy: no memberships_per_port refusal"
victim_ok "proxy"
leaves H00011 "memberships it made for ports that never joined themselves went with it"
[ "$(ngroups)" = "$G0" ] || die "proxy: $(ngroups) groups after the rogue left, $G0 before"
attack_end "2000 proxy creates and their joins: $1 groups, $2 joins, all gone with the rogue"

# --- unacknowledged subscriptions and a create/leave loop
attack
ROGUE=H00012
rogue -s 32 churn 12 >"$SIM_DIR/churn.out" &
rp=$!
sleep 2
victim_ok "reports"
wait "$rp"
grep -q "answered none of its last 8 Reports" "$SM_LOG" || die "reports: silent subscriber kept"
[ "$(ctl -j sa | jq 'r["totals"]["subscribers_dropped"]')" -ge 1 ] || die "reports: not counted"
attack_end "32 silent subscriptions and 12 s of churn ($(rsum <"$SIM_DIR/churn.out")): the victim got its Reports"

# --- a squat, with and without the public key; services follow their port
attack
ROGUE=H00013
r=$(rogue squat "$(fguid "$VICTIM")" $FAIR_SID | rsum)
[ "$r" = "0 ok, 1 refused (0x0700:1)" ] || die "squat: $r"
victim_ok "squat"
r=$(rogue -k 1 squat "$(fguid "$VICTIM")" $FAIR_SID | rsum)
[ "$r" = "1 ok, 0 refused" ] || die "trusted squat: $r"
[ "$(victim_service)" = "0x0000 0x0000" ] || die "the victim did not replace and delete the squat"
r=$(rogue services 8 | rsum)
[ "$r" = "8 ok, 0 refused" ] || die "rogue's own services: $r"
[ "$(services_left H00013 8)" = 8 ] || die "the rogue's services are not there"
leaves H00013 "services and subscriptions of ports that left the fabric are gone"
[ "$(services_left H00013 8)" = 0 ] || die "the rogue's services stayed after it left"
attack_end "squat: refused untrusted, replaced and deleted by the owner with the public key; the rogue's services left with it"

# --- the public key's flood
attack
_t="$(printf '%016x' $((FAIR_SID + 1))) $(gid_hex "$(fguid "$VICTIM")") ffff 0000 ffffffff"
T=10 sim_run_at "$VICTIM" "$AGENT" req 0x02 0x31 0x17 "$_t" | grep -q '^status 0x0000' ||
	die "the victim's service before the flood"
ROGUE=H00014
r=$(RT=300 rogue -k 1 services 5000)
ok=$(echo "$r" | rsum | sed 's/ ok.*//')
[ "$ok" -le 1024 ] && [ "$ok" -ge 1 ] || die "trusted flood: $r"
victim_ok "trusted flood"
attack_end "5000 registrations with the public key: $ok accepted"

# --- a create/leave loop for 20 s
attack
ROGUE=H00015
r=$(rogue churn 20)
victim_ok "churn"
attack_end "a create/leave loop for 20 s ($(echo "$r" | sed 's/.*creates_ok \([0-9]*\).*/\1/') groups)"

# --- memory
hwm=$(fair_hwm)
if grep -qa __asan_init "$IBSMD"; then   # a sanitizer build
	msg "RSS $RSS0 kB at the start, peak $hwm kB (a sanitizer build: not judged)"
else
	[ $((hwm - RSS0)) -le $RSS_MAX_KB ] || die "peak RSS $hwm kB, $RSS0 kB at the start"
	msg "RSS $RSS0 kB at the start, peak $hwm kB (at most $RSS_MAX_KB kB more)"
fi

# --- the state file keeps the shares, and one over the limits is refused
# (ClientReregister: the hosts make their state again, within them)
G=$(fguid "$VICTIM")
for k in 1 2 3; do
	T=20 sim_run_at "$VICTIM" "$JOIN" --create -g :: "$G" >/dev/null 2>&1 || die "victim create $k"
done
wait_idle
restart() {
	kill "$SM_BG"
	wait "$SM_BG" 2>/dev/null
	fair_up ibsmd "$@"
	wait_idle
}
restart -o sa_groups_per_port=3
grep -q "restored from the state file: $((G0 + 3)) multicast groups" "$SM_LOG" ||
	die "not restored: $(grep -i "restored\|refused" "$SM_LOG")"
[ "$(victim_create)" = 0x0100 ] || die "the victim's share of groups was not restored"
# the trusted flood's 1024 services are over 32 x sa_trusted_share
restart -o sa_services_per_port=32
grep -q "clients: a port with more than 512 services: refused" "$SM_LOG" ||
	die "a file over the limits was not refused: $(grep -i "clients" "$SM_LOG")"
grep -q "setting ClientReregister on" "$SM_LOG" || die "no ClientReregister after the refusal"
[ "$(ngroups)" = "$G0" ] || die "$(ngroups) groups after a refused file, not $G0"
msg "the state file: the victim's 3 groups restored with their creator (a 4th refused at sa_groups_per_port=3); refused at sa_services_per_port=32, with ClientReregister"
kill "$SM_BG"
wait "$SM_BG" 2>/dev/null
grep -q "ERROR: AddressSanitizer\|runtime error" "$SM_LOG" && die "sanitizer report"
exit 0
