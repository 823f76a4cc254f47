#!/bin/sh
# The deterministic lane: guest instructions per operation, counted by the
# QEMU plugin bench/icount between the markers of opcount and procfarm.
# bench/run.sh boots this with 1 vCPU, -icount shift=0,sleep=off and the
# kernel parameters that keep the counts repeatable (no KASLR, no random
# mmap or kernel stack offset, no transparent hugepages).  Every round runs
# every configuration (PN_BENCH_CONFIGS, see bench.sh) once, each operation
# of PN_BENCH_OPS in turn, PN_BENCH_RUNS rounds, every second one in the
# reverse order, so that what a configuration leaves to the next (its
# kill's slab state, say) weighs alike on two that are compared.  A round:
#  - opcount fork|exec|thread PN_BENCH_ICOUNT_OPS (after a warm-up, with the
#    last pid reset, so that every run allocates the same pids), each
#    operation followed by a user-space loop of 0 to PN_BENCH_ICOUNT_JITTER
#    - 1 turns (128; a fixed pseudo-random sequence), so that the timer
#    tick does not fall in the same places of every operation (see
#    opcount.c);
#  - in E and F, opcount job 1: a job's start and end, in F the first
#    since the hooks disarmed, which arms them;
#  - killing PN_BENCH_KILL_PROCS sleeping processes (0: not measured) and
#    waiting for the end: cgroup.kill + "populated 0" in pids, killjid +
#    waitjid in C and D;
#  - with PN_BENCH_ICOUNT_SCALE (jobs:N,procs:N), opcount fork in D while N
#    jobs are alive, or N processes sleep in its own job.
# Rows: "bench: icount run=R cfg=CFG op=OP ops=N marks=K seconds=S"; the
# host pairs each row with the plugin's next K counter lines.
# shellcheck source=bench/vm/lib/bench.sh
. /lib/pn/bench.sh

configs=$(echo "${PN_BENCH_CONFIGS:-A,B,F,E,C,D,pids}" | tr , ' ')
ops=$(echo "${PN_BENCH_OPS:-fork,exec,thread}" | tr , ' ')
n=${PN_BENCH_ICOUNT_OPS:-2000}
jitter=${PN_BENCH_ICOUNT_JITTER:-128}
kill_procs=${PN_BENCH_KILL_PROCS:-1000}
populations=$(echo "${PN_BENCH_ICOUNT_SCALE:-}" | tr , ' ')
# Every run starts from this pid, above whatever sleeps (the populations).
first_pid=100000

echo never > /sys/kernel/mm/transparent_hugepage/enabled
# PN_BENCH_SLAB_KEEP=N, a diagnosis: every slab cache keeps N empty slabs
# (its min_partial) instead of giving them back to the page allocator, so
# that the count leaves out the churn of new slabs, each zeroed a byte an
# instruction (init_on_alloc).  That churn is most of the noise between
# rounds, but a cost too: a module that holds objects longer makes more.
if [ "${PN_BENCH_SLAB_KEEP:-0}" -gt 0 ]; then
	for f in /sys/kernel/slab/*/min_partial; do
		echo "$PN_BENCH_SLAB_KEEP" > "$f" || pn_fail "$f"
	done
fi
echo 4194304 > /proc/sys/kernel/pid_max || pn_fail "pid_max"

# A sleeper holds first_pid for the whole lane.  The pid table (an IDR)
# frees a node once no pid under it is in use: a run's children, alone in
# the 4,096 pids above first_pid, would each allocate and free that node
# when nothing else holds one there, and what does depended on what ran
# before (opcount's own pid, after a kill's 1,000 pids no longer there):
# 700 to 850 instructions a fork more in the configuration after a kill.
echo $((first_pid - 1)) > /proc/sys/kernel/ns_last_pid || pn_fail "ns_last_pid"
sleep 1000000 &
pid_pin=$!
[ "$pid_pin" = "$first_pid" ] || pn_fail "the pid pin got pid $pid_pin, not $first_pid"

# hold_and_count HOLD-ARGS: opcount fork while procfarm hold HOLD-ARGS keeps
# its sleepers alive (in the caller's job, or with -J in jobs of their own).
cat > /tmp/hold-and-count <<'SCRIPT'
#!/bin/sh
. /lib/pn/lib.sh
procfarm hold "$@" > /tmp/ready &
holder=$!
pn_wait_file /tmp/ready
opcount -j "$JITTER" -P "$FIRST_PID" fork "$OPS"
rc=$?
kill -TERM "$holder"
wait "$holder"
rm -f /tmp/ready
exit $rc
SCRIPT
chmod 755 /tmp/hold-and-count
export FIRST_PID="$first_pid" OPS="$n" JITTER="$jitter"

# emit ROW OUTPUT: a result row from a program's output.
emit() {
	for f in marks seconds; do
		v=$(echo "$2" | bench_field $f)
		[ -n "$v" ] || pn_fail "$1: no $f in: $2"
		set -- "$1 $f=$v" "$2"
	done
	bench_emit "icount $1"
}

# With PN_BENCH_PROFILE=1, the kernel's text symbols for
# bench/icount/profile.py (Debian's System.map is a stub), gzipped in base64;
# the modules' after each configuration is set up (a reload may move them).
dump_symbols() {
	[ "${PN_BENCH_PROFILE:-0}" = 1 ] || return 0
	echo "bench-$1 begin"
	grep -E "$2" /proc/kallsyms | gzip -c | base64
	echo "bench-$1 end"
}
dump_symbols kallsyms ' [tT] [^[]*$'

# The first runs after boot count more (the boot's deferred work): one
# unmarked round of every operation first.
bench_config A
for op in $ops; do
	opcount -u -P "$first_pid" "$op" "$n" > /dev/null || pn_fail "warm-up: opcount $op"
done
# A kill's thousand processes leave the slab caches in another state than
# the boot's: with slabs kept, the configurations counted before the first
# kill ran ~650 instructions a fork more in the slab's slow paths than
# those after it.  So the warm-up makes and reaps as many first.
if [ "$kill_procs" -gt 0 ]; then
	procfarm hold "$kill_procs" > /tmp/ready &
	pn_wait_file /tmp/ready
	kill -TERM $!
	wait $! || pn_fail "warm-up: procfarm hold $kill_procs"
	rm -f /tmp/ready
fi

reversed=
for cfg in $configs; do
	reversed="$cfg $reversed"
done
run=1
while [ "$run" -le "$BENCH_RUNS" ]; do
	order=$configs
	[ $((run % 2)) -eq 1 ] || order=$reversed
	for cfg in $order; do
		bench_config "$cfg"
		dump_symbols modsyms ' [tT] .*\['
		for op in $ops; do
			out=$(bench_in "$cfg" opcount -j "$jitter" -P "$first_pid" "$op" "$n") ||
				pn_fail "opcount $op in $cfg: $out"
			emit "run=$run cfg=$cfg op=$op ops=$n" "$out"
		done
		case ${cfg%%[/@]*} in
		E|F)
			out=$(opcount -w 0 -P "$first_pid" job 1) ||
				pn_fail "opcount job in $cfg: $out"
			emit "run=$run cfg=$cfg op=job ops=1" "$out" ;;
		esac
		[ "$kill_procs" -gt 0 ] || continue
		case ${cfg%%[/@]*} in
		pids) kind=cgroup ;;
		C|D) kind=job ;;
		*) continue ;;
		esac
		out=$(procfarm kill "$kind" "$kill_procs") || pn_fail "procfarm kill $kind: $out"
		emit "run=$run cfg=$cfg op=kill-$kill_procs ops=1" "$out"
	done
	for p in $populations; do
		m=${p#*:}
		case $p in
		# opcount's own job counts: m - 1 more jobs.
		jobs:*) args="-J $((m - 1))" ;;
		# m - 1 sleepers in opcount's job.
		procs:*) args=$((m - 1)) ;;
		*) pn_fail "unknown population $p" ;;
		esac
		bench_config D
		dump_symbols modsyms ' [tT] .*\['
		# shellcheck disable=SC2086
		out=$(bench_in D /tmp/hold-and-count $args) || pn_fail "$p: $out"
		emit "run=$run cfg=D-${p%:*}-$m op=fork ops=$n" "$out"
	done
	run=$((run + 1))
done
bench_config A
kill "$pid_pin"
