#!/bin/sh
# The whole test suite, as CI runs it: dependencies, a -Werror build with
# ASan+UBSan and `make check` (unit, golden and ibsim integration tests),
# then `make distcheck` on a plain build.
set -e
cd "$(dirname "$0")/.."
top=$(pwd)
sh scripts/install-deps.sh
./autogen.sh >/dev/null
jobs=$(nproc 2>/dev/null || echo 2)

san="$top/build-san"
rm -rf "$san" && mkdir -p "$san"
(cd "$san" && "$top/configure" -q --enable-werror --enable-asan --enable-ubsan \
	&& make -s -j"$jobs" \
	&& IBSM_REQUIRE_SIM=1 ASAN_OPTIONS=detect_leaks=1:verify_asan_link_order=0:replace_intrin=0 UBSAN_OPTIONS=print_stacktrace=1 \
		make -s -j"$jobs" check) || { cat "$san"/tests/*/*.log "$san"/tests/*/*/*.log 2>/dev/null | tail -n 200; exit 1; }

dist="$top/build-dist"
rm -rf "$dist" && mkdir -p "$dist"
(cd "$dist" && "$top/configure" -q --enable-werror && make -s -j"$jobs" \
	&& IBSM_SKIP_SLOW=1 make -s -j"$jobs" distcheck DISTCHECK_CONFIGURE_FLAGS=--enable-werror)
echo "all tests passed"
