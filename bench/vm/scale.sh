#!/bin/sh
# Benchmark 6: the cost of a fork (forkexit in a job, configuration
# PN_BENCH_SCALE_CONFIG) with 1, 100 and 10,000 jobs alive, and with 10,000
# processes in its own job; every round builds each population anew.
# shellcheck source=bench/vm/lib/bench.sh
. /lib/pn/bench.sh

forks=${PN_BENCH_FORKS:-2000}
cfg=${PN_BENCH_SCALE_CONFIG:-D}
populations=$(echo "${PN_BENCH_SCALE:-jobs:1,jobs:100,jobs:10000,procs:10000}" | tr , ' ')

# hold-and-fork [HOLD-ARGS...]: forkexit while procfarm hold HOLD-ARGS keeps
# its sleepers alive (in the caller's job, or with -J in jobs of their own).
cat > /tmp/hold-and-fork <<'SCRIPT'
#!/bin/sh
. /lib/pn/lib.sh
if [ $# -gt 0 ]; then
	procfarm hold "$@" > /tmp/ready &
	holder=$!
	pn_wait_file /tmp/ready
fi
forkexit -q "$FORKS"
if [ $# -gt 0 ]; then
	kill -TERM "$holder"
	wait "$holder"
	rm -f /tmp/ready
fi
SCRIPT
chmod 755 /tmp/hold-and-fork
export FORKS="$forks"

bench_config "$cfg"
run=1
while [ "$run" -le "$BENCH_RUNS" ]; do
	for p in $populations; do
		n=${p#*:}
		case $p in
		# forkexit's own job counts: n - 1 more jobs.
		jobs:1) args='' ;;
		jobs:*) args="-J $((n - 1))" ;;
		# n - 1 sleepers in forkexit's job (with its shell and holder).
		procs:*) args=$((n - 1)) ;;
		*) pn_fail "unknown population $p" ;;
		esac
		# shellcheck disable=SC2086
		out=$(bench_in "$cfg" /tmp/hold-and-fork $args)
		bench_emit "scale run=$run test=forkexit cfg=${p%:*}-$n better=higher unit=forks/s value=$(echo "$out" | bench_field per_second)"
	done
	run=$((run + 1))
done
bench_config A
