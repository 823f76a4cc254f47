#!/bin/sh
# Benchmarks 4 and 7, in the kernel (pnotify_bench.ko), for every sync=
# mode, interleaved: every round runs every mode once, PN_BENCH_RUNS rounds.
#  - the reader/writer table of the 2001 rwsem benchmarks: readers dispatch
#    events, writers register and unregister subscribers;
#  - the time of one dispatch, against one fork+exit+wait (forkexit) in the
#    same configuration: B (the hooks' lookup of a task nobody follows), C
#    and D (the whole dispatch for a task in a job, one and two subscribers);
#  - the share of forkexit's CPU time in the hooks, from perf samples.
# shellcheck source=bench/vm/lib/bench.sh
. /lib/pn/bench.sh

modes=$(echo "${PN_BENCH_SYNC_MODES:-rwsem,percpu,srcu}" | tr , ' ')
# readers/writers: the seed's rws-rw, -ro, -wo, -r1, -w1, -r2.
rw_tests=${PN_BENCH_RW_TESTS:-4/2 4/0 0/4 1/0 0/1 2/0}
rw_msecs=${PN_BENCH_RW_MSECS:-1000}
cost_loops=${PN_BENCH_COST_LOOPS:-100000}
forks=${PN_BENCH_FORKS:-2000}

vcpus=$(grep -c ^processor /proc/cpuinfo)
run=1
while [ "$run" -le "$BENCH_RUNS" ]; do
	for sync in $modes; do
		bench_config "B/$sync"
		pn_load pnotify_bench
		for t in $rw_tests; do
			r=${t%/*} w=${t#*/}
			out=$(bench_module_run "rw $r $w $rw_msecs")
			bench_emit "rw run=$run sync=$sync vcpus=$vcpus readers=$r writers=$w msecs=$rw_msecs" \
				"reader_ops=$(echo "$out" | bench_field reader_ops)" \
				"writer_ops=$(echo "$out" | bench_field writer_ops)"
		done
		pn_unload pnotify_bench

		for cfg in B C D; do
			bench_config "$cfg/$sync"
			pn_load pnotify_bench
			# The dispatch is timed for the shell that writes the command.
			# shellcheck disable=SC2016 # $1 is the inner shell's
			out=$(bench_in "$cfg" sh -c '. /lib/pn/bench.sh; bench_module_run "cost $1"' cost "$cost_loops")
			fork=$(bench_in "$cfg" forkexit -q "$forks" | bench_field per_second)
			bench_emit "cost run=$run sync=$sync cfg=$cfg" \
				"followed=$(echo "$out" | bench_field followed)" \
				"ns_per_dispatch=$(echo "$out" | bench_field ns_per_dispatch)" \
				"forks_per_second=$fork"
			pn_unload pnotify_bench
		done
	done

	# The share of forkexit's CPU samples in the hooks (the modules' code,
	# the kprobe and ftrace glue), idle excluded, default sync=.
	for cfg in B C D; do
		bench_config "$cfg"
		bench_in "$cfg" perf record -q -a -e cpu-clock -F 1000 -o /tmp/perf.data -- forkexit -q "$forks" > /dev/null 2>&1 ||
			pn_fail "perf record in $cfg"
		perf report -i /tmp/perf.data --stdio --sort sym -g none 2>/dev/null > /tmp/perf.txt
		# Lines: "  0.16%  [k] pn_run_fork".
		shares=$(awk '$1 ~ /%$/ {
				p = $1 + 0
				if ($NF ~ /^(native_safe_halt|default_idle|cpuidle_idle_call|do_idle)$/) idle += p
				else if ($NF ~ /^(pn_|job_|kb_|kprobe_ftrace_handler$|get_kprobe$|ftrace_trampoline$)/) hooks += p
			} END { printf "idle_pct=%.2f hooks_pct_of_busy=%.3f", idle, 100 * hooks / (100 - idle) }' /tmp/perf.txt)
		bench_emit "profile run=$run cfg=$cfg $shares"
	done
	run=$((run + 1))
done
bench_config A
