# DOC: helpers of the SA benchmarks (bench-sa.sh, bench-pm.sh): PathRecord
# load from bench/sa-load copies at several hosts, and its result line.
#
# Sourced after tests/integration/lib.sh. The caller sets LOAD (the
# sa-load binary), hosts (where the loaders attach), secs, window and
# PIN_LOAD (a command prefix, possibly empty); the loaders ask for paths
# between the CA LIDs that `lids` writes to $SIM_DIR/lids.
# shellcheck disable=SC2154 # set by the caller, as said above

wait_grep() {   # wait_grep PATTERN FILE SECONDS
	i=0
	until grep -q "$1" "$2" 2>/dev/null; do
		i=$((i + 1))
		[ "$i" -gt $(($3 * 10)) ] && fail "no '$1' in $2 after $3 s"
		sleep 0.1
	done
}

# The CA LIDs, from the simulator's own Dump (lib.sh sim_ca_lids).
lids() {
	sim_ca_lids "$SIM_DIR/lids"
}

# start_load: the loaders at once, in the background (LOADERS_PIDS)
start_load() {
	rm -f "$SIM_DIR"/lat.* "$SIM_DIR"/load.*
	LOADER_PIDS=
	k=0
	for h in $hosts; do
		k=$((k + 1))
		T=$((secs + 30)) sim_run_at "$h" $PIN_LOAD "$LOAD" -l "$SIM_DIR/lids" -w "$window" -d "$secs" \
			-s "$k" -o "$SIM_DIR/lat.$k" >"$SIM_DIR/load.$k" 2>&1 &
		LOADER_PIDS="$LOADER_PIDS $!"
	done
}

loading() {
	for j in $LOADER_PIDS; do
		kill -0 "$j" 2>/dev/null && return 0
	done
	return 1
}

# load LABEL: one measurement, one result line
load() {
	start_load
	wait_loaders "$1"
}

wait_loaders() {
	for j in $LOADER_PIDS; do
		wait "$j"
	done
	python3 - "$1" "$SIM_DIR" <<'PY'
import glob, sys
label, d = sys.argv[1], sys.argv[2]
qps = lost = err = 0
lat = []
for f in sorted(glob.glob(d + '/load.*')):
    w = open(f).read().split()
    if 'qps' not in w:
        print('%s: loader failed: %s' % (label, ' '.join(w)[-200:]))
        sys.exit(1)
    kv = dict(zip(w[0::2], w[1::2]))
    qps += float(kv['qps']); lost += int(kv['lost']); err += int(kv['errors'])
for f in glob.glob(d + '/lat.*'):
    lat += [int(x) for x in open(f)]
lat.sort()
p = lambda q: lat[(len(lat) - 1) * q // 100] if lat else 0
print('%-14s %9.0f queries/s  p50 %6d us  p99 %6d us  max %7d us  lost %d  errors %d'
      % (label, qps, p(50), p(99), p(100), lost, err))
PY
}

