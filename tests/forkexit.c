// SPDX-License-Identifier: GPL-2.0
/*
 * forkexit: the fork benchmark of SGI's pnotify/job postings.  Forks N
 * children that exit at once, reaping each, and reports how often fork
 * failed, the elapsed time and the forks per second.
 *
 *   forkexit [-q] [-j | -x PROGRAM] [-F] N
 *
 * -q prints one machine-readable line:
 *   forks=N errors=E seconds=S per_second=P
 * -j makes each child check, before it exits, that it is in its parent's
 *    job: a child that runs outside it has escaped, and forkexit fails.
 *    Children killed before they ran (a failed fork callback) are counted.
 * -F turns on fault injection for itself and its children once started
 *    (/proc/self/make-it-fail, with a failslab kernel set up by the caller).
 * -x makes each child exec PROGRAM (with no argument) instead of exiting,
 *    and counts the children that exit 0 (ran=R with -q) and those that
 *    exit otherwise (failed=F); not with -j.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "../userspace/job.h"

/* A -j child's exit status: in the job, outside it, or could not tell. */
enum { CHILD_IN_JOB, CHILD_ESCAPED = 3, CHILD_UNKNOWN = 4 };

struct forkexit_counts {
	long errors, escaped, killed, ran, failed;
};

static void usage(void)
{
	fprintf(stderr, "usage: forkexit [-q] [-j | -x PROGRAM] [-F] N\n");
	exit(2);
}

static double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Fault injection (failslab) for this process and the children it forks. */
static bool make_it_fail(bool on)
{
	FILE *f = fopen("/proc/self/make-it-fail", "w");
	bool ok = f && fputs(on ? "1" : "0", f) >= 0;

	return f && !fclose(f) && ok;
}

static int child_job_status(jid_t parent_jid)
{
	jid_t jid = job_getjid(getpid());

	if (jid == parent_jid)
		return CHILD_IN_JOB;
	if (jid == (jid_t)-1 && errno != ENODATA)
		return CHILD_UNKNOWN;
	return CHILD_ESCAPED;
}

/* The child: its exit, after its -j check, or @program. */
static void child_run(bool check_job, jid_t jid, const char *program)
{
	if (program) {
		execl(program, program, (char *)NULL);
		_exit(127);
	}
	_exit(check_job ? child_job_status(jid) : CHILD_IN_JOB);
}

/*
 * Forks one child that exits at once, or execs @program, and reaps it.
 * A child that cannot be reaped counts as a fork error.
 */
static void fork_and_reap(bool check_job, jid_t jid, const char *program,
			  struct forkexit_counts *counts)
{
	pid_t pid = fork();
	int status = 0;

	if (pid < 0) {
		counts->errors++;
		return;
	}
	if (pid == 0)
		child_run(check_job, jid, program);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			counts->errors++;
			return;
		}
	}
	if (WIFSIGNALED(status))
		counts->killed++;
	else if (program)
		*(WEXITSTATUS(status) ? &counts->failed : &counts->ran) += 1;
	else if (check_job && WEXITSTATUS(status) == CHILD_ESCAPED)
		counts->escaped++;
}

int main(int argc, char **argv)
{
	bool quiet = false, check_job = false, inject = false;
	struct forkexit_counts counts = { 0 };
	const char *program = NULL;
	jid_t jid = 0;
	long forks;
	double start, seconds, per_second;
	char *end;
	int opt;

	while ((opt = getopt(argc, argv, "qjFx:")) != -1) {
		if (opt == 'q')
			quiet = true;
		else if (opt == 'j')
			check_job = true;
		else if (opt == 'F')
			inject = true;
		else if (opt == 'x')
			program = optarg;
		else
			usage();
	}
	if (optind != argc - 1 || (check_job && program))
		usage();
	errno = 0;
	forks = strtol(argv[optind], &end, 10);
	if (errno || *end || end == argv[optind] || forks < 0)
		usage();

	if (check_job) {
		jid = job_getjid(getpid());
		if (jid == (jid_t)-1) {
			fprintf(stderr, "forkexit: -j: not in a job: %s\n",
				strerror(errno));
			return 1;
		}
	}
	if (inject && !make_it_fail(true)) {
		fprintf(stderr, "forkexit: -F: /proc/self/make-it-fail: %s\n",
			strerror(errno));
		return 1;
	}
	start = now_seconds();
	for (long i = 0; i < forks; i++)
		fork_and_reap(check_job, jid, program, &counts);
	seconds = now_seconds() - start;
	/* The report must not fail: retry until injection is off. */
	while (inject && !make_it_fail(false))
		;
	per_second = seconds > 0 ? forks / seconds : 0;

	if (quiet) {
		printf("forks=%ld errors=%ld seconds=%.6f per_second=%.1f",
		       forks, counts.errors, seconds, per_second);
		if (check_job)
			printf(" escaped=%ld killed=%ld", counts.escaped,
			       counts.killed);
		if (program)
			printf(" ran=%ld failed=%ld", counts.ran,
			       counts.failed);
		putchar('\n');
	} else {
		printf("Fork returned an error: %ld times\n", counts.errors);
		printf("%ld forks in %.3f seconds: %.1f forks per second\n",
		       forks, seconds, per_second);
		if (check_job)
			printf("%ld children escaped the job, %ld were killed\n",
			       counts.escaped, counts.killed);
		if (program)
			printf("%ld children ran %s and exited 0, %ld otherwise\n",
			       counts.ran, program, counts.failed);
	}
	return counts.escaped ? 1 : 0;
}
