#!/bin/sh
# DOC: partitions files read by OpenSM and by us must give the same tables.
#
# On ibsim's small.net, OpenSM (run once, at H00001) programs the P_Key
# tables for a partitions file; smpquery reads them back from every CA port
# and every switch port 0, and part-golden --ports says what our resolver
# gives the same ports. With allow_both_pkeys off the two must be equal,
# index 0 included. With it on, the sets must be equal; at index 0 OpenSM
# differs from us, by design, in two ways only:
#  - a port that is only a limited member of Default gets 0x0000 (an empty
#    entry) at index 0 from OpenSM, 0x7fff from us;
#  - an indx0 partition a port is in with "both" puts its limited P_Key at
#    index 0 in OpenSM (it adds full, then limited), its full one in ours.
# Members are written @NAME@ below and replaced by the port GUIDs ibsim
# gave those hosts. Skips (77) without ibsim, umad2sim or opensm.
set -u
: "${top_srcdir:?}" "${top_builddir:?}"
. "$top_srcdir/tests/integration/lib.sh"
skip_unless_tools opensm
tool="$top_builddir/tests/golden/partitions/part-golden"

sim_setup
cat >"$SIM_DIR/a.conf" <<'EOF'
Default=0x7fff, ipoib : ALL, ALL_SWITCHES=full, SELF=full ;
Lab, ipoib : @H00002@=full, @H00003@=limi, @H00004@ ;
Backup=0x400 : SELF=full ;
Backup=0x400 : ALL_CAS=limited ;
Io=0x90, defmember=full : @H00005@, @H00006@ ;
Io=0x90 : @H00007@, @H00008@=full ;
Over=0x91 : ALL=full, @H00009@=limited ;
Both=0x92 : @H00010@=both ;
Idx=0x93, indx0 : @H00011@=full ;
Sw=0x94 : ALL_SWITCHES ;
EOF
cat >"$SIM_DIR/b.conf" <<'EOF'
# no Default rule: ALL=limited, SELF=full
T1=0x0101, ipoib, defmember=full : @H00002@, @H00003@ ;
T2=0x0102, defmember=both : @H00003@, @H00004@, ALL_SWITCHES ;
Stor=0x0200 : @H00002@, @H00004@=both, SELF=full, @H00005@=both, @H00005@=limited ;
EOF
cat >"$SIM_DIR/c.conf" <<'EOF'
Default=0x7fff : ALL=limited ;
A=0x10 : ALL_CAS=full, SELF=limited ;
EOF
cat >"$SIM_DIR/d.conf" <<'EOF'
Default=0x7fff, indx0 : @H00002@=full ;
Idx=0x20, indx0 : @H00003@=both, @H00004@ ;
Idx=0x20 : @H00004@=full ;
EOF

# "LID GUID KIND" for every CA port and switch; KIND sm for H00001's port.
list_ports() {
	awk '$1 == "CA" { print $2, $4, (index($0, "( '"'"'H00001'"'"' ") ? "sm" : "ca") }
	     $1 == "SW" { print $2, $4, "sw" }' "$1" | sort -u
}

# The P_Key table of port LID (switch: port 0) as "GUID idx0=P0 P...".
osm_table() {
	_port=
	[ "$3" = sw ] && _port=0
	sim_run smpquery pkeys "$1" $_port 2>/dev/null |
	awk -v g="$2" '/^ *[0-9]+:/ { for (i = 2; i <= NF; i++) k[n++] = $i }
	END { printf "%s idx0=%s", g, k[0]
	      for (i = 0; i < n; i++) if (k[i] != "0x0000") s[m++] = k[i]
	      for (i = 1; i < m; i++)   # 0xNNNN sorts as text
	          for (j = i; j > 0 && s[j - 1] > s[j]; j--) {
	              t = s[j]; s[j] = s[j - 1]; s[j - 1] = t }
	      for (i = 0; i < m; i++) printf " %s", s[i]
	      printf "\n" }'
}

# cross NAME ALLOW_BOTH: run OpenSM on NAME.conf, compare with part-golden.
cross() {
	sim_start "$top_srcdir/tests/topo/small.net"
	sim_run ibnetdiscover -p >"$SIM_DIR/ports0" || hard_error "ibnetdiscover failed"
	sed_guids=$(awk '$1 == "CA" { n = $NF == ")" ? $(NF - 3) : ""; gsub("'"'"'", "", n)
		if (n) printf "s/@%s@/%s/g;", n, $4 }' "$SIM_DIR/ports0")
	sed "$sed_guids" "$SIM_DIR/$1.conf" >"$SIM_DIR/$1.cfg"
	grep -q @ "$SIM_DIR/$1.cfg" && hard_error "$1: a host name was not found"
	osm=$SIM_DIR/osm-$1-$2
	mkdir "$osm"
	w=
	[ "$2" = 1 ] && w=--allow_both_pkeys
	sim_run_at H00001 env OSM_TMP_DIR="$osm" OSM_CACHE_DIR="$osm" opensm -o \
		-f "$osm/log" -P "$SIM_DIR/$1.cfg" $w >"$osm/out" 2>&1 ||
		fail "$1: opensm exited with $?"
	grep -q 'SUBNET UP' "$osm/log" || fail "$1: opensm never reached SUBNET UP"
	sim_run ibnetdiscover -p >"$SIM_DIR/ports" || hard_error "ibnetdiscover failed"
	list_ports "$SIM_DIR/ports" >"$SIM_DIR/list"
	[ "$(wc -l <"$SIM_DIR/list")" -eq 44 ] || fail "$1: expected 44 ports"
	while read -r lid guid kind; do
		osm_table "$lid" "$guid" "$kind"
	done <"$SIM_DIR/list" >"$osm/theirs"
	awk '{ print $2, $3 }' "$SIM_DIR/list" |
		"$tool" --ports "$SIM_DIR/$1.cfg" "$2" >"$osm/ours" ||
		fail "$1: part-golden failed"
	sim_stop
	if [ "$2" = 0 ]; then
		diff -u "$osm/theirs" "$osm/ours" || fail "$1: tables differ"
	else
		paste -d '|' "$osm/theirs" "$osm/ours" | awk -F '|' -v t="$1" '
		function hex(s, i, v) {
			for (i = 3; i <= 6; i++)
				v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
			return v }
		{ split($1, a, " "); split($2, b, " ")
		  x = $1; y = $2; sub(/ idx0=0x[0-9a-f]+/, "", x); sub(/ idx0=0x[0-9a-f]+/, "", y)
		  if (x != y) { print t ": sets differ: " $1 " / " $2; bad = 1 }
		  o = substr(a[2], 6); u = substr(b[2], 6)
		  if (o == u || (o == "0x0000" && u == "0x7fff")) next
		  if (hex(u) == hex(o) + 32768) next   # full for limited
		  print t ": index 0: " $1 " / " $2; bad = 1 }
		END { exit bad }' || fail "$1: tables differ (allow_both_pkeys)"
	fi
	msg "$1.conf allow_both=$2: 44 ports agree"
}

cross a 0
cross a 1
cross b 0
cross b 1
cross c 0
cross d 0
cross d 1
