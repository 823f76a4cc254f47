#!/bin/sh
# Benchmark 5: jobs against cgroup v2 in the same kernel, interleaved,
# PN_BENCH_RUNS rounds.
#  - fork+exit+wait (forkexit) with no module in the root cgroup (none),
#    in a job with pnotify and job loaded (job), and with no module in a
#    child cgroup with the pids controller (cgroup);
#  - killing PN_BENCH_KILL_PROCS sleeping processes and waiting until they
#    are gone: killjid + waitjid against cgroup.kill + "populated 0".
# shellcheck source=bench/vm/lib/bench.sh
. /lib/pn/bench.sh

forks=${PN_BENCH_FORKS:-2000}
kill_procs=${PN_BENCH_KILL_PROCS:-1000}
cg=/sys/fs/cgroup/bench
echo +pids > /sys/fs/cgroup/cgroup.subtree_control || pn_fail "enable the pids controller"
mkdir -p "$cg"

run=1
while [ "$run" -le "$BENCH_RUNS" ]; do
	bench_config A
	out=$(forkexit -q "$forks")
	bench_emit "cgroup run=$run test=forkexit cfg=none better=higher unit=forks/s value=$(echo "$out" | bench_field per_second)"
	# shellcheck disable=SC2016
	out=$(sh -c 'echo $$ > $1/cgroup.procs && exec forkexit -q $2' sh "$cg" "$forks")
	bench_emit "cgroup run=$run test=forkexit cfg=cgroup better=higher unit=forks/s value=$(echo "$out" | bench_field per_second)"
	out=$(procfarm kill cgroup "$kill_procs") || pn_fail "procfarm kill cgroup: $out"
	bench_emit "cgroup run=$run test=kill-$kill_procs cfg=cgroup better=lower unit=s value=$(echo "$out" | bench_field seconds)"

	bench_config C
	out=$(bench_in C forkexit -q "$forks")
	bench_emit "cgroup run=$run test=forkexit cfg=job better=higher unit=forks/s value=$(echo "$out" | bench_field per_second)"
	out=$(procfarm kill job "$kill_procs") || pn_fail "procfarm kill job: $out"
	bench_emit "cgroup run=$run test=kill-$kill_procs cfg=job better=lower unit=s value=$(echo "$out" | bench_field seconds)"
	run=$((run + 1))
done
bench_config A
rmdir "$cg"
