#!/bin/bash
# make bench-compare BASE=REV: the modules of REV against the working tree's,
# in one boot of the deterministic lane (bench/vm/icount.sh): for every
# round and configuration, the working tree's modules, then REV's, so that
# each change to the hot path shows its instruction delta per operation.
#
# env: PN_BENCH_CONFIGS   configurations (default B,E,C,D; each is also run
#                         as CFG@base, REV's build; A is always the first)
#      PN_BENCH_RUNS      rounds (default 3)
#      PN_BENCH_ICOUNT_OPS, PN_BENCH_OPS, PN_BENCH_KILL_PROCS (default 0)
#                         as for make bench (bench/vm/icount.sh)
#      PN_BENCH_RESULTS   where to write (default build/compare/results)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
[ $# = 1 ] || { echo "usage: $0 REV" >&2; exit 2; }
rev=$(git -C "$repo" rev-parse --verify --short "$1^{commit}") ||
	{ echo "compare: $1 is not a revision" >&2; exit 2; }
kdir=${KDIR:?KDIR: the kernel build tree (make bench-compare sets it)}
work=$repo/build/compare
src=$work/src-$rev
modules=$work/modules-$rev

# REV's modules, built from its tree as it was committed.
if [ ! -f "$modules/pnotify.ko" ]; then
	rm -rf "$src" "$modules"
	mkdir -p "$src" "$modules"
	git -C "$repo" archive "$rev" | tar -x -C "$src"
	make -C "$kdir" M="$src" modules
	cp "$src"/src/*.ko "$modules/"
	rm -rf "$src"
fi

configs=A
for c in $(echo "${PN_BENCH_CONFIGS:-B,E,C,D}" | tr , ' '); do
	[ "$c" = A ] || configs+=",$c,$c@base"
done
export PN_BENCH_ONLY=icount PN_BENCH_CONFIGS=$configs
export PN_BENCH_RUNS=${PN_BENCH_RUNS:-3} PN_BENCH_KILL_PROCS=${PN_BENCH_KILL_PROCS:-0}
export PN_BENCH_ICOUNT_SCALE='' PN_BENCH_RESULTS=${PN_BENCH_RESULTS:-$work/results}
export PN_BENCH_BASE_MODULES=$modules PN_BENCH_BASE_REV="$1 ($rev)"
"$here/run.sh"
# The comparison table, from the report.
sed -n '/^## Instructions per operation: this build/,/^## /p' \
	"$PN_BENCH_RESULTS/README.md" | sed '$d'
echo "(full report: $PN_BENCH_RESULTS/README.md)"
