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

# show_failed DIR: the end of each failed test's own log, last, so that a
# CI page showing the tail of the output shows why.
show_failed() {
	for trs in $(find "$1/tests" -name '*.trs'); do
		grep -q '^:test-result: \(FAIL\|ERROR\|XPASS\)' "$trs" || continue
		echo "==== ${trs%.trs}.log (last 150 lines)"
		tail -n 150 "${trs%.trs}.log"
	done
}

san="$top/build-san"
rm -rf "$san" && mkdir -p "$san"
(cd "$san" && "$top/configure" -q --enable-werror --enable-asan --enable-ubsan \
	&& make -s -j"$jobs" \
	&& IBSM_REQUIRE_SIM=1 ASAN_OPTIONS=detect_leaks=1:verify_asan_link_order=0:replace_intrin=0 UBSAN_OPTIONS=print_stacktrace=1 \
		make -s -j"$jobs" check) || { show_failed "$san"; exit 1; }

dist="$top/build-dist"
rm -rf "$dist" && mkdir -p "$dist"
(cd "$dist" && "$top/configure" -q --enable-werror && make -s -j"$jobs" \
	&& IBSM_SKIP_SLOW=1 make -s -j"$jobs" distcheck DISTCHECK_CONFIGURE_FLAGS=--enable-werror) \
	|| { show_failed "$dist"; exit 1; }
echo "all tests passed"
