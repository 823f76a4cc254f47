// SPDX-License-Identifier: GPL-2.0
/*
 * opcount: runs N operations between two icount markers, for the
 * deterministic benchmark lane (bench/vm/icount.sh, with QEMU's
 * bench/icount plugin counting the guest's instructions).
 *
 *   opcount [-w WARMUP] [-P PID] [-j JITTER] [-u] fork|exec|thread|job N
 *
 *   fork    fork, the child exits at once, the parent reaps it
 *   exec    fork, the child execs this (static) program, which exits at
 *           once, the parent reaps it
 *   thread  pthread_create of a thread that returns at once, pthread_join
 *   job     fork, the child creates a job (job.ko) and exits, ending it,
 *           the parent reaps it: with the hooks disarmed, what arming
 *           them costs the job's start
 *
 * First WARMUP operations (default N / 10) bring caches, the thread stack
 * cache and TCG's translations to their steady state; then the last pid is
 * set to PID (default 10000; /proc/sys/kernel/ns_last_pid, root only) so
 * that every run allocates the same pids, the marker runs, N operations,
 * the marker again.  Prints one line:
 *
 *   op=OP ops=N errors=E marks=2 seconds=S
 *
 * -u runs without the markers (marks=0): a warm-up whose counts nobody
 * reads.
 *
 * -j JITTER: after each marked operation, a user-space loop of 0 to
 * JITTER - 1 turns, a pseudo-random number from a fixed seed (the same
 * sequence in every run).  The kernel's count of a fork depends on where
 * the timer tick falls in the loop (RCU's grace periods follow it): with
 * every operation the same length, tens of instructions more or less in
 * it move the count of a fork by as much again; with the jitter the tick
 * falls anywhere (bench/results/phase-2026-12-06).
 *
 * seconds is CLOCK_MONOTONIC between the markers: guest time, which under
 * QEMU's -icount follows the instruction count.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "bench.h"
#include "../userspace/job.h"

#define EXEC_ARG	"--exit-now"
#define NS_LAST_PID	"/proc/sys/kernel/ns_last_pid"

static const char *self;

static void usage(void)
{
	fprintf(stderr, "usage: opcount [-w WARMUP] [-P PID] [-j JITTER] [-u] fork|exec|thread|job N\n");
	exit(2);
}

static long parse_long(const char *s, long min, long max)
{
	long n = parse_range(s, min, max);

	if (n < 0)
		usage();
	return n;
}

/* Reaps pid; a child that did not exit with status 0 is an error. */
static int reap(pid_t pid)
{
	int status;

	if (pid < 0)
		return -1;
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

static int op_fork(void)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	return reap(pid);
}

static int op_exec(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		execl(self, "opcount", EXEC_ARG, (char *)NULL);
		_exit(127);
	}
	return reap(pid);
}

static int op_job(void)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(job_create(0, getuid(), 0) == (jid_t)-1);
	return reap(pid);
}

static void *thread_main(void *arg)
{
	return arg;
}

static int op_thread(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, thread_main, NULL))
		return -1;
	return pthread_join(t, NULL) ? -1 : 0;
}

/* A loop of 0 to @jitter - 1 turns, the next of a fixed sequence. */
static void jitter_wait(unsigned long jitter)
{
	static unsigned long seed = 1;
	volatile unsigned long turn;
	unsigned long turns;

	/* Knuth's MMIX LCG; its high bits are the random ones. */
	seed = seed * 6364136223846793005UL + 1442695040888963407UL;
	turns = (seed >> 33) % jitter;
	for (turn = 0; turn < turns; turn++)
		;
}

static void set_last_pid(long pid)
{
	FILE *f = fopen(NS_LAST_PID, "w");

	if (!f || fprintf(f, "%ld", pid) < 0 || fclose(f)) {
		fprintf(stderr, "opcount: %s: %s\n", NS_LAST_PID, strerror(errno));
		exit(1);
	}
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*run)(void);
	} ops[] = {
		{ "fork", op_fork }, { "exec", op_exec }, { "thread", op_thread },
		{ "job", op_job },
	};
	long n, i, warmup = -1, last_pid = 10000, errors = 0, jitter = 0;
	int (*run)(void) = NULL;
	bool marked = true;
	double seconds;
	size_t k;
	int opt;

	if (argc == 2 && !strcmp(argv[1], EXEC_ARG))
		return 0;
	while ((opt = getopt(argc, argv, "w:P:j:u")) != -1) {
		switch (opt) {
		case 'u':
			marked = false;
			break;
		case 'w':
			warmup = parse_long(optarg, 0, 10000000);
			break;
		case 'P':
			last_pid = parse_long(optarg, 1, 4194304);
			break;
		case 'j':
			jitter = parse_long(optarg, 0, 1000000);
			break;
		default:
			usage();
		}
	}
	if (argc - optind != 2)
		usage();
	for (k = 0; k < sizeof(ops) / sizeof(ops[0]); k++)
		if (!strcmp(argv[optind], ops[k].name))
			run = ops[k].run;
	if (!run)
		usage();
	n = parse_long(argv[optind + 1], 1, 10000000);
	if (warmup < 0)
		warmup = n / 10;
	self = realpath("/proc/self/exe", NULL);
	if (!self) {
		perror("opcount: /proc/self/exe");
		return 1;
	}

	for (i = 0; i < warmup; i++)
		errors += run() != 0;
	set_last_pid(last_pid);
	seconds = now_seconds();
	if (marked)
		icount_mark();
	for (i = 0; i < n; i++) {
		errors += run() != 0;
		if (jitter)
			jitter_wait(jitter);
	}
	if (marked)
		icount_mark();
	seconds = now_seconds() - seconds;
	printf("op=%s ops=%ld errors=%ld marks=%d seconds=%.6f\n", argv[optind],
	       n, errors, marked ? 2 : 0, seconds);
	return errors ? 1 : 0;
}
