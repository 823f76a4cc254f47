/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers of the benchmark programs (opcount, procfarm). */
#ifndef PN_BENCH_H
#define PN_BENCH_H

#include <stdlib.h>
#include <time.h>

/*
 * The marker of the deterministic benchmark lane: an instruction that does
 * nothing, on which the QEMU plugin bench/icount/plugin.c writes its
 * instruction counters (see there).  On a real CPU it costs one cycle.
 */
#if defined(__x86_64__) || defined(__i386__)
static inline void icount_mark(void)
{
	__asm__ volatile("xchg %%bx, %%bx" ::: "memory");
}
#else
#error "the icount marker is x86 only"
#endif

/* Guest time under QEMU's -icount: it follows the instruction count. */
static inline double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The decimal number s if it lies in [min, max] (min >= 0), else -1. */
static inline long parse_range(const char *s, long min, long max)
{
	char *end;
	long n = strtol(s, &end, 10);

	if (*s == '\0' || *end != '\0' || n < min || n > max)
		return -1;
	return n;
}

#endif
