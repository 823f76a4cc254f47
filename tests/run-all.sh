#!/bin/bash
# The whole test suite: static checks, then every VM scenario on the stock
# kernel.  Its last line is "N passed, N failed"; exit status 0 iff none failed.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
passed=0 failed=0 skipped=0

check() {
	local name=$1
	shift
	if "$@" > "$top/build/$name.log" 2>&1; then
		echo "PASS $name"
		passed=$((passed + 1))
	else
		echo "FAIL $name (log: build/$name.log)"
		sed 's/^/    /' "$top/build/$name.log" | tail -20
		failed=$((failed + 1))
	fi
}

# Adds a runner's closing "N passed, N failed" line to the totals.
add_counts() {
	if [[ $1 =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed(,\ ([0-9]+)\ skipped)?$ ]]; then
		passed=$((passed + BASH_REMATCH[1]))
		failed=$((failed + BASH_REMATCH[2]))
		skipped=$((skipped + ${BASH_REMATCH[4]:-0}))
	else
		echo "FAIL $2: no result"
		failed=$((failed + 1))
	fi
}

check checkpatch "$top/scripts/checkpatch.sh"

# Userspace unit tests, under valgrind: a leak or a bad access fails one.
for t in "$top"/build/unit/*; do
	name=unit/${t##*/}
	rc=0
	out=$(valgrind --quiet --leak-check=full --error-exitcode=99 "$t" 2>&1) || rc=$?
	if [ "$rc" != 0 ]; then
		echo "$out" | tail -20 | sed 's/^/    /'
		echo "FAIL $name (exit status $rc)"
		failed=$((failed + 1))
	fi
	add_counts "$(echo "$out" | tail -n 1)" "$name"
done

# vm_lane NAME [run.sh options] SCENARIO...|all: one boot of a kernel for the
# scenarios.
vm_lane() {
	local name=$1 log=$top/build/vm-$1.log
	shift
	echo "== VM lane: $name"
	"$top/tests/vm/run.sh" "$@" | tee "$log"
	add_counts "$(tail -n 1 "$log")" "vm-$name"
}

# What fits in CI's 90 minutes from a cold machine on 2 cores (README,
# Tests): the full matrix is `make check-kernels`, the Debian 13 install
# `make check-install`, the RT debug lane PN_LANES="... debug-rt" (its
# kernel builds in 12 minutes on an idle machine, and every scenario takes
# about 35 minutes there: more than the default lanes leave).
lanes=${PN_LANES:-stock debug kernels install debug-unload}
scale_pct=${PN_DEBUG_SCALE_PCT:-10}

has_lane() {
	[[ " $lanes " = *" $1 "* ]]
}

# The stock lane; accounting by virtual time on a nohz_full CPU (its own
# boot); and what the benchmarks stand on, on the stock kernel: the
# instruction counter (a QEMU plugin), and 2 vCPUs under -icount.
stock_lanes() {
	local check
	has_lane stock || return 0
	vm_lane stock all
	vm_lane stock-vtime --append nohz_full=1 --env PN_VTIME_LANE=1 job_vtime
	for check in icount-plugin icount-smp; do
		echo "== $check"
		"$top/tests/check-$check.sh" 2>&1 | tee "$top/build/$check.log"
		add_counts "$(tail -n 1 "$top/build/$check.log")" "$check"
	done
}

# copy_tree DIR: the work tree's files (build/ aside) copied into DIR, for a
# lane that builds while another one may build in the work tree.
copy_tree() {
	rm -rf "$1" && mkdir -p "$1" &&
		(cd "$top" && git ls-files -z -c -o --exclude-standard | grep -z -v '^build/' |
			tar --null -T - --ignore-failed-read -cf - 2>/dev/null) | tar -xf - -C "$1"
}

# debug_lane NAME TREE [run.sh options SCENARIO...]: the modules of a copy
# of the work tree built against the debug kernel in TREE (KASAN, lockdep,
# atomic-sleep checks, kmemleak, UBSAN, failslab) as the test build
# (PNOTIFY_TEST_DELAYS: its knobs are off unless a scenario sets them), the
# scenarios (default all) on it.  Loops are scaled down: a fork costs ~15x
# more there.
debug_lane() {
	local name=$1 tree=$2 dbg=$top/build/$1
	shift 2
	if [ -z "$tree" ]; then
		echo "FAIL $name lane: the debug kernel did not build"
		failed=$((failed + 1))
	elif ! { copy_tree "$dbg/src" &&
		make -C "$dbg/src" --no-print-directory modules KDIR="$tree" BUILD="$dbg" \
			PNOTIFY_TEST_DELAYS=y; } > "$top/build/$name-modules.log" 2>&1; then
		echo "FAIL $name lane: modules did not build (build/$name-modules.log)"
		failed=$((failed + 1))
	else
		ln -sfn ../bin "$dbg/bin"
		vm_lane "$name" --kernel "$tree/arch/x86/boot/bzImage" --build "$dbg" \
			--timeout 1200 --env "PN_SCALE_PCT=$scale_pct" "${@:-all}"
	fi
}

# The debug lane in two boots, one in each stream: every scenario but
# jobtest's, and jobtest's (about 20 minutes there, PN_DEBUG_SECOND_SCENARIOS)
# as the debug-jobtest lane, in the second stream after debug-unload.
debug_second_boot=${PN_DEBUG_SECOND_SCENARIOS:-job_jobtest job_compat32}

debug_first_boot() {
	local s
	for s in $("$top/tests/vm/run.sh" --list); do
		[[ " $debug_second_boot " = *" $s "* ]] || echo "$s"
	done
}

debug_lanes() {
	if has_lane debug; then
		# shellcheck disable=SC2046 # a list of scenarios
		debug_lane debug "$("$top/scripts/build-debug-kernel.sh")" $(debug_first_boot)
	fi
	# PREEMPT_RT, where a sleeping lock taken by a hook is a bug: every
	# scenario (PN_DEBUG_RT_SCENARIOS for a part).
	if has_lane debug-rt; then
		# shellcheck disable=SC2086 # a list of scenarios
		debug_lane debug-rt "$("$top/scripts/build-debug-kernel.sh" --rt)" \
			${PN_DEBUG_RT_SCENARIOS:-}
	fi
}

# The kernels lane: a compact pass on the Debian kernels other than the
# stock one (tests/kernels/kernels.list), each built against with its
# release's compiler; `make check-kernels` runs every scenario on each.
kernels_lane() {
	has_lane kernels || return 0
	echo "== kernels lane"
	# shellcheck disable=SC2086 # a list of scenarios
	"$top/tests/kernels/run.sh" --kernels "${PN_CHECK_KERNELS:-5.10,6.12,6.12-rt}" \
		${PN_CHECK_KERNEL_SCENARIOS:-smoke pnotify_callbacks pnotify_hooks pnotify_kit_refill job_jobtest keyring_bridge} |
		tee "$top/build/kernels.log"
	add_counts "$(tail -n 1 "$top/build/kernels.log")" kernels
}

# The install lane: the Debian packages installed with apt in a Debian 12
# system (debootstrap, cached), booted with systemd, jobtest there.
install_lane() {
	has_lane install || return 0
	echo "== install lane"
	make -C "$top" --no-print-directory check-install \
		INSTALL_RELEASES="${PN_INSTALL_RELEASES:-bookworm}" 2>&1 | tee "$top/build/install.log"
	add_counts "$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$top/build/install.log" | tail -n 1)" install
}

# The unload races, their windows widened by the test build's knobs, on the
# debug kernel booted with slab poisoning and full preemption (they skip
# themselves in the debug lane's boot), and the unload with a member held
# in its exit.  PN_EXPECT_TEST_BUILD=1: a race scenario that finds no
# knobs fails instead of running unwidened.  In the second stream, after
# the install lane: build-debug-kernel.sh is cached, and locked while it
# builds.
debug_unload_lane() {
	has_lane debug-unload || return 0
	debug_lane debug-unload "$("$top/scripts/build-debug-kernel.sh")" \
		--append "preempt=full slub_debug=FZP" --env PN_EXPECT_TEST_BUILD=1 \
		job_unload_race pnotify_unload_inflight pnotify_unload_exiting
}

debug_jobtest_lane() {
	has_lane debug || return 0
	# shellcheck disable=SC2086 # a list of scenarios
	debug_lane debug-jobtest "$("$top/scripts/build-debug-kernel.sh")" $debug_second_boot
}

# Two streams of lanes at once, one per core: a TCG guest runs on one host
# thread, so the second core would idle through a lane.  The second stream's
# lines are prefixed "[stream 2]"; its totals come back through a file.
stream_counts=$top/build/lanes-other.counts
rm -f "$stream_counts"
(
	passed=0 failed=0 skipped=0
	kernels_lane
	install_lane
	debug_unload_lane
	debug_jobtest_lane
	echo "$passed $failed $skipped" > "$stream_counts"
) 2>&1 | sed -u 's/^/[stream 2] /' &
other_stream=$!

stock_lanes
debug_lanes

wait "$other_stream"
if read -r p f s < "$stream_counts"; then
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
else
	echo "FAIL kernels, install, debug-unload and debug-jobtest lanes: no result"
	failed=$((failed + 1))
fi

echo "$passed passed, $failed failed${skipped:+, $skipped skipped}"
[ "$failed" = 0 ]
