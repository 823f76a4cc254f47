#!/bin/bash
# The whole test suite: static checks, then every VM scenario on the stock
# kernel.  Its last line is "N passed, N failed"; exit status 0 iff none failed.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
passed=0 failed=0

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
	if [[ $1 =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
		passed=$((passed + BASH_REMATCH[1]))
		failed=$((failed + BASH_REMATCH[2]))
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

"$top/tests/vm/run.sh" "$@" all | tee "$top/build/vm.log"
add_counts "$(tail -n 1 "$top/build/vm.log")" vm

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
