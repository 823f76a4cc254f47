// SPDX-License-Identifier: GPL-2.0
/*
 * procfarm: many sleeping processes, for the benchmarks.
 *
 *   procfarm hold [-J] N
 *       forks N children that sleep, each in a job of its own with -J;
 *       prints "ready N" once all exist and sleep, then waits for SIGTERM or
 *       SIGINT, kills them all and reaps them.
 *   procfarm kill job|cgroup N
 *       makes a group of N sleeping processes (a leader and its N - 1
 *       children) in a new job or in a new child cgroup of /sys/fs/cgroup
 *       with the pids controller, then times killing the whole group and
 *       waiting until it is gone: killjid + waitjid for the job, cgroup.kill
 *       + waiting for "populated 0" in cgroup.events (inotify) for the
 *       cgroup.  Prints "kill=KIND procs=N seconds=S marks=2": the
 *       icount markers (bench.h) run at the start of what is timed and
 *       50 ms after its end (see settle()).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "../userspace/job.h"
#include "bench.h"

#define CGROUP_ROOT	"/sys/fs/cgroup"

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("procfarm: ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void usage(void)
{
	fprintf(stderr, "usage: procfarm hold [-J] N\n"
			"       procfarm kill job|cgroup N\n");
	exit(2);
}

static long parse_count(const char *s)
{
	long n = parse_range(s, 1, 1000000);

	if (n < 0)
		usage();
	return n;
}

static void write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		die("write %s: %s", path, strerror(errno));
	close(fd);
}

/* A child's acknowledgement on the pipe, one byte, after its setup. */
static void ack(int fd)
{
	if (write(fd, "", 1) != 1)
		_exit(1);
}

static void wait_acks(int fd, long n)
{
	char buf[4096];

	while (n > 0) {
		ssize_t r = read(fd, buf, n < (long)sizeof(buf) ? n : (long)sizeof(buf));

		if (r <= 0)
			die("a child died during setup");
		n -= r;
	}
}

/* Forks a child that, once set up as its setup callback says, sleeps. */
static pid_t fork_sleeper(int ack_fd, bool own_job)
{
	pid_t pid = fork();

	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (pid == 0) {
		if (own_job && job_create(0, 0, 0) == (jid_t)-1)
			_exit(1);
		ack(ack_fd);
		for (;;)
			pause();
	}
	return pid;
}

static int hold(bool own_jobs, long n)
{
	pid_t *pids = calloc(n, sizeof(*pids));
	int acks[2], sig;
	sigset_t stop;
	long i;

	if (!pids || pipe(acks))
		die("setup: %s", strerror(errno));
	sigemptyset(&stop);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGINT);
	sigprocmask(SIG_BLOCK, &stop, NULL);
	for (i = 0; i < n; i++)
		pids[i] = fork_sleeper(acks[1], own_jobs);
	wait_acks(acks[0], n);
	printf("ready %ld\n", n);
	fflush(stdout);
	sigwait(&stop, &sig);
	for (i = 0; i < n; i++)
		kill(pids[i], SIGKILL);
	for (i = 0; i < n; i++)
		waitpid(pids[i], NULL, 0);
	free(pids);
	return 0;
}

/*
 * The group's leader: joins the group (new job, or the cgroup @procs file),
 * forks n - 1 sleepers into it, sends the JID (0 for a cgroup) and sleeps.
 */
static void lead_group(int report_fd, const char *procs, long n)
{
	jid_t jid = 0;
	char pid[32];
	int acks[2];
	long i;

	if (procs) {
		snprintf(pid, sizeof(pid), "%d", getpid());
		write_file(procs, pid);
	} else {
		jid = job_create(0, 0, 0);
		if (jid == (jid_t)-1)
			die("job_create: %s", strerror(errno));
	}
	if (pipe(acks))
		die("pipe: %s", strerror(errno));
	for (i = 1; i < n; i++)
		fork_sleeper(acks[1], false);
	wait_acks(acks[0], n - 1);
	if (write(report_fd, &jid, sizeof(jid)) != sizeof(jid))
		_exit(1);
	for (;;)
		pause();
}

/* Starts a group of n sleeping processes; returns its JID (0: cgroup). */
static jid_t start_group(const char *procs, long n)
{
	int report[2];
	jid_t jid;

	if (pipe(report))
		die("pipe: %s", strerror(errno));
	switch (fork()) {
	case -1:
		die("fork: %s", strerror(errno));
		break;
	case 0:
		close(report[0]);
		lead_group(report[1], procs, n);
	}
	close(report[1]);
	if (read(report[0], &jid, sizeof(jid)) != sizeof(jid))
		die("the group's leader failed");
	close(report[0]);
	return jid;
}

static bool cgroup_populated(int events_fd)
{
	char buf[256];
	ssize_t r = pread(events_fd, buf, sizeof(buf) - 1, 0);

	if (r < 0)
		die("read cgroup.events: %s", strerror(errno));
	buf[r] = '\0';
	return !strstr(buf, "populated 0");
}

/*
 * The killed tasks' memory is freed a grace period after their end (their
 * task_structs and stacks; pnotify's entries): 50 ms of guest time asleep
 * before the last marker end that grace period inside the count in every
 * run and configuration, not in some.  Not timed: the group is gone.
 */
static void settle(void)
{
	const struct timespec settle_time = { .tv_nsec = 50 * 1000 * 1000 };

	nanosleep(&settle_time, NULL);
}

static double kill_cgroup(long n)
{
	char dir[64], path[96];
	int events_fd, watch_fd;
	struct inotify_event ev[8];
	double start;

	snprintf(dir, sizeof(dir), CGROUP_ROOT "/procfarm.%d", getpid());
	write_file(CGROUP_ROOT "/cgroup.subtree_control", "+pids");
	if (mkdir(dir, 0755))
		die("mkdir %s: %s", dir, strerror(errno));
	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	start_group(path, n);

	snprintf(path, sizeof(path), "%s/cgroup.events", dir);
	events_fd = open(path, O_RDONLY);
	watch_fd = inotify_init1(0);
	if (events_fd < 0 || watch_fd < 0 ||
	    inotify_add_watch(watch_fd, path, IN_MODIFY) < 0)
		die("watch %s: %s", path, strerror(errno));
	snprintf(path, sizeof(path), "%s/cgroup.kill", dir);

	start = now_seconds();
	icount_mark();
	write_file(path, "1");
	while (cgroup_populated(events_fd))
		if (read(watch_fd, ev, sizeof(ev)) < 0)
			die("inotify: %s", strerror(errno));
	start = now_seconds() - start;
	settle();
	icount_mark();

	close(watch_fd);
	close(events_fd);
	while (wait(NULL) > 0)
		;
	if (rmdir(dir))
		die("rmdir %s: %s", dir, strerror(errno));
	return start;
}

static double kill_job(long n)
{
	jid_t jid = start_group(NULL, n);
	double start = now_seconds();
	int status;

	icount_mark();
	if (job_killjid(jid, SIGKILL))
		die("killjid: %s", strerror(errno));
	/* ENODATA: the job ended (and was forgotten) before the wait began. */
	if (job_waitjid(jid, &status, 0) == (jid_t)-1 && errno != ENODATA)
		die("waitjid: %s", strerror(errno));
	start = now_seconds() - start;
	settle();
	icount_mark();
	while (wait(NULL) > 0)
		;
	return start;
}

int main(int argc, char **argv)
{
	bool own_jobs = false;
	double seconds;
	long n;

	if (argc < 3)
		usage();
	if (!strcmp(argv[1], "hold")) {
		if (argc == 4 && !strcmp(argv[2], "-J"))
			own_jobs = true;
		else if (argc != 3)
			usage();
		return hold(own_jobs, parse_count(argv[argc - 1]));
	}
	if (strcmp(argv[1], "kill") || argc != 4)
		usage();
	n = parse_count(argv[3]);
	/* The sleepers orphaned by their leader's death are reaped here. */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1))
		die("subreaper: %s", strerror(errno));
	if (!strcmp(argv[2], "job"))
		seconds = kill_job(n);
	else if (!strcmp(argv[2], "cgroup"))
		seconds = kill_cgroup(n);
	else
		usage();
	printf("kill=%s procs=%ld seconds=%.6f marks=2\n", argv[2], n, seconds);
	return 0;
}
