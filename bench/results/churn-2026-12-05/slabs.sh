#!/bin/sh
# New and freed slabs by cache, and pages allocated, in 2,000
# fork+exit+wait of opcount, configurations interleaved (NOTE.md).  Run
# from a copy of bench/vm with this file added:
#   cp -r bench/vm /tmp/churn && cp bench/results/churn-2026-12-05/slabs.sh /tmp/churn/
#   PN_VM_MEM=3072 PN_VM_SMP=1 PN_VM_QEMU_ARGS="-icount shift=0,sleep=off" \
#       tests/vm/run.sh --scenarios /tmp/churn --timeout 800 \
#       --append "nokaslr norandmaps randomize_kstack_offset=off transparent_hugepage=never" slabs
# The kprobes read struct kmem_cache's name at offset 96: Debian's 6.1 only.
# shellcheck source=bench/vm/lib/bench.sh
. /lib/pn/bench.sh
T=/sys/kernel/tracing
mount -t tracefs none $T 2>/dev/null
echo 'p:newslab allocate_slab name=+0(+96(%di)):string' >> $T/kprobe_events ||
	pn_fail "no probe on allocate_slab"
echo 'p:freeslab __free_slab name=+0(+96(%di)):string' >> $T/kprobe_events ||
	pn_fail "no probe on __free_slab"
echo never > /sys/kernel/mm/transparent_hugepage/enabled
echo 4194304 > /proc/sys/kernel/pid_max
for f in order objs_per_slab object_size min_partial cpu_partial; do
	echo "task_struct $f $(cat /sys/kernel/slab/task_struct/$f)"
done
bench_config A
opcount -u -P 100000 fork 2000 > /dev/null
for cfg in ${PN_CHURN_CONFIGS:-A pids C D B A pids C D B A pids C D B}; do
	bench_config "$cfg"
	for ev in newslab freeslab; do
		echo 'hist:keys=name:sort=hitcount.descending' > $T/events/kprobes/$ev/trigger
	done
	grep -e pgalloc_dma32 -e pgfree /proc/vmstat > /tmp/v0
	out=$(bench_in "$cfg" opcount -P 100000 fork 2000)
	grep -e pgalloc_dma32 -e pgfree /proc/vmstat > /tmp/v1
	echo "=== $cfg: $out"
	paste /tmp/v0 /tmp/v1 | awk '{ print $1, $4 - $2 }'
	for ev in newslab freeslab; do
		echo "--- $ev"
		grep -v '^#' $T/events/kprobes/$ev/hist | grep .
		echo '!hist:keys=name:sort=hitcount.descending' > $T/events/kprobes/$ev/trigger
	done
done
bench_config A
