// SPDX-License-Identifier: GPL-2.0
/*
 * jobtest: the mini job test suite, after SGI's.  Runs as root with job.ko
 * loaded; every test runs in its own process and prints its name and result.
 * The last line is "Great.  All tests completed, no errors" when all pass,
 * else "N errors" (and the exit status is 1).
 *
 *   jobtest [--full-wrap] [--slow] [--rounds N] [--time-box S] [--list]
 *           [TEST-NAME-PREFIX...]
 *
 * --full-wrap wraps the pid space with the default pid_max and 40,000 forks,
 * as SGI's jobtest did, instead of lowering pid_max for a quick wrap.
 * --slow is for a kernel where a fork costs ~100 times more (KASAN and
 * lockdep under emulation): longer timeouts, a smaller quick wrap.
 * --rounds N runs every race test (a test of the table with .rounds) N
 * rounds instead of its own few, with timeouts to match and a progress line
 * every tenth: issue 12 asks for 1,000 (the job_soak scenario).
 * --time-box S stops each race test after the round that ends past S
 * seconds, with a note of how many it made.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <linux/io_uring.h>
#include <linux/sched.h>
#include <linux/userfaultfd.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
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
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../userspace/job.h"
#include "../include/uapi/job.h"
#include "kit_cache.h"

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
#define REPORT_JID_FORK_OPTION	"--report-jid-and-fork"

#define JID(jid)		((unsigned long long)(jid))
#define NO_JID			((jid_t)-1)

/* State shared by the runner and every process of a test. */
#define MAX_SLOW_CHILDREN	4096	/* of a slow-fork round, recorded */
#define MAX_SLOW_THREADS	16	/* forking threads of a round */

/*
 * A child of a slow forker in a round: when fork() was called, by which
 * forking thread, as its how-manieth fork; or a forker that had what its
 * plan wants, left waiting for its children.
 */
struct slow_child {
	pid_t pid;
	long long called_us;
	int thread;		/* index in shared->slow_threads */
	int fork_nr;		/* from 1 */
	bool forker_done;
};

/* A forking thread of a slow forker: the forks it has called. */
struct slow_thread {
	pid_t tid;
	int forks_called;	/* raised before each call */
};

struct shared_state {
	int failures;
	int nr_jobs;			/* jobs created, to clean up */
	jid_t jobs[MAX_TRACKED_JOBS];
	int saved_pid_max;		/* to restore, 0 if untouched */
	bool failslab_changed;		/* failslab_saved to restore */
	char failslab_saved[2][16];
	struct slow_child slow_children[MAX_SLOW_CHILDREN];
	int nr_slow_children;
	struct slow_thread slow_threads[MAX_SLOW_THREADS];
	int nr_slow_threads;
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
static int rounds_option;	/* --rounds N, or 0 */
static int time_box_option;	/* --time-box S, or 0 */
static int test_rounds;		/* the rounds of the race test running */
static long long test_start_ms;	/* when the test running started */

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

/* CLOCK_MONOTONIC in microseconds. */
static long long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

/* CLOCK_MONOTONIC in milliseconds. */
static long long now_ms(void)
{
	return now_us() / 1000;
}

/* Whether a race test makes its round @round (from 1): --rounds, --time-box. */
static bool more_rounds(int round)
{
	if (round > test_rounds)
		return false;
	if (time_box_option && round > 1 &&
	    now_ms() - test_start_ms >= time_box_option * 1000LL) {
		note("time box: %d of %d rounds in %d s", round - 1, test_rounds,
		     time_box_option);
		return false;
	}
	return true;
}

/* With --rounds, a line after every tenth of a race test's rounds. */
static void note_progress(int round)
{
	int step = test_rounds / 10;

	if (rounds_option && step && round % step == 0)
		note("round %d of %d, %d failures so far", round, test_rounds,
		     __atomic_load_n(&shared->failures, __ATOMIC_SEQ_CST));
}

/* --- files --- */

/* The text of the file @path, as much as @buf holds; false if unreadable. */
static bool read_text_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t len = 0;
	ssize_t n = 0;

	if (fd < 0)
		return false;
	while (len < size - 1 && (n = read(fd, buf + len, size - 1 - len)) > 0)
		len += n;
	close(fd);
	buf[len] = 0;
	return n >= 0;
}

static bool write_small_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	bool ok = fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text);

	if (fd >= 0)
		close(fd);
	return ok;
}

/* The first line of the file @path, without its newline. */
static bool read_small_file(const char *path, char *buf, size_t size)
{
	if (!read_text_file(path, buf, size))
		return false;
	buf[strcspn(buf, "\n")] = 0;
	return true;
}

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

/* How long to wait for a report, or for what the kernel does meanwhile. */
static long report_timeout_ms(void)
{
	return REPORT_TIMEOUT_MS * (slow ? SLOW_FACTOR : 1);
}

/*
 * Polls @cond every 10 ms until it holds or report_timeout_ms() passed:
 * for what the kernel finishes in the background (a job's end, threads
 * starting), which a loaded debug kernel can take seconds to do.  The
 * caller checks @cond again.
 */
#define poll_until(cond)						\
	for (long long poll_end = now_ms() + report_timeout_ms();	\
	     !(cond) && now_ms() < poll_end;)				\
		sleep_ms(10)

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
	long long cpu_ns;	/* the sender's CPU time, when it says */
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
	if (!report_ready(fd, report_timeout_ms())) {
		note("no report within %ld ms", report_timeout_ms());
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

static void run_leader(jid_t requested, uid_t owner, job_body_fn *body,
		       void *arg, struct job_leader *self)
{
	sigset_t release;
	int sig;

	die_with_parent();
	sigemptyset(&release);
	sigaddset(&release, SIGUSR1);
	sigprocmask(SIG_BLOCK, &release, NULL);

	errno = 0;
	self->pid = getpid();
	self->jid = job_create(requested, owner, 0);
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
 * Forks a leader that creates a job (requested JID, or 0 for any) owned by
 * @owner and runs body in it.  Returns 0, or the errno of the creation.
 */
static int start_owned_job(struct job_leader *job, jid_t requested, uid_t owner,
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
		run_leader(requested, owner, body, arg, job);
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

static int start_job(struct job_leader *job, jid_t requested,
		     job_body_fn *body, void *arg)
{
	return start_owned_job(job, requested, 0, body, arg);
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

/*
 * Two members, the second forked once the first has reported: their
 * reports come in the order they joined.
 */
static void spawn_two_members(const struct job_leader *self, void *arg)
{
	int turn[2];
	char c = 0;

	if (pipe(turn))
		return;
	if (fork_flushed() == 0) {
		die_with_parent();
		report_own_jid(self->report_fd);
		if (write(turn[1], &c, 1) != 1)
			_exit(99);
		for (;;)
			pause();
	}
	if (read(turn[0], &c, 1) == 1)
		spawn_member(self, arg);
	close(turn[0]);
	close(turn[1]);
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

/* The alarm of a waiter of a job that a kill is to end, in seconds. */
static unsigned int kill_waiter_s(void)
{
	return 2 * report_timeout_ms() / 1000;
}

/* Forks a waiter of a job that a kill is to end; returns once it waits. */
static pid_t spawn_kill_waiter(jid_t jid, int *waiter_fd)
{
	struct report started;
	pid_t waiter = spawn_waiter(jid, waiter_fd, kill_waiter_s());

	if (!expect(waiter > 0 && receive_report(*waiter_fd, &started), "waiter: %m")) {
		if (waiter > 0) {
			kill_ours(waiter, SIGKILL);
			wait_for(waiter);
			close(*waiter_fd);
		}
		return -1;
	}
	return waiter;
}

#define SLOW_FORKERS		2
#define SLOW_FORKER_MB		64
#define SLOW_FORKER_CHILDREN	200
#define SLOW_FORKER_THREADS	3	/* of a multi-threaded forker, all forking */
#define SLOW_FORK_BALLAST	16	/* idle members listed before the forkers */
_Static_assert(SLOW_FORKERS * SLOW_FORKER_THREADS <= MAX_SLOW_THREADS,
	       "every forking thread has its record");
/* The processes of a slow-fork job, at most, and some room. */
#define SLOW_JOB_MAX_PIDS \
	(SLOW_FORK_BALLAST + SLOW_FORKERS * (SLOW_FORKER_CHILDREN + 1) + 8)

/*
 * What the caller of a killjid saw of a forking thread just before it: the
 * forks the thread had called, all returned but the last; and whether that
 * last one was past its start in the kernel (copy_process()'s check for
 * pending signals), the thread asleep in clone() inside copy_mm(), which
 * only a fork past that start reaches.
 */
struct fork_seen {
	int called;
	bool in_copy;
};

/* A killjid of a job of multi-threaded slow forkers, as the test saw it. */
struct kill_seen {
	long long called_us;	/* when killjid was called */
	struct fork_seen threads[MAX_SLOW_THREADS];
};

/* /proc/@tid/@what of a thread, whole, in @buf; false if unreadable. */
static bool read_thread_file(pid_t tid, const char *what, char *buf,
			     size_t size)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)tid, what);
	return read_text_file(path, buf, size);
}

/* Whether the thread @tid is asleep in clone() (not running, no fault). */
static bool asleep_in_clone(pid_t tid)
{
	char text[256], nr[16];

	snprintf(nr, sizeof(nr), "%ld ", (long)SYS_clone);
	return read_thread_file(tid, "syscall", text, sizeof(text)) &&
	       !strncmp(text, nr, strlen(nr));
}

/* Whether the kernel is PREEMPT_RT, where spinlock_t sleeps. */
static bool kernel_is_rt(void)
{
	struct utsname name;

	return uname(&name) == 0 && strstr(name.version, "PREEMPT_RT");
}

/*
 * Whether @tid's fork in flight is past its start: asleep in clone() before
 * and after its kernel stack shows copy_mm(), dup_mm() or dup_mmap(),
 * whichever the kernel did not inline (6.1 keeps dup_mmap(), 6.12-rt
 * copy_mm()), or, but on PREEMPT_RT, copy_process() (stock 6.12 inlines
 * them all): nothing in it sleeps before that check but an RT siglock.
 * A thread that ran between the reads is still in that clone(): a new one
 * would have raised its count (see kill_seen_now()).
 */
static bool fork_in_copy(pid_t tid)
{
	char stack[8192];

	return asleep_in_clone(tid) &&
	       read_thread_file(tid, "stack", stack, sizeof(stack)) &&
	       (strstr(stack, "copy_mm") || strstr(stack, "dup_mm") ||
		(!kernel_is_rt() && strstr(stack, "copy_process"))) &&
	       asleep_in_clone(tid);
}

/*
 * What the forking threads of the round are at, just before a killjid;
 * returns how many were seen with a fork past its start.
 */
static int kill_seen_now(struct kill_seen *seen)
{
	int nr = __atomic_load_n(&shared->nr_slow_threads, __ATOMIC_SEQ_CST);
	int in_flight = 0;

	for (int t = 0; t < nr && t < MAX_SLOW_THREADS; t++) {
		struct slow_thread *thread = &shared->slow_threads[t];
		int called = __atomic_load_n(&thread->forks_called, __ATOMIC_SEQ_CST);
		bool in_copy = fork_in_copy(__atomic_load_n(&thread->tid, __ATOMIC_SEQ_CST));

		seen->threads[t].called = called;
		seen->threads[t].in_copy = in_copy &&
			__atomic_load_n(&thread->forks_called, __ATOMIC_SEQ_CST) == called;
		in_flight += seen->threads[t].in_copy;
	}
	seen->called_us = now_us();
	return in_flight;
}

/* The slow-fork record of @pid, or NULL. */
static const struct slow_child *slow_child_of(pid_t pid)
{
	int nr = __atomic_load_n(&shared->nr_slow_children, __ATOMIC_SEQ_CST);

	for (int c = 0; c < nr && c < MAX_SLOW_CHILDREN; c++)
		if (shared->slow_children[c].pid == pid)
			return &shared->slow_children[c];
	return NULL;
}

/*
 * Whether every process left in @jid is one the kernel may owe no signal:
 * a slow forker's child whose fork may have begun after the kill reached
 * its parent.  In a multi-threaded forker another thread can have taken
 * the signal when a fork began, its handler not run yet (its write to the
 * noted signals waits for the mmap lock that slow forks hold), so that the
 * child's copy of memory does not show it; such a child gets nothing, by
 * the kernel's rule for kill(-pgrp) too.  When its fork was called says
 * nothing: a thread can be held between that and the kernel (preempted,
 * its vCPU descheduled by the host) while the kill runs.  Owed the signal,
 * for sure, is a child whose fork had returned before the kill (its thread
 * called another since: a listed member), or was past its start
 * (fork_in_copy()).  A forker that had its signal and waits for such
 * children is left too.  Otherwise says, in @why, which process is left
 * that is owed the signal.
 */
static bool only_forks_after_kill_left(jid_t jid, const struct kill_seen *seen,
				       char *why, size_t size)
{
	pid_t pids[64];
	int n = job_getpidlist(jid, pids, sizeof(pids));

	if (n <= 0 || n >= (int)(sizeof(pids) / sizeof(pids[0]))) {
		snprintf(why, size, "%d processes left", n);
		return false;
	}
	for (int i = 0; i < n; i++) {
		const struct slow_child *child = slow_child_of(pids[i]);
		const struct fork_seen *thread;

		if (child && child->forker_done)
			continue;
		if (!child || child->thread < 0 || child->thread >= MAX_SLOW_THREADS) {
			snprintf(why, size, "left: pid %d, not a slow forker's child",
				 pids[i]);
			return false;
		}
		thread = &seen->threads[child->thread];
		if (child->fork_nr < thread->called ||
		    (child->fork_nr == thread->called && thread->in_copy)) {
			snprintf(why, size,
				 "left: pid %d, its fork %s before the kill (called %lld us before it)",
				 pids[i], child->fork_nr < thread->called ?
				 "returned" : "was in copy_mm()",
				 seen->called_us - child->called_us);
			return false;
		}
	}
	note("left: %d processes whose fork may have begun after the kill reached their parent",
	     n);
	return true;
}

/*
 * The verdict of the waiter of a job that @what, sent at @killed_ms, was to
 * end: it reached every process, or the job would not have ended.  If the
 * waiter's alarm came first, says whether the job ended late or which
 * members the kill left; with @seen, children whose fork was called after
 * it may be left (only_forks_after_kill_left()).  Returns whether the job
 * ended.
 */
static bool expect_job_ends(pid_t waiter, int waiter_fd, jid_t jid,
			    const char *what, long long killed_ms,
			    const struct kill_seen *seen)
{
	struct report waited;
	int status = reap_until(waiter);
	bool ended = false;
	char why[160] = "";

	if (!exited_with(status, 0) && seen &&
	    only_forks_after_kill_left(jid, seen, why, sizeof(why))) {
		close(waiter_fd);
		return false;
	}
	if (!expect(exited_with(status, 0),
		    "%s did not end the job: job_waitjid did not return (status %#x) within the waiter's %u s alarm%s%s",
		    what, status, kill_waiter_s(), *why ? "; " : "", why))
		explain_unended_job(jid, killed_ms, kill_waiter_s() * 1000);
	else if (expect(receive_report(waiter_fd, &waited), "no report from the waiter")) {
		expect(waited.jid == jid || waited.err == ENODATA,
		       "job_waitjid: %s", errno_name(waited.err));
		expect_error(job_getpidcnt(jid), ENODATA);
		ended = true;
	}
	close(waiter_fd);
	return ended;
}

static void kill_fork_storm(int sig)
{
	struct job_leader job;
	struct report started;
	long long spawned_ms, killed_ms;
	pid_t waiter;
	int waiter_fd;

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
	waiter = spawn_kill_waiter(job.jid, &waiter_fd);
	if (waiter < 0)
		goto out;
	sleep_ms(50);
	expect(job_killjid(job.jid, sig) == 0, "job_killjid(%s): %m", sigabbrev_np(sig));
	killed_ms = now_ms();
	if (!expect_job_ends(waiter, waiter_fd, job.jid, sigabbrev_np(sig), killed_ms, NULL))
		note("the killjid returned %lld ms after the waiter's fork",
		     killed_ms - spawned_ms);
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

/*
 * The state letter of /proc/PID/stat once it is 'T' (stopped), or not 'T'
 * if !@stopped, or after 2 s; 0 if the process is gone.
 */
static char process_state_when(pid_t pid, bool stopped)
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
		if ((state == 'T') == stopped)
			break;
		sleep_ms(10);
	}
	return state;
}

/* The state letter of /proc/PID/stat once it is 'T', or after 2 s; or 0. */
static char process_state(pid_t pid)
{
	return process_state_when(pid, true);
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

/* Counts a failed check (1 to 5) of check_fresh_child(), 12 bits each. */
static void count_failed_check(unsigned long long *failed, int check)
{
	if (check && ((*failed >> (check * 12)) & 0xfff) < 0xfff)
		*failed += 1ULL << (check * 12);
}

/* One failure for each check of check_fresh_child() that failed. */
static void expect_fresh_children(unsigned long long failed, int children,
				  const char *seen_by)
{
	static const char *const checks[] = {
		NULL, "job_getjid", "job_getpidlst", "job_attachpid (EINVAL)",
		"job_detachpid", "job_getjid after detach",
	};

	for (int check = 1; check <= 5; check++) {
		unsigned int n = (failed >> (check * 12)) & 0xfff;

		expect(n == 0, "%s failed on %u of %d fresh children, seen by %s",
		       checks[check], n, children, seen_by);
	}
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

		if (child == 0)
			for (;;)
				pause();
		if (child < 0) {
			report_problem(self->report_fd, REPORT_ERROR, errno);
			return;
		}
		count_failed_check(&failed, check_fresh_child(self->jid, args->other,
							      child));
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
			expect_fresh_children(result.jid, FORK_MEMBERSHIP_ROUNDS,
					      "their parent");
		end_job(&job);
	}
	end_job(&other);
}

/* 1 if @pid has ever been on a CPU, 0 if not, -1 if unknown. */
static int task_has_run(pid_t pid)
{
	unsigned long long runtime, delay, slices;
	char path[64];
	int ran = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/schedstat", (int)pid);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%llu %llu %llu", &runtime, &delay, &slices) == 3)
			ran = runtime || slices;
		fclose(f);
	}
	return ran;
}

/* The parent of @pid from /proc/PID/stat, or 0. */
static pid_t parent_of(pid_t pid)
{
	char path[64], buf[512], *paren;
	pid_t ppid = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fgets(buf, sizeof(buf), f) && (paren = strrchr(buf, ')')) &&
	    sscanf(paren + 2, "%*c %d", &ppid) != 1)
		ppid = 0;
	fclose(f);
	return ppid;
}

/* Spins until *@word reads @value; false if @pid died meanwhile. */
static bool spin_until(const int *word, int value, pid_t pid)
{
	for (unsigned long spins = 0;
	     __atomic_load_n(word, __ATOMIC_ACQUIRE) != value; spins++) {
		if (spins % 1024 == 1023 && !process_alive(pid))
			return false;
		sched_yield();
	}
	return true;
}

#define WATCH_SPAN		8	/* pids above the last the watcher tries */
#define WATCH_TIMEOUTS		50	/* of 200 ms without the fork's event */

/*
 * Shared by a forker and a third process that races each of its forks.
 * With fork events (the kernel's process connector), the watcher, pinned
 * to the forker's CPU with a real-time priority, is woken by the event
 * copy_process() sends once the child exists and runs before the forker
 * returns to user space and before the child ever runs.  Without, the
 * forker announces each fork and the watcher looks for the child by pid
 * while it runs.  Either way the watcher checks the child the instant it
 * has it, then lets the forker kill it and go on.
 */
struct fork_watch {
	bool events;		/* the watcher has fork events */
	int cpu;		/* then: the CPU of both */
	int want;		/* without: the fork the forker is about to make */
	int armed;		/* without: the watcher is looking for its child */
	int checked;		/* the watcher is done with the child of that fork */
	pid_t child;		/* what the fork returned (-1: failed), */
	int returned;		/* in this fork */
};

/* Pins the caller to @cpu; false if it cannot be. */
static bool pin_to_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) == 0;
}

/* Body: test_rounds forks, each checked by the watcher. */
static void fork_under_watch(const struct job_leader *self, void *arg)
{
	struct fork_watch *w = arg;

	if (w->events)
		pin_to_cpu(w->cpu);
	for (int round = 1; round <= test_rounds; round++) {
		pid_t child;

		if (!w->events) {
			__atomic_store_n(&w->want, round, __ATOMIC_RELEASE);
			if (!spin_until(&w->armed, round, getppid()))
				_exit(1);
		}
		child = fork();
		if (child == 0)
			for (;;)
				pause();
		if (child < 0)
			report_problem(self->report_fd, REPORT_ERROR, errno);
		__atomic_store_n(&w->child, child, __ATOMIC_RELAXED);
		__atomic_store_n(&w->returned, round, __ATOMIC_RELEASE);
		if (child < 0)
			return;
		if (!spin_until(&w->checked, round, getppid()))
			_exit(1);
		kill(child, SIGKILL);
		wait_for(child);
	}
}

/* A socket of fork events (the process connector), or -1. */
static int open_fork_events(void)
{
	struct sockaddr_nl addr = { .nl_family = AF_NETLINK, .nl_groups = CN_IDX_PROC };
	struct __attribute__((aligned(NLMSG_ALIGNTO))) {
		struct nlmsghdr nl;
		struct __attribute__((packed)) {
			struct cn_msg cn;
			enum proc_cn_mcast_op op;
		};
	} listen = {
		.nl = { .nlmsg_len = sizeof(listen), .nlmsg_type = NLMSG_DONE },
		.cn = { .id = { CN_IDX_PROC, CN_VAL_PROC }, .len = sizeof(listen.op) },
		.op = PROC_CN_MCAST_LISTEN,
	};
	struct timeval timeout = { .tv_usec = 200000 };
	int sk = socket(PF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_CONNECTOR);

	if (sk < 0)
		return -1;
	if (bind(sk, (struct sockaddr *)&addr, sizeof(addr)) < 0 ||
	    send(sk, &listen, sizeof(listen), 0) != sizeof(listen) ||
	    setsockopt(sk, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout)) < 0) {
		close(sk);
		return -1;
	}
	return sk;
}

/*
 * The child of @parent's next fork but @seen (whose event can come late),
 * or 0 if none came within 200 ms.
 */
static pid_t next_fork_of(int sk, pid_t parent, pid_t seen)
{
	struct __attribute__((aligned(NLMSG_ALIGNTO))) {
		struct nlmsghdr nl;
		struct __attribute__((packed)) {
			struct cn_msg cn;
			struct proc_event ev;
		};
	} msg;

	for (;;) {
		ssize_t n = recv(sk, &msg, sizeof(msg), 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == ENOBUFS)	/* events lost: look again */
			continue;
		if (n < 0)
			return 0;
		if (n >= (ssize_t)sizeof(msg) && msg.ev.what == PROC_EVENT_FORK &&
		    msg.ev.event_data.fork.parent_tgid == parent &&
		    msg.ev.event_data.fork.child_pid == msg.ev.event_data.fork.child_tgid &&
		    msg.ev.event_data.fork.child_pid != seen)
			return msg.ev.event_data.fork.child_pid;
	}
}

/* What fork number @round returned, or 0 if it has not yet. */
static pid_t fork_returned(const struct fork_watch *w, int round)
{
	if (__atomic_load_n(&w->returned, __ATOMIC_ACQUIRE) != round)
		return 0;
	return __atomic_load_n(&w->child, __ATOMIC_RELAXED);
}

/*
 * Without fork events: the pids just above the last one, with
 * job_getjid() (ESRCH until the pid exists), until one is the forker's
 * child or the fork has returned in the forker.
 */
static pid_t find_forked_child(struct fork_watch *w, pid_t forker, jid_t jid,
			       pid_t last, int round)
{
	pid_t published;

	for (;;) {
		for (pid_t pid = last + 1; pid <= last + WATCH_SPAN; pid++) {
			jid_t in = job_getjid(pid);

			if (in == NO_JID && errno == ESRCH)
				continue;
			/* Not in the job: a failure if it is the child. */
			if (in == jid || parent_of(pid) == forker)
				return pid;
		}
		/* Its pid is elsewhere (the pids wrapped, or were taken). */
		published = fork_returned(w, round);
		if (published)
			return published;
	}
}

/* The watcher's next child of the forker, or <= 0. */
static pid_t watch_next_child(struct fork_watch *w, int events, pid_t forker,
			      jid_t jid, pid_t last, int round)
{
	if (events < 0) {
		if (!spin_until(&w->want, round, forker))
			return -1;
		__atomic_store_n(&w->armed, round, __ATOMIC_RELEASE);
		return find_forked_child(w, forker, jid, last, round);
	}
	for (int timeouts = 0; timeouts < WATCH_TIMEOUTS; timeouts++) {
		pid_t child = next_fork_of(events, forker, last);

		if (child)
			return child;
		/* Lost (ENOBUFS), or only slow to come (a busy host)? */
		child = fork_returned(w, round);
		if (child || !process_alive(forker))
			return child;
	}
	return -1;
}

/*
 * The same checks as "membership from the instant of fork", made by a third
 * process, outside the job, that has each child the instant it exists,
 * before it has run and (most of the time, the note says how often) before
 * the fork has returned in its parent.
 */
static void test_membership_seen_by_third(void)
{
	struct sched_param rt = { .sched_priority = 1 };
	struct fork_watch *w;
	struct job_leader job, other;
	struct membership_args args;
	unsigned long long failed = 0;
	int rounds = 0, early = 0, ran = 0, events;
	pid_t last;

	w = mmap(NULL, sizeof(*w), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (!expect(w != MAP_FAILED, "mmap: %m"))
		return;
	memset(w, 0, sizeof(*w));
	events = open_fork_events();
	w->events = events >= 0;
	w->cpu = sched_getcpu() > 0 ? sched_getcpu() : 0;
	if (!start_job_ok(&other, NULL, NULL))
		goto out_events;
	args.other = other.jid;
	if (!start_job_ok(&job, fork_under_watch, w))
		goto out;
	/* After the forker is made: it must not inherit either. */
	if (w->events) {
		pin_to_cpu(w->cpu);
		if (sched_setscheduler(0, SCHED_FIFO, &rt) < 0)
			note("no real-time priority for the watcher: %m");
	}
	last = job.pid;
	for (int round = 1; more_rounds(round); round++) {
		pid_t child = watch_next_child(w, events, job.pid, job.jid, last, round);

		if (!expect(child > 0, "fork %d: no child of the forker seen", round))
			break;
		early += !fork_returned(w, round);
		ran += task_has_run(child) > 0;
		count_failed_check(&failed, check_fresh_child(job.jid, args.other,
							      child));
		/*
		 * Detached, it is out of end_job()'s reach, and the forker
		 * may be killed before it kills it; unreaped, its pid is its.
		 */
		kill(child, SIGKILL);
		rounds++;
		last = child;
		__atomic_store_n(&w->checked, round, __ATOMIC_RELEASE);
		note_progress(round);
	}
	note("%s: %d of %d children checked before fork() returned in their parent, %d after they had run",
	     w->events ? "fork events" : "pid scan", early, rounds, ran);
	expect_fresh_children(failed, rounds, "a third process");
	end_job(&job);
out:
	end_job(&other);
out_events:
	if (events >= 0)
		close(events);
	munmap(w, sizeof(*w));
}

/*
 * The child of @parent (its only one, or the first listed) from
 * /proc/PID/task/PID/children, or else the first pid above @after whose
 * parent it is; 0 if none.
 */
static pid_t child_of(pid_t parent, pid_t after)
{
	char path[64];
	int child = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)parent,
		 (int)parent);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%d", &child) != 1)
			child = 0;
		fclose(f);
		return child;
	}
	for (pid_t pid = after + 1; pid <= after + 64; pid++)
		if (parent_of(pid) == parent)
			return pid;
	return 0;
}

/* The forker's userfaultfd and the thread that serves its faults. */
struct fault_server {
	int uffd;
	int report_fd;		/* a report for each fault */
	int go_fd;		/* then a byte resolves it */
	long page_size;
	char *zeros;
};

static void *serve_userfaults(void *arg)
{
	struct fault_server *fs = arg;
	struct uffd_msg msg;
	char go;

	while (read(fs->uffd, &msg, sizeof(msg)) == sizeof(msg)) {
		struct report report = { .kind = REPORT_JID, .tid = gettid() };
		struct uffdio_copy copy = {
			.dst = msg.arg.pagefault.address & ~(fs->page_size - 1),
			.src = (unsigned long)fs->zeros,
			.len = fs->page_size,
		};

		if (msg.event != UFFD_EVENT_PAGEFAULT)
			continue;
		send_report(fs->report_fd, &report);
		if (read(fs->go_fd, &go, 1) != 1 ||
		    ioctl(fs->uffd, UFFDIO_COPY, &copy) < 0)
			_exit(4);
	}
	return NULL;
}

/*
 * Body: forks with clone3(CLONE_PARENT_SETTID) storing the child's pid in a
 * page registered with userfaultfd.  kernel_clone() stores it after
 * copy_process() and before wake_up_new_task(): the fork waits in the fault
 * while the child exists, can be found by pid, and is still TASK_NEW; a
 * thread reports the fault and resolves it once the test says.  Then
 * reports the child, and kills it when told.  *arg: the pipe to read.
 */
static void fork_into_userfault(const struct job_leader *self, void *arg)
{
	static struct fault_server fs;
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_MISSING };
	pthread_t server;
	char *page, go;

	fs.report_fd = self->report_fd;
	fs.go_fd = *(int *)arg;
	fs.page_size = sysconf(_SC_PAGESIZE);
	fs.uffd = syscall(__NR_userfaultfd, O_CLOEXEC);
	if (fs.uffd < 0 || ioctl(fs.uffd, UFFDIO_API, &api) < 0) {
		report_problem(self->report_fd, REPORT_SKIP, errno);
		return;
	}
	page = mmap(NULL, 2 * fs.page_size, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	fs.zeros = page + fs.page_size;
	reg.range.start = (unsigned long)page;
	reg.range.len = fs.page_size;
	if (page == MAP_FAILED || ioctl(fs.uffd, UFFDIO_REGISTER, &reg) < 0 ||
	    pthread_create(&server, NULL, serve_userfaults, &fs)) {
		report_problem(self->report_fd, REPORT_ERROR, errno);
		return;
	}
	for (int round = 1; round <= test_rounds; round++) {
		struct clone_args args = {
			.flags = CLONE_PARENT_SETTID,
			.parent_tid = (uintptr_t)page,
			.exit_signal = SIGCHLD,
		};
		struct report report = { .kind = REPORT_JID };
		long child;

		/* Missing again: this fork's store faults too. */
		madvise(page, fs.page_size, MADV_DONTNEED);
		child = syscall(__NR_clone3, &args, sizeof(args));
		if (child == 0)
			for (;;)
				pause();
		if (child < 0) {
			report_problem(self->report_fd,
				       errno == ENOSYS ? REPORT_SKIP : REPORT_ERROR, errno);
			return;
		}
		report.tid = child;
		report.status = *(pid_t *)page;	/* what the kernel stored */
		send_report(self->report_fd, &report);
		if (read(fs.go_fd, &go, 1) != 1)
			_exit(5);
		kill(child, SIGKILL);
		wait_for(child);
	}
}

/*
 * A child found by pid while still TASK_NEW, by a third process: its
 * parent's fork is held in a userfault between the child's creation and
 * its first wake-up (see fork_into_userfault()).  It must already be in
 * its parent's job, listed, not attachable elsewhere, detachable.  (Before
 * the fork hook, which runs as the child's pid is attached, nothing finds
 * the child by pid: that instant cannot be observed from user space.)
 */
static void test_task_new_child(void)
{
	struct job_leader job, other;
	unsigned long long failed = 0;
	int go[2], rounds = 0, unknown = 0;
	struct report report;

	if (!expect(pipe2(go, O_CLOEXEC) == 0, "pipe: %m"))
		return;
	if (!start_job_ok(&other, NULL, NULL))
		goto out;
	if (!start_job_ok(&job, fork_into_userfault, &go[0]))
		goto out_other;
	for (int round = 1; more_rounds(round); round++) {
		pid_t child;
		int ran;

		if (!expect(receive_report(job.report_fd, &report), "no report from the forker"))
			break;
		if (report.kind == REPORT_SKIP) {
			note("skipped: userfaultfd or clone3: %s", strerror(report.err));
			break;
		}
		if (!expect(report.kind == REPORT_JID, "forker: %s", strerror(report.err)))
			break;
		/* The fork waits in the userfault: the child has not been woken. */
		child = child_of(job.pid, job.pid);
		if (!expect(child > 0, "fork %d: no child of the forker found", round))
			break;
		ran = task_has_run(child);
		count_failed_check(&failed, check_fresh_child(job.jid, other.jid, child));
		expect(ran <= 0, "child %d has run already: not TASK_NEW", child);
		unknown += ran < 0;
		rounds++;
		if (!expect(write(go[1], "r", 1) == 1, "pipe: %m") ||
		    !expect(receive_report(job.report_fd, &report) &&
			    report.kind == REPORT_JID, "the fork did not return"))
			break;
		expect(report.tid == child && report.status == child,
		       "fork() returned %d and stored %d, the child found was %d",
		       report.tid, report.status, child);
		/* Detached: see test_membership_seen_by_third(). */
		kill(child, SIGKILL);
		if (!expect(write(go[1], "k", 1) == 1, "pipe: %m"))
			break;
	}
	note("%d children checked in TASK_NEW%s", rounds,
	     unknown ? " (no /proc/PID/schedstat: by the fork's position only)" : "");
	expect_fresh_children(failed, rounds, "a third process, in TASK_NEW");
	end_job(&job);
out_other:
	end_job(&other);
out:
	close(go[0]);
	close(go[1]);
}

#define OWNER_KILLS		100

#define SIGBIT(sig)		(1U << ((sig) - 1))

/*
 * What the processes of a slow-fork job do with signals: which they catch;
 * which end a forker's forking (the first of them to come); which end each
 * process (the first, or all of them).  A child needs none of those its
 * parent had noted when the fork copied it: it came after them.
 */
struct slow_fork_plan {
	unsigned int handled;	/* caught and noted, as SIGBIT()s */
	unsigned int stop;	/* forking stops at the first of these */
	unsigned int wanted;	/* a process exits at the first of these, */
	bool want_all;		/* or once all have come */
	bool as_user;		/* forkers are UNPRIVILEGED_ID's, the leader leaves */
	bool no_ballast;	/* no idle members before the forkers */
};

/* A handled SIGUSR1 or SIGTERM ends each process. */
static const struct slow_fork_plan handled_plan = {
	.handled = SIGBIT(SIGUSR1) | SIGBIT(SIGTERM),
	.stop = SIGBIT(SIGUSR1) | SIGBIT(SIGTERM),
	.wanted = SIGBIT(SIGUSR1) | SIGBIT(SIGTERM),
};

/* SIGTERM is not caught (it kills); a handled SIGUSR1 ends each process. */
static const struct slow_fork_plan default_term_plan = {
	.handled = SIGBIT(SIGUSR1), .stop = SIGBIT(SIGUSR1),
	.wanted = SIGBIT(SIGUSR1),
};

/* The owner's kills between its first (SIGUSR1) and its last (SIGTERM). */
static const int owner_filler_signals[] = {
	SIGUSR2, SIGHUP, SIGWINCH, SIGURG, SIGALRM, SIGPIPE,
};

/*
 * The user's processes fork until the owner's last kill, and each exits
 * once it has had the first and the last (or was forked after its parent
 * had the first).
 */
static const struct slow_fork_plan owner_plan = {
	.handled = SIGBIT(SIGUSR1) | SIGBIT(SIGTERM) | SIGBIT(SIGUSR2) |
		   SIGBIT(SIGHUP) | SIGBIT(SIGWINCH) | SIGBIT(SIGURG) |
		   SIGBIT(SIGALRM) | SIGBIT(SIGPIPE),
	.stop = SIGBIT(SIGTERM),
	.wanted = SIGBIT(SIGUSR1) | SIGBIT(SIGTERM), .want_all = true,
	.as_user = true, .no_ballast = true,
};

/*
 * A slow-fork job: what its processes do with signals, and in how many
 * threads at once each forker forks.  A handled signal that one thread
 * takes while another forks reaches the child too (killjid adds it to each
 * fork in flight).
 */
struct slow_forks {
	const struct slow_fork_plan *plan;
	int threads;		/* 0: one */
};

static const struct slow_forks owner_forks = { &owner_plan, 0 };

/* The state of each process of a slow-fork job. */
static const struct slow_fork_plan *plan;
static unsigned int signals_got;	/* noted since got_by is this process */
static unsigned int signals_inherited;	/* what the parent had noted */
static pid_t got_by;
static int forks_left;			/* a forker's children still to fork */

/* Takes what a fork copied from the parent as the parent's. */
static void adopt_signals(void)
{
	pid_t me = getpid();

	if (__atomic_load_n(&got_by, __ATOMIC_SEQ_CST) == me)
		return;
	signals_inherited = __atomic_load_n(&signals_got, __ATOMIC_SEQ_CST);
	__atomic_store_n(&signals_got, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&got_by, me, __ATOMIC_SEQ_CST);
}

static void note_signal(int sig)
{
	/* A child's first handler can run before its first instruction. */
	adopt_signals();
	__atomic_or_fetch(&signals_got, SIGBIT(sig), __ATOMIC_SEQ_CST);
}

/* What this process itself has noted (in a multi-threaded one, any thread). */
static unsigned int own_signals(void)
{
	if (__atomic_load_n(&got_by, __ATOMIC_SEQ_CST) != getpid())
		return 0;
	return __atomic_load_n(&signals_got, __ATOMIC_SEQ_CST);
}

/*
 * Whether this process has had what the plan wants, counting what its
 * parent had had when it forked it (a forker may take a signal between its
 * last look and its fork).
 */
static bool plan_done(void)
{
	unsigned int got = (own_signals() | signals_inherited) & plan->wanted;

	return plan->want_all ? got == plan->wanted : got != 0;
}

static sigset_t sigset_of(unsigned int bits)
{
	sigset_t set;

	sigemptyset(&set);
	for (int sig = 1; sig < 32; sig++)
		if (bits & SIGBIT(sig))
			sigaddset(&set, sig);
	return set;
}

/* Waits, with the handled signals unblocked, until the plan is done. */
static void wait_for_signals(void)
{
	sigset_t handled = sigset_of(plan->handled), old;

	sigprocmask(SIG_BLOCK, &handled, &old);
	adopt_signals();
	while (!plan_done())
		sigsuspend(&old);
	sigprocmask(SIG_SETMASK, &old, NULL);
}

/* A new slow-fork round: no process, no forking thread recorded. */
static void forget_slow_processes(void)
{
	shared->nr_slow_children = 0;
	shared->nr_slow_threads = 0;
	memset(shared->slow_threads, 0, sizeof(shared->slow_threads));
}

/*
 * Records this child of a slow forker, whose fork was called at
 * @called_us by the forking thread @thread as its fork number @fork_nr, or
 * this forker, done with its plan (@forker_done).
 */
static void note_slow_process(long long called_us, int thread, int fork_nr,
			      bool forker_done)
{
	int i = __atomic_load_n(&shared->nr_slow_children, __ATOMIC_SEQ_CST);

	if (i >= MAX_SLOW_CHILDREN)
		return;
	i = __atomic_fetch_add(&shared->nr_slow_children, 1, __ATOMIC_SEQ_CST);
	if (i < MAX_SLOW_CHILDREN) {
		shared->slow_children[i].called_us = called_us;
		shared->slow_children[i].thread = thread;
		shared->slow_children[i].fork_nr = fork_nr;
		shared->slow_children[i].forker_done = forker_done;
		__atomic_store_n(&shared->slow_children[i].pid, getpid(), __ATOMIC_SEQ_CST);
	}
}

/*
 * A fork straight into the kernel.  glibc's fork() takes malloc's arena
 * locks for the whole of the system call, so that in a multi-threaded
 * forker a thread's fork() can wait tens of milliseconds for another's
 * slow one before the kernel begins it: when it was called would say
 * nothing of when it began.  The child only signals, waits and exits.
 */
static pid_t fork_in_kernel(void)
{
	return (pid_t)syscall(SYS_clone, SIGCHLD, 0, NULL, NULL, 0);
}

/*
 * A forking thread: forks until the plan stops it or enough children,
 * counting its calls where a killjid's caller sees them (kill_seen_now()).
 */
static void *fork_slowly(void *arg)
{
	int thread = __atomic_fetch_add(&shared->nr_slow_threads, 1, __ATOMIC_SEQ_CST);
	struct slow_thread *self = thread < MAX_SLOW_THREADS ?
				   &shared->slow_threads[thread] : NULL;
	int fork_nr = 0;

	(void)arg;
	if (self)
		__atomic_store_n(&self->tid, gettid(), __ATOMIC_SEQ_CST);
	while (!(own_signals() & plan->stop) &&
	       __atomic_sub_fetch(&forks_left, 1, __ATOMIC_SEQ_CST) >= 0) {
		long long called_us;

		if (self)
			__atomic_store_n(&self->forks_called, ++fork_nr, __ATOMIC_SEQ_CST);
		called_us = now_us();
		if (fork_in_kernel() == 0) {
			note_slow_process(called_us, self ? thread : -1, fork_nr, false);
			wait_for_signals();
			_exit(0);
		}
	}
	return NULL;
}

/* A process of a slow-fork job takes up the plan: its user, its handlers. */
static void take_up_plan(const struct slow_fork_plan *p)
{
	sigset_t handled = sigset_of(p->handled);
	/*
	 * The handlers do not nest: adopt_signals() in a handler interrupted
	 * by another one, in a child's first signals, would wipe what the
	 * inner one noted (the owner's kills arrive back to back).
	 */
	struct sigaction sa = { .sa_handler = note_signal, .sa_mask = handled };

	plan = p;
	got_by = getpid();
	if (p->as_user && !drop_privileges())
		_exit(1);
	for (int sig = 1; sig < 32; sig++)
		if (p->handled & SIGBIT(sig))
			sigaction(sig, &sa, NULL);
	sigprocmask(SIG_UNBLOCK, &handled, NULL);
}

/*
 * A process with a large resident set (a slow copy_mm) that forks children,
 * in one thread or several, until the plan stops it; its children wait for
 * the signals the plan wants, and so does it, then it reaps them.
 */
static void run_slow_forker(const struct slow_fork_plan *p, int threads)
{
	size_t size = (size_t)SLOW_FORKER_MB << 20;
	pthread_t thread[SLOW_FORKER_THREADS];
	int extra = threads > 1 ? threads - 1 : 0, started = 0;
	char *mem;

	take_up_plan(p);
	forks_left = SLOW_FORKER_CHILDREN;
	mem = mmap(NULL, size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem != MAP_FAILED)
		memset(mem, 1, size);
	while (started < extra && started < SLOW_FORKER_THREADS &&
	       pthread_create(&thread[started], NULL, fork_slowly, NULL) == 0)
		started++;
	fork_slowly(NULL);
	while (started)
		pthread_join(thread[--started], NULL);
	wait_for_signals();
	note_slow_process(0, -1, 0, true);
	while (wait(NULL) > 0 || errno == EINTR)
		;
	_exit(0);
}

/*
 * Body: the forkers of the slow-fork job *arg, after idle members that only
 * wait for the plan's signals: killjid signals the processes in the order
 * they joined, so the forkers' children have that long to join during a
 * kill.
 */
static void start_slow_forkers(const struct job_leader *self, void *arg)
{
	const struct slow_forks *forks = arg;
	const struct slow_fork_plan *p = forks->plan;

	(void)self;
	/* Not on a slow kernel, where each costs a fork of seconds. */
	for (int i = 0; !slow && !p->no_ballast && i < SLOW_FORK_BALLAST; i++) {
		if (fork_flushed() == 0) {
			take_up_plan(p);
			wait_for_signals();
			_exit(0);
		}
	}
	for (int i = 0; i < SLOW_FORKERS; i++)
		if (fork_flushed() == 0)
			run_slow_forker(p, forks->threads);
	/* The user's kills cannot reach a root leader: it leaves the job. */
	if (p->as_user)
		job_detachpid(getpid());
}

/* Waits until the forkers are busy forking, past their first children. */
static void wait_for_slow_forks(jid_t jid, const struct slow_fork_plan *p)
{
	int busy = 1 + (slow || p->no_ballast ? 0 : SLOW_FORK_BALLAST) +
		   SLOW_FORKERS * 5;

	for (long long end = now_ms() + report_timeout_ms();
	     job_getpidcnt(jid) < busy && now_ms() < end;)
		sleep_ms(2);
}

/* True once every process of the job is stopped (@stopped) or not (or gone). */
static bool job_all_stopped(jid_t jid, bool stopped)
{
	pid_t pids[SLOW_JOB_MAX_PIDS];
	int n = job_getpidlist(jid, pids, sizeof(pids));

	for (int i = 0; i < n; i++) {
		char state = process_state_when(pids[i], stopped);

		if (state && (state == 'T') != stopped) {
			note("process %d (child of %d) is in state %c", pids[i],
			     parent_of(pids[i]), state);
			return false;
		}
	}
	return n >= 0;
}

/*
 * One round: slow forkers of the plan fork while the job is signalled.  A
 * handled SIGUSR1 or SIGTERM must reach every process, the children forked
 * during the kill included, so that all exit and the job ends; so must a
 * SIGKILL or a SIGTERM that kills; SIGSTOP must stop every one of them,
 * SIGCONT continue them, and a handled SIGUSR1 then end them.  Returns
 * how many forks a multi-threaded round saw past their start at the kill.
 */
static int kill_slow_forks(const struct slow_forks *forks, int sig)
{
	/* A thread that registers after the kill's look: no fork seen. */
	struct kill_seen seen = { 0 };
	struct job_leader job;
	int waiter_fd, in_copy = 0;
	pid_t waiter;

	forget_slow_processes();
	if (!start_job_ok(&job, start_slow_forkers, (void *)forks))
		return 0;
	wait_for_slow_forks(job.jid, forks->plan);
	if (sig == SIGSTOP) {
		expect(job_killjid(job.jid, SIGSTOP) == 0, "killjid(SIGSTOP): %m");
		expect(job_all_stopped(job.jid, true),
		       "a process forked during SIGSTOP still runs");
		expect(job_killjid(job.jid, SIGCONT) == 0, "killjid(SIGCONT): %m");
		expect(job_all_stopped(job.jid, false),
		       "a process stays stopped after SIGCONT");
		sig = SIGUSR1;
	}
	waiter = spawn_kill_waiter(job.jid, &waiter_fd);
	if (waiter < 0)
		goto out;
	/* The leader is released by SIGUSR1 too; the others kill it. */
	if (forks->threads)
		in_copy = kill_seen_now(&seen);
	expect(job_killjid(job.jid, sig) == 0, "killjid(%s): %m", sigabbrev_np(sig));
	expect_job_ends(waiter, waiter_fd, job.jid, sigabbrev_np(sig), now_ms(),
			forks->threads ? &seen : NULL);
out:
	end_job(&job);
	return in_copy;
}

/* A slow-fork test of the table: its rounds. */
static void kill_slow_forks_rounds(const struct slow_forks *forks, int sig)
{
	int round, in_copy = 0;

	for (round = 1; more_rounds(round); round++) {
		in_copy += kill_slow_forks(forks, sig);
		note_progress(round);
	}
	/* How much the rule of only_forks_after_kill_left() had to check. */
	if (forks->threads)
		note("forks seen past their start at the kill: %d in %d rounds",
		     in_copy, round - 1);
}

/* The owner's kill number @i (from 0): SIGUSR1 first, SIGTERM last. */
static int owner_kill_signal(int i)
{
	int fillers = sizeof(owner_filler_signals) / sizeof(owner_filler_signals[0]);

	if (i == 0)
		return SIGUSR1;
	if (i == OWNER_KILLS - 1)
		return SIGTERM;
	return owner_filler_signals[i % fillers];
}

/*
 * The unprivileged owner of a job kills it OWNER_KILLS times in a row while
 * its processes, all the owner's, fork slowly throughout: the first kill
 * and the last must reach every process, those forked during any of them
 * included, however many kills came between (no log of kills can drop
 * one).
 */
static void owner_kills_during_slow_forks(void)
{
	struct job_leader job;
	int waiter_fd, status, err;
	pid_t waiter, owner;

	err = start_owned_job(&job, 0, UNPRIVILEGED_ID, start_slow_forkers,
			      (void *)&owner_forks);
	if (!expect(!err, "job_create: %s", errno_name(err)))
		return;
	wait_for_slow_forks(job.jid, &owner_plan);
	waiter = spawn_kill_waiter(job.jid, &waiter_fd);
	if (waiter < 0)
		goto out;
	owner = fork_flushed();
	if (owner == 0) {
		int failed = 0;

		if (!drop_privileges())
			_exit(255);
		for (int i = 0; i < OWNER_KILLS; i++)
			failed += job_killjid(job.jid, owner_kill_signal(i)) < 0;
		_exit(failed);
	}
	status = wait_for(owner);
	expect(exited_with(status, 0), "the owner's kills failed (status %#x)", status);
	expect_job_ends(waiter, waiter_fd, job.jid,
			"the owner's first or last kill", now_ms(), NULL);
out:
	end_job(&job);
}

static void test_owner_kills_during_slow_forks(void)
{
	for (int round = 1; more_rounds(round); round++) {
		owner_kills_during_slow_forks();
		note_progress(round);
	}
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
/* A tenth on slow (debug) kernels, where a round takes seconds. */
#define THREAD_MOVE_ROUNDS	200
#define SLOW_THREAD_MOVE_ROUNDS	20

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
	int wrong_in = 0, wrong_out = 0, rounds = 0;
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
	for (int round = 1; more_rounds(round); round++) {
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
		rounds++;
		note_progress(round);
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

#define MOVE_FORKERS		2	/* threads that fork while the process moves */

/* What the forking threads of a process that moves count. */
struct move_forks {
	int stop;
	int children;
	int outside;		/* children in no job */
};

/* A thread that forks until told; each child checks it is in a job. */
static void *fork_while_moving(void *arg)
{
	struct move_forks *forks = arg;

	while (!__atomic_load_n(&forks->stop, __ATOMIC_ACQUIRE)) {
		pid_t child = fork();

		if (child == 0)
			_exit(job_getjid(getpid()) == NO_JID ? 1 : 0);
		if (child < 0)
			continue;
		__atomic_fetch_add(&forks->children, 1, __ATOMIC_RELAXED);
		if (!exited_with(wait_for(child), 0))
			__atomic_fetch_add(&forks->outside, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

/*
 * A process creates a new job again and again, each time leaving the one
 * it was in, while two of its threads fork all the while: every child is
 * in the old job or in the new one, never in none (each thread's
 * membership is replaced in one step).
 */
static void test_fork_during_create(void)
{
	struct move_forks *forks;
	int status;
	pid_t pid;

	forks = mmap(NULL, sizeof(*forks), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (!expect(forks != MAP_FAILED, "mmap: %m"))
		return;
	memset(forks, 0, sizeof(*forks));
	pid = fork_flushed();
	if (pid == 0) {
		pthread_t forkers[MOVE_FORKERS];

		/* Its jobs end with it: none is tracked (there are many). */
		die_with_parent();
		if (job_create(0, 0, 0) == NO_JID)
			_exit(2);
		for (int i = 0; i < MOVE_FORKERS; i++)
			if (pthread_create(&forkers[i], NULL, fork_while_moving, forks))
				_exit(3);
		/* A round is a child forked. */
		while (more_rounds(__atomic_load_n(&forks->children, __ATOMIC_RELAXED) + 1)) {
			if (job_create(0, 0, 0) == NO_JID)
				_exit(4);
		}
		__atomic_store_n(&forks->stop, 1, __ATOMIC_RELEASE);
		for (int i = 0; i < MOVE_FORKERS; i++)
			pthread_join(forkers[i], NULL);
		_exit(0);
	}
	status = wait_for(pid);
	expect(exited_with(status, 0), "the moving process ended with status %#x", status);
	expect(!forks->outside, "%d of %d children forked during the creates were in no job",
	       forks->outside, forks->children);
	note("%d children forked during the creates", forks->children);
	munmap(forks, sizeof(*forks));
}

#define ATTACH_FORKER_MB	16	/* a copy_mm long enough to be caught in */
#define ATTACH_FORKS_AFTER	4	/* children forked after each attach */
#define ATTACH_ROUNDS_MIN	5	/* enough for a fork across an attach */

struct attach_forks {
	int stop;
	long long attach_start_us, attach_end_us;	/* 0: not yet */
	int children;
	int fork_errors;	/* fork() failed: pnotify may fail one too */
	int last_errno;
	int killed;		/* ended by a signal: a fork pnotify failed */
	int in_flight;		/* forked across the attach, in a job or not */
	int after;		/* forked after the attach returned */
	int after_outside;	/* the same, in no job */
};

/*
 * A thread of a process outside any job that forks until told, each child
 * exiting 0 in a job, 1 in none; the times of each fork tell which the
 * attach of the process raced.
 */
static void *fork_while_attached(void *arg)
{
	struct attach_forks *forks = arg;

	while (!__atomic_load_n(&forks->stop, __ATOMIC_ACQUIRE)) {
		long long start = now_us(), end, attach_start, attach_end;
		pid_t child = fork();
		int status;

		if (child == 0)
			_exit(job_getjid(getpid()) == NO_JID ? 1 : 0);
		end = now_us();
		if (child < 0) {
			__atomic_store_n(&forks->last_errno, errno, __ATOMIC_RELAXED);
			__atomic_fetch_add(&forks->fork_errors, 1, __ATOMIC_RELAXED);
			continue;
		}
		status = wait_for(child);
		/*
		 * Each read once: the attach may end between two reads, and a
		 * fork made before it would then count as made after.  The end
		 * first: with it, the start it follows.
		 */
		attach_end = __atomic_load_n(&forks->attach_end_us, __ATOMIC_ACQUIRE);
		attach_start = __atomic_load_n(&forks->attach_start_us, __ATOMIC_ACQUIRE);
		__atomic_fetch_add(&forks->children, 1, __ATOMIC_RELAXED);
		if (!WIFEXITED(status)) {
			__atomic_fetch_add(&forks->killed, 1, __ATOMIC_RELAXED);
		} else if (attach_end && start > attach_end) {
			__atomic_fetch_add(&forks->after, 1, __ATOMIC_RELAXED);
			if (WEXITSTATUS(status))
				__atomic_fetch_add(&forks->after_outside, 1, __ATOMIC_RELAXED);
		} else if (attach_end && start < attach_start && end > attach_end) {
			__atomic_fetch_add(&forks->in_flight, 1, __ATOMIC_RELAXED);
		}
	}
	return NULL;
}

/*
 * Two threads of a process outside any job (its main thread idle) fork all
 * the while, each fork slowed by a large resident set; the process is
 * attached to a job meanwhile, round after round.  A fork under way when
 * its thread was followed had no kit when it began: the attach's must
 * serve it, and no child may be killed for it.
 * Every child forked after the attach returned is in the job; one forked
 * across it may be in either.
 */
static void test_fork_during_attach(void)
{
	struct attach_forks *forks;
	int round, in_flight = 0;

	forks = mmap(NULL, sizeof(*forks), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (!expect(forks != MAP_FAILED, "mmap: %m"))
		return;
	for (round = 1; more_rounds(round); round++) {
		struct job_leader job;
		pid_t pid;
		int target;

		memset(forks, 0, sizeof(*forks));
		pid = fork_flushed();
		if (pid == 0) {
			size_t size = (size_t)ATTACH_FORKER_MB << 20;
			pthread_t forkers[MOVE_FORKERS];
			char *mem;

			die_with_parent();
			mem = mmap(NULL, size, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (mem != MAP_FAILED)
				memset(mem, 1, size);
			for (int i = 0; i < MOVE_FORKERS; i++)
				if (pthread_create(&forkers[i], NULL, fork_while_attached, forks))
					_exit(3);
			for (int i = 0; i < MOVE_FORKERS; i++)
				pthread_join(forkers[i], NULL);
			_exit(0);
		}
		if (!start_job_ok(&job, NULL, NULL)) {
			kill_ours(pid, SIGKILL);
			wait_for(pid);
			break;
		}
		/* Both threads busy forking before the attach. */
		poll_until(__atomic_load_n(&forks->children, __ATOMIC_RELAXED) >= 2 ||
			   waitpid(pid, NULL, WNOHANG));
		__atomic_store_n(&forks->attach_start_us, now_us(), __ATOMIC_RELEASE);
		expect(job_attachpid(pid, job.jid) == job.jid, "job_attachpid(): %m");
		__atomic_store_n(&forks->attach_end_us, now_us(), __ATOMIC_RELEASE);
		target = __atomic_load_n(&forks->children, __ATOMIC_RELAXED) +
			 MOVE_FORKERS * ATTACH_FORKS_AFTER;
		poll_until(__atomic_load_n(&forks->after, __ATOMIC_RELAXED) >=
			   MOVE_FORKERS * ATTACH_FORKS_AFTER ||
			   __atomic_load_n(&forks->children, __ATOMIC_RELAXED) >= 4 * target);
		__atomic_store_n(&forks->stop, 1, __ATOMIC_RELEASE);
		expect(exited_with(wait_for(pid), 0), "the forking process failed");
		end_job(&job);
		in_flight += forks->in_flight;
		if (!expect(!forks->killed, "round %d: %d of %d children killed", round,
			    forks->killed, forks->children) ||
		    !expect(!forks->fork_errors, "round %d: %d forks failed (%s)", round,
			    forks->fork_errors, errno_name(forks->last_errno)) ||
		    !expect(!forks->after_outside,
			    "round %d: %d of %d children forked after the attach in no job",
			    round, forks->after_outside, forks->after))
			break;
	}
	note("%d rounds, %d children forked across an attach", round - 1, in_flight);
	/* Else the case the test is for never came up (a time box may cut it short). */
	if (round > ATTACH_ROUNDS_MIN)
		expect(in_flight, "no fork was under way at any of %d attaches", round - 1);
	munmap(forks, sizeof(*forks));
}

#define RACE_PROBES		4

/* A process outside any job that forks on request (see spawn_probe()). */
struct probe {
	pid_t pid;
	int cmd_fd;		/* a byte: fork a child that reports its JID */
};

static bool spawn_probe(struct probe *probe, int report_fd)
{
	int fds[2];
	char cmd;

	if (pipe2(fds, O_CLOEXEC) < 0)
		return false;
	probe->pid = fork_flushed();
	if (probe->pid == 0) {
		die_with_parent();
		close(fds[1]);
		while (read(fds[0], &cmd, 1) == 1) {
			pid_t child = fork();

			if (child == 0) {
				report_own_jid(report_fd);
				_exit(0);
			}
			if (child < 0)
				report_problem(report_fd, REPORT_ERROR, errno);
			else
				wait_for(child);
		}
		_exit(0);
	}
	close(fds[0]);
	probe->cmd_fd = fds[1];
	return probe->pid > 0;
}

/* The JID a new child of @probe reports (or NO_JID, errno). */
static jid_t probe_child_jid(const struct probe *probe, int report_rd)
{
	struct report report;

	if (write(probe->cmd_fd, "f", 1) != 1 || !receive_report(report_rd, &report) ||
	    report.kind != REPORT_JID) {
		errno = EIO;
		return NO_JID;
	}
	errno = report.err;
	return report.jid;
}

/* The test and a process that detaches the job of each round. */
struct detach_race {
	jid_t jid;		/* this round's job */
	int go;			/* the round in which to detach it, now */
	int done;		/* the last round it was detached in */
};

static pid_t spawn_detacher(struct detach_race *race)
{
	pid_t pid = fork_flushed();

	if (pid == 0) {
		die_with_parent();
		for (int round = 1;; round++) {
			if (!spin_until(&race->go, round, getppid()))
				_exit(0);
			job_detachjid(__atomic_load_n(&race->jid, __ATOMIC_ACQUIRE));
			__atomic_store_n(&race->done, round, __ATOMIC_RELEASE);
		}
	}
	return pid;
}

/*
 * After a detachjid raced attaches into the job: no probe is half in (its
 * job_getjid() and the job's list agree), and a job that survived its
 * detach still follows its members' children, those of a process attached
 * now included (a 'detaching' left set would drop them).  On a kernel
 * where detachjid excludes attach, the job always ends with the detach.
 * Returns whether the job survived.
 */
static bool check_after_detach_race(jid_t jid, const struct probe *probes,
				     int report_rd)
{
	pid_t listed[RACE_PROBES + 8];
	int n = job_getpidlist(jid, listed, sizeof(listed));

	for (int i = 0; i < RACE_PROBES; i++) {
		pid_t pid = probes[i].pid;
		bool in_list = false;
		jid_t in;

		for (int j = 0; j < n; j++)
			in_list |= listed[j] == pid;
		errno = 0;
		in = job_getjid(pid);
		if (in != jid) {
			expect(in == NO_JID && errno == ENODATA,
			       "process %d: job_getjid() = %#llx (%s)", pid,
			       JID(in), errno_name(errno));
			expect(!in_list, "process %d is half in: listed, but job_getjid() says %s",
			       pid, errno_name(errno));
			continue;
		}
		expect(in_list, "process %d is half in: in the job, not listed", pid);
		in = probe_child_jid(&probes[i], report_rd);
		expect(in == jid, "a child of process %d, attached during the detach, is not in the job (%#llx, %s)",
		       pid, JID(in), errno_name(errno));
	}
	for (int j = 0; j < n; j++)
		expect(job_getjid(listed[j]) == jid,
		       "process %d is half in: listed, but job_getjid() says %s",
		       listed[j], errno_name(errno));
	if (n < 0)
		return false;
	/* Attached after the race: the job must follow its child too. */
	for (int i = 0; i < RACE_PROBES; i++) {
		jid_t in;

		if (job_getjid(probes[i].pid) != NO_JID ||
		    job_attachpid(probes[i].pid, jid) != jid)
			continue;
		in = probe_child_jid(&probes[i], report_rd);
		expect(in == jid, "a child of process %d, attached after the detach, is not in the job (%#llx, %s)",
		       probes[i].pid, JID(in), errno_name(errno));
		break;
	}
	return true;
}

/*
 * detachjid against attachpid: while the test attaches processes into a
 * job one by one, another process detaches the job, each round just before
 * a different one of the attaches.  Afterwards no process is half in, and
 * the job, if it is still there, follows its children.
 */
static void test_detach_races_attach(void)
{
	struct probe probes[RACE_PROBES];
	struct detach_race *race;
	int report_fds[2], nr_probes = 0, before = 0, refused = 0, survived = 0;
	pid_t detacher = -1;

	race = mmap(NULL, sizeof(*race), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (!expect(race != MAP_FAILED && pipe2(report_fds, O_CLOEXEC) == 0,
		    "setup: %m"))
		return;
	memset(race, 0, sizeof(*race));
	while (nr_probes < RACE_PROBES && spawn_probe(&probes[nr_probes], report_fds[1]))
		nr_probes++;
	if (expect(nr_probes == RACE_PROBES, "probes: %m"))
		detacher = spawn_detacher(race);
	for (int round = 1; detacher > 0 && more_rounds(round); round++) {
		int raced = round % RACE_PROBES;
		struct job_leader job;

		if (!start_job_ok(&job, NULL, NULL))
			break;
		__atomic_store_n(&race->jid, job.jid, __ATOMIC_RELEASE);
		for (int i = 0; i < RACE_PROBES; i++) {
			jid_t got;

			if (i == raced)
				__atomic_store_n(&race->go, round, __ATOMIC_RELEASE);
			errno = 0;
			got = job_attachpid(probes[i].pid, job.jid);
			if (i == raced) {
				before += got == job.jid;
				refused += got == NO_JID && errno == ENODATA;
			}
			if (!expect(got == job.jid || errno == ENODATA,
				    "attach during the detach: %m"))
				break;
		}
		if (!expect(spin_until(&race->done, round, detacher),
			    "the detacher died"))
			break;
		survived += check_after_detach_race(job.jid, probes, report_fds[0]);
		for (int i = 0; i < RACE_PROBES; i++)
			if (job_getjid(probes[i].pid) != NO_JID)
				job_detachpid(probes[i].pid);
		end_job(&job);
		note_progress(round);
	}
	note("the raced attach went in first %d times, was refused %d times; %d jobs survived their detach",
	     before, refused, survived);
	if (detacher > 0) {
		kill_ours(detacher, SIGKILL);
		wait_for(detacher);
	}
	while (nr_probes--) {
		kill_ours(probes[nr_probes].pid, SIGKILL);
		wait_for(probes[nr_probes].pid);
		close(probes[nr_probes].cmd_fd);
	}
	close(report_fds[0]);
	close(report_fds[1]);
	munmap(race, sizeof(*race));
}

static void test_waitjid(void)
{
	struct job_leader job;
	struct report waited;
	pid_t waiter;
	int waiter_fd;

	if (!start_job_ok(&job, NULL, NULL))
		return;
	waiter = spawn_waiter(job.jid, &waiter_fd, kill_waiter_s());
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

/* In another thread: waits (up to 10 s) until the main thread has exited. */
static void wait_main_thread_exit(void)
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
}

/* A thread of a process whose main thread has exited: reports, stays. */
static void *outlive_main_thread(void *report_fd)
{
	wait_main_thread_exit();
	report_own_jid(*(int *)report_fd);
	for (;;)
		pause();
	return NULL;
}

/* The same, but it creates a job first and reports that. */
static void *create_after_main_thread(void *report_fd)
{
	wait_main_thread_exit();
	errno = 0;
	report_result(*(int *)report_fd, job_create(0, 0, 0));
	for (;;)
		pause();
	return NULL;
}

typedef void *thread_fn(void *arg);

/*
 * Body: a process that reports, starts a thread (*arg, a thread_fn *, or
 * outlive_main_thread() if NULL) and exits its main thread.
 */
static void spawn_headless_process(const struct job_leader *self, void *arg)
{
	static int report_fd;
	pthread_t thread;

	report_fd = self->report_fd;
	if (fork_flushed() != 0)
		return;
	report_own_jid(report_fd);
	if (pthread_create(&thread, NULL, arg ? *(thread_fn **)arg : outlive_main_thread,
			   &report_fd))
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
	/* Its only process may be gone, and the job with it, before the wait. */
	errno = 0;
	expect(job_waitjid(job.jid, NULL, 0) == job.jid || errno == ENODATA,
	       "job_waitjid: %m");
out:
	end_job(&job);
	kill_ours(process.tid, SIGKILL);
}

/*
 * JOB_CREATE by a member whose main thread has exited: that thread is no
 * member to move; the process leaves its job whole for the new one.
 */
static void test_create_after_main_thread_exits(void)
{
	static thread_fn *create = create_after_main_thread;
	struct job_leader job;
	struct report process, created;

	if (!start_job_ok(&job, spawn_headless_process, &create))
		return;
	if (!receive_jid_report(&job, &process) ||
	    !receive_jid_report(&job, &created))
		goto out;
	if (!expect(created.jid != NO_JID, "job_create: %s", errno_name(created.err)))
		goto out;
	track_job(created.jid);
	expect(job_getjid(process.tid) == created.jid, "job_getjid(%d) = %#llx, new job %#llx",
	       process.tid, JID(job_getjid(process.tid)), JID(created.jid));
	expect(job_tasks(created.jid) == 1, "the new job has %d tasks, not the thread",
	       job_tasks(created.jid));
	expect(job_tasks(job.jid) == 1, "the old job has %d tasks, not its leader alone",
	       job_tasks(job.jid));
out:
	end_job(&job);
	kill_ours(process.tid, SIGKILL);
}

/*
 * A thread of a process whose main thread has exited forks: its child is
 * the job's, as any member's.
 */
static void *fork_after_main_thread(void *report_fd)
{
	wait_main_thread_exit();
	report_from_raw_child(*(int *)report_fd, fork_flushed());
	exit(0);
}

static void escape_by_fork_after_main_thread(const struct job_leader *self,
					     void *arg)
{
	static thread_fn *fork_after = fork_after_main_thread;

	(void)arg;
	spawn_headless_process(self, &fork_after);
}

/*
 * A thread other than the main one execs, taking over the process's pid
 * (de_thread()); the new image, and a child it forks, are the job's.
 */
static void *exec_from_thread(void *report_fd)
{
	char fd[16];

	snprintf(fd, sizeof(fd), "%d", *(int *)report_fd);
	execl("/proc/self/exe", "jobtest", REPORT_JID_FORK_OPTION, fd,
	      (char *)NULL);
	report_problem(*(int *)report_fd, REPORT_ERROR, errno);
	exit(1);
}

static void escape_by_exec_from_thread(const struct job_leader *self,
				       void *arg)
{
	static int report_fd;
	pthread_t thread;

	(void)arg;
	report_fd = self->report_fd;
	if (fork_flushed() != 0)
		return;
	if (pthread_create(&thread, NULL, exec_from_thread, &report_fd)) {
		report_problem(report_fd, REPORT_ERROR, errno);
		_exit(1);
	}
	for (;;)
		pause();
}

/* The CPU time the calling process has used, by its own clock. */
static long long process_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void burn_cpu(long long ns)
{
	volatile unsigned long spin = 0;

	do {
		for (int i = 0; i < 1000000; i++)
			spin++;
	} while (process_cpu_ns() < ns);
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

/*
 * A number of /proc/pnotify, or -1: a counter ("exits_in_hook: N"), or a
 * subscriber's tasks (its row's first number).
 */
static long pnotify_stat(const char *name)
{
	FILE *f = fopen("/proc/pnotify", "r");
	char line[256], key[64];
	long n, value = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63[^: ]%*[: ]%ld", key, &n) == 2 &&
		    !strcmp(key, name))
			value = n;
	fclose(f);
	return value;
}

/*
 * Threads that fork long-lived children all at once, after forks that
 * keep their children have drained pnotify's kit cache: each fork then
 * finds no next kit in the cache, nor each new thread its first, and a
 * work of the thread makes it before the thread is back in user space;
 * none may fail for it.
 */
#define BURST_DRAIN_STEP	32	/* children forked between looks */
#define BURST_DRAIN_MAX		(12 * BURST_DRAIN_STEP)
#define BURST_THREADS		16
#define BURST_CHILDREN		8	/* per thread */
#define BURST_PIDS		(BURST_DRAIN_MAX + BURST_THREADS * BURST_CHILDREN)

struct burst_shared {
	long kits_cached;	/* after the drain */
	int nr_drained;		/* the first pids[] */
	int nr_pids;
	pid_t pids[BURST_PIDS];
	int err;
};

struct burst_thread {
	struct burst_shared *burst;
	pthread_barrier_t *start;
	pid_t pids[BURST_CHILDREN];
};

static void fork_sleepers(pid_t *pids, int n, int *err)
{
	for (int i = 0; i < n; i++) {
		pids[i] = fork();
		if (pids[i] == 0)
			for (;;)
				pause();
		if (pids[i] < 0) {
			*err = errno;
			pids[i] = 0;
			return;
		}
	}
}

static void *burst_forker(void *arg)
{
	struct burst_thread *t = arg;

	pthread_barrier_wait(t->start);
	fork_sleepers(t->pids, BURST_CHILDREN, &t->burst->err);
	return NULL;
}

/* Body: drains the cache, then forks from BURST_THREADS threads at once. */
static void run_fork_burst(const struct job_leader *self, void *arg)
{
	struct burst_thread threads[BURST_THREADS] = { 0 };
	pthread_t ids[BURST_THREADS];
	struct burst_shared *burst = arg;
	pthread_barrier_t start;
	int started = 0;

	/*
	 * A fork takes a kit from the cache and gives none back while its
	 * child lives; an exit elsewhere may top the cache up meanwhile.
	 */
	fflush(NULL);
	burst->kits_cached = pnotify_stat("kits_cached");
	do {
		if (burst->kits_cached > KITS_SHRINK_LEAVES)
			shrink_kit_cache();
		fork_sleepers(&burst->pids[burst->nr_pids], BURST_DRAIN_STEP,
			      &burst->err);
		burst->nr_pids += BURST_DRAIN_STEP;
		burst->kits_cached = pnotify_stat("kits_cached");
	} while (burst->kits_cached && !burst->err &&
		 burst->nr_pids < BURST_DRAIN_MAX);
	burst->nr_drained = burst->nr_pids;
	pthread_barrier_init(&start, NULL, BURST_THREADS);
	for (; started < BURST_THREADS; started++) {
		threads[started].burst = burst;
		threads[started].start = &start;
		if (pthread_create(&ids[started], NULL, burst_forker,
				   &threads[started]))
			break;
	}
	/* Short of threads, the barrier never opens: no burst to judge. */
	if (started < BURST_THREADS) {
		report_problem(self->report_fd, REPORT_ERROR, EAGAIN);
		return;
	}
	for (int i = 0; i < BURST_THREADS; i++) {
		pthread_join(ids[i], NULL);
		for (int j = 0; j < BURST_CHILDREN; j++)
			if (threads[i].pids[j])
				burst->pids[burst->nr_pids++] = threads[i].pids[j];
	}
	report_own_jid(self->report_fd);
}

static void test_fork_burst_cache_drained(void)
{
	struct burst_shared *burst;
	long failures = pnotify_stat("fork_failures");
	long refills = pnotify_stat("refill_works");
	struct job_leader job;
	struct report done;
	int lost = 0;

	burst = mmap(NULL, sizeof(*burst), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (!expect(burst != MAP_FAILED, "mmap: %m"))
		return;
	if (!start_job_ok(&job, run_fork_burst, burst))
		goto out_unmap;
	if (!receive_jid_report(&job, &done))
		goto out;
	expect(!burst->err, "fork: %s", strerror(burst->err));
	expect(burst->kits_cached == 0,
	       "%d forks left %ld kits cached: the burst did not run dry",
	       burst->nr_drained, burst->kits_cached);
	for (int i = 0; i < burst->nr_pids; i++) {
		if (!burst->pids[i] || job_getjid(burst->pids[i]) == job.jid)
			continue;
		if (lost++ < 3)
			note("child %d (%s) is not in the job: %s",
			     burst->pids[i],
			     i < burst->nr_drained ? "drain" : "burst",
			     errno_name(errno));
	}
	expect(!lost, "%d of %d children lost", lost, burst->nr_pids);
	expect(pnotify_stat("fork_failures") == failures,
	       "pnotify counted %ld fork failures",
	       pnotify_stat("fork_failures") - failures);
	expect(pnotify_stat("refill_works") - refills >= BURST_THREADS,
	       "%ld works made kits, not one per thread at least",
	       pnotify_stat("refill_works") - refills);
out:
	end_job(&job);
out_unmap:
	munmap(burst, sizeof(*burst));
}

/*
 * Body: a child that burns CPU, writes and touches memory, then ends; the
 * report's status says how many exits pnotify ended in its exit hook
 * meanwhile (the child's is the only one).
 */
static void run_accounted_work(const struct job_leader *self, void *arg)
{
	struct report report = { .kind = REPORT_JID, .tid = gettid() };
	long hooked;
	pid_t worker;

	(void)arg;
	/*
	 * A few exits first stock pnotify's cache of prepared memory: with it
	 * stocked, the worker's exit is read in the exit hook (the fast path).
	 */
	for (int i = 0; i < 4; i++) {
		worker = fork_flushed();
		if (worker == 0)
			_exit(0);
		wait_for(worker);
	}
	hooked = pnotify_stat("exits_in_hook");
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
	report.status = (int)(pnotify_stat("exits_in_hook") - hooked);
	report.jid = job_getjid(gettid());
	report.cpu_ns = process_cpu_ns();
	send_report(self->report_fd, &report);
}

/*
 * @leader_ns: what the leader, the one member left, had used by its own
 * clock once the worker was gone: the exited members' part of the job's
 * time must be at least what the worker burned.
 */
static void expect_work_accounted(const struct job_acct *acct, long long leader_ns)
{
	expect(acct->utime_ns > 0, "utime_ns = %llu", (unsigned long long)acct->utime_ns);
	/* The worker's own clock saw it burn that much before it exited. */
	expect(acct->utime_ns + acct->stime_ns >=
	       (unsigned long long)(BURN_CPU_NS + leader_ns),
	       "utime_ns + stime_ns = %llu, below the %lld the worker burned and the %lld the leader used",
	       (unsigned long long)(acct->utime_ns + acct->stime_ns), BURN_CPU_NS,
	       leader_ns);
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
	/* Else the planted faults of the hook's reading go unseen. */
	expect(done.status >= 1, "the worker's exit was not ended in pnotify's exit hook");
	if (expect(job_getacct(job.jid, &acct) == 0, "job_getacct(live job): %m")) {
		expect_work_accounted(&acct, done.cpu_ns);
		expect(!acct.ended && !acct.end_time_ns, "live job marked ended");
	}
	status = release_leader(&job);
	expect(exited_with(status, LEADER_EXIT_STATUS), "leader status %#x", status);
	poll_until(job_getpidcnt(job.jid) < 0);
	memset(&acct, 0, sizeof(acct));
	if (expect(job_getacct(job.jid, &acct) == 0, "job_getacct(ended job): %m")) {
		expect_work_accounted(&acct, done.cpu_ns);
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

/*
 * What test_accounting_io_once() shares with its job.  Members make no
 * system call that reads or writes but the ones counted here: they wait
 * on this memory, not on pipes.
 */
struct io_once {
	jid_t jid;
	int phase;		/* 1: the creator waits; 2: it may end */
	int ready;		/* threads that did their I/O */
	int worker_ends;	/* the attached process's worker may end */
	pid_t worker;		/* its tid */
	int zero, null;		/* /dev/zero and /dev/null */
};

enum {
	IO_ONCE_THREADS = 8,		/* made and joined */
	IO_ONCE_LEFT = 16,		/* alive at the exit_group() */
};

/*
 * The test build's knob that holds a thread in its exit hook while others
 * of its process are not exiting: the exit_group()'s threads are left
 * behind by the one that ends the process.
 */
#define STRAGGLE_KNOB	"/sys/module/pnotify/parameters/test_delay_straggle_us"
#define STRAGGLE_US	"50000"
#define HELD_EXITING_US	"500000"

static void io_once_free(struct io_once *io)
{
	if (io->zero >= 0)
		close(io->zero);
	if (io->null >= 0)
		close(io->null);
	munmap(io, sizeof(*io));
}

/* Shared memory for a job's members, with /dev/zero and /dev/null open. */
static struct io_once *io_once_new(void)
{
	struct io_once *io = mmap(NULL, sizeof(*io), PROT_READ | PROT_WRITE,
				  MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (!expect(io != MAP_FAILED, "mmap: %m"))
		return NULL;
	memset(io, 0, sizeof(*io));
	io->zero = open("/dev/zero", O_RDONLY);
	io->null = open("/dev/null", O_WRONLY);
	if (expect(io->zero >= 0 && io->null >= 0, "open: %m"))
		return io;
	io_once_free(io);
	return NULL;
}

/* Reads @rd bytes and writes @wr: rchar and wchar move by that much. */
static void io_once_do(const struct io_once *io, size_t rd, size_t wr)
{
	static char zeros[4096];
	char buf[4096];

	if (read(io->zero, buf, rd) != (ssize_t)rd ||
	    write(io->null, zeros, wr) != (ssize_t)wr)
		_exit(99);
}

static void io_once_wait(const int *word, int value)
{
	while (__atomic_load_n(word, __ATOMIC_SEQ_CST) < value)
		sleep_ms(1);
}

static void *io_once_thread(void *arg)
{
	io_once_do(arg, 100, 110);
	return NULL;
}

/*
 * The attached process's worker: its I/O, before the attach, is more than
 * the job's, so that a read that took it off and did not add it back
 * would come out below zero.
 */
static void *io_once_worker(void *arg)
{
	struct io_once *io = arg;

	for (int i = 0; i < 16; i++)
		io_once_do(io, 4096, 4096);
	__atomic_store_n(&io->worker, gettid(), __ATOMIC_SEQ_CST);
	io_once_wait(&io->worker_ends, 1);
	return NULL;
}

/* Whether the thread @tid of @pid is exiting (PF_EXITING), not yet gone. */
static bool thread_exiting(pid_t pid, pid_t tid)
{
	char path[64], buf[512], *paren;
	unsigned int flags = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid, (int)tid);
	f = fopen(path, "r");
	if (!f)
		return false;
	if (!fgets(buf, sizeof(buf), f) || !(paren = strrchr(buf, ')')) ||
	    sscanf(paren + 2, "%*c %*d %*d %*d %*d %*d %u", &flags) != 1)
		flags = 0;
	fclose(f);
	return flags & 0x4;	/* PF_EXITING */
}

/*
 * A process attached to the job, then detached: its I/O and its worker's
 * before the attach, and its own after the detach, are not the job's.
 */
static void io_once_attached(struct io_once *io)
{
	pthread_t worker;

	if (pthread_create(&worker, NULL, io_once_worker, io))
		_exit(96);
	io_once_do(io, 500, 500);
	io_once_wait(&io->worker, 1);
	__atomic_store_n(&io->ready, -1, __ATOMIC_SEQ_CST);
	while (job_getjid(getpid()) != io->jid)
		sleep_ms(1);
	io_once_do(io, 40, 50);
	__atomic_store_n(&io->ready, -2, __ATOMIC_SEQ_CST);
	while (job_getjid(getpid()) == io->jid)
		sleep_ms(1);
	io_once_do(io, 700, 700);
	_exit(0);
}

static void *io_once_left(void *arg)
{
	struct io_once *io = arg;

	io_once_do(io, 10, 20);
	__atomic_add_fetch(&io->ready, 1, __ATOMIC_SEQ_CST);
	for (;;)
		pause();
	return NULL;
}

/* Ends the process with IO_ONCE_LEFT threads that did their I/O running. */
static void io_once_exit_group(struct io_once *io)
{
	pthread_t left;

	for (int i = 0; i < IO_ONCE_LEFT; i++)
		if (pthread_create(&left, NULL, io_once_left, io))
			_exit(96);
	io_once_wait(&io->ready, IO_ONCE_LEFT);
	_exit(0);
}

/*
 * The job's creator: its own I/O, a child's that waits for a grandchild
 * (each waited-for process's I/O is in its parent's /proc/PID/io: the
 * grandchild's three times over), threads that exit, then threads still
 * running when it exits, which its exit_group() ends together.
 */
static void io_once_creator(struct io_once *io)
{
	pthread_t threads[IO_ONCE_THREADS];
	pid_t child;

	io->jid = job_create(0, 0, 0);
	if (io->jid <= 0)
		_exit(98);
	io_once_do(io, 1000, 1100);
	child = fork();
	if (child == 0) {
		io_once_do(io, 2000, 2100);
		child = fork();
		if (child == 0) {
			io_once_do(io, 3000, 3100);
			_exit(0);
		}
		_exit(wait_for(child) == 0 ? 0 : 97);
	}
	if (wait_for(child) != 0)
		_exit(97);
	for (int i = 0; i < IO_ONCE_THREADS; i++)
		if (pthread_create(&threads[i], NULL, io_once_thread, io))
			_exit(96);
	for (int i = 0; i < IO_ONCE_THREADS; i++)
		pthread_join(threads[i], NULL);
	__atomic_store_n(&io->phase, 1, __ATOMIC_SEQ_CST);
	io_once_wait(&io->phase, 2);
	io_once_exit_group(io);
}

static bool expect_io(jid_t jid, unsigned long long rd, unsigned long long wr,
		      const char *when)
{
	struct job_acct acct = { 0 };

	if (!expect(job_getacct(jid, &acct) == 0, "job_getacct(%s): %m", when))
		return false;
	return expect(acct.read_bytes == rd && acct.write_bytes == wr,
		      "%s: read %llu, written %llu bytes, want %llu and %llu",
		      when, (unsigned long long)acct.read_bytes,
		      (unsigned long long)acct.write_bytes, rd, wr);
}

/*
 * A job's I/O is what its members' threads read and wrote while in it,
 * each byte once: not the children's again in their parents', as
 * /proc/PID/io sums them, nor a process's before its attach, and the
 * threads an exit_group() ends with the last are all counted.
 */
static void test_accounting_io_once(void)
{
	const unsigned long long rd = 1000 + 2000 + 3000 +
				      IO_ONCE_THREADS * 100;
	const unsigned long long wr = 1100 + 2100 + 3100 +
				      IO_ONCE_THREADS * 110;
	bool straggle = false;
	struct io_once *io;
	pid_t creator, attached;

	io = io_once_new();
	if (!io)
		return;
	creator = fork_flushed();
	if (creator == 0) {
		die_with_parent();
		io_once_creator(io);
	}
	poll_until(__atomic_load_n(&io->phase, __ATOMIC_SEQ_CST) == 1);
	if (!expect(io->phase == 1, "the job's creator did not do its I/O"))
		goto out_creator;
	expect_io(io->jid, rd, wr, "live job");
	attached = fork_flushed();
	if (attached == 0) {
		die_with_parent();
		io_once_attached(io);
	}
	poll_until(__atomic_load_n(&io->ready, __ATOMIC_SEQ_CST) == -1);
	if (!expect(job_attachpid(attached, io->jid) == io->jid,
		    "job_attachpid: %m")) {
		kill(attached, SIGKILL);
		wait_for(attached);
		goto out_creator;
	}
	poll_until(__atomic_load_n(&io->ready, __ATOMIC_SEQ_CST) == -2);
	expect_io(io->jid, rd + 40, wr + 50, "live job, a process attached");
	/*
	 * The test build holds the worker in its exit hook, exiting, with
	 * its I/O before the attach taken off the job's: read meanwhile.
	 */
	straggle = access(STRAGGLE_KNOB, W_OK) == 0;
	if (straggle)
		expect(write_small_file(STRAGGLE_KNOB, HELD_EXITING_US), "%s: %m",
		       STRAGGLE_KNOB);
	__atomic_store_n(&io->worker_ends, 1, __ATOMIC_SEQ_CST);
	if (straggle)
		poll_until(thread_exiting(attached, io->worker));
	expect_io(io->jid, rd + 40, wr + 50, "live job, a worker exiting");
	if (straggle) {
		expect(thread_exiting(attached, io->worker),
		       "the worker was not held exiting as the job was read");
		write_small_file(STRAGGLE_KNOB, "0");
	}
	if (!expect(job_detachpid(attached) == io->jid, "job_detachpid: %m"))
		kill(attached, SIGKILL);
	expect(exited_with(wait_for(attached), 0), "the attached process failed");
	io->ready = 0;
	__atomic_store_n(&io->phase, 2, __ATOMIC_SEQ_CST);
out_creator:
	if (io->phase != 2)
		kill(creator, SIGKILL);
	expect(exited_with(wait_for(creator), 0), "the job's creator failed");
	if (straggle)
		write_small_file(STRAGGLE_KNOB, "0");
	if (io->jid > 0) {
		poll_until(job_getpidcnt(io->jid) < 0);
		expect_io(io->jid, rd + 40 + IO_ONCE_LEFT * 10,
			  wr + 50 + IO_ONCE_LEFT * 20, "ended job");
	}
	io_once_free(io);
}

/* An exit_group() in a job of its own: the job's I/O is its threads'. */
static void io_once_left_behind_round(struct io_once *io)
{
	pid_t process;

	io->jid = 0;
	io->ready = 0;
	process = fork_flushed();
	if (process == 0) {
		die_with_parent();
		io->jid = job_create(0, 0, 0);
		if (io->jid <= 0)
			_exit(98);
		io_once_exit_group(io);
	}
	expect(exited_with(wait_for(process), 0), "the job's process failed");
	if (io->jid > 0) {
		poll_until(job_getpidcnt(io->jid) < 0);
		expect_io(io->jid, IO_ONCE_LEFT * 10, IO_ONCE_LEFT * 20,
			  "ended job");
	}
}

#define LEFT_BEHIND_ROUNDS 20

/*
 * The threads an exit_group() ends with the one that ends the process,
 * left behind in their exit hook by the test build, count their I/O at
 * that end (/proc/pnotify's exits_left_behind); it may take a few rounds.
 */
static void test_accounting_io_left_behind(void)
{
	long before = pnotify_stat("exits_left_behind");
	struct io_once *io;
	int round;

	if (access(STRAGGLE_KNOB, W_OK) != 0) {
		note("skipped: needs the test build (%s)", STRAGGLE_KNOB);
		return;
	}
	io = io_once_new();
	if (!io)
		return;
	if (expect(write_small_file(STRAGGLE_KNOB, STRAGGLE_US), "%s: %m",
		   STRAGGLE_KNOB)) {
		for (round = 0; round < LEFT_BEHIND_ROUNDS &&
		     pnotify_stat("exits_left_behind") == before; round++)
			io_once_left_behind_round(io);
		write_small_file(STRAGGLE_KNOB, "0");
		expect(pnotify_stat("exits_left_behind") > before,
		       "no thread was left behind in %d rounds", round);
	}
	io_once_free(io);
}

/* Uses CPU time in the kernel until killed. */
static void burn_system_cpu(void)
{
	static char buf[1 << 20];
	int fd = open("/dev/zero", O_RDONLY);

	while (read(fd, buf, sizeof(buf)) >= 0)
		;
	_exit(1);
}

/*
 * Body: members that use user time and exit, one by one, then one that
 * uses system time until the leader is released.
 */
static void run_user_then_system(const struct job_leader *self, void *arg)
{
	pid_t pid;

	(void)arg;
	for (int i = 0; i < 8; i++) {
		pid = fork_flushed();
		if (pid == 0) {
			burn_cpu(3000000LL + i * 700000LL);
			_exit(0);
		}
		wait_for(pid);
	}
	if (fork_flushed() == 0) {
		die_with_parent();
		burn_system_cpu();
	}
	report_own_jid(self->report_fd);
}

static bool expect_acct_kept(const struct job_acct *before,
			     const struct job_acct *now, const char *when)
{
	return expect(now->utime_ns >= before->utime_ns &&
		      now->stime_ns >= before->stime_ns,
		      "%s: utime %llu -> %llu, stime %llu -> %llu", when,
		      (unsigned long long)before->utime_ns,
		      (unsigned long long)now->utime_ns,
		      (unsigned long long)before->stime_ns,
		      (unsigned long long)now->stime_ns) &&
	       expect(now->read_bytes >= before->read_bytes &&
		      now->write_bytes >= before->write_bytes,
		      "%s: read %llu -> %llu, written %llu -> %llu bytes", when,
		      (unsigned long long)before->read_bytes,
		      (unsigned long long)now->read_bytes,
		      (unsigned long long)before->write_bytes,
		      (unsigned long long)now->write_bytes);
}

/*
 * One job of test_accounting_monotonic(); false once it failed.  Its
 * exited members' user time is split anew at each read as the live one's
 * system time grows: that falls when their tick samples fell short of
 * their runtime, as they mostly do under emulation.
 */
static bool accounting_kept_in_a_job(void)
{
	struct job_acct last = { 0 }, now;
	struct job_leader job;
	struct report done;
	bool kept = false;

	if (!start_job_ok(&job, run_user_then_system, NULL))
		return false;
	if (!receive_jid_report(&job, &done))
		goto out;
	for (int reads = 0; reads < 40; reads++) {
		if (!expect(job_getacct(job.jid, &now) == 0, "job_getacct: %m") ||
		    !expect_acct_kept(&last, &now, "a live job's next read"))
			goto out;
		last = now;
		sleep_ms(5);
	}
	release_leader(&job);
	poll_until(job_getpidcnt(job.jid) < 0);
	kept = expect(job_getacct(job.jid, &now) == 0, "job_getacct(ended job): %m") &&
	       expect_acct_kept(&last, &now, "the final record");
out:
	end_job(&job);
	return kept;
}

/*
 * A job's user and system time never go back, from one JOB_GETACCT to the
 * next and to its final record, while the members that exited and the
 * live ones used them in other proportions.
 */
static void test_accounting_monotonic(void)
{
	for (int round = 0; round < 5; round++)
		if (!accounting_kept_in_a_job())
			return;
}

/*
 * Body: a member that forks members that read 64 KiB, stay 30 ms and end,
 * 30 ms apart, until the leader ends: each is read alive, then ends as a
 * read goes on, none ending between that read and the one before.
 */
static void churn_io_members(const struct job_leader *self, void *arg)
{
	static char buf[1 << 16];
	int fd = open("/dev/zero", O_RDONLY);

	(void)arg;
	if (fork_flushed() == 0) {
		die_with_parent();
		for (;;) {
			pid_t member = fork();

			if (member == 0) {
				if (read(fd, buf, sizeof(buf)) < 0)
					_exit(1);
				sleep_ms(30);
				_exit(0);
			}
			if (member < 0 || wait_for(member) != 0)
				_exit(1);
			sleep_ms(30);
		}
	}
	close(fd);
	report_own_jid(self->report_fd);
}

/* The test build's knob: a read sleeps between holding and reading. */
#define DELAY_READ_KNOB	"/sys/module/job/parameters/test_delay_read_ms"

/*
 * @acct's bytes read are at most 64 KiB for each process that joined a job
 * of churn_io_members() but the leader and the forker; for @ended, at
 * least that for all but the last, which the end may cut short.
 */
static bool expect_churned_io(const struct job_acct *acct, bool ended,
			      const char *when)
{
	unsigned long long most = (acct->nr_processes - 2) << 16;
	unsigned long long least = ended && most ? most - (1 << 16) : 0;

	return expect(acct->nr_processes >= 2 && acct->read_bytes <= most &&
		      acct->read_bytes >= least,
		      "%s: read %llu bytes in %llu processes, want %llu to %llu",
		      when, (unsigned long long)acct->read_bytes,
		      (unsigned long long)acct->nr_processes, least, most);
}

/*
 * Nor do its bytes read go back while members end as it is read: one
 * that ends between the read's hold and its look at the member's I/O is
 * in neither.  The test build holds each read 1 ms there.  Nor are they
 * ever more than the members read, and at the end just that.
 */
static void test_accounting_io_monotonic(void)
{
	bool delayed = access(DELAY_READ_KNOB, W_OK) == 0;
	struct job_acct last = { 0 }, now;
	struct job_leader job;
	struct report done;

	if (!start_job_ok(&job, churn_io_members, NULL))
		return;
	if (!receive_jid_report(&job, &done))
		goto out;
	if (delayed)
		expect(write_small_file(DELAY_READ_KNOB, "1"), "%s: %m",
		       DELAY_READ_KNOB);
	/* 500 reads at least, over the ends of 3 members at least. */
	for (int reads = 0; reads < 500 || last.nr_processes < 2 + 4; reads++) {
		if (!expect(job_getacct(job.jid, &now) == 0, "job_getacct: %m") ||
		    !expect_acct_kept(&last, &now, "a live job's next read") ||
		    !expect_churned_io(&now, false, "a live job's read") ||
		    !expect(reads < 100000, "only %llu processes joined in %d reads",
			    (unsigned long long)now.nr_processes, reads))
			goto out;
		last = now;
	}
	expect(last.read_bytes > 0, "no bytes read in the reads");
	release_leader(&job);
	poll_until(job_getpidcnt(job.jid) < 0);
	if (expect(job_getacct(job.jid, &now) == 0, "job_getacct(ended job): %m") &&
	    expect_acct_kept(&last, &now, "the final record"))
		expect_churned_io(&now, true, "the final record");
out:
	if (delayed)
		write_small_file(DELAY_READ_KNOB, "0");
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


#define IO_URING_EXIT_STATUS	5

static void exit_on_sigusr1(int sig)
{
	(void)sig;
	_exit(IO_URING_EXIT_STATUS);
}

/*
 * A process with an io_uring worker: @create makes it create a job itself,
 * else it only pauses, until SIGUSR1 makes it exit with
 * IO_URING_EXIT_STATUS.  Returns its pid and, with @create, the JID it got.
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
		signal(SIGUSR1, exit_on_sigusr1);
		if (write(fds[1], &got, sizeof(got)) != sizeof(got))
			_exit(1);
		for (;;)
			pause();
	}
	close(fds[1]);
	close(work[0]);
	close(work[1]);
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

/* Kills @pid if still running and reaps it, then spawn_waiter()'s @waiter. */
static void reap_with_waiter(pid_t pid, pid_t waiter, int waiter_fd)
{
	if (pid > 0) {
		kill_ours(pid, SIGKILL);
		wait_for(pid);
	}
	if (waiter > 0) {
		wait_for(waiter);
		close(waiter_fd);
	}
}

/*
 * A job's only process, with an io_uring worker, exits (exit_group() from
 * a signal handler): its worker ends with it, maybe last, and the job ends
 * with the process's exit status.
 */
static void test_io_uring_process_exits(void)
{
	struct report waited;
	pid_t waiter = -1;
	int waiter_fd = -1;
	jid_t jid = 0;
	pid_t pid = spawn_io_uring_process(true, &jid);

	if (!expect(pid > 0, "fork: %m"))
		return;
	if (jid == (jid_t)-2) {
		note("skipped: no io_uring worker could be started");
		goto out;
	}
	if (!expect(jid != (jid_t)-1 && jid != 0, "job_create with an io_uring worker failed"))
		goto out;
	expect(thread_count(pid) >= 2, "no io_uring worker thread");
	waiter = spawn_waiter(jid, &waiter_fd, kill_waiter_s());
	if (!expect(waiter > 0 && receive_report(waiter_fd, &waited), "waiter: %m"))
		goto out;
	/* Its report comes just before its call: let it wait. */
	sleep_ms(200);
	kill(pid, SIGUSR1);
	expect(exited_with(wait_for(pid), IO_URING_EXIT_STATUS),
	       "the process did not exit with status %d", IO_URING_EXIT_STATUS);
	pid = -1;
	if (expect(receive_report(waiter_fd, &waited), "the waiter did not wake up")) {
		expect(waited.jid == jid, "job_waitjid() = %#llx (%s)",
		       JID(waited.jid), errno_name(waited.err));
		expect(WIFEXITED(waited.status) &&
		       WEXITSTATUS(waited.status) == IO_URING_EXIT_STATUS,
		       "the job ended with status %#x, not the process's", waited.status);
	}
out:
	reap_with_waiter(pid, waiter, waiter_fd);
}

/*
 * How a process of two threads ends, in test_status_of_threads(): which
 * thread exits first and how, and what wait() then reports: the leader's
 * code, or since 6.0 the last thread's (synchronize_group_exit() makes
 * the last thread's exit a group exit).
 */
struct status_end {
	const char *what;
	int first_code, last_code;	/* SYS_exit's, or exit_group()'s */
	bool leader_first, group;
	int want, want_since_6_0;
};

static const struct status_end status_ends[] = {
	{ "a thread's exit_group()", 0, 7, false, true, 7, 7 },
	{ "the leader exits, then a thread's exit_group()", 5, 7, true, true, 7, 7 },
	{ "the leader exits, then the last thread", 5, 9, true, false, 5, 9 },
	{ "a thread exits, then the leader", 9, 5, false, false, 5, 5 },
};

static const struct status_end *status_end_now;
static int status_go_fd;

/* The thread of a status_end: last unless the leader is. */
static void *status_thread(void *arg)
{
	const struct status_end *end = status_end_now;

	(void)arg;
	if (end->leader_first || end->group)
		sleep_ms(50);
	if (end->group)
		syscall(SYS_exit_group, end->last_code);
	syscall(SYS_exit, end->leader_first ? end->last_code : end->first_code);
	return NULL;
}

/* A process in a job of its own that ends as status_end_now says. */
static void status_process(int report_fd)
{
	const struct status_end *end = status_end_now;
	pthread_t thread;
	char go;

	report_result(report_fd, job_create(0, 0, 0));
	if (read(status_go_fd, &go, 1) != 1)
		_exit(100);
	if (pthread_create(&thread, NULL, status_thread, NULL))
		_exit(101);
	if (!end->leader_first)
		sleep_ms(end->group ? 1000 : 50);
	syscall(SYS_exit, end->leader_first ? end->first_code : end->last_code);
}

/*
 * A job's status is its last process's as wait() reports it, whichever
 * thread ended the process: exit_group()'s code (since 6.0, the last
 * thread's exit's), else its leader's, even when another thread exits
 * last (the process ends in the later of the last thread's exit hook and
 * the leader's, once both are written).
 */
static void test_status_of_threads(void)
{
	for (size_t i = 0; i < sizeof(status_ends) / sizeof(status_ends[0]); i++) {
		const struct status_end *end = &status_ends[i];
		int fds[2], go[2], waiter_fd = -1, status;
		struct report created, waited;
		pid_t pid, waiter = -1;

		if (!expect(pipe2(fds, O_CLOEXEC) == 0, "pipe: %m"))
			return;
		if (!expect(pipe2(go, O_CLOEXEC) == 0, "pipe: %m")) {
			close(fds[0]);
			close(fds[1]);
			return;
		}
		status_end_now = end;
		pid = fork_flushed();
		if (pid == 0) {
			close(fds[0]);
			close(go[1]);
			status_go_fd = go[0];
			status_process(fds[1]);
		}
		close(fds[1]);
		close(go[0]);
		if (!expect(pid > 0, "fork: %m") ||
		    !expect(receive_report(fds[0], &created) &&
			    created.jid != NO_JID, "%s: job_create failed",
			    end->what))
			goto next;
		waiter = spawn_waiter(created.jid, &waiter_fd, kill_waiter_s());
		if (!expect(waiter > 0 && receive_report(waiter_fd, &waited),
			    "waiter: %m"))
			goto next;
		/* Its report comes just before its call: let it wait. */
		sleep_ms(200);
		expect(write(go[1], "g", 1) == 1, "go: %m");
		status = wait_for(pid);
		pid = -1;
		expect(exited_with(status, end->want) ||
		       exited_with(status, end->want_since_6_0),
		       "%s: the process ended with %#x, not status %d or %d",
		       end->what, status, end->want, end->want_since_6_0);
		if (expect(receive_report(waiter_fd, &waited),
			   "%s: the waiter did not wake up", end->what))
			expect(waited.jid == created.jid && waited.status == status,
			       "%s: job_waitjid() = %#llx, status %#x, not the process's %#x",
			       end->what, JID(waited.jid), waited.status,
			       status);
next:
		reap_with_waiter(pid, waiter, waiter_fd);
		close(fds[0]);
		close(go[1]);
	}
}

#define FAIL_NTH_PATH		"/proc/thread-self/fail-nth"
#define FAILSLAB_PATH		"/sys/kernel/debug/failslab/"
#define FAIL_NTH_MAX		1000	/* allocations a call may make */
#define IO_URING_THREADS	3	/* threads besides the main one */

/* failslab's knobs, and what fail-nth needs them to be. */
static const char *const failslab_knobs[] = { "ignore-gfp-wait", "verbose" };
static const char *const failslab_values[] = { "N", "0" };

static void restore_failslab(void)
{
	char path[128];

	if (!shared->failslab_changed)
		return;
	for (size_t i = 0; i < sizeof(failslab_knobs) / sizeof(failslab_knobs[0]); i++) {
		snprintf(path, sizeof(path), FAILSLAB_PATH "%s", failslab_knobs[i]);
		write_small_file(path, shared->failslab_saved[i]);
	}
	shared->failslab_changed = false;
}

/*
 * failslab must count the allocations that may sleep (GFP_KERNEL), which
 * it ignores by default, and fail them quietly (a stack dump is a splat
 * to the VM harness); the runner restores it.
 */
static bool set_up_failslab(void)
{
	char path[128];

	for (size_t i = 0; i < sizeof(failslab_knobs) / sizeof(failslab_knobs[0]); i++) {
		snprintf(path, sizeof(path), FAILSLAB_PATH "%s", failslab_knobs[i]);
		if (!read_small_file(path, shared->failslab_saved[i],
				     sizeof(shared->failslab_saved[i])))
			return false;
	}
	shared->failslab_changed = true;
	for (size_t i = 0; i < sizeof(failslab_knobs) / sizeof(failslab_knobs[0]); i++) {
		snprintf(path, sizeof(path), FAILSLAB_PATH "%s", failslab_knobs[i]);
		if (!write_small_file(path, failslab_values[i]))
			return false;
	}
	return true;
}

/*
 * A job request on @job_fd whose @nth allocation fails (fail-nth of the
 * calling thread); *@injected says whether it came that far.
 */
static int ioctl_failing_nth(int job_fd, int nth_fd, int nth, unsigned int request,
			     void *arg, bool *injected)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%d", nth), ret, err;

	if (pwrite(nth_fd, buf, len, 0) != len) {
		*injected = false;
		return -1;
	}
	ret = ioctl(job_fd, JOB_REQUEST(request), arg);
	err = errno;
	len = pread(nth_fd, buf, sizeof(buf) - 1, 0);
	buf[len > 0 ? len : 0] = 0;
	*injected = len > 0 && atoi(buf) == 0;
	if (pwrite(nth_fd, "0", 1, 0) != 1)
		_exit(6);	/* every later allocation would be at risk */
	errno = err;
	return ret;
}

/* The tasks pnotify follows, and how many of them are job's; false if unknown. */
static bool pnotify_counts(long *tasks, long *job)
{
	*tasks = pnotify_stat("tasks");
	*job = pnotify_stat("job");
	return *tasks >= 0 && *job >= 0;
}

/* What a failed create or attach must leave as it was. */
struct job_state {
	int jobs;		/* job_getjidcnt() */
	int tasks;		/* the tasks of the job concerned, or -1 */
	long pn_tasks;		/* the tasks pnotify follows */
	long pn_job;		/* job's subscriptions */
};

/*
 * pnotify_counts() once the counts stop moving: an entry that a detach or
 * exit ended is uncounted only when it is freed, after an RCU grace period.
 */
static void pnotify_counts_settled(long *tasks, long *job)
{
	long last_tasks, last_job;

	pnotify_counts(tasks, job);
	for (int i = 0; i < 200; i++) {
		last_tasks = *tasks;
		last_job = *job;
		sleep_ms(20);
		pnotify_counts(tasks, job);
		if (*tasks == last_tasks && *job == last_job)
			return;
	}
}

static void take_job_state(struct job_state *state, jid_t jid)
{
	state->jobs = job_getjidcnt();
	state->tasks = jid == NO_JID ? -1 : job_tasks(jid);
	pnotify_counts_settled(&state->pn_tasks, &state->pn_job);
}

static bool same_job_state(const struct job_state *a, const struct job_state *b)
{
	return a->jobs == b->jobs && a->tasks == b->tasks &&
	       a->pn_tasks == b->pn_tasks && a->pn_job == b->pn_job;
}

static bool expect_job_state(const struct job_state *before, jid_t jid,
			     const char *call, int nth)
{
	struct job_state now;

	/* What a failure freed is uncounted after a grace period: a while. */
	for (int i = 0; i < 200; i++) {
		take_job_state(&now, jid);
		if (same_job_state(&now, before))
			return true;
		sleep_ms(20);
	}
	return expect(false,
		      "%s failing at allocation %d changed things: jobs %d -> %d, tasks of %#llx %d -> %d, pnotify tasks %ld -> %ld, job's %ld -> %ld",
		      call, nth, before->jobs, now.jobs, JID(jid), before->tasks,
		      now.tasks, before->pn_tasks, now.pn_tasks, before->pn_job,
		      now.pn_job);
}

static void *pause_forever(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

#define DETACH_THREADS		3

/*
 * detachjid takes out every task of every process, not one per process:
 * with a process of DETACH_THREADS + 1 tasks in the job besides its
 * leader, a thread left in would keep the job alive.
 */
static void test_detach_jid_threads(void)
{
	struct job_leader job;
	pid_t pid = fork_flushed();
	int n;

	if (pid == 0) {
		pthread_t thread;

		die_with_parent();
		for (int i = 0; i < DETACH_THREADS; i++)
			if (pthread_create(&thread, NULL, pause_forever, NULL))
				_exit(2);
		pause_forever(NULL);
	}
	poll_until(thread_count(pid) >= DETACH_THREADS + 1);
	if (!expect(thread_count(pid) == DETACH_THREADS + 1,
		    "the threaded process has %d threads", thread_count(pid)) ||
	    !start_job_ok(&job, NULL, NULL))
		goto out;
	expect(job_attachpid(pid, job.jid) == job.jid, "job_attachpid(): %m");
	expect(job_tasks(job.jid) == DETACH_THREADS + 2, "%d tasks in the job",
	       job_tasks(job.jid));
	n = job_detachjid(job.jid);
	expect(n == 2, "job_detachjid() = %d (%m), expected 2", n);
	expect_error(job_getpidcnt(job.jid), ENODATA);
	expect_error(job_getjid(pid), ENODATA);
	expect(process_alive(pid), "the detached process died");
	end_job(&job);
out:
	kill_ours(pid, SIGKILL);
	wait_for(pid);
}

/* The caller gets an io_uring worker and IO_URING_THREADS more threads. */
static bool start_io_uring_threads(void)
{
	pthread_t thread;
	int work[2];

	if (pipe(work) < 0 || start_io_uring_worker(work[0]) < 0)
		return false;
	for (int i = 0; i < IO_URING_THREADS; i++)
		if (pthread_create(&thread, NULL, pause_forever, NULL))
			return false;
	poll_until(thread_count(getpid()) >= IO_URING_THREADS + 2);
	return thread_count(getpid()) >= IO_URING_THREADS + 2;
}

/* Puts the calling process back in @jid (or in no job) after a failure. */
static void move_back(pid_t pid, jid_t jid)
{
	jid_t in = job_getjid(pid);

	if (in == jid)
		return;
	if (in != NO_JID)
		job_detachpid(pid);
	if (jid != NO_JID)
		job_attachpid(pid, jid);
}

/*
 * In a process with an io_uring worker and threads, in the job @old or in
 * none: JOB_CREATE of the JID base + n with its nth allocation failing, for
 * n = 1, 2, ... until the call makes fewer.  After a failure the process,
 * every thread of it, is where it was, the JID is not allocated, no record
 * of it is kept, pnotify follows what it did.  Returns the failures
 * injected.
 */
static int fail_creates(jid_t old, jid_t base)
{
	int job_fd = open(JOB_PROC_PATH, O_RDONLY | O_CLOEXEC);
	int nth_fd = open(FAIL_NTH_PATH, O_RDWR | O_CLOEXEC);
	int user_threads = IO_URING_THREADS + 1, injections = 0, failures = 0;
	int records = 0;
	pid_t me = getpid();

	if (!expect(job_fd >= 0 && nth_fd >= 0, "open: %m"))
		return 0;
	for (int nth = 1; nth <= FAIL_NTH_MAX; nth++) {
		struct job_create req = { .jid = base + nth };
		struct job_acct acct;
		struct job_state before;
		bool injected, had_record = job_getacct(req.jid, &acct) == 0;
		jid_t in;
		int ret, err;

		take_job_state(&before, old);
		ret = ioctl_failing_nth(job_fd, nth_fd, nth, JOB_CREATE, &req, &injected);
		err = errno;
		injections += injected;
		errno = 0;
		in = job_getjid(me);
		if (ret < 0) {
			failures++;
			expect(in == old && (old != NO_JID || errno == ENODATA),
			       "create failing at allocation %d (%s): the caller is in %#llx, not %#llx",
			       nth, errno_name(err), JID(in), JID(old));
			expect_job_state(&before, old, "create", nth);
			expect(job_getpidcnt(req.jid) < 0,
			       "create failing at allocation %d (%s): its job %#llx lives",
			       nth, errno_name(err), JID(req.jid));
			/* A job that never was has no final record either. */
			records += !had_record && job_getacct(req.jid, &acct) == 0;
			move_back(me, old);
		} else {
			expect(in == req.jid && job_tasks(req.jid) == user_threads,
			       "create (allocation %d failing, absorbed): in %#llx with %d tasks",
			       nth, JID(in), job_tasks(req.jid));
			expect(old == NO_JID || job_tasks(old) == before.tasks - user_threads,
			       "create: %d of the old job's %d tasks left", job_tasks(old),
			       before.tasks);
			expect(job_detachpid(me) == req.jid, "detach: %m");
			if (old != NO_JID)
				expect(job_attachpid(me, old) == old, "attach back: %m");
		}
		if (!injected) {
			expect(ret == 0, "create failed with no failure injected: %s",
			       errno_name(err));
			break;
		}
	}
	expect(!records, "%d of %d failed creates left an accounting record of their JID",
	       records, failures);
	close(nth_fd);
	close(job_fd);
	return injections;
}

/*
 * JOB_ATTACHPID of @pid, a process with an io_uring worker and threads, in
 * no job, to @jid, with its nth allocation failing, for n = 1, 2, ...:
 * after a failure no thread of it is in the job.  Returns the failures
 * injected.
 */
static int fail_attaches(pid_t pid, jid_t jid)
{
	int job_fd = open(JOB_PROC_PATH, O_RDONLY | O_CLOEXEC);
	int nth_fd = open(FAIL_NTH_PATH, O_RDWR | O_CLOEXEC);
	int user_threads = IO_URING_THREADS + 1, injections = 0;

	if (!expect(job_fd >= 0 && nth_fd >= 0, "open: %m"))
		return 0;
	for (int nth = 1; nth <= FAIL_NTH_MAX; nth++) {
		struct job_attachpid req = { .pid = pid, .r_jid = jid };
		struct job_state before;
		bool injected;
		jid_t in;
		int ret, err;

		take_job_state(&before, jid);
		ret = ioctl_failing_nth(job_fd, nth_fd, nth, JOB_ATTACHPID, &req, &injected);
		err = errno;
		injections += injected;
		errno = 0;
		in = job_getjid(pid);
		if (ret < 0) {
			expect(in == NO_JID && errno == ENODATA,
			       "attach failing at allocation %d (%s): the process is in %#llx",
			       nth, errno_name(err), JID(in));
			expect_job_state(&before, jid, "attach", nth);
			move_back(pid, NO_JID);
		} else {
			expect(in == jid && job_tasks(jid) == before.tasks + user_threads,
			       "attach (allocation %d failing, absorbed): in %#llx, %d tasks",
			       nth, JID(in), job_tasks(jid));
			expect(job_detachpid(pid) == jid, "detach: %m");
		}
		if (!injected) {
			expect(ret == 0, "attach failed with no failure injected: %s",
			       errno_name(err));
			break;
		}
	}
	close(nth_fd);
	close(job_fd);
	return injections;
}

/*
 * A failed create or attach of a process with an io_uring worker and
 * several threads leaves everything where it was: the kernel's fault
 * injection fails each allocation of the call in turn (fail-nth, on a
 * kernel with CONFIG_FAULT_INJECTION and CONFIG_FAILSLAB: the debug lane).
 */
static void test_io_uring_failed_moves(void)
{
	struct job_leader old;
	struct report done;
	int fds[2];
	pid_t pid;

	if (access(FAIL_NTH_PATH, F_OK) != 0) {
		note("skipped: no %s (CONFIG_FAULT_INJECTION)", FAIL_NTH_PATH);
		return;
	}
	if (!set_up_failslab()) {
		note("skipped: cannot set up %s (CONFIG_FAILSLAB): %m", FAILSLAB_PATH);
		return;
	}
	if (!start_job_ok(&old, NULL, NULL))
		return;
	if (!expect(pipe2(fds, O_CLOEXEC) == 0, "pipe: %m"))
		goto out;
	pid = fork_flushed();
	if (pid == 0) {
		jid_t base = old.jid & 0xffffffff00000000ULL;
		int created;

		die_with_parent();
		if (!start_io_uring_threads()) {
			report_problem(fds[1], REPORT_SKIP, errno);
			_exit(0);
		}
		created = fail_creates(NO_JID, base | 0x7e5a0000);
		expect(job_attachpid(getpid(), old.jid) == old.jid, "attach: %m");
		created += fail_creates(old.jid, base | 0x7e5b0000);
		expect(job_detachpid(getpid()) == old.jid, "detach: %m");
		note("JOB_CREATE: %d failed allocations, from no job and from a job",
		     created);
		report_own_jid(fds[1]);
		for (;;)
			pause();
	}
	/* Some hundred calls, each with its checks: a while on a debug kernel. */
	report_ready(fds[0], TEST_TIMEOUT_S * 1000 / 2 * (slow ? SLOW_FACTOR : 1));
	if (expect(receive_report(fds[0], &done), "no report from the io_uring process")) {
		if (done.kind == REPORT_SKIP)
			note("skipped: no io_uring worker: %s", strerror(done.err));
		else
			note("JOB_ATTACHPID: %d failed allocations",
			     fail_attaches(pid, old.jid));
	}
	kill_ours(pid, SIGKILL);
	wait_for(pid);
	close(fds[0]);
	close(fds[1]);
out:
	end_job(&old);
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

/* *arg's size bytes in @page, which is then made read-only. */
static void *read_only_copy(void *page, const void *arg, size_t size)
{
	long page_size = sysconf(_SC_PAGESIZE);

	if (mprotect(page, page_size, PROT_READ | PROT_WRITE))
		return NULL;
	memcpy(page, arg, size);
	return mprotect(page, page_size, PROT_READ) ? NULL : page;
}

/*
 * A request whose result cannot be written back (its structure is
 * read-only) fails with EFAULT and creates, moves, detaches and signals
 * nothing.
 */
static void test_read_only_results(void)
{
	long page_size = sysconf(_SC_PAGESIZE);
	void *page = mmap(NULL, page_size, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	pid_t sleeper = spawn_sleeper(), creator;
	struct job_leader job;
	void *arg;

	if (!expect(page != MAP_FAILED, "mmap: %m"))
		goto out;
	if (!start_job_ok(&job, NULL, NULL))
		goto unmap;
	arg = read_only_copy(page, &(struct job_attachpid){ .r_jid = job.jid, .pid = sleeper },
			     sizeof(struct job_attachpid));
	expect_refused(__LINE__, JOB_ATTACHPID, arg, EFAULT, EFAULT, "read-only attach");
	expect_error(job_getjid(sleeper), ENODATA);
	if (!expect(job_attachpid(sleeper, job.jid) == job.jid, "job_attachpid(): %m"))
		goto end;
	arg = read_only_copy(page, &(struct job_detachpid){ .pid = sleeper },
			     sizeof(struct job_detachpid));
	expect_refused(__LINE__, JOB_DETACHPID, arg, EFAULT, EFAULT, "read-only detach");
	arg = read_only_copy(page, &(struct job_detachjid){ .jid = job.jid },
			     sizeof(struct job_detachjid));
	expect_refused(__LINE__, JOB_DETACHJID, arg, EFAULT, EFAULT, "read-only detachjid");
	arg = read_only_copy(page, &(struct job_killjid){ .jid = job.jid, .sig = SIGKILL },
			     sizeof(struct job_killjid));
	expect_refused(__LINE__, JOB_KILLJID, arg, EFAULT, EFAULT, "read-only kill");
	sleep_ms(500);	/* time for a SIGKILL that was sent to be taken */
	expect(waitpid(sleeper, NULL, WNOHANG) == 0, "the refused kill killed the sleeper");
	expect(job_getjid(sleeper) == job.jid, "the refused requests moved the sleeper");
	expect(job_getpidcnt(job.jid) == 2, "job_getpidcnt() = %d after refused requests",
	       job_getpidcnt(job.jid));
	arg = read_only_copy(page, &(struct job_create){ .user = getuid() },
			     sizeof(struct job_create));
	creator = fork_flushed();
	if (creator == 0) {
		int failed = raw_job_ioctl(JOB_CREATE, arg) == -1 && errno == EFAULT;

		_exit(failed && job_getjid(getpid()) == NO_JID && errno == ENODATA ? 0 : 1);
	}
	if (expect(creator > 0, "fork: %m"))
		expect(wait_for(creator) == 0, "a read-only create did not fail with EFAULT alone");
end:
	end_job(&job);
unmap:
	munmap(page, page_size);
out:
	kill_ours(sleeper, SIGKILL);
	wait_for(sleeper);
}

/*
 * A list longer than the buffer is cut at its newest processes: the
 * oldest first, whatever order the kernel keeps them in.
 */
static void test_short_buffers(void)
{
	struct job_leader job;
	struct report first, second;
	pid_t pids[4] = { 0 }, guard = -12345;
	int n;

	if (!start_job_ok(&job, spawn_two_members, NULL))
		return;
	if (receive_jid_report(&job, &first) && receive_jid_report(&job, &second)) {
		expect(job_getpidcnt(job.jid) == 3, "job_getpidcnt() = %d",
		       job_getpidcnt(job.jid));
		n = job_getpidlist(job.jid, pids, sizeof(pids));
		expect(n == 3 && pids[0] == job.pid && pids[1] == first.tid &&
		       pids[2] == second.tid,
		       "job_getpidlist() = %d: %d %d %d, not %d %d %d as they joined",
		       n, pids[0], pids[1], pids[2], job.pid, first.tid,
		       second.tid);
		pids[2] = guard;
		n = job_getpidlist(job.jid, pids, 2 * sizeof(pid_t));
		expect(n == 2 && pids[0] == job.pid && pids[1] == first.tid,
		       "job_getpidlist() with room for 2 = %d: %d %d, not the oldest %d %d",
		       n, pids[0], pids[1], job.pid, first.tid);
		expect(pids[2] == guard, "job_getpidlist() wrote past the buffer");
		pids[1] = guard;
		n = job_getpidlist(job.jid, pids, sizeof(pid_t));
		expect(n == 1 && pids[0] == job.pid,
		       "job_getpidlist() with room for 1 = %d: %d, not the oldest %d",
		       n, pids[0], job.pid);
		expect(pids[1] == guard, "job_getpidlist() wrote past the buffer");
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

/* The test build's knob that holds a followed fork in its hook. */
#define HELD_FORK_KNOB	"/sys/module/pnotify/parameters/test_delay_fork_us"
#define HELD_FORK_US	"2000000"

/* Body: on the second CPU, forks a child that waits, once told to. */
static void fork_when_told(const struct job_leader *self, void *arg)
{
	const int *go = arg;
	char c;

	(void)self;
	if (pin_to_cpu(1) && read(go[0], &c, 1) == 1 && fork_flushed() == 0)
		for (;;)
			pause();
}

/*
 * One try of test_kill_held_fork(): false if the child was no longer held
 * when the kill began (the hold ends on its own), which tests nothing.
 */
static bool kill_held_fork(void)
{
	struct job_leader job;
	pid_t pids[4], child;
	long long begun;
	bool held = false;
	int go[2], n = 0;

	if (!expect(pipe2(go, O_CLOEXEC) == 0, "pipe: %m"))
		return true;
	if (!start_job_ok(&job, fork_when_told, go))
		goto out;
	if (!expect(write_small_file(HELD_FORK_KNOB, HELD_FORK_US), "%s: %m",
		    HELD_FORK_KNOB) ||
	    !expect(write(go[1], "f", 1) == 1, "pipe: %m"))
		goto end;
	for (int ms = 0; ms < 20000 && n < 2; ms += 2) {
		n = job_getpidlist(job.jid, pids, sizeof(pids));
		if (n < 2)
			sleep_ms(2);
	}
	if (!expect(n == 2, "the job lists %d processes, not the leader and its child", n))
		goto end;
	child = pids[0] == job.pid ? pids[1] : pids[0];
	expect(job_detachpid(job.pid) == job.jid, "job_detachpid(leader): %m");
	held = kill(child, 0) < 0 && errno == ESRCH;
	begun = now_ms();
	expect(job_killjid(job.jid, SIGKILL) == 0, "job_killjid(SIGKILL): %m");
	note("killjid took %lld ms, the child %s held in its fork when it began",
	     now_ms() - begun, held ? "still" : "no longer");
	write_small_file(HELD_FORK_KNOB, "0");
	/* A job with no process left is listed until its record is made. */
	poll_until(job_getpidcnt(job.jid) < 0);
	expect_error(job_getpidcnt(job.jid), ENODATA);
end:
	write_small_file(HELD_FORK_KNOB, "0");
	end_job(&job);
out:
	close(go[0]);
	close(go[1]);
	return held;
}

/*
 * A child that has joined its job in the fork hook is listed before its
 * pid is attached, and cannot be found by pid until then.  killjid must
 * wait for it, however long the fork takes to get there: here the test
 * build's hook holds it 2 s (interrupts off on its CPU, but on
 * PREEMPT_RT), while its parent is detached (or the kill would take the
 * parent's siglock first, which the fork holds) and the job is killed
 * from the other CPU, without a fork of our own (forks wait for the held
 * one's tasklist_lock).  Tried until the kill begins while the child is
 * still held (sampled just before: the hold could end in between).
 */
static void test_kill_held_fork(void)
{
	cpu_set_t cpus;
	int tries = 0;

	if (!expect(sched_getaffinity(0, sizeof(cpus), &cpus) == 0,
		    "sched_getaffinity: %m"))
		return;
	if (access(HELD_FORK_KNOB, W_OK) != 0 || !CPU_ISSET(0, &cpus) ||
	    !CPU_ISSET(1, &cpus)) {
		note("skipped: needs the test build (%s) and CPUs 0 and 1", HELD_FORK_KNOB);
		return;
	}
	if (!expect(pin_to_cpu(0), "sched_setaffinity: %m"))
		return;
	while (++tries <= 5 && !kill_held_fork())
		;
	expect(tries <= 5, "in 5 tries, the kill never began while the child was held");
	sched_setaffinity(0, sizeof(cpus), &cpus);
}

/* The test build's knob: a lookup by a task of this name holds 2 s. */
#define HOLD_LOOKUP_KNOB	"/sys/module/job/parameters/test_hold_lookup_comm"
#define HOLD_LOOKUP_COMM	"jt-hold-lookup"

/*
 * A task moved out of job A stays on A's lists while someone still holds
 * its old membership (here a GETJID the test build holds 2 s): a
 * detachjid of A in that window must leave it in the job it moved to.
 */
static void test_detachjid_after_move(void)
{
	struct job_leader a, b;
	pid_t sleeper, holder;

	if (access(HOLD_LOOKUP_KNOB, W_OK) != 0) {
		note("skipped: needs the test build (%s)", HOLD_LOOKUP_KNOB);
		return;
	}
	sleeper = spawn_sleeper();
	if (!start_job_ok(&a, NULL, NULL))
		goto out;
	if (!start_job_ok(&b, NULL, NULL))
		goto end_a;
	if (!expect(job_attachpid(sleeper, a.jid) == a.jid, "attach: %m") ||
	    !expect(write_small_file(HOLD_LOOKUP_KNOB, HOLD_LOOKUP_COMM),
		    "%s: %m", HOLD_LOOKUP_KNOB))
		goto end_b;
	holder = fork_flushed();
	if (holder == 0) {
		prctl(PR_SET_NAME, HOLD_LOOKUP_COMM);
		_exit(job_getjid(sleeper) == a.jid ? 0 : 1);
	}
	/* Uninterruptible: it holds the sleeper's membership of A. */
	for (int i = 0; i < 150 && process_state_when(holder, false) != 'D'; i++)
		sleep_ms(10);
	expect(process_state_when(holder, false) == 'D',
	       "the lookup was never seen held");
	expect(job_detachpid(sleeper) == a.jid, "detachpid: %m");
	expect(job_attachpid(sleeper, b.jid) == b.jid, "attach to B: %m");
	expect(job_detachjid(a.jid) >= 1, "detachjid: %m");
	expect(process_state_when(holder, false) == 'D',
	       "the hold ended before the detachjid: nothing was tested");
	expect(job_getjid(sleeper) == b.jid,
	       "the detachjid of A took the sleeper out of B: in %#llx",
	       JID(job_getjid(sleeper)));
	expect(exited_with(wait_for(holder), 0), "the held GETJID failed");
	write_small_file(HOLD_LOOKUP_KNOB, "\n");
end_b:
	end_job(&b);
end_a:
	end_job(&a);
out:
	kill_ours(sleeper, SIGKILL);
	wait_for(sleeper);
}

/* The test build's knob: an ended job's final record is made later. */
#define DELAY_RECORD_KNOB	"/sys/module/job/parameters/test_delay_record_ms"

/*
 * Once a job is gone from the list of jobs, its final record is there: a
 * JOB_GETACCT finds the one or the other, even while the record is being
 * made (the test build makes it 1 s late).  The job's last member is one
 * the test does not reap: its exit, which ends the job, runs meanwhile.
 */
static void test_record_when_gone(void)
{
	struct job_leader job;
	struct job_acct acct;
	struct report done;
	long long released, gone;

	if (access(DELAY_RECORD_KNOB, W_OK) != 0) {
		note("skipped: needs the test build (%s)", DELAY_RECORD_KNOB);
		return;
	}
	if (!start_job_ok(&job, spawn_member, NULL))
		return;
	if (!receive_jid_report(&job, &done) ||
	    !expect(write_small_file(DELAY_RECORD_KNOB, "1000"), "%s: %m",
		    DELAY_RECORD_KNOB))
		goto out;
	/* The member dies with the leader (die_with_parent()). */
	released = now_ms();
	release_leader(&job);
	poll_until(job_getpidcnt(job.jid) < 0);
	gone = now_ms() - released;
	if (expect(job_getpidcnt(job.jid) < 0, "the job did not end") &&
	    expect(job_getacct(job.jid, &acct) == 0,
		   "job_getacct of a job gone from the list: %m"))
		expect(acct.ended, "the record of an ended job says it is not");
	/* Else the record was not late: nothing was tested. */
	expect(gone >= 500, "the job was gone %lld ms after its end", gone);
	write_small_file(DELAY_RECORD_KNOB, "0");
out:
	end_job(&job);
}

struct job_test {
	const char *name;
	void (*run)(void);
	job_body_fn *escape;	/* an escape test: the route it tries */
	int nr_reports;		/* reports it expects, if more than one */
	bool subreaper;		/* the test process reaps orphans */
	bool setuid;		/* reports come from a setuid-root exec */
	int rounds;		/* a race test: its rounds (--rounds N: N) */
	int slow_rounds;	/* with --slow, if fewer; < 0: none */
	const struct slow_fork_plan *plan;	/* a slow-fork test: its plan, */
	int threads;		/* its forkers' forking threads (0: 1), */
	int sig;		/* the signal (SIGSTOP: then SIGCONT) */
};

#define THREADED		.threads = SLOW_FORKER_THREADS

static const struct job_test tests[] = {
	{ "jid list", .run = test_jid_list },
	{ "detach by pid", .run = test_detach_pid },
	{ "detach by jid", .run = test_detach_jid },
	{ "detach by jid, every thread", .run = test_detach_jid_threads },
	{ "attach, detach, reattach", .run = test_attach_detach_reattach },
	{ "child creates a job with a requested jid", .run = test_child_creates_job },
	{ "jkill -0", .run = test_jkill },
	{ "jdetach -p", .run = test_jdetach_pid },
	{ "jdetach -j", .run = test_jdetach_jid },
	{ "pid wrap", .run = test_pid_wrap },
	{ "escape: fork", .escape = escape_by_fork },
	{ "escape: vfork", .escape = escape_by_vfork },
	{ "escape: thread (clone CLONE_THREAD)", .escape = escape_by_thread },
	{ "escape: fork from a thread once the main thread exited",
	  .escape = escape_by_fork_after_main_thread, .nr_reports = 2 },
	{ "escape: exec from a thread other than the main one, then fork",
	  .escape = escape_by_exec_from_thread, .nr_reports = 2 },
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
	{ "membership at fork, seen by a third process",
	  .run = test_membership_seen_by_third, .rounds = 1000, .slow_rounds = 30 },
	{ "membership of a child still in TASK_NEW", .run = test_task_new_child,
	  .rounds = 5 },
	/*
	 * On a debug kernel a slow-fork round takes a minute: one round
	 * of a single- and of a multi-threaded test there.
	 */
	{ "handled SIGUSR1 during slow forks", .plan = &handled_plan,
	  .sig = SIGUSR1, .rounds = 5, .slow_rounds = 1 },
	{ "handled SIGTERM during slow forks", .plan = &handled_plan,
	  .sig = SIGTERM, .rounds = 5, .slow_rounds = -1 },
	{ "SIGSTOP and SIGCONT during slow forks", .plan = &handled_plan,
	  .sig = SIGSTOP, .rounds = 5, .slow_rounds = -1 },
	{ "SIGKILL during slow forks", .plan = &handled_plan, .sig = SIGKILL,
	  .rounds = 3, .slow_rounds = -1 },
	{ "SIGTERM, not handled, during slow forks", .plan = &default_term_plan,
	  .sig = SIGTERM, .rounds = 3, .slow_rounds = -1 },
	{ "handled SIGUSR1 during multi-threaded slow forks",
	  .plan = &handled_plan, THREADED, .sig = SIGUSR1, .rounds = 2,
	  .slow_rounds = 1 },
	{ "handled SIGTERM during multi-threaded slow forks",
	  .plan = &handled_plan, THREADED, .sig = SIGTERM, .rounds = 2,
	  .slow_rounds = -1 },
	{ "SIGSTOP and SIGCONT during multi-threaded slow forks",
	  .plan = &handled_plan, THREADED, .sig = SIGSTOP, .rounds = 2,
	  .slow_rounds = -1 },
	{ "SIGKILL during multi-threaded slow forks", .plan = &handled_plan,
	  THREADED, .sig = SIGKILL, .rounds = 2, .slow_rounds = -1 },
	{ "SIGTERM, not handled, during multi-threaded slow forks",
	  .plan = &default_term_plan, THREADED, .sig = SIGTERM, .rounds = 2,
	  .slow_rounds = -1 },
	{ "killjid waits for a child held in its fork (test build)",
	  .run = test_kill_held_fork },
	{ "detachjid leaves a task that moved on in its new job (test build)",
	  .run = test_detachjid_after_move },
	{ "the owner's 100 kills in a row during slow forks",
	  .run = test_owner_kills_during_slow_forks, .rounds = 2, .slow_rounds = -1 },
	{ "threads created during attach and detach", .run = test_threads_during_moves,
	  .rounds = THREAD_MOVE_ROUNDS, .slow_rounds = SLOW_THREAD_MOVE_ROUNDS },
	{ "forks during create from a job", .run = test_fork_during_create,
	  .rounds = 1000, .slow_rounds = 50 },
	{ "forks under way during attach", .run = test_fork_during_attach,
	  .rounds = 30, .slow_rounds = 5 },
	{ "detachjid racing attachpid", .run = test_detach_races_attach,
	  .rounds = 100, .slow_rounds = 30 },
	{ "waitjid wake-up and status", .run = test_waitjid },
	{ "threads forking at once, the kit cache drained, lose no child",
	  .run = test_fork_burst_cache_drained },
	{ "main thread exits before the others", .run = test_main_thread_exits },
	{ "create after the main thread exited", .run = test_create_after_main_thread_exits },
	{ "accounting", .run = test_accounting },
	{ "accounting never goes back", .run = test_accounting_monotonic },
	{ "accounting counts I/O once", .run = test_accounting_io_once },
	{ "accounting counts threads left behind", .run = test_accounting_io_left_behind },
	{ "accounting's I/O never goes back", .run = test_accounting_io_monotonic },
	{ "an ended job's record once it is gone (test build)", .run = test_record_when_gone },
	{ "unprivileged user", .run = test_unprivileged },
	{ "owner's kill obeys kill(2) permissions", .run = test_owner_kill_permissions },
	{ "io_uring workers: create, attach, detach, kill", .run = test_io_uring_workers },
	{ "io_uring workers: the job ends with its process", .run = test_io_uring_process_exits },
	{ "status of a process ended by any of its threads", .run = test_status_of_threads },
	{ "io_uring workers: a failed create or attach moves nothing",
	  .run = test_io_uring_failed_moves },
	{ "killjid: a blocked signal, then a fork", .run = test_killjid_blocked_then_fork },
	{ "killjid from a new pid namespace", .run = test_killjid_pid_namespace },
	{ "bad input: unknown jid", .run = test_unknown_jid },
	{ "bad input: pids and signals", .run = test_bad_pids_and_signals },
	{ "bad input: pointers", .run = test_bad_pointers },
	{ "bad input: read-only results", .run = test_read_only_results },
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

/* A race test's own rounds on this kernel, or 0. */
static int lane_rounds(const struct job_test *t)
{
	return slow && t->slow_rounds ? t->slow_rounds : t->rounds;
}

/* How many times a test's own timeout --rounds makes its run longer. */
static int rounds_factor(const struct job_test *t)
{
	int own = lane_rounds(t) > 0 ? lane_rounds(t) : t->rounds;

	return own && test_rounds > own ? (test_rounds + own - 1) / own : 1;
}

static int run_test(const struct job_test *t)
{
	int status, failures;
	pid_t pid;

	shared->failures = 0;
	shared->nr_jobs = 0;
	test_rounds = t->rounds && rounds_option ? rounds_option : lane_rounds(t);
	if (t->rounds && test_rounds < 0) {
		printf("%-44s SKIP (with --slow: the stock lane and job_soak run it)\n",
		       t->name);
		return 0;
	}
	test_start_ms = now_ms();
	pid = fork_flushed();
	if (pid == 0) {
		alarm((full_wrap && t->run == test_pid_wrap ? FULL_WRAP_TIMEOUT_S :
		       TEST_TIMEOUT_S) * (slow ? SLOW_FACTOR : 1) * rounds_factor(t));
		if (t->escape) {
			check_escape(t);
		} else if (t->plan) {
			struct slow_forks forks = { t->plan, t->threads };

			kill_slow_forks_rounds(&forks, t->sig);
		} else {
			t->run();
		}
		fflush(NULL);
		_exit(0);
	}
	status = pid < 0 ? -1 : wait_for(pid);
	if (!exited_with(status, 0))
		note_failure(__LINE__, "test process ended with status %#x", status);
	clean_up_jobs();
	restore_pid_max();
	restore_failslab();
	failures = shared->failures;
	printf("%-44s %s (%.1f s)\n", t->name, failures ? "FAIL" : "PASS",
	       (now_ms() - test_start_ms) / 1000.0);
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
/* --report-jid FD, and --report-jid-and-fork FD: a child reports too. */
static int report_jid_mode(const char *fd, bool and_fork)
{
	int report_fd = atoi(fd);

	report_own_jid(report_fd);
	if (and_fork)
		report_from_raw_child(report_fd, fork_flushed());
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: jobtest [--full-wrap] [--slow] [--rounds N] [--time-box S] [--list]\n"
		"               [TEST-NAME-PREFIX...]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	bool list = false;
	int errors = 0, argi = 1;

	if (argc == 3 && !strcmp(argv[1], REPORT_JID_OPTION))
		return report_jid_mode(argv[2], false);
	if (argc == 3 && !strcmp(argv[1], REPORT_JID_FORK_OPTION))
		return report_jid_mode(argv[2], true);
	for (; argi < argc && argv[argi][0] == '-'; argi++) {
		if (!strcmp(argv[argi], "--full-wrap"))
			full_wrap = true;
		else if (!strcmp(argv[argi], "--list"))
			list = true;
		else if (!strcmp(argv[argi], "--slow"))
			slow = true;
		else if (!strcmp(argv[argi], "--rounds") && argi + 1 < argc &&
			 (rounds_option = atoi(argv[argi + 1])) > 0)
			argi++;
		else if (!strcmp(argv[argi], "--time-box") && argi + 1 < argc &&
			 (time_box_option = atoi(argv[argi + 1])) > 0)
			argi++;
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
