/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The marker of the deterministic benchmark lane: an instruction that does
 * nothing, on which the QEMU plugin bench/icount/plugin.c writes its
 * instruction counters (see there).  On a real CPU it costs one cycle.
 */
#ifndef PN_BENCH_ICOUNT_MARK_H
#define PN_BENCH_ICOUNT_MARK_H

#if defined(__x86_64__) || defined(__i386__)
static inline void icount_mark(void)
{
	__asm__ volatile("xchg %%bx, %%bx" ::: "memory");
}
#else
#error "the icount marker is x86 only"
#endif

#endif
