#!/bin/sh
# DOC: the operations files: man pages lint-clean, the systemd unit
# verified, the bash completion valid and complete, offline help.
#
# No simulator needed. Each checker is skipped when its tool is missing
# (CI installs mandoc and systemd-analyze).
set -u
: "${top_srcdir:?}" "${top_builddir:?}"
fail=0
bad() { echo "FAIL: $*"; fail=1; }
CTL=$top_builddir/cli/ibsmctl
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT

for page in "$top_srcdir/man/ibsmd.8" "$top_srcdir/man/ibsmctl.8"; do
	if command -v mandoc >/dev/null 2>&1; then
		out=$(mandoc -Tlint -Wwarning "$page" 2>&1) && [ -z "$out" ] || bad "mandoc $page: $out"
	fi
	if command -v man >/dev/null 2>&1; then
		out=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null)
		[ -z "$out" ] || bad "man --warnings $page: $out"
	fi
done

# The unit as installed, but pointing at the built daemon so that
# systemd-analyze finds an executable.
if command -v systemd-analyze >/dev/null 2>&1; then
	sed -e "s|@sbindir@|$top_builddir/daemon|g" -e "s|@sysconfdir@|/etc|g" \
		"$top_srcdir/systemd/ibsmd.service.in" >"$tmp/ibsmd.service"
	out=$(systemd-analyze verify --man=no "$tmp/ibsmd.service" 2>&1) ||
		bad "systemd-analyze verify: $out"
	echo "$out" | grep -v '^$' | grep -iv 'is not executable\|No such file' >&2
	# ibsmd@.service, one SM per fabric, as an instance
	sed -f "$top_srcdir/systemd/instance.sed" "$top_srcdir/systemd/ibsmd.service.in" |
		sed -e "s|@sbindir@|$top_builddir/daemon|g" -e "s|@sysconfdir@|/etc|g" \
		>"$tmp/ibsmd@fab1.service"
	out=$(systemd-analyze verify --man=no "$tmp/ibsmd@fab1.service" 2>&1) ||
		bad "systemd-analyze verify ibsmd@: $out"
	echo "$out" | grep -v '^$' | grep -iv 'is not executable\|No such file' >&2
else
	echo "systemd-analyze not installed: unit not verified"
fi
grep -q '^Type=notify' "$top_srcdir/systemd/ibsmd.service.in" || bad "unit: not Type=notify"
! grep -q '^PrivateDevices=yes' "$top_srcdir/systemd/ibsmd.service.in" || bad "unit hides /dev/infiniband"
inst=$(sed -f "$top_srcdir/systemd/instance.sed" "$top_srcdir/systemd/ibsmd.service.in")
for want in '^ExecStart=.* -c @sysconfdir@/ibsmd/%i.conf -o state_dir=/var/lib/ibsmd/%i -o socket_path=/run/ibsmd/%i/ibsmd.sock$' \
	'^StateDirectory=ibsmd/%i$' '^RuntimeDirectory=ibsmd/%i$' '^AssertPathExists=@sysconfdir@/ibsmd/%i.conf$' '^Type=notify$'; do
	echo "$inst" | grep -q "$want" || bad "ibsmd@.service: no line $want"
done

"$CTL" completion bash >"$tmp/compl" || bad "completion bash failed"
if command -v bash >/dev/null 2>&1; then
	bash -n "$tmp/compl" || bad "completion script has syntax errors"
	# complete "ibsmctl s" and expect the commands starting with s
	got=$(bash -c ". '$tmp/compl'; COMP_WORDS=(ibsmctl s); COMP_CWORD=1; _ibsmctl; echo \${COMPREPLY[*]}")
	[ "$got" = "status switches sms sweep subscribe sa" ] || bad "completion of 's': '$got'"
fi
"$CTL" completion zsh >/dev/null 2>&1 && bad "completion zsh accepted"
"$CTL" -h >"$tmp/help" || bad "-h failed"
for c in status nodes switches ports links lft path routing sweep reroute reload loglevel \
	subscribe commands watch topology completion; do
	grep -q "^  $c " "$tmp/help" || bad "-h does not list $c"
	grep -Eq "^\.B[RI]? $c( |\$)" "$top_srcdir/man/ibsmctl.8" || bad "ibsmctl.8 lacks $c"
done
"$CTL" help sweep | grep -q 'admin' || bad "help sweep"
"$CTL" 2>/dev/null; [ $? = 2 ] || bad "no command: exit status not 2"
[ $fail = 0 ] && echo "ok: man pages, unit, completion, help"
exit $fail
