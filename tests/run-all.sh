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

# True if the only failure in a lane's log is a splat outside every scenario
# (the debug kernel has been seen to splat in early boot, under TCG, before
# any module or scenario ran).
only_boot_failed() {
	grep -q '^FAIL boot/shutdown' "$1" && [ "$(grep -c '^FAIL ' "$1")" = 1 ]
}

# vm_lane NAME [run.sh options] SCENARIO...|all: one boot of a kernel for the
# scenarios; booted once more when only the boot itself failed, so that the
# scenarios are judged at all.
vm_lane() {
	local name=$1 log=$top/build/vm-$1.log
	shift
	echo "== VM lane: $name"
	"$top/tests/vm/run.sh" "$@" | tee "$log"
	if only_boot_failed "$log"; then
		echo "== VM lane: $name: a splat outside every scenario; booting once more"
		"$top/tests/vm/run.sh" "$@" | tee "$log"
	fi
	add_counts "$(tail -n 1 "$log")" "vm-$name"
}

# What fits in 75 minutes from a cold machine on 2 cores (README, Tests):
# the full matrix is `make check-kernels`, the Debian 13 install `make
# check-install`, the RT debug lane PN_LANES="... debug-rt" (its kernel
# alone takes over an hour to build cold).
lanes=${PN_LANES:-stock debug kernels install}
scale_pct=${PN_DEBUG_SCALE_PCT:-10}

# The RT debug kernel builds in the background from the start, on the core
# that a VM lane leaves idle (TCG runs on one).
if [[ " $lanes " = *" debug-rt "* ]]; then
	nice -n 15 "$top/scripts/build-debug-kernel.sh" --rt > "$top/build/debug-rt-kernel.path" \
		2> "$top/build/debug-rt-kernel.log" &
	rt_kernel_build=$!
fi

[[ " $lanes " = *" stock "* ]] && vm_lane stock all

# The benchmarks' instruction counter (a QEMU plugin), on the stock kernel.
if [[ " $lanes " = *" stock "* ]]; then
	echo "== icount plugin"
	"$top/tests/check-icount-plugin.sh" 2>&1 | tee "$top/build/icount-plugin.log"
	add_counts "$(tail -n 1 "$top/build/icount-plugin.log")" icount-plugin
fi

# debug_lane NAME TREE [SCENARIO...]: the modules built against the debug
# kernel in TREE (KASAN, lockdep, atomic-sleep checks, kmemleak, UBSAN,
# failslab), the scenarios (default all) on it.  Loops are scaled down: a
# fork costs ~15x more there.
debug_lane() {
	local name=$1 tree=$2 dbg=$top/build/$1
	shift 2
	if [ -z "$tree" ]; then
		echo "FAIL $name lane: the debug kernel did not build"
		failed=$((failed + 1))
	elif ! make -C "$top" --no-print-directory modules KDIR="$tree" BUILD="$dbg" \
		> "$top/build/$name-modules.log" 2>&1; then
		echo "FAIL $name lane: modules did not build (build/$name-modules.log)"
		failed=$((failed + 1))
	else
		ln -sfn ../bin "$dbg/bin"
		vm_lane "$name" --kernel "$tree/arch/x86/boot/bzImage" --build "$dbg" \
			--timeout 1200 --env "PN_SCALE_PCT=$scale_pct" "${@:-all}"
	fi
}
[[ " $lanes " = *" debug "* ]] && debug_lane debug "$("$top/scripts/build-debug-kernel.sh")"
# PREEMPT_RT, where a sleeping lock taken by a hook is a bug: the scenarios
# that fork, exec and exit through every hook and reload the modules.
if [[ " $lanes " = *" debug-rt "* ]]; then
	wait "$rt_kernel_build" || cat "$top/build/debug-rt-kernel.log"
	debug_lane debug-rt "$(cat "$top/build/debug-rt-kernel.path")" \
		${PN_DEBUG_RT_SCENARIOS:-smoke pnotify_callbacks pnotify_reload job_jobtest job_race keyring_bridge}
fi

# The kernels lane: a compact pass on the Debian kernels other than the
# stock one (tests/kernels/kernels.list), each built against with its
# release's compiler; `make check-kernels` runs every scenario on each.
if [[ " $lanes " = *" kernels "* ]]; then
	echo "== kernels lane"
	"$top/tests/kernels/run.sh" --kernels "${PN_CHECK_KERNELS:-5.10,6.12,6.12-rt}" \
		${PN_CHECK_KERNEL_SCENARIOS:-smoke pnotify_callbacks job_jobtest keyring_bridge} |
		tee "$top/build/kernels.log"
	add_counts "$(tail -n 1 "$top/build/kernels.log")" kernels
fi

# The install lane: the Debian packages installed with apt in a Debian 12
# system (debootstrap, cached), booted with systemd, jobtest there.
if [[ " $lanes " = *" install "* ]]; then
	echo "== install lane"
	make -C "$top" --no-print-directory check-install \
		INSTALL_RELEASES="${PN_INSTALL_RELEASES:-bookworm}" 2>&1 | tee "$top/build/install.log"
	add_counts "$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$top/build/install.log" | tail -n 1)" install
fi

echo "$passed passed, $failed failed${skipped:+, $skipped skipped}"
[ "$failed" = 0 ]
