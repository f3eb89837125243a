#!/bin/sh
# Installs everything ibsmd needs to build, test and demo on Debian 12.
# Idempotent; needs root (or sudo).
set -e
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
PKGS="build-essential autoconf automake libtool pkg-config
 libibumad-dev libibmad-dev libevent-dev libjson-c-dev libcmocka-dev libsystemd-dev
 ibsim-utils infiniband-diags opensm python3 clang libclang-rt-14-dev man-db mandoc
 systemd procps prometheus"
missing=
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
done
if [ -n "$missing" ]; then
	$SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -q
	# shellcheck disable=SC2086
	$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing
fi
