# DOC: one hostile host against an SM's SA, and what the other hosts
# still get: the steps of tests/integration/sa_fair.sh (which judges
# ibsmd) and bench/bench-fair.sh (which runs them on ibsmd and OpenSM and
# prints a table). Source after lib.sh and sm_lib.sh.
#
# The fabric is gen_topo ft2 12 (72 hosts, 18 switches). The SM runs at
# H00001 (fair_up ibsmd|opensm; OpenSM with -d2, its log flushed at each
# line so that its growth can be read while it runs), the rogue
# (tests/agent/sa_rogue) at
# $ROGUE (H00010), the victim host at H00040, a subscriber at H00050.
# Each step prints what it saw on one line; nothing here fails a test.
#
# Uses $IBSMD, $JOIN (mcjoin), $AGENT (sa_agent), $ROGUE_BIN (sa_rogue).

ROGUE=${ROGUE:-H00010}
VICTIM=${VICTIM:-H00040}
LISTENER=${LISTENER:-H00050}
FAIR_SID=0x1000000000000040

# fair_up ibsmd|opensm [ibsmd options...]: the SM at H00001, up; its log
# in $SM_LOG, the SM's own pid (not timeout's) in $SM_PID.
fair_up() {
	FAIR_SM=$1
	shift
	mkdir -p "$SIM_DIR/sm"
	rm -f "$SIM_DIR/sm.log" "$SIM_DIR/sm/osm.log"
	if [ "$FAIR_SM" = opensm ]; then
		SM_LOG=$SIM_DIR/sm/osm.log
		SIM_HOST=H00001 sim_bg sh -c 'exec "$@" >/dev/null 2>&1' sh env \
			OSM_TMP_DIR="$SIM_DIR/sm" OSM_CACHE_DIR="$SIM_DIR/sm" opensm -d2 -f "$SM_LOG" -R ftree
		SM_BG=$SIM_BG_PID
		fair_wait_log "SUBNET UP"
	else
		SM_LOG=$SIM_DIR/sm.log
		SOCK=$SIM_DIR/sm/sock
		SIM_HOST=H00001 sim_bg sh -c 'f=$1; shift; exec "$@" 2>"$f"' sh "$SM_LOG" \
			"$IBSMD" -o state_dir="$SIM_DIR/sm" -o socket_path="$SOCK" -o log_level=info \
			-o light_sweep_interval=1 "$@"
		SM_BG=$SIM_BG_PID
		fair_wait_log "subnet UP"
	fi
	SM_PID=$(pgrep -P "$SM_BG" | head -n 1)
	[ -n "$SM_PID" ] || sm_fail "no SM process under $SM_BG"
}

fair_wait_log() {
	_i=0
	until grep -q "$1" "$SM_LOG" 2>/dev/null; do
		_i=$((_i + 1))
		[ $_i -gt 600 ] && sm_fail "no \"$1\" in $SM_LOG"
		kill -0 "$SM_BG" 2>/dev/null || sm_fail "the SM died"
		sleep 0.1
	done
}

# RSS and peak RSS of the SM, kB; the size of its log, bytes.
fair_rss() { sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\).*/\1/p' "/proc/$SM_PID/status"; }
fair_hwm() { sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\).*/\1/p' "/proc/$SM_PID/status"; }
fair_logsize() { wc -c <"$SM_LOG"; }

gid_hex() { echo "fe80000000000000$1"; }

# rogue ARGS...: sa_rogue at $ROGUE; its summary line.
rogue() {
	T=${RT:-120} sim_run_at "$ROGUE" "$ROGUE_BIN" "$@" 2>&1 | tail -n 1
}

# victim_create: the victim creates a group (zero MGID, as IPoIB's
# mask) and leaves it; prints the create's status.
victim_create() {
	_g=$(fguid "$VICTIM")
	T=20 sim_run_at "$VICTIM" "$JOIN" -v --create -g :: "$_g" >"$SIM_DIR/vc.out" 2>&1
	_st=$(sed -n 's/^port [0-9a-f]* status \(0x[0-9a-f]*\).*/\1/p' "$SIM_DIR/vc.out" | head -n 1)
	_m=$(sed -n 's/.* mgid \([^ ]*\).*/\1/p' "$SIM_DIR/vc.out" | head -n 1)
	[ -n "$_m" ] && T=20 sim_run_at "$VICTIM" "$JOIN" --leave -g "$_m" "$_g" >/dev/null 2>&1
	echo "${_st:-none}"
}

# victim_service: the victim registers a service under its own GID, then
# deletes it; prints "SET_STATUS DELETE_STATUS".
victim_service() {
	_gid=$(gid_hex "$(fguid "$VICTIM")")
	_t="$(printf '%016x' $((FAIR_SID))) $_gid ffff 0000 ffffffff"
	_s=$(T=10 sim_run_at "$VICTIM" "$AGENT" req 0x02 0x31 0x17 "$_t" 2>&1 |
		sed -n 's/^status \(0x[0-9a-f]*\).*/\1/p')
	_d=$(T=10 sim_run_at "$VICTIM" "$AGENT" req 0x15 0x31 0x3 "$_t" 2>&1 |
		sed -n 's/^status \(0x[0-9a-f]*\).*/\1/p')
	echo "${_s:-none} ${_d:-none}"
}

# victim_reports K: a subscriber at $LISTENER (traps 66, 67), the victim
# creates K groups and leaves them; prints "GOT/2K": the Reports 66 and
# 67 of those groups that reached the subscriber within 30 s of the last
# leave (a Report is resent for 4 s when not acknowledged; a sanitizer
# build on a loaded machine once took longer than 8 s). The subscriber listens for up to
# 80 s from its start, long past the creates and leaves: with 20 s, a
# sanitizer run on a loaded machine once got the first group's two
# Reports and none of the later groups' (whose creates and leaves had
# succeeded), as if it had stopped first. It is killed as soon as all
# have come.
victim_reports() {
	_g=$(fguid "$VICTIM")
	T=100 sim_run_at "$LISTENER" "$AGENT" -t 80 subscribe 66,67 1000000 >"$SIM_DIR/vr.out" 2>&1 &
	_sub=$!
	_i=0
	until grep -q subscribed "$SIM_DIR/vr.out" 2>/dev/null; do
		_i=$((_i + 1))
		[ $_i -gt 200 ] && { kill "$_sub" 2>/dev/null; echo "0/$((2 * $1)) (no subscription)"; return; }
		kill -0 "$_sub" 2>/dev/null || { echo "0/$((2 * $1)) (no subscription)"; return; }
		sleep 0.1
	done
	: >"$SIM_DIR/vr.mgids"
	_bad=
	for _k in $(seq 1 "$1"); do
		T=20 sim_run_at "$VICTIM" "$JOIN" -v --create -g :: "$_g" >"$SIM_DIR/vc.out" 2>&1
		_m=$(sed -n 's/.* mgid \([^ ]*\).*/\1/p' "$SIM_DIR/vc.out" | head -n 1)
		[ -n "$_m" ] || continue
		echo "$_m" >>"$SIM_DIR/vr.mgids"
		T=20 sim_run_at "$VICTIM" "$JOIN" --leave -g "$_m" "$_g" >"$SIM_DIR/vl.out" 2>&1 ||
			_bad="$_bad, a leave failed: $(tail -n 1 "$SIM_DIR/vl.out")"
	done
	_i=0
	while [ $_i -lt 300 ]; do
		_n=0
		while read -r _m; do
			_n=$((_n + $(grep -c "report trap 6[67] gid $_m " "$SIM_DIR/vr.out")))
		done <"$SIM_DIR/vr.mgids"
		[ "$_n" -ge $((2 * $1)) ] && break
		_i=$((_i + 1))
		sleep 0.1
	done
	kill "$_sub" 2>/dev/null
	wait "$_sub" 2>/dev/null
	echo "$_n/$((2 * $1))$_bad"
}

# victim_all: the three checks on one line.
victim_all() {
	echo "create $(victim_create), reports $(victim_reports 3), service $(victim_service)"
}

# fair_guids: $SIM_DIR/guids, "HOST GUID" of every host (ibnetdiscover),
# and $SIM_DIR/victims, the GUIDs of all but H00001 and the rogue.
fair_guids() {
	sim_run ibnetdiscover >"$SIM_DIR/disc.txt" || sm_fail "ibnetdiscover failed"
	python3 - "$SIM_DIR/disc.txt" >"$SIM_DIR/guids" <<'PY'
import re, sys
t = open(sys.argv[1]).read()
for m in re.finditer(r'^Ca\s.*#\s+"(H\d+)"\n\[1\]\(([0-9a-f]+)\)', t, re.M):
    print(m.group(1), "%016x" % int(m.group(2), 16))
PY
	grep -v "^H00001 \|^$ROGUE " "$SIM_DIR/guids" | cut -d' ' -f2 >"$SIM_DIR/victims"
}
# fguid HOST: its port GUID from fair_guids.
fguid() { sed -n "s/^$1 //p" "$SIM_DIR/guids"; }

# services_left HOST N: how many of the rogue's first N services
# (sa_rogue services: ServiceIDs 0x5a5a000000000000 + i) under HOST's GID
# the SA still finds (Get by ServiceID and GID, asked at the victim).
services_left() {
	_gid=$(gid_hex "$(fguid "$1")")
	_n=0
	for _i in $(seq 0 $(($2 - 1))); do
		_t="$(printf '%016x' $((0x5a5a000000000000 + _i))) $_gid"
		T=10 sim_run_at "$VICTIM" "$AGENT" req 0x01 0x31 0x3 "$_t" 2>&1 |
			grep -q '^status 0x0000' && _n=$((_n + 1))
	done
	echo "$_n"
}

# rsum: a rogue summary, short: "K ok, E refused (STATUS:N ...)".
rsum() { sed 's/^sa_rogue: [0-9]* requests, //;s/, [0-9]* lost.*//'; }
