// SPDX-License-Identifier: GPL-2.0
/*
 * forkways: every way of forking, while something interrupts or watches
 * the system call.  Each round forks, vforks, clone3()s and creates a
 * thread; a 200 us interval timer delivers SIGALRM to a handler
 * throughout.  Every call must return once, with a child that ran.  Run
 * in a job, whose forks may leave pnotify to make kits in task works of
 * the forking thread and of the child (the kit cache empty, or pnotify's
 * test_kits_skip), run before either is back in user space: they must not
 * show.
 *
 *   forkways ROUNDS [plain|trace|seccomp|kill|stop|freeze|failslab|vfork-stop] [keep]
 *
 * trace runs the loop under a tracer that stops it at every system call
 * (PTRACE_SYSCALL); seccomp under an allow-all filter; kill and stop run
 * it in 20 children, one after the other, killed (SIGKILL) or stopped
 * and continued in the middle; freeze likewise frozen and thawed, in a
 * cgroup of forkways' own (cgroup v2's cgroup.freeze, under
 * /sys/fs/cgroup) each child is moved to before it starts, the freeze
 * waited for and found the loop running; failslab runs it under fault
 * injection, turned on for itself once started (/proc/self/make-it-fail,
 * a failslab kernel set up by the caller: an exec failing past its point
 * of no return dies of SIGSEGV), without the timer (a signal frame that
 * cannot be written is a SIGSEGV too) and without threads (one whose fork
 * callback fails takes the process down).  vfork-stop vfork()s ROUNDS
 * children one after the other, each stopping itself (SIGSTOP) before it
 * exits: its parent waits in the kernel, a work pnotify queued on it
 * pending, until someone continues the child.
 * keep: nothing the loop makes exits before the end, and the loop first
 * empties pnotify's kit cache (an exit tops it up), so that every fork
 * leaves works: the children of fork() and clone3() and the threads live on,
 * there is no vfork(), and each child must be in its parent's job at the
 * end; kill, stop and freeze also empty it before each loop's child is
 * forked, whose fork then leaves its works under the signal.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../userspace/job.h"
#include "kit_cache.h"

#define CHILD_STATUS	7
#define SIGNALLED_RUNS	20
#define MAX_KEPT	4096
#define MAX_DRAIN	1024
#define THREAD_STACK	(64 * 1024)
#define CGROUP_ROOT	"/sys/fs/cgroup"
#define FREEZE_WAIT_MS	10000
/* How signalled() interrupts a loop besides signals: by the cgroup freezer. */
#define FREEZE		0

static volatile sig_atomic_t alarms;
static pid_t loop_pid;
static bool keep, failslab;
static pid_t kept[MAX_KEPT];
static int nr_kept;
static pthread_t kept_threads[MAX_KEPT];
static int nr_kept_threads;
/* Kept threads read it until the end closes its write end. */
static int thread_hold[2] = { -1, -1 };

static void on_alarm(int sig)
{
	(void)sig;
	alarms++;
}

static pid_t wait_child(pid_t pid, int *status)
{
	pid_t ret;

	while ((ret = waitpid(pid, status, 0)) < 0 && errno == EINTR)
		;
	return ret;
}

/*
 * Whether a child ended as it should: exited, or, kept, by our SIGTERM (a
 * SIGKILL would be pnotify's, for a fork it failed).
 */
static bool child_status_ok(int status)
{
	if (keep)
		return WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM;
	return WIFEXITED(status) && WEXITSTATUS(status) == CHILD_STATUS;
}

/* The child of @how, @pid: reaped now, or kept to the end. */
static int child_done(pid_t pid, const char *how)
{
	int status;

	if (pid < 0) {
		fprintf(stderr, "forkways: %s: %s\n", how, strerror(errno));
		return 1;
	}
	if (keep && nr_kept < MAX_KEPT) {
		kept[nr_kept++] = pid;
		return 0;
	}
	/* No room to keep it: ended now. */
	if (keep)
		kill(pid, SIGTERM);
	if (wait_child(pid, &status) < 0) {
		fprintf(stderr, "forkways: %s: waitpid: %s\n", how,
			strerror(errno));
		return 1;
	}
	if (!child_status_ok(status)) {
		fprintf(stderr, "forkways: %s: child ended with status %#x\n",
			how, status);
		return 1;
	}
	return 0;
}

/*
 * A kept child waits for its parent's SIGTERM, or its death (kill mode);
 * others end at once.
 */
static void child_main(void)
{
	if (keep) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		/* Killed before that: no one would end us. */
		if (getppid() != loop_pid)
			_exit(CHILD_STATUS);
		for (;;)
			pause();
	}
	_exit(CHILD_STATUS);
}

/* @hold: kept, reading thread_hold until the end closes it. */
static void *thread_main(void *hold)
{
	char byte;

	if (hold)
		while (read(thread_hold[0], &byte, 1) < 0 && errno == EINTR)
			;
	return NULL;
}

/* A thread, joined now or kept to the end; 0 or an errno. */
static int thread_round(void)
{
	bool hold = keep && nr_kept_threads < MAX_KEPT;
	pthread_attr_t attr;
	pthread_t thread;
	int err;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, THREAD_STACK);
	err = pthread_create(&thread, &attr, thread_main,
			     hold ? &thread_hold : NULL);
	pthread_attr_destroy(&attr);
	if (err)
		return err;
	if (hold)
		kept_threads[nr_kept_threads++] = thread;
	else
		err = pthread_join(thread, NULL);
	return err;
}

/*
 * Fault injection on or off for this process (and children forked after):
 * off, the write may itself fail, so it is tried again.  0, or -1 when it
 * cannot be turned on.
 */
static int fault_injection(bool on)
{
	for (int tries = 0; tries < 100; tries++) {
		FILE *f = fopen("/proc/self/make-it-fail", "w");

		if (!f && errno == ENOENT && !on)
			return 0;
		if (f && fputs(on ? "1" : "0", f) >= 0 && !fclose(f))
			return 0;
		if (f)
			fclose(f);
	}
	perror("forkways: /proc/self/make-it-fail");
	return -1;
}

/*
 * Whether a kept child that ended with @status, not by our SIGTERM, was
 * killed before it ran: under fault injection, a fork whose kit pnotify's
 * work could not make (counted in pnotify's fork_failures), whose child
 * never joined.  (No thread runs there to send a death signal.)
 */
static bool killed_at_birth(int status)
{
	return failslab && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
}

/*
 * Every kept child in this process's job, then ended; threads joined.
 * Returns how many were not (those killed at birth are said apart).
 */
static int end_kept(void)
{
	int outside = 0, died = 0, unborn = 0, status = 0;
	jid_t jid;

	if (failslab)
		fault_injection(false);
	jid = job_getjid(getpid());
	for (int i = 0; i < nr_kept; i++) {
		jid_t child_jid = job_getjid(kept[i]);
		bool ok;

		kill(kept[i], SIGTERM);
		ok = wait_child(kept[i], &status) == kept[i] &&
		     child_status_ok(status);
		if (!ok && killed_at_birth(status)) {
			unborn++;
			continue;
		}
		if (child_jid != jid && outside++ < 3)
			fprintf(stderr, "forkways: child %d is in job %#llx, not %#llx\n",
				kept[i], (unsigned long long)child_jid,
				(unsigned long long)jid);
		if (!ok && died++ < 3)
			fprintf(stderr, "forkways: child %d ended before its SIGTERM (status %#x)\n",
				kept[i], status);
	}
	if (outside || died)
		fprintf(stderr, "forkways: of %d children, %d outside the job, %d ended before their SIGTERM\n",
			nr_kept, outside, died);
	if (unborn)
		printf("forkways: %d children killed before they ran\n", unborn);
	if (thread_hold[1] >= 0) {
		close(thread_hold[1]);
		thread_hold[1] = -1;
	}
	for (int i = 0; i < nr_kept_threads; i++)
		pthread_join(kept_threads[i], NULL);
	nr_kept = 0;
	nr_kept_threads = 0;
	return outside + died;
}

/*
 * Its own frame: the parent's registers are the child's until it exits.
 * @stop: the child stops itself first.
 */
static int vfork_round(bool stop)
{
	pid_t pid = vfork();

	if (pid == 0) {
		if (stop)
			raise(SIGSTOP);
		_exit(CHILD_STATUS);
	}
	if (pid < 0 || wait_child(pid, NULL) < 0) {
		fprintf(stderr, "forkways: vfork: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}

/* vfork-stop's rounds. */
static int vfork_stopped(int rounds)
{
	for (int i = 0; i < rounds; i++)
		if (vfork_round(true))
			return 1;
	printf("forkways: %d vfork children stopped and continued\n", rounds);
	return 0;
}

/* pnotify's kits_cached, or -1. */
static long kits_cached(void)
{
	FILE *f = fopen("/proc/pnotify", "r");
	char line[128];
	long n = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "kits_cached: %ld", &n) == 1)
			break;
	fclose(f);
	return n;
}

/*
 * Forks kept children until pnotify's kit cache is empty, shrinking it
 * whenever it holds more than its shrinker leaves: the entries of children
 * reaped before come back to it a grace period later.
 */
static int drain_kits(void)
{
	long cached;

	loop_pid = getpid();
	for (int i = 0; (cached = kits_cached()) > 0; i++) {
		pid_t pid;

		if (i == MAX_DRAIN) {
			fprintf(stderr, "forkways: %ld kits still cached after %d forks\n",
				cached, MAX_DRAIN);
			return 1;
		}
		if (cached > KITS_SHRINK_LEAVES)
			shrink_kit_cache();
		pid = fork();
		if (pid == 0)
			child_main();
		if (child_done(pid, "fork"))
			return 1;
	}
	return 0;
}

static int loop(int rounds)
{
	struct itimerval timer = { { 0, 200 }, { 0, 200 } };
	struct sigaction sa = { .sa_handler = on_alarm };
	int bad = 0;

	loop_pid = getpid();
	/* A loop in a child: its parent's kept children are not its own. */
	nr_kept = 0;
	if (keep && !failslab && drain_kits())
		return 1;
	/* Kept threads wait on it (none under fault injection). */
	if (keep && !failslab && pipe(thread_hold)) {
		perror("forkways: pipe");
		return 1;
	}
	sigaction(SIGALRM, &sa, NULL);
	if (!failslab)
		setitimer(ITIMER_REAL, &timer, NULL);
	for (int i = 0; i < rounds; i++) {
		struct clone_args args = { .exit_signal = SIGCHLD };
		pid_t pid;
		int err;

		pid = fork();
		if (pid == 0)
			child_main();
		bad += child_done(pid, "fork");
		if (!keep)
			bad += vfork_round(false);
		pid = syscall(SYS_clone3, &args, sizeof(args));
		if (pid == 0)
			child_main();
		bad += child_done(pid, "clone3");
		err = failslab ? 0 : thread_round();
		if (err) {
			fprintf(stderr, "forkways: thread: %s\n", strerror(err));
			bad++;
		}
	}
	timer = (struct itimerval){ 0 };
	setitimer(ITIMER_REAL, &timer, NULL);
	if (keep)
		bad += end_kept();
	printf("forkways: %d rounds, %d failed, %d alarms handled\n", rounds,
	       bad, (int)alarms);
	return bad != 0;
}

/* The loop in a child traced with PTRACE_SYSCALL. */
static int traced(int rounds)
{
	long stops = 0;
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return 1;
	if (pid == 0) {
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		raise(SIGSTOP);
		_exit(loop(rounds));
	}
	for (;;) {
		int sig = 0;

		if (wait_child(pid, &status) < 0)
			return 1;
		if (WIFEXITED(status) || WIFSIGNALED(status))
			break;
		stops++;
		if (WIFSTOPPED(status) && WSTOPSIG(status) != SIGSTOP &&
		    WSTOPSIG(status) != SIGTRAP)
			sig = WSTOPSIG(status);
		ptrace(PTRACE_SYSCALL, pid, NULL, (void *)(long)sig);
	}
	printf("forkways: traced, %ld stops\n", stops);
	return !WIFEXITED(status) || WEXITSTATUS(status);
}

static int filtered(int rounds)
{
	struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	struct sock_fprog prog = { .len = 1, .filter = &allow };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
		perror("forkways: seccomp");
		return 1;
	}
	return loop(rounds);
}

/* Writes @text to @dir/@file; 0 or -1 (errno set). */
static int cgroup_write(const char *dir, const char *file, const char *text)
{
	char path[256];
	ssize_t len = strlen(text), ret;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ret = write(fd, text, len);
	close(fd);
	return ret == len ? 0 : -1;
}

/* Whether @dir's cgroup.events has the line @event ("frozen 1"). */
static bool cgroup_event(const char *dir, const char *event)
{
	char path[256], line[64];
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s/cgroup.events", dir);
	f = fopen(path, "r");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, event, strlen(event)) &&
		    line[strlen(event)] == '\n')
			found = true;
	fclose(f);
	return found;
}

/*
 * Freezes the cgroup @dir and waits until it is frozen: a task asleep in
 * a refill work's allocation freezes on its way back to user space.  0, or 1
 * when it did not freeze in FREEZE_WAIT_MS, or froze empty (the loop had
 * ended: nothing was frozen in the middle).
 */
static int freeze_and_wait(const char *dir)
{
	if (cgroup_write(dir, "cgroup.freeze", "1")) {
		fprintf(stderr, "forkways: %s/cgroup.freeze: %s\n", dir,
			strerror(errno));
		return 1;
	}
	for (int ms = 0; ms < FREEZE_WAIT_MS; ms++) {
		if (cgroup_event(dir, "frozen 1")) {
			if (cgroup_event(dir, "populated 1"))
				return 0;
			fprintf(stderr, "forkways: the loop in %s ended before its freeze\n",
				dir);
			return 1;
		}
		usleep(1000);
	}
	fprintf(stderr, "forkways: the loop in %s did not freeze in %d ms\n",
		dir, FREEZE_WAIT_MS);
	return 1;
}

/* Interrupts the loop child @pid (by @sig, or FREEZE in @cgroup) 30 ms in. */
static int interrupt_loop(pid_t pid, int sig, const char *cgroup)
{
	int bad = 0;

	usleep(30000);
	if (sig != FREEZE) {
		kill(pid, sig);
		if (sig == SIGSTOP) {
			usleep(30000);
			kill(pid, SIGCONT);
		}
		return 0;
	}
	bad = freeze_and_wait(cgroup);
	usleep(30000);
	/* Thawed whether or not it froze: a failed run must still end. */
	if (cgroup_write(cgroup, "cgroup.freeze", "0")) {
		perror("forkways: thaw");
		bad = 1;
	}
	return bad;
}

/*
 * One loop in a child, interrupted 30 ms in by @sig, or frozen in @cgroup
 * (FREEZE: moved there before it starts); 0 if it ended as it should.
 */
static int interrupted_run(int rounds, int sig, const char *cgroup)
{
	int go[2], status, bad;
	char pid_text[16];
	pid_t pid;

	if (pipe(go))
		return 1;
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		char byte;

		close(go[1]);
		if (read(go[0], &byte, 1) != 1)
			_exit(1);
		close(go[0]);
		_exit(loop(rounds));
	}
	close(go[0]);
	snprintf(pid_text, sizeof(pid_text), "%d", (int)pid);
	bad = sig == FREEZE && cgroup_write(cgroup, "cgroup.procs", pid_text);
	if (bad)
		fprintf(stderr, "forkways: %s/cgroup.procs: %s\n", cgroup,
			strerror(errno));
	/* Closed without a byte, the child exits at once. */
	if (!bad && write(go[1], "g", 1) != 1)
		bad = 1;
	close(go[1]);
	if (!bad)
		bad = interrupt_loop(pid, sig, cgroup);
	if (wait_child(pid, &status) < 0 || bad)
		return 1;
	if ((sig == SIGSTOP || sig == FREEZE) &&
	    (!WIFEXITED(status) || WEXITSTATUS(status))) {
		fprintf(stderr, "forkways: a %s loop failed (status %#x)\n",
			sig == FREEZE ? "frozen and thawed" :
			"stopped and continued", status);
		return 1;
	}
	if (sig == SIGKILL && WIFEXITED(status) && WEXITSTATUS(status)) {
		fprintf(stderr, "forkways: a loop failed before its SIGKILL\n");
		return 1;
	}
	return 0;
}

/*
 * The loop in SIGNALLED_RUNS children, each sent @sig 30 ms in (SIGSTOP:
 * continued 30 ms later, and must finish its loop), or, for FREEZE, in
 * forkways' cgroup, frozen 30 ms in and thawed 30 ms after it froze (and
 * must finish its loop too).
 */
static int signalled(int rounds, int sig)
{
	char cgroup[64] = "";
	int bad = 0;

	if (sig == FREEZE) {
		snprintf(cgroup, sizeof(cgroup), CGROUP_ROOT "/forkways.%d",
			 (int)getpid());
		if (mkdir(cgroup, 0755)) {
			fprintf(stderr, "forkways: %s: %s (freeze needs cgroup v2 at " CGROUP_ROOT ")\n",
				cgroup, strerror(errno));
			return 1;
		}
	}
	for (int i = 0; i < SIGNALLED_RUNS && !bad; i++) {
		/* Ended after each loop, that the next drain is bounded. */
		bad = (keep && ((i && end_kept()) || drain_kits())) ||
		      interrupted_run(rounds, sig, cgroup);
	}
	/* Empty once every loop was reaped (kept children ended with it). */
	if (sig == FREEZE && rmdir(cgroup)) {
		fprintf(stderr, "forkways: rmdir %s: %s\n", cgroup,
			strerror(errno));
		bad = 1;
	}
	if (bad)
		return 1;
	printf("forkways: %d loops %s\n", SIGNALLED_RUNS,
	       sig == FREEZE ? "frozen and thawed" :
	       sig == SIGSTOP ? "stopped and continued" : "killed");
	return keep ? end_kept() != 0 : 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 2 ? argv[2] : "plain";
	int rounds = argc > 1 ? atoi(argv[1]) : 0;

	keep = argc > 3 && !strcmp(argv[3], "keep");
	if (rounds <= 0 || argc > 4 || (argc > 3 && !keep)) {
		fprintf(stderr, "usage: forkways ROUNDS [plain|trace|seccomp|kill|stop|freeze|failslab|vfork-stop] [keep]\n");
		return 2;
	}
	failslab = !strcmp(mode, "failslab");
	if (failslab && fault_injection(true))
		return 1;
	if (!strcmp(mode, "plain") || failslab)
		return loop(rounds);
	if (!strcmp(mode, "trace"))
		return traced(rounds);
	if (!strcmp(mode, "seccomp"))
		return filtered(rounds);
	if (!strcmp(mode, "kill"))
		return signalled(rounds, SIGKILL);
	if (!strcmp(mode, "stop"))
		return signalled(rounds, SIGSTOP);
	if (!strcmp(mode, "freeze"))
		return signalled(rounds, FREEZE);
	if (!strcmp(mode, "vfork-stop"))
		return vfork_stopped(rounds);
	fprintf(stderr, "forkways: unknown mode %s\n", mode);
	return 2;
}
