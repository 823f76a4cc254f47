// SPDX-License-Identifier: GPL-2.0
/*
 * jobtest: the mini job test suite, after SGI's.  Runs as root with job.ko
 * loaded; every test runs in its own process and prints its name and result.
 * The last line is "Great.  All tests completed, no errors" when all pass,
 * else "N errors" (and the exit status is 1).
 *
 *   jobtest [--full-wrap] [--list] [TEST-NAME-PREFIX...]
 *
 * --full-wrap wraps the pid space with the default pid_max and 40,000 forks,
 * as SGI's jobtest did, instead of lowering pid_max for a quick wrap.
 * --slow is for a kernel where a fork costs ~100 times more (KASAN and
 * lockdep under emulation): longer timeouts, a smaller quick wrap.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <linux/io_uring.h>
#include <linux/sched.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../userspace/job.h"
#include "../include/uapi/job.h"

#define UNPRIVILEGED_ID		1000
#define LEADER_EXIT_STATUS	7	/* a leader's status when released */
#define REPORT_TIMEOUT_MS	10000
#define TEST_TIMEOUT_S		60
#define FULL_WRAP_TIMEOUT_S	1200
#define CLEANUP_TIMEOUT_S	5
#define MAX_TRACKED_JOBS	64

#define WRAP_PID_MAX		1000	/* pid_max during the quick wrap */
#define WRAP_REUSES		200	/* reused pids the quick wrap wants */
#define SLOW_WRAP_PID_MAX	400	/* the same with --slow */
#define SLOW_WRAP_REUSES	50
#define SLOW_FACTOR		10	/* --slow's timeouts */
#define WRAP_MAX_FORKS		5000
#define FULL_WRAP_FORKS		40000
#define WRAP_ALIVE		8	/* jobs alive at once during the wrap */
#define PID_MAX_PATH		"/proc/sys/kernel/pid_max"

#define STORM_CHAINS		4
#define STORM_RUN_MS		300
#define BURN_CPU_NS		50000000LL
#define WRITE_BYTES		(1 << 20)
#define TOUCH_BYTES		(4 << 20)

#define SETUID_COPY_PATH	"/tmp/jobtest-setuid"
#define REPORT_JID_OPTION	"--report-jid"

#define JID(jid)		((unsigned long long)(jid))
#define NO_JID			((jid_t)-1)

/* State shared by the runner and every process of a test. */
struct shared_state {
	int failures;
	int nr_jobs;			/* jobs created, to clean up */
	jid_t jobs[MAX_TRACKED_JOBS];
	int saved_pid_max;		/* to restore, 0 if untouched */
};

/*
 * kill(2) for a process or process group the test made.  A failed step can
 * leave a pid at 0 or -1; kill(0), kill(-1) or kill(1) would hit the test's
 * own process group, every process, or init.
 */
static int kill_ours(pid_t pid, int sig)
{
	if (pid == 0 || pid == 1 || pid == -1) {
		errno = ESRCH;
		return -1;
	}
	return kill(pid, sig);
}

static struct shared_state *shared;
static bool full_wrap;
static bool slow;

/* --- checks --- */

static void note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("    note: ", stdout);
	vprintf(fmt, ap);
	putchar('\n');
	va_end(ap);
}

static void note_failure(int line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("    FAIL (line %d): ", line);
	vprintf(fmt, ap);
	putchar('\n');
	va_end(ap);
	__atomic_add_fetch(&shared->failures, 1, __ATOMIC_SEQ_CST);
}

/* Counts a failure and prints the message unless cond holds; yields cond. */
#define expect(cond, ...) \
	((cond) ? true : (note_failure(__LINE__, __VA_ARGS__), false))

static const char *errno_name(int err)
{
	const char *name = err ? strerrorname_np(err) : "no error";

	return name ? name : "unknown errno";
}

static void check_failed_with(int line, const char *call, bool failed, int err,
			      int want, int alt)
{
	if (!failed)
		note_failure(line, "%s succeeded, expected %s", call,
			     errno_name(want));
	else if (err != want && err != alt)
		note_failure(line, "%s failed with %s, expected %s", call,
			     errno_name(err), errno_name(want));
}

/* call must fail (return -1 of its type) with errno want or alt. */
#define expect_error2(call, want, alt) do {				\
	bool failed_;							\
	errno = 0;							\
	failed_ = (call) == (__typeof__(call))-1;			\
	check_failed_with(__LINE__, #call, failed_, errno, want, alt);	\
} while (0)

#define expect_error(call, want) expect_error2(call, want, want)

/* --- processes --- */

/* fork() without handing buffered output to the child. */
static pid_t fork_flushed(void)
{
	fflush(NULL);
	return fork();
}

static int wait_for(pid_t pid)
{
	int status = -1;

	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return status;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000 };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* CLOCK_MONOTONIC in milliseconds. */
static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static void die_with_parent(void)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
}

/* Reaps every child that has ended, without blocking. */
static void reap_ended_children(void)
{
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
}

static bool drop_privileges(void)
{
	return setgroups(0, NULL) == 0 &&
	       setresgid(UNPRIVILEGED_ID, UNPRIVILEGED_ID, UNPRIVILEGED_ID) == 0 &&
	       setresuid(UNPRIVILEGED_ID, UNPRIVILEGED_ID, UNPRIVILEGED_ID) == 0;
}

/* Runs argv[0] with stdout discarded; returns its wait status. */
static int run_command(char *const argv[])
{
	pid_t pid = fork_flushed();

	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		if (null >= 0)
			dup2(null, STDOUT_FILENO);
		execv(argv[0], argv);
		fprintf(stderr, "exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	return pid < 0 ? -1 : wait_for(pid);
}

static bool exited_with(int status, int code)
{
	return status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == code;
}

/* --- reports: what a process says about itself over a pipe --- */

enum report_kind {
	REPORT_JID,		/* the fields describe the sender */
	REPORT_ERROR,		/* setting the process up failed with err */
	REPORT_SKIP,		/* the mechanism is not available (err) */
};

struct report {
	int kind;
	int err;		/* errno of the job call, or of the failure */
	jid_t jid;		/* the sender's job_getjid() or call result */
	int status;		/* a wait status, when there is one */
	pid_t tid;
	pid_t ppid;
	uid_t euid;
};

static void send_report(int fd, const struct report *report)
{
	if (write(fd, report, sizeof(*report)) != sizeof(*report))
		_exit(99);
}

/* Sends the result of a job call that returned jid, with errno. */
static void report_result(int fd, jid_t jid)
{
	struct report report = {
		.kind = REPORT_JID,
		.err = jid == NO_JID ? errno : 0,
		.jid = jid,
		.tid = gettid(),
		.ppid = getppid(),
		.euid = geteuid(),
	};

	send_report(fd, &report);
}

/* The one thing a new process does first: tell which job it is in. */
static void report_own_jid(int fd)
{
	errno = 0;
	report_result(fd, job_getjid(gettid()));
}

static void report_problem(int fd, enum report_kind kind, int err)
{
	struct report report = { .kind = kind, .err = err, .tid = gettid() };

	send_report(fd, &report);
}

static bool report_ready(int fd, int timeout_ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	return poll(&pfd, 1, timeout_ms) > 0;
}

static bool receive_report(int fd, struct report *report)
{
	if (!report_ready(fd, REPORT_TIMEOUT_MS * (slow ? SLOW_FACTOR : 1))) {
		note("no report within %d ms",
		     REPORT_TIMEOUT_MS * (slow ? SLOW_FACTOR : 1));
		return false;
	}
	return read(fd, report, sizeof(*report)) == sizeof(*report);
}

/* --- jobs --- */

static void track_job(jid_t jid)
{
	int slot = __atomic_fetch_add(&shared->nr_jobs, 1, __ATOMIC_SEQ_CST);

	if (slot < MAX_TRACKED_JOBS)
		shared->jobs[slot] = jid;
}

/* Kills a job and waits for it to end; false if that did not happen. */
static bool kill_and_wait(jid_t jid)
{
	if (job_killjid(jid, SIGKILL) < 0)
		return errno == ENODATA;
	return job_waitjid(jid, NULL, 0) != NO_JID || errno == ENODATA;
}

/*
 * A job made for a test: its leader created it and waits, with SIGUSR1
 * blocked, until released; it then exits with LEADER_EXIT_STATUS.
 */
struct job_leader {
	pid_t pid;
	jid_t jid;
	int report_fd;		/* reports of the job's processes */
};

/* What a leader runs in its new job before it waits to be released. */
typedef void job_body_fn(const struct job_leader *self, void *arg);

static void run_leader(jid_t requested, job_body_fn *body, void *arg,
		       struct job_leader *self)
{
	sigset_t release;
	int sig;

	die_with_parent();
	sigemptyset(&release);
	sigaddset(&release, SIGUSR1);
	sigprocmask(SIG_BLOCK, &release, NULL);

	errno = 0;
	self->pid = getpid();
	self->jid = job_create(requested, 0, 0);
	if (self->jid == NO_JID) {
		report_problem(self->report_fd, REPORT_ERROR, errno);
		_exit(1);
	}
	track_job(self->jid);
	report_result(self->report_fd, self->jid);
	if (body)
		body(self, arg);
	sigwait(&release, &sig);
	_exit(LEADER_EXIT_STATUS);
}

/*
 * Forks a leader that creates a job (requested JID, or 0 for any) and runs
 * body in it.  Returns 0, or the errno of the creation.
 */
static int start_job(struct job_leader *job, jid_t requested,
		     job_body_fn *body, void *arg)
{
	struct report created;
	int fds[2];

	if (pipe2(fds, O_CLOEXEC) < 0)
		return errno;
	job->report_fd = fds[0];
	job->pid = fork_flushed();
	if (job->pid == 0) {
		close(fds[0]);
		fcntl(fds[1], F_SETFD, 0);	/* programs it runs report too */
		job->report_fd = fds[1];
		run_leader(requested, body, arg, job);
	}
	close(fds[1]);
	if (job->pid < 0 || !receive_report(job->report_fd, &created) ||
	    created.kind != REPORT_JID) {
		int err = job->pid < 0 ? errno : created.err ? created.err : EIO;

		if (job->pid > 0) {
			kill_ours(job->pid, SIGKILL);
			wait_for(job->pid);
		}
		close(job->report_fd);
		return err;
	}
	job->jid = created.jid;
	return 0;
}

static bool start_job_ok(struct job_leader *job, job_body_fn *body, void *arg)
{
	int err = start_job(job, 0, body, arg);

	return expect(!err, "job_create: %s", errno_name(err));
}

/* Lets the leader exit with LEADER_EXIT_STATUS and reaps it. */
static int release_leader(struct job_leader *job)
{
	int status;

	kill_ours(job->pid, SIGUSR1);
	status = wait_for(job->pid);
	job->pid = 0;
	return status;
}

/* Kills the job and its leader (even when detached from it). */
static void end_job(struct job_leader *job)
{
	kill_and_wait(job->jid);
	if (job->pid > 0) {
		kill_ours(job->pid, SIGKILL);
		wait_for(job->pid);
		job->pid = 0;
	}
	close(job->report_fd);
}

static bool receive_jid_report(struct job_leader *job, struct report *report)
{
	if (!expect(receive_report(job->report_fd, report),
		    "no report from the job's process"))
		return false;
	return expect(report->kind == REPORT_JID, "process %d could not be set up: %s",
		      report->tid, errno_name(report->err));
}

/* Body: a second process in the job, which reports and stays. */
static void spawn_member(const struct job_leader *self, void *arg)
{
	(void)arg;
	if (fork_flushed() == 0) {
		die_with_parent();
		report_own_jid(self->report_fd);
		for (;;)
			pause();
	}
}

static void spawn_two_members(const struct job_leader *self, void *arg)
{
	spawn_member(self, arg);
	spawn_member(self, arg);
}

/* A process in no job that waits to be killed. */
static pid_t spawn_sleeper(void)
{
	pid_t pid = fork_flushed();

	if (pid == 0) {
		die_with_parent();
		for (;;)
			pause();
	}
	return pid;
}

static bool process_alive(pid_t pid)
{
	return kill_ours(pid, 0) == 0;
}

static bool list_contains(const jid_t *list, int n, jid_t jid)
{
	for (int i = 0; i < n; i++)
		if (list[i] == jid)
			return true;
	return false;
}

/* A JID with the host id of hid_source that no job uses. */
static jid_t unused_jid(jid_t hid_source)
{
	jid_t list[1024];
	int n = job_getjidlist(list, sizeof(list));
	jid_t jid = (hid_source & 0xffffffff00000000ULL) | 0x7e570000;
	struct job_acct acct;

	/* Neither live nor ended with a record still readable. */
	while (list_contains(list, n, jid) || job_getacct(jid, &acct) == 0)
		jid++;
	return jid;
}

/* Forks a process that waits for the job and reports what waitjid said. */
static pid_t spawn_waiter(jid_t jid, int *report_fd, unsigned int timeout_s)
{
	int fds[2];
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC) < 0)
		return -1;
	pid = fork_flushed();
	if (pid == 0) {
		struct report report;
		int status = -1;

		alarm(timeout_s);
		errno = 0;
		report_result(fds[1], NO_JID);	/* waiting starts now */
		report.jid = job_waitjid(jid, &status, 0);
		report.kind = REPORT_JID;
		report.err = report.jid == NO_JID ? errno : 0;
		report.status = status;
		send_report(fds[1], &report);
		_exit(0);
	}
	close(fds[1]);
	*report_fd = fds[0];
	return pid;
}

static void format_jid(char *buf, size_t size, jid_t jid)
{
	snprintf(buf, size, "%#llx", JID(jid));
}

/* --- SGI's tests --- */

static void test_jid_list(void)
{
	struct job_leader a, b;
	jid_t list[256], guard = 0x5a5a5a5a5a5a5a5aULL;
	pid_t pids[4];
	int count, n;

	if (!start_job_ok(&a, NULL, NULL))
		return;
	if (!start_job_ok(&b, NULL, NULL))
		goto end_a;
	expect(a.jid != b.jid, "two jobs got the same JID %#llx", JID(a.jid));
	expect(a.jid != 0, "JID 0 (job creation disabled?)");

	count = job_getjidcnt();
	expect(count >= 2, "job_getjidcnt() = %d with two jobs", count);
	n = job_getjidlist(list, sizeof(list));
	expect(n >= 2 && n <= (int)(sizeof(list) / sizeof(list[0])),
	       "job_getjidlist() = %d", n);
	expect(list_contains(list, n, a.jid) && list_contains(list, n, b.jid),
	       "job_getjidlist() lacks %#llx or %#llx", JID(a.jid), JID(b.jid));

	list[1] = guard;
	n = job_getjidlist(list, sizeof(jid_t));
	expect(n == 1, "job_getjidlist() with room for 1 = %d", n);
	expect(list[1] == guard, "job_getjidlist() wrote past the buffer");
	n = job_getjidlist(list, sizeof(jid_t) - 1);
	expect(n == 0, "job_getjidlist() with room for 0 = %d", n);

	expect(job_getjid(a.pid) == a.jid, "job_getjid(leader) = %#llx, expected %#llx",
	       JID(job_getjid(a.pid)), JID(a.jid));
	expect(job_getuid(a.jid) == 0, "job_getuid() = %d", (int)job_getuid(a.jid));
	expect(job_getprimepid(a.jid) == a.pid, "job_getprimepid() = %d, leader %d",
	       job_getprimepid(a.jid), a.pid);
	expect(job_getpidcnt(a.jid) == 1, "job_getpidcnt() = %d", job_getpidcnt(a.jid));
	n = job_getpidlist(a.jid, pids, sizeof(pids));
	expect(n == 1 && pids[0] == a.pid, "job_getpidlist() = %d (%d), leader %d",
	       n, pids[0], a.pid);
	end_job(&b);
end_a:
	end_job(&a);
}

static void test_detach_pid(void)
{
	struct job_leader job;
	struct report member;

	if (!start_job_ok(&job, spawn_member, NULL))
		return;
	if (receive_jid_report(&job, &member)) {
		expect(member.jid == job.jid, "member in %#llx", JID(member.jid));
		expect(job_getpidcnt(job.jid) == 2, "job_getpidcnt() = %d",
		       job_getpidcnt(job.jid));
		expect(job_detachpid(member.tid) == job.jid, "job_detachpid() failed: %m");
		expect_error(job_getjid(member.tid), ENODATA);
		expect(job_getpidcnt(job.jid) == 1, "job_getpidcnt() after detach = %d",
		       job_getpidcnt(job.jid));
		expect(job_getjid(job.pid) == job.jid,
		       "the parent lost its job when its child was detached");
		expect(process_alive(member.tid), "the detached process died");
	}
	end_job(&job);
}

static void test_detach_jid(void)
{
	struct job_leader job;
	struct report member;
	int n;

	if (!start_job_ok(&job, spawn_member, NULL))
		return;
	if (receive_jid_report(&job, &member)) {
		n = job_detachjid(job.jid);
		expect(n == 2, "job_detachjid() = %d (%m), expected 2", n);
		expect_error(job_getpidcnt(job.jid), ENODATA);
		expect_error(job_getjid(job.pid), ENODATA);
		expect_error(job_getjid(member.tid), ENODATA);
		expect(process_alive(job.pid) && process_alive(member.tid),
		       "detached processes died");
	}
	end_job(&job);
}

static void test_attach_detach_reattach(void)
{
	struct job_leader job;
	pid_t sleeper = spawn_sleeper();

	if (!start_job_ok(&job, NULL, NULL))
		goto out;
	expect(job_attachpid(sleeper, job.jid) == job.jid, "job_attachpid(): %m");
	expect(job_getjid(sleeper) == job.jid, "attached process not in the job");
	expect(job_getpidcnt(job.jid) == 2, "job_getpidcnt() = %d", job_getpidcnt(job.jid));
	expect_error(job_attachpid(sleeper, job.jid), EINVAL);
	expect(job_detachpid(sleeper) == job.jid, "job_detachpid(): %m");
	expect_error(job_getjid(sleeper), ENODATA);
	expect(job_attachpid(sleeper, job.jid) == job.jid, "reattach: %m");
	expect(job_getjid(sleeper) == job.jid, "reattached process not in the job");
	end_job(&job);
out:
	kill_ours(sleeper, SIGKILL);
	wait_for(sleeper);
}

/* Body: a child that creates its own job with the JID *arg. */
static void spawn_job_creator(const struct job_leader *self, void *arg)
{
	jid_t requested = *(jid_t *)arg;

	if (fork_flushed() == 0) {
		jid_t jid;

		die_with_parent();
		errno = 0;
		jid = job_create(requested, 0, 0);
		if (jid == NO_JID) {
			report_problem(self->report_fd, REPORT_ERROR, errno);
			_exit(1);
		}
		track_job(jid);
		report_own_jid(self->report_fd);
		for (;;)
			pause();
	}
}

static void test_child_creates_job(void)
{
	struct job_leader parent, busy;
	struct report child;
	jid_t requested;
	int err;

	if (!start_job_ok(&parent, NULL, NULL))
		return;
	end_job(&parent);
	requested = unused_jid(parent.jid);
	if (!start_job_ok(&parent, spawn_job_creator, &requested))
		return;
	if (receive_jid_report(&parent, &child)) {
		expect(child.jid == requested, "child's job_getjid() = %#llx, requested %#llx",
		       JID(child.jid), JID(requested));
		expect(job_getjid(parent.pid) == parent.jid,
		       "the parent left its job when its child made a new one");
		expect(job_getpidcnt(parent.jid) == 1, "old job has %d processes",
		       job_getpidcnt(parent.jid));
		expect(job_getprimepid(requested) == child.tid, "prime pid of the new job");

		err = start_job(&busy, requested, NULL, NULL);
		expect(err == EBUSY, "job_create(JID in use): %s", errno_name(err));
		if (!err)
			end_job(&busy);
		err = start_job(&busy, parent.jid, NULL, NULL);
		expect(err == EBUSY, "job_create(JID in use): %s", errno_name(err));
		if (!err)
			end_job(&busy);

		expect(job_detachpid(child.tid) == requested, "job_detachpid(child): %m");
		expect(job_getjid(parent.pid) == parent.jid,
		       "the parent was affected by its child's detach");
		kill_ours(child.tid, SIGKILL);
	}
	kill_and_wait(requested);
	end_job(&parent);
}

static void test_jkill(void)
{
	struct job_leader job;
	char jid[32];
	char *argv[] = { "/usr/bin/jkill", "-0", jid, NULL };
	int status;

	if (!start_job_ok(&job, NULL, NULL))
		return;
	format_jid(jid, sizeof(jid), job.jid);
	status = run_command(argv);
	expect(exited_with(status, 0), "jkill -0 %s on a live job: status %#x", jid, status);
	end_job(&job);
	status = run_command(argv);
	expect(status != -1 && !exited_with(status, 0) && !exited_with(status, 127),
	       "jkill -0 %s on an ended job: status %#x", jid, status);
}

static void test_jdetach_pid(void)
{
	struct job_leader job;
	struct report member;
	char pid[16];
	char *argv[] = { "/usr/bin/jdetach", "-p", pid, NULL };
	int status;

	if (!start_job_ok(&job, spawn_member, NULL))
		return;
	if (receive_jid_report(&job, &member)) {
		snprintf(pid, sizeof(pid), "%d", member.tid);
		status = run_command(argv);
		expect(exited_with(status, 0), "jdetach -p %s: status %#x", pid, status);
		expect_error(job_getjid(member.tid), ENODATA);
		expect(job_getjid(job.pid) == job.jid, "the parent was detached too");
	}
	end_job(&job);
}

static void test_jdetach_jid(void)
{
	struct job_leader job;
	struct report member;
	char jid[32];
	char *argv[] = { "/usr/bin/jdetach", "-j", jid, NULL };
	int status;

	if (!start_job_ok(&job, spawn_member, NULL))
		return;
	if (receive_jid_report(&job, &member)) {
		format_jid(jid, sizeof(jid), job.jid);
		status = run_command(argv);
		expect(exited_with(status, 0), "jdetach -j %s: status %#x", jid, status);
		expect_error(job_getpidcnt(job.jid), ENODATA);
		expect_error(job_getjid(member.tid), ENODATA);
		expect(process_alive(job.pid) && process_alive(member.tid),
		       "detached processes died");
	}
	end_job(&job);
}

/* --- pid wrap --- */

static int read_pid_max(void)
{
	FILE *f = fopen(PID_MAX_PATH, "r");
	int value = 0;

	if (f) {
		if (fscanf(f, "%d", &value) != 1)
			value = 0;
		fclose(f);
	}
	return value;
}

static bool write_pid_max(int value)
{
	FILE *f = fopen(PID_MAX_PATH, "w");
	bool ok;

	if (!f)
		return false;
	ok = fprintf(f, "%d\n", value) > 0;
	return fclose(f) == 0 && ok;
}

static void restore_pid_max(void)
{
	if (shared->saved_pid_max && write_pid_max(shared->saved_pid_max))
		shared->saved_pid_max = 0;
}

/* A wrap child: reports its membership, creates a job, reports its JID. */
static void run_wrap_child(int report_fd)
{
	report_own_jid(report_fd);
	errno = 0;
	report_result(report_fd, job_create(0, 0, 0));
	for (;;)
		pause();
}

struct wrap_counts {
	long forks, reused_pids, inherited, create_failures, duplicates;
};

static void test_pid_wrap(void)
{
	struct { pid_t pid; jid_t jid; } alive[WRAP_ALIVE] = { 0 };
	struct wrap_counts c = { 0 };
	int pid_max = read_pid_max(), fds[2];
	long max_forks = FULL_WRAP_FORKS;
	unsigned char *seen;

	if (!expect(pid_max > 0 && pipe2(fds, O_CLOEXEC) == 0, "setup: %m"))
		return;
	seen = calloc(pid_max + 1, 1);
	if (!full_wrap) {
		shared->saved_pid_max = pid_max;
		if (write_pid_max(slow ? SLOW_WRAP_PID_MAX : WRAP_PID_MAX))
			max_forks = WRAP_MAX_FORKS;
		else
			note("cannot lower pid_max (%m): %d forks", FULL_WRAP_FORKS);
	}

	for (; c.forks < max_forks; c.forks++) {
		struct report before, created;
		int slot = c.forks % WRAP_ALIVE;
		pid_t pid;

		if (!full_wrap &&
		    c.reused_pids >= (slow ? SLOW_WRAP_REUSES : WRAP_REUSES))
			break;
		if (alive[slot].pid) {
			kill_ours(alive[slot].pid, SIGKILL);
			wait_for(alive[slot].pid);
			alive[slot].pid = 0;
		}
		pid = fork_flushed();
		if (pid == 0) {
			die_with_parent();
			run_wrap_child(fds[1]);
		}
		if (!expect(pid > 0, "fork %ld: %m", c.forks) ||
		    !expect(receive_report(fds[0], &before) &&
			    receive_report(fds[0], &created), "no report from child %d", pid))
			break;
		if (pid <= pid_max && seen[pid]++)
			c.reused_pids++;
		if (before.jid != NO_JID || before.err != ENODATA) {
			if (!c.inherited++)
				note("new process %d is in job %#llx (%s)", pid,
				     JID(before.jid), errno_name(before.err));
		}
		if (created.jid == NO_JID) {
			if (!c.create_failures++)
				note("job_create in %d: %s", pid, errno_name(created.err));
		}
		for (int i = 0; i < WRAP_ALIVE; i++) {
			if (alive[i].pid && alive[i].jid == created.jid &&
			    created.jid != NO_JID && !c.duplicates++)
				note("JID %#llx of live pid %d given to pid %d too",
				     JID(created.jid), alive[i].pid, pid);
		}
		alive[slot].pid = pid;
		alive[slot].jid = created.jid;
	}
	for (int i = 0; i < WRAP_ALIVE; i++) {
		if (alive[i].pid) {
			kill_ours(alive[i].pid, SIGKILL);
			wait_for(alive[i].pid);
		}
	}
	restore_pid_max();
	free(seen);
	printf("    %ld forks, %ld reused pids\n", c.forks, c.reused_pids);
	expect(c.reused_pids > 0, "the pid space did not wrap");
	expect(!c.inherited, "%ld new processes were in a job", c.inherited);
	expect(!c.create_failures, "%ld job_create failures", c.create_failures);
	expect(!c.duplicates, "%ld duplicate JIDs", c.duplicates);
}

/* --- escape routes: every new process must report the job's JID --- */

static void *report_from_thread(void *report_fd)
{
	report_own_jid(*(int *)report_fd);
	return NULL;
}

static void escape_by_fork(const struct job_leader *self, void *arg)
{
	(void)arg;
	if (fork_flushed() == 0) {
		report_own_jid(self->report_fd);
		_exit(0);
	}
}

static void exec_reporter(const char *path, int report_fd)
{
	char fd[16];

	snprintf(fd, sizeof(fd), "%d", report_fd);
	execl(path, "jobtest", REPORT_JID_OPTION, fd, (char *)NULL);
}

static void escape_by_vfork(const struct job_leader *self, void *arg)
{
	(void)arg;
	fflush(NULL);
	if (vfork() == 0) {
		exec_reporter("/proc/self/exe", self->report_fd);
		_exit(127);
	}
}

static void escape_by_thread(const struct job_leader *self, void *arg)
{
	pthread_t thread;
	int fd = self->report_fd;

	(void)arg;
	if (pthread_create(&thread, NULL, report_from_thread, &fd) == 0)
		pthread_join(thread, NULL);
	else
		report_problem(fd, REPORT_ERROR, errno);
}

/* Reports from a child made by a fork-like raw syscall returning ret. */
static void report_from_raw_child(int report_fd, long ret)
{
	if (ret == 0) {
		report_own_jid(report_fd);
		_exit(0);
	}
	if (ret < 0)
		report_problem(report_fd, errno == ENOSYS ? REPORT_SKIP : REPORT_ERROR,
			       errno);
}

static void escape_by_clone_parent(const struct job_leader *self, void *arg)
{
	(void)arg;
	fflush(NULL);
	report_from_raw_child(self->report_fd,
			      syscall(SYS_clone, CLONE_PARENT, NULL, NULL, NULL, NULL));
}

static void escape_by_clone3(const struct job_leader *self, void *arg)
{
	struct clone_args args = { .exit_signal = SIGCHLD };

	(void)arg;
	fflush(NULL);
	report_from_raw_child(self->report_fd,
			      syscall(__NR_clone3, &args, sizeof(args)));
}

/* Double fork: the grandchild reports once its parent is gone. */
static void orphan(int report_fd, bool new_session)
{
	pid_t middle;

	if (fork_flushed() != 0)
		return;
	if (new_session)
		setsid();
	middle = getpid();
	if (fork_flushed() != 0)
		_exit(0);
	while (getppid() == middle)
		sleep_ms(1);
	report_own_jid(report_fd);
	_exit(0);
}

static void escape_by_orphan(const struct job_leader *self, void *arg)
{
	(void)arg;
	orphan(self->report_fd, false);
}

static void escape_by_setsid_orphan(const struct job_leader *self, void *arg)
{
	(void)arg;
	orphan(self->report_fd, true);
}

static void escape_by_daemon(const struct job_leader *self, void *arg)
{
	(void)arg;
	if (fork_flushed() != 0)
		return;
	if (daemon(0, 0) < 0)
		report_problem(self->report_fd, REPORT_ERROR, errno);
	else
		report_own_jid(self->report_fd);
	_exit(0);
}

static bool copy_file(const char *from, const char *to, mode_t mode)
{
	char buf[65536];
	int in = open(from, O_RDONLY | O_CLOEXEC), out;
	ssize_t n = -1;

	unlink(to);
	out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0700);
	if (in >= 0 && out >= 0)
		while ((n = read(in, buf, sizeof(buf))) > 0)
			if (write(out, buf, n) != n)
				n = -1;
	if (in >= 0)
		close(in);
	if (out >= 0 && close(out) < 0)
		n = -1;
	return out >= 0 && n == 0 && chmod(to, mode) == 0;
}

static void escape_by_setuid_exec(const struct job_leader *self, void *arg)
{
	(void)arg;
	if (!copy_file("/proc/self/exe", SETUID_COPY_PATH, 04755)) {
		report_problem(self->report_fd, REPORT_SKIP, errno);
		return;
	}
	if (fork_flushed() != 0)
		return;
	if (drop_privileges())
		exec_reporter(SETUID_COPY_PATH, self->report_fd);
	report_problem(self->report_fd, REPORT_ERROR, errno);
	_exit(1);
}

/* Runs a child that unshares namespaces, then reports from its child. */
static void report_after_unshare(int report_fd, int flags, bool try_privileged)
{
	pid_t child;

	if (fork_flushed() != 0)
		return;
	if (unshare(flags) < 0) {
		report_problem(report_fd, REPORT_SKIP, errno);
		_exit(0);
	}
	if (try_privileged) {
		/* Capabilities in a new user namespace must not count. */
		job_detachpid(gettid());
		job_create(0, 0, 0);
		report_own_jid(report_fd);
	}
	child = fork_flushed();
	if (child == 0) {
		report_own_jid(report_fd);
		_exit(0);
	}
	wait_for(child);
	_exit(0);
}

static void escape_by_pid_namespace(const struct job_leader *self, void *arg)
{
	(void)arg;
	report_after_unshare(self->report_fd, CLONE_NEWPID, false);
}

static void escape_by_user_namespace(const struct job_leader *self, void *arg)
{
	(void)arg;
	report_after_unshare(self->report_fd, CLONE_NEWUSER, true);
}

/* --- fork storm, wait, accounting --- */

/* Body: chains of processes that fork and exit, forever. */
static void start_fork_storm(const struct job_leader *self, void *arg)
{
	(void)arg;
	signal(SIGTERM, SIG_DFL);
	setpgid(0, 0);
	for (int i = 0; i < STORM_CHAINS; i++) {
		if (fork_flushed() == 0) {
			for (;;)
				if (fork() > 0)
					_exit(0);
		}
	}
	report_own_jid(self->report_fd);
}

/* Reaps children until pid ends; returns its wait status. */
static int reap_until(pid_t pid)
{
	int status;
	pid_t ended;

	for (;;) {
		ended = wait(&status);
		if (ended == pid || (ended < 0 && errno == ECHILD))
			return ended == pid ? status : -1;
	}
}

/* The lines of /proc/PID/status that say how a process takes signals. */
static void note_signal_state(pid_t pid)
{
	static const char *const keys[] = {
		"State:", "SigPnd:", "ShdPnd:", "SigBlk:", "SigIgn:", "SigCgt:",
	};
	char path[64], line[256], state[512] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f) {
		note("  pid %d: %m", (int)pid);
		return;
	}
	while (fgets(line, sizeof(line), f))
		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			if (!strncmp(line, keys[i], strlen(keys[i]))) {
				line[strcspn(line, "\n")] = '\0';
				strncat(state, line, sizeof(state) - strlen(state) - 2);
				strcat(state, " ");
			}
	fclose(f);
	note("  pid %d: %s", (int)pid, state);
}

/*
 * After a killjid that job_waitjid did not see end the job in time: did the
 * job end late (a slow host), or is a member left that the signal missed?
 * Waits up to @wait_ms more without signalling, and says which.
 */
static void explain_unended_job(jid_t jid, long long killed_ms, int wait_ms)
{
	long long deadline = now_ms() + wait_ms;
	pid_t pids[64];
	int n;

	while (job_getpidcnt(jid) > 0 && now_ms() < deadline) {
		reap_ended_children();
		sleep_ms(10);
	}
	if (job_getpidcnt(jid) <= 0) {
		note("job %#llx ended %lld ms after the kill: late, no member missed",
		     JID(jid), now_ms() - killed_ms);
		return;
	}
	n = job_getpidlist(jid, pids, sizeof(pids));
	note("job %#llx still has %d processes %lld ms after the kill: missed by the signal?",
	     JID(jid), job_getpidcnt(jid), now_ms() - killed_ms);
	for (int i = 0; i < n && i < (int)(sizeof(pids) / sizeof(pids[0])); i++)
		note_signal_state(pids[i]);
}

static void kill_fork_storm(int sig)
{
	struct job_leader job;
	struct report started, waited;
	long long spawned_ms, killed_ms;
	pid_t waiter;
	int waiter_fd, status;
	unsigned int waiter_s = 2 * REPORT_TIMEOUT_MS / 1000 * (slow ? SLOW_FACTOR : 1);

	prctl(PR_SET_CHILD_SUBREAPER, 1);	/* to reap the chains */
	if (!start_job_ok(&job, start_fork_storm, NULL))
		return;
	if (!receive_jid_report(&job, &started))
		goto out;
	for (int ms = 0; ms < STORM_RUN_MS; ms += 5) {
		reap_ended_children();
		sleep_ms(5);
	}
	spawned_ms = now_ms();
	waiter = spawn_waiter(job.jid, &waiter_fd, waiter_s);
	if (!expect(waiter > 0 && receive_report(waiter_fd, &waited), "waiter: %m"))
		goto out;
	sleep_ms(50);
	expect(job_killjid(job.jid, sig) == 0, "job_killjid(%s): %m", sigabbrev_np(sig));
	killed_ms = now_ms();
	status = reap_until(waiter);
	if (!expect(exited_with(status, 0),
		    "job_waitjid did not return (status %#x) within the waiter's %u s alarm; the killjid returned %lld ms after the waiter's fork",
		    status, waiter_s, killed_ms - spawned_ms))
		explain_unended_job(job.jid, killed_ms, waiter_s * 1000);
	else if (expect(receive_report(waiter_fd, &waited), "no report from the waiter")) {
		expect(waited.jid == job.jid || waited.err == ENODATA,
		       "job_waitjid: %s", errno_name(waited.err));
		expect_error(job_getpidcnt(job.jid), ENODATA);
	}
	close(waiter_fd);
out:
	for (int i = 0; i < 100 && job_getpidcnt(job.jid) > 0; i++) {
		kill_ours(-job.pid, SIGKILL);
		job_killjid(job.jid, SIGKILL);
		reap_ended_children();
		sleep_ms(10);
	}
	end_job(&job);
	reap_ended_children();
}

static void test_storm_sigkill(void)
{
	kill_fork_storm(SIGKILL);
}

static void test_storm_sigterm(void)
{
	kill_fork_storm(SIGTERM);
}

/* --- membership from fork, kills during slow forks --- */

/* The state letter of /proc/PID/stat ('T' stopped), or 0. */
static char process_state(pid_t pid)
{
	char path[64], buf[512], *paren, state = 0;
	FILE *f;

	for (int i = 0; i < 200; i++) {
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
		f = fopen(path, "r");
		if (!f)
			return 0;
		state = 0;
		if (fgets(buf, sizeof(buf), f) && (paren = strrchr(buf, ')')))
			state = paren[2];
		fclose(f);
		if (state == 'T')
			break;
		sleep_ms(10);
	}
	return state;
}


#define FORK_MEMBERSHIP_ROUNDS	1000

struct membership_args {
	jid_t other;		/* a second job, to attach into */
};

/* Every check on the child, right after fork() returns; 0 or a failure. */
static int check_fresh_child(jid_t jid, jid_t other, pid_t child)
{
	pid_t pids[64];
	int n;

	if (job_getjid(child) != jid)
		return 1;
	n = job_getpidlist(jid, pids, sizeof(pids));
	if (n < 0)
		return 2;
	for (int i = 0;; i++) {
		if (i == n)
			return 2;
		if (pids[i] == child)
			break;
	}
	if (job_attachpid(child, other) != NO_JID || errno != EINVAL)
		return 3;
	if (job_detachpid(child) != jid)
		return 4;
	if (job_getjid(child) != NO_JID || errno != ENODATA)
		return 5;
	return 0;
}

/*
 * Body: forks again and again, checking each child before it can have
 * run; reports the failures counted per check in jid (four bits each).
 */
static void check_children_at_fork(const struct job_leader *self, void *arg)
{
	const struct membership_args *args = arg;
	unsigned long long failed = 0;
	struct report report = { .kind = REPORT_JID, .tid = gettid() };

	for (int round = 0; round < FORK_MEMBERSHIP_ROUNDS; round++) {
		pid_t child = fork();
		int check;

		if (child == 0)
			for (;;)
				pause();
		if (child < 0) {
			report_problem(self->report_fd, REPORT_ERROR, errno);
			return;
		}
		check = check_fresh_child(self->jid, args->other, child);
		if (check && ((failed >> (check * 12)) & 0xfff) < 0xfff)
			failed += 1ULL << (check * 12);
		kill(child, SIGKILL);
		wait_for(child);
	}
	report.jid = failed;
	send_report(self->report_fd, &report);
}

/*
 * A child is a member from the instant fork() returns in its parent: it
 * has the parent's JID, is listed, cannot be attached elsewhere and can be
 * detached, before it has run (SGI's semantics).
 */
static void test_membership_at_fork(void)
{
	static const char *const checks[] = {
		NULL, "job_getjid", "job_getpidlst", "job_attachpid (EINVAL)",
		"job_detachpid", "job_getjid after detach",
	};
	struct membership_args args;
	struct job_leader job, other;
	struct report result;

	if (!start_job_ok(&other, NULL, NULL))
		return;
	args.other = other.jid;
	if (start_job_ok(&job, check_children_at_fork, &args)) {
		/* A thousand forks take a while under emulation. */
		report_ready(job.report_fd, TEST_TIMEOUT_S * 1000 / 2 *
			     (slow ? SLOW_FACTOR : 1));
		if (receive_jid_report(&job, &result))
			for (int check = 1; check <= 5; check++) {
				unsigned int n = (result.jid >> (check * 12)) & 0xfff;

				expect(n == 0, "%s failed on %u of %d fresh children",
				       checks[check], n, FORK_MEMBERSHIP_ROUNDS);
			}
		end_job(&job);
	}
	end_job(&other);
}

#define SLOW_FORKERS		2
#define SLOW_FORKER_MB		64
#define SLOW_FORKER_CHILDREN	200
#define SLOW_FORK_ROUNDS	5

static volatile sig_atomic_t got_signal;

static void note_signal(int sig)
{
	(void)sig;
	got_signal = 1;
}

/* Waits, with the handled signals unblocked, until one came. */
static void wait_for_signal(const sigset_t *handled)
{
	sigset_t old;

	sigprocmask(SIG_BLOCK, handled, &old);
	while (!got_signal)
		sigsuspend(&old);
	sigprocmask(SIG_SETMASK, &old, NULL);
}

/*
 * A process with a large resident set (a slow copy_mm) that forks children
 * until SIGUSR1 or SIGTERM comes; its children wait for one, too.  Each
 * exits when it has had the signal, the forker once its children have.
 */
static void run_slow_forker(void)
{
	size_t size = (size_t)SLOW_FORKER_MB << 20;
	struct sigaction sa = { .sa_handler = note_signal };
	sigset_t handled;
	char *mem;
	int children = 0;

	sigemptyset(&handled);
	sigaddset(&handled, SIGUSR1);
	sigaddset(&handled, SIGTERM);
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigprocmask(SIG_UNBLOCK, &handled, NULL);
	mem = mmap(NULL, size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem != MAP_FAILED)
		memset(mem, 1, size);
	while (!got_signal && children < SLOW_FORKER_CHILDREN) {
		pid_t pid = fork();

		if (pid == 0) {
			wait_for_signal(&handled);
			_exit(0);
		}
		children += pid > 0;
	}
	wait_for_signal(&handled);
	while (wait(NULL) > 0 || errno == EINTR)
		;
	_exit(0);
}

static void start_slow_forkers(const struct job_leader *self, void *arg)
{
	(void)self;
	(void)arg;
	for (int i = 0; i < SLOW_FORKERS; i++)
		if (fork_flushed() == 0)
			run_slow_forker();
}

/* True once every process of the job is stopped (or gone). */
static bool job_all_stopped(jid_t jid)
{
	pid_t pids[SLOW_FORKERS * (SLOW_FORKER_CHILDREN + 1) + 8];
	int n = job_getpidlist(jid, pids, sizeof(pids));

	for (int i = 0; i < n; i++) {
		char state = process_state(pids[i]);

		if (state && state != 'T') {
			note("process %d is in state %c", pids[i], state);
			return false;
		}
	}
	return n >= 0;
}

/*
 * One round: slow forkers fork while the job is signalled.  A handled
 * SIGUSR1 or SIGTERM must reach every process, the children forked during
 * the kill included, so that all exit and the job ends; SIGSTOP must stop
 * every one of them.
 */
static void kill_slow_forks(int sig)
{
	struct job_leader job;
	struct report waited;
	int waiter_fd, status;
	pid_t waiter;

	if (!start_job_ok(&job, start_slow_forkers, NULL))
		return;
	/* Kill while the forkers are busy forking, past their first children. */
	for (int ms = 0; ms < REPORT_TIMEOUT_MS * (slow ? SLOW_FACTOR : 1) &&
	     job_getpidcnt(job.jid) < 1 + SLOW_FORKERS * 5; ms += 2)
		sleep_ms(2);
	if (sig == SIGSTOP) {
		expect(job_killjid(job.jid, SIGSTOP) == 0, "killjid(SIGSTOP): %m");
		expect(job_all_stopped(job.jid),
		       "a process forked during SIGSTOP still runs");
		expect(job_killjid(job.jid, SIGCONT) == 0, "killjid(SIGCONT): %m");
		sig = SIGUSR1;
	}
	waiter = spawn_waiter(job.jid, &waiter_fd,
			      2 * REPORT_TIMEOUT_MS / 1000 * (slow ? SLOW_FACTOR : 1));
	if (!expect(waiter > 0, "waiter: %m"))
		goto out;
	/* The leader is released by SIGUSR1 too; SIGTERM kills it. */
	expect(job_killjid(job.jid, sig) == 0, "killjid(%s): %m", sigabbrev_np(sig));
	status = reap_until(waiter);
	expect(exited_with(status, 0) && receive_report(waiter_fd, &waited),
	       "%s did not reach every process: the job did not end (%d left)",
	       sigabbrev_np(sig), job_getpidcnt(job.jid));
	close(waiter_fd);
out:
	end_job(&job);
}

static void test_slow_forks_sigusr1(void)
{
	for (int i = 0; i < SLOW_FORK_ROUNDS; i++)
		kill_slow_forks(SIGUSR1);
}

static void test_slow_forks_sigterm(void)
{
	for (int i = 0; i < SLOW_FORK_ROUNDS; i++)
		kill_slow_forks(SIGTERM);
}

static void test_slow_forks_sigstop(void)
{
	for (int i = 0; i < SLOW_FORK_ROUNDS; i++)
		kill_slow_forks(SIGSTOP);
}

/* The number of threads of @pid (its io_uring workers included). */
static int thread_count(pid_t pid)
{
	char path[64], line[128];
	int n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Threads: %d", &n) == 1)
			break;
	fclose(f);
	return n;
}

#define THREAD_RING		16
#define THREAD_MOVE_ROUNDS	200

/* Shared between the test and a process whose threads keep changing. */
struct thread_churn {
	int hold;		/* the test asks the spawner to pause */
	int held;		/* the spawner has paused */
	int live;		/* then: the threads it keeps alive */
	int stop;
};

static void *wait_to_retire(void *retire)
{
	while (!__atomic_load_n((int *)retire, __ATOMIC_ACQUIRE))
		sleep_ms(1);
	return NULL;
}

/*
 * Keeps THREAD_RING threads alive, replacing the oldest by a new one again
 * and again, so that threads are created by threads while the test moves
 * the process; pauses when asked.
 */
static void *spawn_threads(void *arg)
{
	struct thread_churn *churn = arg;
	pthread_t ring[THREAD_RING];
	int retire[THREAD_RING] = { 0 };
	pthread_attr_t attr;
	unsigned long n = 0;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 << 10);
	while (!__atomic_load_n(&churn->stop, __ATOMIC_ACQUIRE)) {
		int slot = n % THREAD_RING;

		if (__atomic_load_n(&churn->hold, __ATOMIC_ACQUIRE)) {
			__atomic_store_n(&churn->live,
					 n < THREAD_RING ? (int)n : THREAD_RING,
					 __ATOMIC_RELAXED);
			__atomic_store_n(&churn->held, 1, __ATOMIC_RELEASE);
			sleep_ms(1);
			continue;
		}
		__atomic_store_n(&churn->held, 0, __ATOMIC_RELEASE);
		if (n >= THREAD_RING) {
			__atomic_store_n(&retire[slot], 1, __ATOMIC_RELEASE);
			pthread_join(ring[slot], NULL);
			retire[slot] = 0;
		}
		if (pthread_create(&ring[slot], &attr, wait_to_retire, &retire[slot]))
			_exit(3);
		n++;
	}
	return NULL;
}

/*
 * Pauses the spawner of @pid and returns once its threads are settled: a
 * joined thread may still be counted until it is reaped, after it has left
 * its job.
 */
static void hold_threads(struct thread_churn *churn, pid_t pid, int hold)
{
	__atomic_store_n(&churn->hold, hold, __ATOMIC_RELEASE);
	if (!hold) {
		while (__atomic_load_n(&churn->held, __ATOMIC_ACQUIRE))
			sleep_ms(1);
		return;
	}
	while (!__atomic_load_n(&churn->held, __ATOMIC_ACQUIRE))
		sleep_ms(1);
	for (int ms = 0; ms < 2000 && thread_count(pid) !=
	     2 + __atomic_load_n(&churn->live, __ATOMIC_RELAXED); ms++)
		sleep_ms(1);
}

/* The tasks the job counts, or -1. */
static int job_tasks(jid_t jid)
{
	struct job_info info;

	return job_getinfo(jid, &info) < 0 ? -1 : (int)info.nr_tasks;
}

/*
 * A process whose threads create threads all the time is attached and
 * detached again and again: after an attach every thread is a member,
 * after a detach none is, whatever was created during the walk.
 */
static void test_threads_during_moves(void)
{
	struct thread_churn *churn;
	struct job_leader job;
	int wrong_in = 0, wrong_out = 0, rounds;
	pid_t pid;

	churn = mmap(NULL, sizeof(*churn), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (!expect(churn != MAP_FAILED, "mmap: %m"))
		return;
	pid = fork_flushed();
	if (pid == 0) {
		pthread_t spawner;

		die_with_parent();
		if (pthread_create(&spawner, NULL, spawn_threads, churn))
			_exit(2);
		pthread_join(spawner, NULL);
		_exit(0);
	}
	if (!start_job_ok(&job, NULL, NULL))
		goto out;
	/* A tenth on slow (debug) kernels, where a round takes seconds. */
	rounds = slow ? THREAD_MOVE_ROUNDS / 10 : THREAD_MOVE_ROUNDS;
	for (int round = 0; round < rounds; round++) {
		int threads, tasks;

		if (!expect(job_attachpid(pid, job.jid) == job.jid, "attach: %m"))
			break;
		hold_threads(churn, pid, 1);
		threads = thread_count(pid);
		tasks = job_tasks(job.jid);
		wrong_in += tasks != threads + 1;
		if (tasks != threads + 1 && wrong_in == 1)
			note("after attach: %d tasks in the job, %d threads + the leader",
			     tasks, threads);
		hold_threads(churn, pid, 0);
		if (!expect(job_detachpid(pid) == job.jid, "detach: %m"))
			break;
		hold_threads(churn, pid, 1);
		tasks = job_tasks(job.jid);
		wrong_out += tasks != 1;
		if (tasks != 1 && wrong_out == 1)
			note("after detach: %d tasks in the job, not just the leader",
			     tasks);
		hold_threads(churn, pid, 0);
	}
	expect(!wrong_in, "%d of %d attaches left threads out", wrong_in,
	       rounds);
	expect(!wrong_out, "%d of %d detaches left threads in", wrong_out,
	       rounds);
	end_job(&job);
out:
	__atomic_store_n(&churn->stop, 1, __ATOMIC_RELEASE);
	kill_ours(pid, SIGKILL);
	wait_for(pid);
	munmap(churn, sizeof(*churn));
}

static void test_waitjid(void)
{
	struct job_leader job;
	struct report waited;
	pid_t waiter;
	int waiter_fd;

	if (!start_job_ok(&job, NULL, NULL))
		return;
	waiter = spawn_waiter(job.jid, &waiter_fd, 2 * REPORT_TIMEOUT_MS / 1000 * (slow ? SLOW_FACTOR : 1));
	if (!expect(waiter > 0 && receive_report(waiter_fd, &waited), "waiter: %m"))
		goto out;
	sleep_ms(200);
	expect(!report_ready(waiter_fd, 0), "job_waitjid returned while the job lives");
	release_leader(&job);
	if (expect(receive_report(waiter_fd, &waited), "the waiter did not wake up")) {
		expect(waited.jid == job.jid, "job_waitjid() = %#llx (%s)",
		       JID(waited.jid), errno_name(waited.err));
		expect(WIFEXITED(waited.status) &&
		       WEXITSTATUS(waited.status) == LEADER_EXIT_STATUS,
		       "status %#x, expected exit status %d", waited.status,
		       LEADER_EXIT_STATUS);
	}
	wait_for(waiter);
	close(waiter_fd);
out:
	end_job(&job);
}

/* A thread of a process whose main thread has exited: reports, stays. */
static void *outlive_main_thread(void *report_fd)
{
	char path[64], stat[256];
	bool main_exited = false;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", getpid());
	for (int i = 0; i < 1000 && !main_exited; i++) {
		FILE *f = fopen(path, "r");
		char *state = NULL;

		/* The exited main thread is a zombie while the others run. */
		if (f && fgets(stat, sizeof(stat), f))
			state = strrchr(stat, ')');
		main_exited = state && state[1] == ' ' && state[2] == 'Z';
		if (f)
			fclose(f);
		if (!main_exited)
			sleep_ms(10);
	}
	report_own_jid(*(int *)report_fd);
	for (;;)
		pause();
	return NULL;
}

/* Body: a process that reports, starts a thread and exits its main thread. */
static void spawn_headless_process(const struct job_leader *self, void *arg)
{
	static int report_fd;
	pthread_t thread;

	(void)arg;
	report_fd = self->report_fd;
	if (fork_flushed() != 0)
		return;
	report_own_jid(report_fd);
	if (pthread_create(&thread, NULL, outlive_main_thread, &report_fd))
		report_problem(report_fd, REPORT_ERROR, errno);
	pthread_exit(NULL);
}

/*
 * A member whose main thread exits (pthread_exit) is still a process of the
 * job: counted, listed, found, detached and attached by its pid, killed
 * with it.
 */
static void test_main_thread_exits(void)
{
	struct job_leader job;
	struct report process = { 0 }, thread;
	pid_t pids[4];
	int n;

	if (!start_job_ok(&job, spawn_headless_process, NULL))
		return;
	if (!receive_jid_report(&job, &process) ||
	    !receive_jid_report(&job, &thread))
		goto out;
	expect(thread.jid == job.jid, "the remaining thread reports JID %#llx (%s), job %#llx",
	       JID(thread.jid), errno_name(thread.err), JID(job.jid));
	expect(job_getjid(process.tid) == job.jid, "job_getjid(%d): %s",
	       process.tid, errno_name(errno));
	expect(job_detachpid(process.tid) == job.jid, "job_detachpid: %m");
	expect(job_getpidcnt(job.jid) == 1, "job_getpidcnt() after detach = %d",
	       job_getpidcnt(job.jid));
	expect(job_attachpid(process.tid, job.jid) == job.jid, "job_attachpid: %m");
	release_leader(&job);
	n = job_getpidlist(job.jid, pids, sizeof(pids));
	expect(job_getpidcnt(job.jid) == 1, "job_getpidcnt() = %d",
	       job_getpidcnt(job.jid));
	expect(n == 1 && pids[0] == process.tid, "job_getpidlist() = %d (%d), process %d",
	       n, n > 0 ? pids[0] : 0, process.tid);
	expect(job_killjid(job.jid, SIGKILL) == 0, "job_killjid: %m");
	expect(job_waitjid(job.jid, NULL, 0) == job.jid, "job_waitjid: %m");
out:
	end_job(&job);
	kill_ours(process.tid, SIGKILL);
}

static void burn_cpu(long long ns)
{
	struct timespec ts;
	volatile unsigned long spin = 0;

	do {
		for (int i = 0; i < 1000000; i++)
			spin++;
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	} while (ts.tv_sec * 1000000000LL + ts.tv_nsec < ns);
}

static void write_to_null(size_t bytes)
{
	static char buf[65536];
	int fd = open("/dev/null", O_WRONLY);

	for (size_t done = 0; done < bytes; done += sizeof(buf))
		if (write(fd, buf, sizeof(buf)) != sizeof(buf))
			break;
	close(fd);
}

/* Body: a child that burns CPU, writes and touches memory, then ends. */
static void run_accounted_work(const struct job_leader *self, void *arg)
{
	pid_t worker;

	(void)arg;
	worker = fork_flushed();
	if (worker == 0) {
		char *memory = malloc(TOUCH_BYTES);

		burn_cpu(BURN_CPU_NS);
		write_to_null(WRITE_BYTES);
		if (memory)
			memset(memory, 1, TOUCH_BYTES);
		_exit(0);
	}
	wait_for(worker);
	report_own_jid(self->report_fd);
}

static void expect_work_accounted(const struct job_acct *acct)
{
	expect(acct->utime_ns > 0, "utime_ns = %llu", (unsigned long long)acct->utime_ns);
	expect(acct->write_bytes >= WRITE_BYTES, "write_bytes = %llu",
	       (unsigned long long)acct->write_bytes);
	expect(acct->nr_processes >= 2, "nr_processes = %llu",
	       (unsigned long long)acct->nr_processes);
	expect(acct->maxrss_kb > 0, "maxrss_kb = 0");
	expect(acct->uid == 0, "uid = %u", acct->uid);
}

static void test_accounting(void)
{
	struct job_leader job;
	struct report done;
	struct job_acct acct = { 0 };
	int status;

	if (!start_job_ok(&job, run_accounted_work, NULL))
		return;
	if (!receive_jid_report(&job, &done))
		goto out;
	if (expect(job_getacct(job.jid, &acct) == 0, "job_getacct(live job): %m")) {
		expect_work_accounted(&acct);
		expect(!acct.ended && !acct.end_time_ns, "live job marked ended");
	}
	status = release_leader(&job);
	expect(exited_with(status, LEADER_EXIT_STATUS), "leader status %#x", status);
	for (int i = 0; i < 200 && job_getpidcnt(job.jid) >= 0; i++)
		sleep_ms(10);
	memset(&acct, 0, sizeof(acct));
	if (expect(job_getacct(job.jid, &acct) == 0, "job_getacct(ended job): %m")) {
		expect_work_accounted(&acct);
		expect(acct.ended, "ended job not marked ended");
		expect(acct.end_time_ns >= acct.start_time_ns && acct.end_time_ns,
		       "end time %llu, start time %llu",
		       (unsigned long long)acct.end_time_ns,
		       (unsigned long long)acct.start_time_ns);
		expect(WIFEXITED(acct.exit_status) &&
		       WEXITSTATUS(acct.exit_status) == LEADER_EXIT_STATUS,
		       "exit_status %#x", acct.exit_status);
	}
out:
	end_job(&job);
}

/* --- permissions and bad input --- */

static void test_unprivileged(void)
{
	struct job_leader job;
	pid_t user;

	if (!start_job_ok(&job, NULL, NULL))
		return;
	user = fork_flushed();
	if (user == 0) {
		if (!expect(drop_privileges(), "cannot become uid %d: %m", UNPRIVILEGED_ID))
			_exit(1);
		expect_error(job_create(0, UNPRIVILEGED_ID, 0), EPERM);
		expect_error(job_sethid(job.jid >> 32), EPERM);
		expect_error(job_detachjid(job.jid), EPERM);
		expect_error(job_detachpid(job.pid), EPERM);
		expect_error(job_attachpid(getpid(), job.jid), EPERM);
		expect_error(job_killjid(job.jid, SIGKILL), EPERM);
		_exit(0);
	}
	wait_for(user);
	expect(job_getpidcnt(job.jid) == 1 && job_getjid(job.pid) == job.jid,
	       "the job was changed by an unprivileged user");
	end_job(&job);
}

/*
 * A process that pauses until killed; with @user, as the unprivileged user
 * (returned once it is).
 */
static pid_t spawn_pauser(bool user)
{
	int fds[2];
	char ready;
	pid_t pid;

	if (pipe(fds) < 0)
		return -1;
	pid = fork_flushed();
	if (pid == 0) {
		die_with_parent();
		close(fds[0]);
		if (user && !drop_privileges())
			_exit(1);
		close(fds[1]);
		for (;;)
			pause();
	}
	close(fds[1]);
	/* EOF once it has changed its user (or died). */
	while (read(fds[0], &ready, 1) < 0 && errno == EINTR)
		;
	close(fds[0]);
	return pid;
}

/* True if @pid was killed by @sig; false (and it is still running) if not. */
static bool killed_by(pid_t pid, int sig)
{
	int status;

	for (int i = 0; i < 500; i++) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			return WIFSIGNALED(status) && WTERMSIG(status) == sig;
		sleep_ms(10);
	}
	return false;
}

/*
 * Gives the caller an io_uring worker thread: a read of an empty pipe
 * queued with IOSQE_ASYNC blocks in an io-wq worker.  Returns the ring.
 */
static int start_io_uring_worker(int pipe_rd)
{
	static char byte;
	struct io_uring_params params = { 0 };
	struct io_uring_sqe *sqe;
	unsigned int *tail, *array, mask;
	char *sq;
	int ring = syscall(__NR_io_uring_setup, 4, &params);

	if (ring < 0)
		return -1;
	sq = mmap(NULL, params.sq_off.array + params.sq_entries * sizeof(unsigned int),
		  PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring,
		  IORING_OFF_SQ_RING);
	sqe = mmap(NULL, params.sq_entries * sizeof(*sqe), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_SQES);
	if (sq == MAP_FAILED || sqe == MAP_FAILED)
		return -1;
	tail = (unsigned int *)(sq + params.sq_off.tail);
	array = (unsigned int *)(sq + params.sq_off.array);
	mask = *(unsigned int *)(sq + params.sq_off.ring_mask);
	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = IORING_OP_READ;
	sqe->fd = pipe_rd;
	sqe->addr = (unsigned long)&byte;
	sqe->len = 1;
	sqe->flags = IOSQE_ASYNC;
	array[*tail & mask] = 0;
	__atomic_store_n(tail, *tail + 1, __ATOMIC_RELEASE);
	if (syscall(__NR_io_uring_enter, ring, 1, 0, 0, NULL, 0) != 1)
		return -1;
	return ring;
}


/*
 * A process with an io_uring worker: @create makes it create a job itself,
 * else it only pauses.  Returns its pid and, with @create, the JID it got.
 */
static pid_t spawn_io_uring_process(bool create, jid_t *jid)
{
	int fds[2], work[2];
	pid_t pid;

	if (pipe(fds) < 0 || pipe(work) < 0)
		return -1;
	pid = fork_flushed();
	if (pid == 0) {
		jid_t got = 0;

		die_with_parent();
		if (start_io_uring_worker(work[0]) < 0)
			got = (jid_t)-2;
		for (int i = 0; i < 200 && thread_count(getpid()) < 2; i++)
			sleep_ms(10);
		if (!got && create)
			got = job_create(0, 0, 0);
		if (write(fds[1], &got, sizeof(got)) != sizeof(got))
			_exit(1);
		for (;;)
			pause();
	}
	close(fds[1]);
	if (read(fds[0], jid, sizeof(*jid)) != sizeof(*jid))
		*jid = (jid_t)-2;
	close(fds[0]);
	return pid;
}

/*
 * io_uring workers (PF_IO_WORKER) are threads of their process that never
 * run user code: create and attach skip them, and the process joins whole.
 */
static void test_io_uring_workers(void)
{
	pid_t creator, attached;
	jid_t jid, unused;
	int threads;

	creator = spawn_io_uring_process(true, &jid);
	if (jid == (jid_t)-2) {
		note("skipped: no io_uring worker could be started");
		kill(creator, SIGKILL);
		wait_for(creator);
		return;
	}
	threads = thread_count(creator);
	expect(threads >= 2, "no io_uring worker thread (%d threads)", threads);
	expect(jid != (jid_t)-1 && jid != 0,
	       "job_create from a process with an io_uring worker failed");
	expect(job_getjid(creator) == jid, "the creator is not in its job");
	attached = spawn_io_uring_process(false, &unused);
	expect(job_attachpid(attached, jid) == jid,
	       "attach of a process with an io_uring worker: %m");
	expect(job_getjid(attached) == jid, "the attached process is not in the job");
	expect(job_getpidcnt(jid) == 2, "pidcnt %d, not 2", job_getpidcnt(jid));
	expect(job_detachpid(attached) == jid, "detach: %m");
	expect_error(job_getjid(attached), ENODATA);
	expect(job_attachpid(attached, jid) == jid, "reattach: %m");
	expect(job_killjid(jid, SIGKILL) == 0, "killjid: %m");
	expect(killed_by(creator, SIGKILL), "the creator was not killed");
	expect(killed_by(attached, SIGKILL), "the attached process was not killed");
}

/*
 * The owner of a job signals its processes with kill(2)'s permissions: a
 * root process in a user's job (su, sudo, a setuid program) is out of the
 * owner's reach; a CAP_SYS_RESOURCE holder reaches every process.
 */
static void test_owner_kill_permissions(void)
{
	static const int sigs[] = { SIGKILL, SIGTERM, SIGUSR1, SIGSTOP };

	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		int sig = sigs[i], status, fds[2];
		pid_t root_member, user_member, owner;
		jid_t jid = (jid_t)-1;

		/* A root process creates the job, owned by the user. */
		if (!expect(pipe(fds) == 0, "pipe: %m"))
			return;
		root_member = fork_flushed();
		if (root_member == 0) {
			die_with_parent();
			jid = job_create(0, UNPRIVILEGED_ID, 0);
			if (write(fds[1], &jid, sizeof(jid)) != sizeof(jid))
				_exit(1);
			for (;;)
				pause();
		}
		close(fds[1]);
		if (read(fds[0], &jid, sizeof(jid)) != sizeof(jid))
			jid = (jid_t)-1;
		close(fds[0]);
		if (!expect(jid != (jid_t)-1, "job_create failed")) {
			kill(root_member, SIGKILL);
			wait_for(root_member);
			return;
		}
		user_member = spawn_pauser(true);
		expect(job_attachpid(user_member, jid) == jid,
		       "attach user member: %m");
		owner = fork_flushed();
		if (owner == 0) {
			struct job_killjid req = { .jid = jid, .sig = sig };
			int fd = open("/proc/job", O_RDONLY);

			if (!drop_privileges() || fd < 0)
				_exit(2);
			if (ioctl(fd, JOB_REQUEST(JOB_KILLJID), &req) < 0)
				_exit(3);
			_exit(req.r_val == 1 ? 0 : 4);
		}
		status = wait_for(owner);
		expect(exited_with(status, 0),
		       "signal %d: the owner's killjid did not signal exactly its own process (status %#x)",
		       sig, status);
		if (sig == SIGSTOP) {
			expect(process_state(user_member) == 'T',
			       "SIGSTOP did not stop the user's process");
			expect(process_state(root_member) != 'T',
			       "SIGSTOP from the owner stopped a root process");
			kill(user_member, SIGKILL);
			sig = SIGKILL;
		}
		expect(killed_by(user_member, sig),
		       "signal %d did not reach the user's process", sig);
		expect(waitpid(root_member, &status, WNOHANG) == 0,
		       "signal %d from the owner reached a root process", sig);
		/* A CAP_SYS_RESOURCE holder reaches it. */
		expect(job_killjid(jid, SIGKILL) == 0, "root's killjid: %m");
		expect(killed_by(root_member, SIGKILL),
		       "root's SIGKILL did not reach the root process");
	}
}

/* In a child: 0 if a new child of it starts with @sig pending, else 1. */
static int fork_starts_with_pending(int sig)
{
	pid_t pid = fork();

	if (pid == 0) {
		sigset_t pending;

		sigpending(&pending);
		_exit(sigismember(&pending, sig) ? 0 : 1);
	}
	return pid < 0 ? -1 : (exited_with(wait_for(pid), 0) ? 0 : 1);
}

/*
 * A killjid that has returned is over: a member that had the signal
 * blocked still holds it, and a child it forks afterwards starts, as
 * POSIX has it, with nothing pending.
 */
static void test_killjid_blocked_then_fork(void)
{
	const int sigs[] = { SIGUSR1, SIGTERM, SIGRTMAX };

	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		int sig = sigs[i];
		pid_t member = fork_flushed();

		if (member == 0) {
			sigset_t set;
			jid_t jid;

			die_with_parent();
			sigemptyset(&set);
			sigaddset(&set, sig);
			sigprocmask(SIG_BLOCK, &set, NULL);
			jid = job_create(0, 0, 0);
			if (jid == NO_JID || jid == 0)
				_exit(2);
			if (job_killjid(jid, sig) != 0)
				_exit(3);
			/* Pending, blocked, here; not in a later child. */
			if (sigpending(&set) || !sigismember(&set, sig))
				_exit(4);
			sleep_ms(50);
			_exit(fork_starts_with_pending(sig) == 1 ? 0 : 5);
		}
		expect(exited_with(wait_for(member), 0),
		       "signal %d, blocked in a member and sent by a killjid that had returned, was pending in a child forked after it",
		       sig);
	}
}

/*
 * killjid from inside a new pid namespace signals only the processes that
 * namespace can see, as kill(2) there would: a member outside it is left
 * alone, and r_val counts those signalled.
 */
static void test_killjid_pid_namespace(void)
{
	struct job_leader job;
	pid_t outside, insider;
	int status;

	if (!start_job_ok(&job, NULL, NULL))
		return;
	outside = spawn_pauser(false);
	expect(job_attachpid(outside, job.jid) == job.jid, "attach: %m");
	insider = fork_flushed();
	if (insider == 0) {
		pid_t init;

		die_with_parent();
		if (job_attachpid(getpid(), job.jid) != job.jid ||
		    unshare(CLONE_NEWPID) < 0)
			_exit(2);
		init = fork();
		if (init == 0) {
			struct job_killjid req = { .jid = job.jid, .sig = SIGUSR1 };
			int fd = open(JOB_PROC_PATH, O_RDONLY);

			signal(SIGUSR1, SIG_IGN);
			if (fd < 0 || ioctl(fd, JOB_REQUEST(JOB_KILLJID), &req) < 0)
				_exit(3);
			_exit(req.r_val == 1 ? 0 : 4);
		}
		_exit(init > 0 && exited_with(wait_for(init), 0) ? 0 : 5);
	}
	status = wait_for(insider);
	expect(exited_with(status, 0),
	       "killjid in a new pid namespace did not signal exactly the one process it sees (status %#x)",
	       status);
	expect(waitpid(outside, &status, WNOHANG) == 0,
	       "killjid from a new pid namespace signalled a member outside it");
	expect_error(job_killjid(job.jid, SIGRTMAX + 1), EINVAL);
	kill_ours(outside, SIGKILL);
	wait_for(outside);
	end_job(&job);
}

static void test_unknown_jid(void)
{
	struct job_leader job;
	struct job_acct acct;
	pid_t pids[4], sleeper;
	jid_t unknown;
	int status;

	if (!start_job_ok(&job, NULL, NULL))
		return;
	unknown = unused_jid(job.jid);
	sleeper = spawn_sleeper();
	expect_error(job_getpidcnt(unknown), ENODATA);
	expect_error(job_getpidlist(unknown, pids, sizeof(pids)), ENODATA);
	expect_error(job_getuid(unknown), ENODATA);
	expect_error(job_getprimepid(unknown), ENODATA);
	expect_error(job_killjid(unknown, 0), ENODATA);
	expect_error(job_waitjid(unknown, &status, 0), ENODATA);
	expect_error(job_detachjid(unknown), ENODATA);
	expect_error(job_attachpid(sleeper, unknown), ENODATA);
	expect_error(job_getacct(unknown, &acct), ENODATA);
	kill_ours(sleeper, SIGKILL);
	wait_for(sleeper);
	end_job(&job);
}

static void test_bad_pids_and_signals(void)
{
	static const pid_t bad_pids[] = { 0, -1, -2, INT_MIN };
	struct job_leader job;
	pid_t gone;
	int status;

	if (!start_job_ok(&job, NULL, NULL))
		return;
	for (size_t i = 0; i < sizeof(bad_pids) / sizeof(bad_pids[0]); i++) {
		pid_t pid = bad_pids[i];
		int failures = shared->failures;

		expect_error2(job_getjid(pid), ESRCH, EINVAL);
		expect_error2(job_detachpid(pid), ESRCH, EINVAL);
		expect_error2(job_attachpid(pid, job.jid), ESRCH, EINVAL);
		if (shared->failures != failures)
			note("with pid %d", pid);
	}
	gone = fork_flushed();
	if (gone == 0)
		_exit(0);
	wait_for(gone);
	expect_error(job_getjid(gone), ESRCH);
	expect_error(job_attachpid(gone, job.jid), ESRCH);
	expect_error(job_killjid(job.jid, -1), EINVAL);
	expect_error(job_killjid(job.jid, INT_MIN), EINVAL);
	expect_error(job_waitjid(job.jid, &status, 1), EINVAL);
	expect_error(job_waitjid(job.jid, &status, -1), EINVAL);
	expect(job_killjid(job.jid, 0) == 0, "job_killjid(jid, 0): %m");
	end_job(&job);
}

static int raw_job_ioctl(unsigned int request, void *arg)
{
	int fd = open(JOB_PROC_PATH, O_RDONLY | O_CLOEXEC);
	int ret, err;

	if (fd < 0)
		return -1;
	ret = ioctl(fd, JOB_REQUEST(request), arg);
	err = errno;
	close(fd);
	errno = err;
	return ret;
}

/* A raw request must fail with errno want or alt; what names it. */
static void expect_refused(int line, unsigned int request, void *arg, int want,
			   int alt, const char *what)
{
	bool failed;

	errno = 0;
	failed = raw_job_ioctl(request, arg) == -1;
	check_failed_with(line, what, failed, errno, want, alt);
}

static void test_bad_pointers(void)
{
	static const unsigned int requests[] = {
		JOB_CREATE, JOB_GETJID, JOB_WAITJID, JOB_KILLJID, JOB_GETJIDCNT,
		JOB_GETJIDLST, JOB_GETPIDCNT, JOB_GETPIDLST, JOB_GETUSER,
		JOB_GETPRIMEPID, JOB_SETHID, JOB_DETACHJID, JOB_DETACHPID,
		JOB_ATTACHPID, JOB_GETINFO, JOB_GETACCT,
	};
	long page_size = sysconf(_SC_PAGESIZE);
	struct job_leader job;
	void *unmapped = mmap(NULL, page_size, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	void *bad[] = { NULL, (void *)1, unmapped };
	struct job_jidlst jidlst = { .r_val = 4 };
	struct job_pidlst pidlst = { .r_val = 4 };
	char what[64];

	if (!expect(unmapped != MAP_FAILED && munmap(unmapped, page_size) == 0, "mmap: %m"))
		return;
	if (!start_job_ok(&job, NULL, NULL))
		return;
	for (size_t i = 0; i < sizeof(requests) / sizeof(requests[0]); i++) {
		for (size_t j = 0; j < sizeof(bad) / sizeof(bad[0]); j++) {
			snprintf(what, sizeof(what), "request %u, arg %p", requests[i], bad[j]);
			expect_refused(__LINE__, requests[i], bad[j], EFAULT, EINVAL, what);
		}
	}
	pidlst.jid = job.jid;
	for (size_t j = 0; j < sizeof(bad) / sizeof(bad[0]); j++) {
		jidlst.jid = bad[j];
		pidlst.pid = bad[j];
		snprintf(what, sizeof(what), "JOB_GETJIDLST to %p", bad[j]);
		expect_refused(__LINE__, JOB_GETJIDLST, &jidlst, EFAULT, EINVAL, what);
		snprintf(what, sizeof(what), "JOB_GETPIDLST to %p", bad[j]);
		expect_refused(__LINE__, JOB_GETPIDLST, &pidlst, EFAULT, EINVAL, what);
	}
	expect(job_getpidcnt(job.jid) == 1, "the job suffered from bad pointers");
	end_job(&job);
}

static void test_short_buffers(void)
{
	struct job_leader job;
	struct report member;
	pid_t pids[4] = { 0 }, guard = -12345;
	int n;

	if (!start_job_ok(&job, spawn_two_members, NULL))
		return;
	if (receive_jid_report(&job, &member) && receive_jid_report(&job, &member)) {
		expect(job_getpidcnt(job.jid) == 3, "job_getpidcnt() = %d",
		       job_getpidcnt(job.jid));
		pids[2] = guard;
		n = job_getpidlist(job.jid, pids, 2 * sizeof(pid_t));
		expect(n == 2, "job_getpidlist() with room for 2 = %d (%m)", n);
		expect(pids[2] == guard, "job_getpidlist() wrote past the buffer");
		n = job_getpidlist(job.jid, pids, sizeof(pid_t) - 1);
		expect(n == 0, "job_getpidlist() with room for 0 = %d (%m)", n);
		n = job_getjidlist(NULL, 0);
		expect(n == 0, "job_getjidlist(NULL, 0) = %d (%m)", n);
	}
	end_job(&job);
}

static void test_unknown_requests(void)
{
	static const unsigned int requests[] = {
		JOB_NOOP, JOB_ATTACH, JOB_DETACH, 7, 8, JOB_SETJLIMIT,
		JOB_GETJLIMIT, JOB_GETJUSAGE, JOB_FREE, JOB_OPT_MAX, 24, 31, 35,
		63, 255,
	};
	char buf[256] = { 0 };
	char what[32];

	for (size_t i = 0; i < sizeof(requests) / sizeof(requests[0]); i++) {
		snprintf(what, sizeof(what), "request %u", requests[i]);
		expect_refused(__LINE__, requests[i], buf, EBADRQC, EBADRQC, what);
	}
}

/* SGI's later call to start or stop CSA's daemon: there is none here. */
static void test_runcsa(void)
{
	expect_error(job_runcsa(1), EOPNOTSUPP);
	expect_error(job_runcsa(0), EOPNOTSUPP);
	expect_error(job_runcsa(2), EINVAL);
}

/* --- runner --- */

struct job_test {
	const char *name;
	void (*run)(void);
	job_body_fn *escape;	/* an escape test: the route it tries */
	int nr_reports;		/* reports it expects, if more than one */
	bool subreaper;		/* the test process reaps orphans */
	bool setuid;		/* reports come from a setuid-root exec */
};

static const struct job_test tests[] = {
	{ "jid list", .run = test_jid_list },
	{ "detach by pid", .run = test_detach_pid },
	{ "detach by jid", .run = test_detach_jid },
	{ "attach, detach, reattach", .run = test_attach_detach_reattach },
	{ "child creates a job with a requested jid", .run = test_child_creates_job },
	{ "jkill -0", .run = test_jkill },
	{ "jdetach -p", .run = test_jdetach_pid },
	{ "jdetach -j", .run = test_jdetach_jid },
	{ "pid wrap", .run = test_pid_wrap },
	{ "escape: fork", .escape = escape_by_fork },
	{ "escape: vfork", .escape = escape_by_vfork },
	{ "escape: thread (clone CLONE_THREAD)", .escape = escape_by_thread },
	{ "escape: clone CLONE_PARENT", .escape = escape_by_clone_parent },
	{ "escape: clone3", .escape = escape_by_clone3 },
	{ "escape: reparent to init", .escape = escape_by_orphan },
	{ "escape: double fork and setsid", .escape = escape_by_setsid_orphan },
	{ "escape: daemon(3)", .escape = escape_by_daemon },
	{ "escape: reparent to a subreaper", .escape = escape_by_orphan,
	  .subreaper = true },
	{ "escape: exec of a setuid binary", .escape = escape_by_setuid_exec,
	  .setuid = true },
	{ "escape: unshare(CLONE_NEWPID)", .escape = escape_by_pid_namespace },
	{ "escape: unshare(CLONE_NEWUSER)", .escape = escape_by_user_namespace,
	  .nr_reports = 2 },
	{ "kill during a fork storm (SIGKILL)", .run = test_storm_sigkill },
	{ "kill during a fork storm (SIGTERM)", .run = test_storm_sigterm },
	{ "membership from the instant of fork", .run = test_membership_at_fork },
	{ "handled SIGUSR1 during slow forks", .run = test_slow_forks_sigusr1 },
	{ "handled SIGTERM during slow forks", .run = test_slow_forks_sigterm },
	{ "SIGSTOP and SIGCONT during slow forks", .run = test_slow_forks_sigstop },
	{ "threads created during attach and detach", .run = test_threads_during_moves },
	{ "waitjid wake-up and status", .run = test_waitjid },
	{ "main thread exits before the others", .run = test_main_thread_exits },
	{ "accounting", .run = test_accounting },
	{ "unprivileged user", .run = test_unprivileged },
	{ "owner's kill obeys kill(2) permissions", .run = test_owner_kill_permissions },
	{ "io_uring workers: create, attach, detach, kill", .run = test_io_uring_workers },
	{ "killjid: a blocked signal, then a fork", .run = test_killjid_blocked_then_fork },
	{ "killjid from a new pid namespace", .run = test_killjid_pid_namespace },
	{ "bad input: unknown jid", .run = test_unknown_jid },
	{ "bad input: pids and signals", .run = test_bad_pids_and_signals },
	{ "bad input: pointers", .run = test_bad_pointers },
	{ "bad input: short buffers", .run = test_short_buffers },
	{ "bad input: unknown requests", .run = test_unknown_requests },
	{ "job_runcsa: no CSA daemon", .run = test_runcsa },
};

static void check_escape(const struct job_test *t)
{
	struct job_leader job;
	struct report report;
	int nr_reports = t->nr_reports ? t->nr_reports : 1;

	if (t->subreaper)
		prctl(PR_SET_CHILD_SUBREAPER, 1);
	if (!start_job_ok(&job, t->escape, NULL))
		return;
	for (int i = 0; i < nr_reports; i++) {
		if (!expect(receive_report(job.report_fd, &report), "no report"))
			break;
		if (report.kind == REPORT_SKIP) {
			note("skipped: %s", strerror(report.err));
			break;
		}
		if (!expect(report.kind == REPORT_JID, "could not set up: %s",
			    strerror(report.err)))
			break;
		if (t->setuid && report.euid != 0) {
			note("skipped: the setuid bit was not honoured (euid %u)",
			     report.euid);
			break;
		}
		expect(report.jid == job.jid, "process %d reports JID %#llx (%s), job %#llx",
		       report.tid, JID(report.jid), errno_name(report.err), JID(job.jid));
		if (t->subreaper)
			expect(report.ppid == getpid(), "parent %d, subreaper %d",
			       report.ppid, getpid());
	}
	end_job(&job);
	if (t->setuid)
		unlink(SETUID_COPY_PATH);
	reap_ended_children();
}

static void on_cleanup_alarm(int sig)
{
	(void)sig;
}

/* Kills every job a test created and left behind. */
static void clean_up_jobs(void)
{
	int n = shared->nr_jobs < MAX_TRACKED_JOBS ? shared->nr_jobs : MAX_TRACKED_JOBS;
	struct sigaction interrupt = { .sa_handler = on_cleanup_alarm };

	sigaction(SIGALRM, &interrupt, NULL);
	for (int i = 0; i < n; i++) {
		alarm(CLEANUP_TIMEOUT_S);
		if (!kill_and_wait(shared->jobs[i]))
			printf("    cleanup: job %#llx: %m\n", JID(shared->jobs[i]));
		alarm(0);
	}
	shared->nr_jobs = 0;
	signal(SIGALRM, SIG_DFL);
}

static int run_test(const struct job_test *t)
{
	int status, failures;
	pid_t pid;

	shared->failures = 0;
	shared->nr_jobs = 0;
	pid = fork_flushed();
	if (pid == 0) {
		alarm((full_wrap && t->run == test_pid_wrap ? FULL_WRAP_TIMEOUT_S :
		       TEST_TIMEOUT_S) * (slow ? SLOW_FACTOR : 1));
		if (t->escape)
			check_escape(t);
		else
			t->run();
		fflush(NULL);
		_exit(0);
	}
	status = pid < 0 ? -1 : wait_for(pid);
	if (!exited_with(status, 0))
		note_failure(__LINE__, "test process ended with status %#x", status);
	clean_up_jobs();
	restore_pid_max();
	failures = shared->failures;
	printf("%-44s %s\n", t->name, failures ? "FAIL" : "PASS");
	return failures;
}

static bool selected(const char *name, char **prefixes, int n)
{
	for (int i = 0; i < n; i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return true;
	return !n;
}

/* The helper mode of exec'd processes: report the JID to fd and exit. */
static int report_jid_mode(const char *fd)
{
	report_own_jid(atoi(fd));
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: jobtest [--full-wrap] [--slow] [--list] [TEST-NAME-PREFIX...]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	bool list = false;
	int errors = 0, argi = 1;

	if (argc == 3 && !strcmp(argv[1], REPORT_JID_OPTION))
		return report_jid_mode(argv[2]);
	for (; argi < argc && argv[argi][0] == '-'; argi++) {
		if (!strcmp(argv[argi], "--full-wrap"))
			full_wrap = true;
		else if (!strcmp(argv[argi], "--list"))
			list = true;
		else if (!strcmp(argv[argi], "--slow"))
			slow = true;
		else
			usage();
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (list) {
		for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++)
			puts(tests[i].name);
		return 0;
	}
	if (geteuid() != 0 || access(JOB_PROC_PATH, F_OK) != 0) {
		fprintf(stderr, "jobtest: needs root and %s (job.ko loaded)\n",
			JOB_PROC_PATH);
		return 1;
	}
	shared = mmap(NULL, sizeof(*shared), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared == MAP_FAILED) {
		perror("jobtest: mmap");
		return 1;
	}
	if (job_getjid(getpid()) != NO_JID) {
		printf("jobtest: leaving job %#llx to run\n", JID(job_getjid(getpid())));
		job_detachpid(getpid());
	}
	signal(SIGTERM, SIG_DFL);
	for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++)
		if (selected(tests[i].name, argv + argi, argc - argi))
			errors += run_test(&tests[i]);
	if (errors) {
		printf("%d errors\n", errors);
		return 1;
	}
	printf("Great.  All tests completed, no errors\n");
	return 0;
}
