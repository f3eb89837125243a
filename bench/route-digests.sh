#!/bin/sh
# DOC: routes of many trees as digests, to show that a change kept them.
#
# Usage: bench/route-digests.sh [BUILDDIR] [large]
# Routes 120 degraded fat trees (2-level radix 16, 24, 36, 48 and 3-level
# radix 8 to 28; 5 % or 10 % of links, or 2 or 4 upper switches removed;
# seeds 1-3), a random graph, a torus and a dragonfly with the default
# engine, and prints one line per fabric: its arguments and the digest of
# every switch's table (route-bench's "tables"). With "large", also
# radix 36 and 54 trees (minutes). Run it from two builds and diff:
#   bench/route-digests.sh /tmp/old > old; bench/route-digests.sh . > new
#   diff old new
set -eu
b="${1:-.}/bench/route-bench"
[ -x "$b" ] || { echo "route-digests.sh: build bench/route-bench first ($b)" >&2; exit 2; }

one() {
	# shellcheck disable=SC2068 # the arguments are route-bench's, split on purpose
	printf '%s %s\n' "$*" "$("$b" $@ | sed -n 's/.*tables //p')"
}

for t in "ft2 16" "ft2 24" "ft2 36" "ft2 48" "ft3 8" "ft3 12" "ft3 16" "ft3 20" "ft3 24" "ft3 28"; do
	for deg in "-d 5" "-d 10" "-x 2" "-x 4"; do
		for s in 1 2 3; do
			# shellcheck disable=SC2086
			one $deg -s $s $t
		done
	done
done
one random 64
one torus 4
one dragonfly 6
if [ "${2:-}" = large ]; then
	one -d 10 -s 2 ft3 36
	one -m 1 -d 10 -s 1 ft3 16
	one -d 1 -s 1 ft3 54
	one -d 5 -s 1 ft3 54
	one -x 2 -s 1 ft3 54
fi
