#!/bin/bash
# make bench: boots the VM once per comparison, runs the benchmark scenarios
# of bench/vm/ and writes bench/results/ (bench/report.py).
#
# env: PN_BENCH_QUICK=1      a few minutes: the deterministic lane (icount)
#                            alone, 3 rounds of 1,000 operations
#      PN_BENCH_RUNS=N       rounds of every comparison (default 5; scale 3)
#      PN_BENCH_ONLY="a b"   only these comparisons: icount smp workloads
#                            kernel sync cgroup scale
#      PN_BENCH_RESULTS=DIR  where to write (default bench/results)
#      PN_BENCH_BASE_MODULES=DIR, PN_BENCH_BASE_REV=REV
#      PN_BENCH_PROFILE=1    the icount lane also counts the kernel's
#                            instructions by function: RESULTS/profile.md
#                            another build's modules, for configurations
#                            CFG@base (bench/compare.sh)
#      PN_BENCH_*            passed to the scenarios (see bench/vm/*.sh)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
results=${PN_BENCH_RESULTS:-$here/results}
quick=${PN_BENCH_QUICK:-0}

# Scenario settings: PN_BENCH_* from the caller, else the full or quick ones.
declare -A settings=(
	[PN_BENCH_RUNS]=5 [PN_BENCH_FORKS]=1000 [PN_BENCH_STRESS_SECONDS]=1
	[PN_BENCH_RW_MSECS]=1000 [PN_BENCH_KILL_PROCS]=1000
	[PN_BENCH_SCALE]=jobs:1,jobs:100,jobs:10000,procs:10000
	[PN_BENCH_ICOUNT_OPS]=2000 [PN_BENCH_ICOUNT_SCALE]=jobs:10000,procs:10000
)
if [ "$quick" = 1 ]; then
	settings+=([PN_BENCH_RUNS]=2 [PN_BENCH_FORKS]=500
		[PN_BENCH_ICOUNT_OPS]=1000 [PN_BENCH_ICOUNT_SCALE]=''
		[PN_BENCH_STRESS_SECONDS]=1 [PN_BENCH_STRESS_TASKS]=1,8,64
		[PN_BENCH_RW_MSECS]=300 [PN_BENCH_SCALE]=jobs:1,jobs:100,procs:100)
fi
while IFS='=' read -r k v; do
	settings[$k]=$v
done < <(env | grep -E '^PN_BENCH_[A-Z_]+=' | grep -vE '^PN_BENCH_(QUICK|ONLY|RESULTS|BASE_MODULES|BASE_REV)=')

# comparison: scenario, extra settings, VM memory (MiB), timeout (s)
declare -A scenario=([icount]=icount [smp]=workloads [workloads]=workloads
	[sync]=workloads [kernel]=kernel [cgroup]=cgroup [scale]=scale)
declare -A extra=(
	[sync]="PN_BENCH_TABLE=sync;PN_BENCH_CONFIGS=A,D/rwsem,D/percpu,D/srcu;PN_BENCH_STRESSORS=fork;PN_BENCH_STRESS_TASKS=8"
	[smp]="PN_BENCH_TABLE=smp;PN_BENCH_CONFIGS=A,D,pids;PN_BENCH_SHORT=;PN_BENCH_STRESSORS=fork,exec;PN_BENCH_STRESS_TASKS=2,8;PN_BENCH_STRESS_SECONDS=4;PN_BENCH_STRESS_ARGS=--seed,1,--exec-method,execve,--exec-fork-method,fork"
)
# 10,000 sleeping processes need more than the default 1 GiB.
declare -A memory=([scale]=3072 [icount]=3072 [smp]=2048)
# The deterministic lane counts instructions (bench/icount): one vCPU whose
# guest time follows the instruction count (-icount shift=0: 1 ns each;
# sleep=off: an idle guest skips ahead to its next timer), and a kernel
# whose layout does not change from boot to boot.  The stress-ng table on
# 2 vCPUs (smp) runs under -icount too, in guest time, with Debian 13's
# QEMU: Debian 12's (7.2) hangs in a 2-vCPU boot under -icount.  The other
# comparisons boot 2 vCPUs without -icount, timed by the host.
plugin=$repo/build/icount/pn_icount.so
declare -A smp=([icount]=1)
icount_append='nokaslr norandmaps randomize_kstack_offset=off transparent_hugepage=never'
declare -A append=([icount]=$icount_append [smp]=$icount_append)
declare -A qemu=([smp]=$repo/scripts/qemu-trixie.sh)
# Building 10,000 jobs and processes takes minutes a round, and a guest
# second on 2 vCPUs under -icount about 6 s of the host: 3 rounds unless
# PN_BENCH_RUNS says otherwise.
if [ -z "${PN_BENCH_RUNS:-}" ] && [ "$quick" = 0 ]; then
	extra[scale]="PN_BENCH_RUNS=3"
	extra[smp]+=";PN_BENCH_RUNS=3"
fi
# The deterministic lane needs 3 rounds for a median that one disturbed
# round cannot move.
[ -n "${PN_BENCH_RUNS:-}" ] || [ "$quick" = 0 ] || extra[icount]="PN_BENCH_RUNS=3"
comparisons=${PN_BENCH_ONLY:-icount smp workloads kernel sync cgroup scale}
# Under -icount a guest second costs a billion emulated instructions: the
# quick run is the deterministic lane alone.
[ -n "${PN_BENCH_ONLY:-}" ] || [ "$quick" = 0 ] || comparisons=icount
[ -r "$plugin" ] || { echo "bench: $plugin missing (make icount-plugin)" >&2; exit 2; }

env_arg() {
	local k out=''
	for k in "${!settings[@]}"; do
		out+="$k=${settings[$k]};"
	done
	echo "${out}${extra[$1]:-}"
}

rm -rf "$results/logs"
mkdir -p "$results/logs"
meta=$results/logs/meta.txt
{
	echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
	echo "commit: $(git -C "$repo" rev-parse --short HEAD)$(git -C "$repo" diff --quiet HEAD -- src tests bench ':!bench/results' || echo ' (with changes)')"
	echo "kernel: $(cat "$repo/build/kver")"
	echo "host: $(nproc) CPUs, $(uname -r), qemu $(qemu-system-x86_64 --version | head -n 1 | awk '{ print $4 }')"
	if [ -n "${PN_BENCH_BASE_REV:-}" ]; then
		echo "command: make bench-compare BASE=$PN_BENCH_BASE_REV"
	else
		echo "command: make bench$([ "$quick" = 1 ] && echo ' PN_BENCH_QUICK=1')${PN_BENCH_ONLY:+ PN_BENCH_ONLY=\"$PN_BENCH_ONLY\"}"
	fi
} > "$meta"

start=$SECONDS
failed=0
for c in $comparisons; do
	[ -n "${scenario[$c]:-}" ] || { echo "bench: unknown comparison $c" >&2; exit 2; }
	args=(--scenarios "$here/vm" --timeout 3600 --env "$(env_arg "$c")")
	[ -z "${PN_BENCH_BASE_MODULES:-}" ] || args+=(--add "$PN_BENCH_BASE_MODULES=/lib/pn/modules-base")
	[ -z "${append[$c]:-}" ] || args+=(--append "${append[$c]}")
	args+=("${scenario[$c]}")
	qemu_args=''
	case $c in
	icount)
		qemu_args="-icount shift=0,sleep=off -plugin $plugin,out=$results/logs/$c.marks"
		[ "${PN_BENCH_PROFILE:-0}" != 1 ] ||
			qemu_args+=",profile=$results/logs/$c.profile" ;;
	smp) qemu_args="-icount shift=0,sleep=off" ;;
	esac
	vm_env=(PN_VM_MEM="${memory[$c]:-1024}" PN_VM_SMP="${smp[$c]:-2}" PN_VM_QEMU_ARGS="$qemu_args"
		PN_VM_QEMU="${qemu[$c]:-qemu-system-x86_64}")
	echo "== $c: tests/vm/run.sh ${args[*]}"
	{
		echo "run $c: $(printf '%q ' "${vm_env[@]}")tests/vm/run.sh $(printf '%q ' "${args[@]}")"
		echo "qemu $c: $("${qemu[$c]:-qemu-system-x86_64}" --version 2>/dev/null | head -n 1)"
		echo "load $c: $(cut -d' ' -f1-3 /proc/loadavg) (host load average before)"
	} >> "$meta"
	t0=$SECONDS
	# (-a: stderr may be a file, which tee must not truncate)
	out=$(env "${vm_env[@]}" "$repo/tests/vm/run.sh" "${args[@]}" | tee -a /dev/stderr) || failed=1
	# run.sh names its log "booting ... (log: PATH)".
	cp "$(echo "$out" | sed -n 's/^booting .*(log: \(.*\))$/\1/p')" "$results/logs/$c.log"
	{
		echo "result $c: $(echo "$out" | tail -n 1)"
		echo "time $c: $((SECONDS - t0)) s"
	} >> "$meta"
done
echo "time total: $((SECONDS - start)) s" >> "$meta"
python3 "$here/report.py" "$results"
if [ -f "$results/logs/icount.profile" ]; then
	python3 "$here/icount/profile.py" "$results/logs/icount.log" \
		"$results/logs/icount.profile" 40 > "$results/profile.md"
	echo "bench: kernel instructions by function in $results/profile.md"
fi
exit $failed
