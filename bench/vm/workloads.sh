#!/bin/sh
# Benchmarks 1-3: forkexit, jobtest, stress-ng's fork, exec and spawn
# stressors (the AIM7-shaped table) and hackbench, in the configurations of
# PN_BENCH_CONFIGS (see bench.sh), interleaved: every round runs every
# configuration once, PN_BENCH_RUNS rounds.  PN_BENCH_SHORT names the short
# benchmarks run (default forkexit,jobtest,hackbench; empty: stress-ng only).
# shellcheck source=bench/vm/lib/bench.sh
. /lib/pn/bench.sh

table=${PN_BENCH_TABLE:-workloads}
configs=$(echo "${PN_BENCH_CONFIGS:-A,B,C,D}" | tr , ' ')
forks=${PN_BENCH_FORKS:-2000}
stressors=$(echo "${PN_BENCH_STRESSORS:-fork,exec,spawn}" | tr , ' ')
stress_tasks=$(echo "${PN_BENCH_STRESS_TASKS:-1,2,4,8,16,32,64}" | tr , ' ')
stress_seconds=${PN_BENCH_STRESS_SECONDS:-2}
# More stress-ng options, e.g. a fixed seed and exec method for runs in
# guest time, where stress-ng's random choices are the noise left.
stress_args=$(echo "${PN_BENCH_STRESS_ARGS:-}" | tr , ' ')
short=$(echo "${PN_BENCH_SHORT-forkexit,jobtest,hackbench}" | tr , ' ')
runs_short() {
	case " $short " in
	*" $1 "*) return 0 ;;
	esac
	return 1
}
# hackbench: groups of 10 senders and 10 receivers passing 100-byte messages.
hackbench_args=$(echo "${PN_BENCH_HACKBENCH:--p,-g,4,-f,10,-l,100}" | tr , ' ')

cd /tmp || pn_fail "cd /tmp"
# stress-ng refuses to run its exec stressor as root: every stressor runs as
# the unprivileged user, through this wrapper (bench_in runs a program).
cat > /tmp/stress-ng-user <<'WRAPPER'
#!/bin/sh
exec su -s /bin/sh -c 'exec stress-ng "$@"' -- pnuser stress-ng "$@"
WRAPPER
chmod 755 /tmp/stress-ng-user
# Every configuration runs once a round and, to keep the configurations
# compared close in time, once per block: the short benchmarks, then each
# stressor's task counts.
run=1
while [ "$run" -le "$BENCH_RUNS" ]; do
	for cfg in $configs; do
		[ -n "$short" ] || break
		bench_config "$cfg"
		row="$table run=$run cfg=$cfg"

		if runs_short forkexit; then
			out=$(bench_in "$cfg" forkexit -q "$forks")
			[ "$(echo "$out" | bench_field errors)" = 0 ] || pn_fail "forkexit in $cfg: $out"
			bench_emit "$row test=forkexit better=higher unit=forks/s value=$(echo "$out" | bench_field per_second)"
		fi

		# jobtest needs job.ko.
		if runs_short jobtest && [ "${cfg#A}" = "$cfg" ]; then
			t0=$(bench_uptime)
			bench_in "$cfg" jobtest > /tmp/jobtest.out 2>&1 ||
				pn_fail "jobtest in $cfg: $(tail -n 5 /tmp/jobtest.out)"
			bench_emit "$row test=jobtest better=lower unit=s value=$(echo "$t0 $(bench_uptime)" | awk '{ print $2 - $1 }')"
		fi

		if runs_short hackbench; then
			# shellcheck disable=SC2086
			out=$(bench_in "$cfg" hackbench $hackbench_args 2>&1)
			secs=$(echo "$out" | sed -n 's/^Time: //p')
			[ -n "$secs" ] || pn_fail "hackbench in $cfg: $out"
			bench_emit "$row test=hackbench better=lower unit=s value=$secs"
		fi
	done

	for s in $stressors; do
		for cfg in $configs; do
			bench_config "$cfg"
			for n in $stress_tasks; do
				# shellcheck disable=SC2086 # a list of words
				out=$(bench_in "$cfg" /tmp/stress-ng-user "--$s" "$n" --timeout "$stress_seconds" --metrics-brief $stress_args 2>&1)
				# stress-ng: metrc: [pid] NAME OPS REAL USR SYS OPS/S(real) OPS/S(cpu)
				ops=$(echo "$out" | awk -v s="$s" '$2 == "metrc:" && $4 == s { print $9 * 60 }')
				[ -n "$ops" ] || pn_fail "stress-ng --$s $n in $cfg: $out"
				bench_emit "$table run=$run cfg=$cfg test=stress-ng-$s tasks=$n better=higher unit=ops/min value=$ops"
			done
		done
	done
	run=$((run + 1))
done
bench_config A
