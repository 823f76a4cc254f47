// SPDX-License-Identifier: GPL-2.0
/*
 * job_race: many processes create, attach, detach, kill and wait for the same
 * few jobs at once; every call must succeed or fail as a race allows, and
 * the job table must be consistent afterwards.  Runs as root.
 *
 *   job_race WORKERS SECONDS
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../userspace/job.h"
#include "../include/uapi/job.h"
#include "interrupting_alarm.h"

#define SHARED_JOBS		4	/* the jobs every worker works on */
#define SLEEPERS_PER_JOB	2	/* besides the job's first process */
#define MAX_PIDS		256
#define MAX_JIDS		1024
#define MAX_RECORDED_JIDS	65536
#define WAIT_TIMEOUT_USEC	20000	/* of a worker's WAITJID */
#define JOB_END_TIMEOUT_SEC	10	/* of the final WAITJIDs */
#define FAILURE_TEXT_MAX	512
#define FAILURES_PRINTED	20

#define ARRAY_LEN(a)	(sizeof(a) / sizeof((a)[0]))

enum race_op {
	OP_CREATE,
	OP_ATTACH,
	OP_DETACHPID,
	OP_DETACHJID,
	OP_KILL,
	OP_WAIT,
	OP_GETPIDCNT,
	OP_GETPIDLIST,
	OP_GETJIDLIST,
	OP_GETJID,
	NR_OPS,
};

static const struct {
	const char *name;
	unsigned int weight;
} ops[NR_OPS] = {
	[OP_CREATE] = { "create", 10 },
	[OP_ATTACH] = { "attachpid", 20 },
	[OP_DETACHPID] = { "detachpid", 10 },
	[OP_DETACHJID] = { "detachjid", 1 },
	[OP_KILL] = { "killjid", 10 },
	[OP_WAIT] = { "waitjid", 5 },
	[OP_GETPIDCNT] = { "getpidcnt", 10 },
	[OP_GETPIDLIST] = { "getpidlist", 10 },
	[OP_GETJIDLIST] = { "getjidlist", 5 },
	[OP_GETJID] = { "getjid", 10 },
};

/* What a call may fail with when another process changed the job meanwhile. */
static const int race_errors[] = { ENODATA, ESRCH, EINVAL, EINTR, EBUSY };

struct race_shared {
	struct timespec deadline;		/* CLOCK_MONOTONIC */
	unsigned long succeeded[NR_OPS];
	unsigned long raced[NR_OPS];		/* failed with a race error */
	unsigned long failures;
	char first_failure[FAILURE_TEXT_MAX];
	jid_t jobs[SHARED_JOBS];		/* replaced when killed */
	pid_t loose_pid;			/* a sleeper someone may attach */
	unsigned int nr_recorded;
	jid_t recorded[MAX_RECORDED_JIDS];	/* every job made here */
};

static struct race_shared *shared;
static uint64_t rng_state;

static uint64_t rng_next(void)
{
	uint64_t x = rng_state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	rng_state = x;
	return x * 0x2545f4914f6cdd1dULL;
}

static unsigned int rng_below(unsigned int bound)
{
	return (unsigned int)((rng_next() >> 32) % bound);
}

static void die(const char *what)
{
	perror(what);
	exit(1);
}

/* Keeps the first failure for the report and prints the first few. */
static void record_failure(const char *format, ...)
{
	unsigned long n = __atomic_fetch_add(&shared->failures, 1,
					     __ATOMIC_RELAXED);
	char text[FAILURE_TEXT_MAX];
	va_list args;

	if (n >= FAILURES_PRINTED)
		return;
	va_start(args, format);
	vsnprintf(text, sizeof(text), format, args);
	va_end(args);
	fprintf(stderr, "failure: %s\n", text);
	if (!n)
		memcpy(shared->first_failure, text, sizeof(text));
}

static void record_jid(jid_t jid)
{
	unsigned int i = __atomic_fetch_add(&shared->nr_recorded, 1,
					    __ATOMIC_RELAXED);

	if (i < MAX_RECORDED_JIDS)
		__atomic_store_n(&shared->recorded[i], jid, __ATOMIC_RELEASE);
	else
		record_failure("more than %d jobs made", MAX_RECORDED_JIDS);
}

/* Counts the result of one call of @op; @failed: it returned an error. */
static void check_result(enum race_op op, bool failed, const char *call,
			 jid_t jid)
{
	int err = errno;
	size_t i;

	if (!failed) {
		__atomic_fetch_add(&shared->succeeded[op], 1, __ATOMIC_RELAXED);
		return;
	}
	for (i = 0; i < ARRAY_LEN(race_errors); i++) {
		if (race_errors[i] == err) {
			__atomic_fetch_add(&shared->raced[op], 1, __ATOMIC_RELAXED);
			return;
		}
	}
	record_failure("%s (job 0x%" PRIx64 "): %s", call, jid, strerror(err));
}

static bool time_is_up(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec > shared->deadline.tv_sec ||
	       (now.tv_sec == shared->deadline.tv_sec &&
		now.tv_nsec >= shared->deadline.tv_nsec);
}

static void __attribute__((noreturn)) sleep_forever(void)
{
	for (;;)
		pause();
}

static pid_t fork_sleeper(void)
{
	pid_t pid = fork();

	if (pid < 0)
		record_failure("fork: %s", strerror(errno));
	if (!pid)
		sleep_forever();
	return pid;
}

/*
 * Starts a job whose first process, a child of the caller, forks sleepers
 * into it; returns its JID, or 0 after recording why not.
 */
static jid_t start_sleeping_job(void)
{
	jid_t jid = 0;
	int pipefd[2], i;
	pid_t pid;

	if (pipe(pipefd) < 0) {
		record_failure("pipe: %s", strerror(errno));
		return 0;
	}
	pid = fork();
	if (!pid) {
		close(pipefd[0]);
		jid = job_create(0, 0, 0);
		if (jid == (jid_t)-1) {
			record_failure("job_create: %s", strerror(errno));
			jid = 0;
		}
		for (i = 0; jid && i < SLEEPERS_PER_JOB; i++)
			fork_sleeper();
		if (write(pipefd[1], &jid, sizeof(jid)) != sizeof(jid) || !jid)
			_exit(1);
		close(pipefd[1]);
		sleep_forever();
	}
	close(pipefd[1]);
	if (pid < 0)
		record_failure("fork: %s", strerror(errno));
	else if (read(pipefd[0], &jid, sizeof(jid)) != sizeof(jid))
		jid = 0;
	close(pipefd[0]);
	if (jid)
		record_jid(jid);
	return jid;
}

static jid_t random_shared_job(unsigned int *slot)
{
	*slot = rng_below(SHARED_JOBS);
	return __atomic_load_n(&shared->jobs[*slot], __ATOMIC_ACQUIRE);
}

/* A random process of @jid, or 0 if it has none (or no longer exists). */
static pid_t random_member(jid_t jid)
{
	pid_t pids[MAX_PIDS];
	int n = job_getpidlist(jid, pids, sizeof(pids));

	return n > 0 ? pids[rng_below(n)] : 0;
}

/* A short-lived child makes a job of its own, forks once and exits. */
static void op_create(void)
{
	jid_t jid;
	pid_t pid = fork();

	if (pid < 0) {
		record_failure("fork: %s", strerror(errno));
		return;
	}
	if (pid)
		return;
	jid = job_create(0, 0, 0);
	check_result(OP_CREATE, jid == (jid_t)-1, "job_create(0, 0, 0)", 0);
	if (jid != (jid_t)-1) {
		record_jid(jid);
		if (!fork())
			_exit(0);
	}
	_exit(0);
}

/*
 * Attaches a new sleeper, or the one another worker left loose (so that two
 * may race for it), to a random job; a sleeper left in no job is killed.
 */
static void op_attach(void)
{
	pid_t loose = __atomic_exchange_n(&shared->loose_pid, 0, __ATOMIC_ACQ_REL);
	pid_t sleeper = loose && rng_below(2) ? loose : fork_sleeper();
	unsigned int slot;
	jid_t jid = random_shared_job(&slot);

	if (sleeper <= 0)
		return;
	if (sleeper != loose && loose)
		__atomic_store_n(&shared->loose_pid, loose, __ATOMIC_RELEASE);
	else if (sleeper != loose && rng_below(2))
		__atomic_store_n(&shared->loose_pid, sleeper, __ATOMIC_RELEASE);
	check_result(OP_ATTACH, job_attachpid(sleeper, jid) == (jid_t)-1,
		     "job_attachpid", jid);
	if (sleeper != loose && job_getjid(sleeper) == (jid_t)-1)
		kill(sleeper, SIGKILL);
}

static void op_detachpid(void)
{
	unsigned int slot;
	jid_t jid = random_shared_job(&slot);
	pid_t pid = random_member(jid);

	if (!pid)
		return;
	if (job_detachpid(pid) == (jid_t)-1) {
		check_result(OP_DETACHPID, true, "job_detachpid", jid);
		return;
	}
	check_result(OP_DETACHPID, false, "job_detachpid", jid);
	kill(pid, SIGKILL);	/* one of our sleepers, now in no job */
}

static void op_detachjid(void)
{
	pid_t pids[MAX_PIDS];
	unsigned int slot;
	jid_t jid = random_shared_job(&slot);
	int n = job_getpidlist(jid, pids, sizeof(pids)), detached;

	detached = job_detachjid(jid);
	check_result(OP_DETACHJID, detached < 0, "job_detachjid", jid);
	while (n-- > 0)
		kill(pids[n], SIGKILL);
}

static void op_kill(void)
{
	static const int signals[] = { 0, SIGTERM, SIGKILL };
	int sig = signals[rng_below(ARRAY_LEN(signals))];
	unsigned int slot;
	jid_t jid = random_shared_job(&slot);

	check_result(OP_KILL, job_killjid(jid, sig) < 0, "job_killjid", jid);
}

/* SIGALRM interrupts blocking calls instead of restarting them. */
static void install_alarm_handler(void)
{
	if (install_interrupting_alarm() < 0)
		die("sigaction");
}

/*
 * A repeating timer: a one-shot alarm that fires before the blocking call
 * starts (easy on a slow kernel) would leave that call blocked for good.
 */
static void arm_alarm(long usec)
{
	struct timeval period = { .tv_sec = usec / 1000000,
				  .tv_usec = usec % 1000000 };
	struct itimerval timer = { .it_interval = period, .it_value = period };

	setitimer(ITIMER_REAL, &timer, NULL);
}

static void op_wait(void)
{
	unsigned int slot;
	jid_t jid = random_shared_job(&slot);
	jid_t ret;

	arm_alarm(WAIT_TIMEOUT_USEC);
	ret = job_waitjid(jid, NULL, 0);
	arm_alarm(0);
	check_result(OP_WAIT, ret == (jid_t)-1, "job_waitjid", jid);
}

static void op_query(enum race_op op)
{
	pid_t pids[MAX_PIDS];
	jid_t jids[MAX_JIDS];
	unsigned int slot;
	jid_t jid = random_shared_job(&slot);

	switch (op) {
	case OP_GETPIDCNT:
		check_result(op, job_getpidcnt(jid) < 0, "job_getpidcnt", jid);
		break;
	case OP_GETPIDLIST:
		check_result(op, job_getpidlist(jid, pids, sizeof(pids)) < 0,
			     "job_getpidlist", jid);
		break;
	case OP_GETJIDLIST:
		check_result(op, job_getjidlist(jids, sizeof(jids)) < 0,
			     "job_getjidlist", 0);
		break;
	default:
		check_result(op, job_getjid(random_member(jid)) == (jid_t)-1,
			     "job_getjid", jid);
		break;
	}
}

/*
 * Replaces a job of the shared set once it ended (killed, detached or left
 * by its last process); of two workers doing so at once, one undoes it.
 */
static void replace_ended_shared_job(void)
{
	unsigned int slot;
	jid_t old = random_shared_job(&slot), jid;

	if (job_getpidcnt(old) >= 0 || errno != ENODATA)
		return;
	jid = start_sleeping_job();
	if (jid && !__atomic_compare_exchange_n(&shared->jobs[slot], &old, jid,
						false, __ATOMIC_ACQ_REL,
						__ATOMIC_RELAXED))
		job_killjid(jid, SIGKILL);
}

static enum race_op random_op(void)
{
	unsigned int total = 0, pick;
	enum race_op op;

	for (op = 0; op < NR_OPS; op++)
		total += ops[op].weight;
	pick = rng_below(total);
	for (op = 0; pick >= ops[op].weight; op++)
		pick -= ops[op].weight;
	return op;
}

static void __attribute__((noreturn)) run_worker(unsigned int index)
{
	rng_state = ((uint64_t)getpid() << 32 | index) * 0x9e3779b97f4a7c15ULL | 1;
	install_alarm_handler();
	while (!time_is_up()) {
		switch (random_op()) {
		case OP_CREATE:
			op_create();
			break;
		case OP_ATTACH:
			op_attach();
			break;
		case OP_DETACHPID:
			op_detachpid();
			break;
		case OP_DETACHJID:
			op_detachjid();
			break;
		case OP_KILL:
			op_kill();
			break;
		case OP_WAIT:
			op_wait();
			break;
		case OP_GETPIDCNT:
			op_query(OP_GETPIDCNT);
			break;
		case OP_GETPIDLIST:
			op_query(OP_GETPIDLIST);
			break;
		case OP_GETJIDLIST:
			op_query(OP_GETJIDLIST);
			break;
		case OP_GETJID:
		case NR_OPS:
			op_query(OP_GETJID);
			break;
		}
		replace_ended_shared_job();
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
	}
	_exit(0);
}

/* Reaps children, orphans included, until the workers are done. */
static void wait_for_workers(unsigned int workers, const pid_t *worker_pids)
{
	unsigned int done = 0, i;
	int status;
	pid_t pid;

	while (done < workers) {
		pid = waitpid(-1, &status, 0);
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			die("waitpid");
		}
		for (i = 0; i < workers && worker_pids[i] != pid; i++)
			;
		if (i == workers)
			continue;	/* an orphan of ours */
		done++;
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			record_failure("worker %u ended with status 0x%x", i, status);
	}
}

static void end_recorded_jobs(void)
{
	unsigned int i, n = __atomic_load_n(&shared->nr_recorded, __ATOMIC_ACQUIRE);
	jid_t jid;

	if (n > MAX_RECORDED_JIDS)
		n = MAX_RECORDED_JIDS;
	for (i = 0; i < n; i++) {
		jid = shared->recorded[i];
		if (job_killjid(jid, SIGKILL) < 0) {
			if (errno != ENODATA)
				record_failure("cleanup: job_killjid(0x%" PRIx64 "): %s",
					       jid, strerror(errno));
			continue;
		}
		arm_alarm(JOB_END_TIMEOUT_SEC * 1000000L);
		if (job_waitjid(jid, NULL, 0) == (jid_t)-1 && errno != ENODATA)
			record_failure("cleanup: job_waitjid(0x%" PRIx64 "): %s",
				       jid, strerror(errno));
		arm_alarm(0);
	}
}

/* The parent pid in /proc/PID/stat, or 0. */
static pid_t parent_of(const char *pid)
{
	char path[64], stat[512], *close_paren;
	FILE *f;
	size_t n;
	int ppid;

	snprintf(path, sizeof(path), "/proc/%s/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	n = fread(stat, 1, sizeof(stat) - 1, f);
	fclose(f);
	stat[n] = '\0';
	close_paren = strrchr(stat, ')');
	if (!close_paren || sscanf(close_paren, ") %*c %d", &ppid) != 1)
		return 0;
	return ppid;
}

/*
 * Kills and reaps every remaining descendant: as the child subreaper, the
 * parent inherits the orphans, so it kills its children until none is left.
 */
static void end_descendants(void)
{
	struct dirent *entry;
	pid_t self = getpid();
	DIR *proc;

	for (;;) {
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		if (waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD)
			return;
		proc = opendir("/proc");
		if (!proc)
			die("/proc");
		while ((entry = readdir(proc)))
			if (parent_of(entry->d_name) == self)
				kill(atoi(entry->d_name), SIGKILL);
		closedir(proc);
		usleep(10000);
	}
}

static bool was_recorded(jid_t jid)
{
	unsigned int i, n = __atomic_load_n(&shared->nr_recorded, __ATOMIC_ACQUIRE);

	for (i = 0; i < n && i < MAX_RECORDED_JIDS; i++)
		if (shared->recorded[i] == jid)
			return true;
	return false;
}

static void check_job_table(void)
{
	static jid_t jids[MAX_JIDS];
	pid_t pids[MAX_PIDS];
	int count = job_getjidcnt(), n, i, pidcnt, listed;

	n = job_getjidlist(jids, sizeof(jids));
	if (count < 0 || n < 0) {
		record_failure("job_getjidcnt/job_getjidlist: %s", strerror(errno));
		return;
	}
	if (count != n)
		record_failure("job_getjidcnt() = %d but job_getjidlist() lists %d",
			       count, n);
	for (i = 0; i < n; i++) {
		if (was_recorded(jids[i]))
			record_failure("job 0x%" PRIx64 " made by job_race remains",
				       jids[i]);
		pidcnt = job_getpidcnt(jids[i]);
		listed = job_getpidlist(jids[i], pids, sizeof(pids));
		if (pidcnt != listed)
			record_failure("job 0x%" PRIx64 ": job_getpidcnt() = %d but job_getpidlist() lists %d",
				       jids[i], pidcnt, listed);
	}
}

static void print_report(double seconds)
{
	enum race_op op;
	unsigned long total = 0;

	printf("%-11s %10s %10s\n", "operation", "succeeded", "raced");
	for (op = 0; op < NR_OPS; op++) {
		printf("%-11s %10lu %10lu\n", ops[op].name, shared->succeeded[op],
		       shared->raced[op]);
		total += shared->succeeded[op] + shared->raced[op];
	}
	printf("%u jobs made, %.1f s, %.0f operations/s\n", shared->nr_recorded,
	       seconds, total / seconds);
	if (shared->failures)
		printf("FAIL: %lu failures, the first: %s\n", shared->failures,
		       shared->first_failure);
	else
		printf("ok: %lu operations\n", total);
}

static double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	unsigned int workers, i;
	pid_t *worker_pids;
	double start;

	if (argc != 3 || (workers = strtoul(argv[1], NULL, 0)) == 0) {
		fprintf(stderr, "usage: %s WORKERS SECONDS\n", argv[0]);
		return 2;
	}
	shared = mmap(NULL, sizeof(*shared), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	worker_pids = calloc(workers, sizeof(*worker_pids));
	if (shared == MAP_FAILED || !worker_pids)
		die("memory");
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0)
		die("PR_SET_CHILD_SUBREAPER");
	install_alarm_handler();
	for (i = 0; i < SHARED_JOBS; i++)
		if (!(shared->jobs[i] = start_sleeping_job()))
			break;

	start = now_seconds();
	clock_gettime(CLOCK_MONOTONIC, &shared->deadline);
	shared->deadline.tv_sec += strtol(argv[2], NULL, 0);
	fflush(stdout);
	for (i = 0; i < workers && !shared->failures; i++) {
		worker_pids[i] = fork();
		if (worker_pids[i] < 0)
			die("fork");
		if (!worker_pids[i])
			run_worker(i);
	}
	wait_for_workers(i, worker_pids);
	end_recorded_jobs();
	end_descendants();
	check_job_table();
	print_report(now_seconds() - start);
	free(worker_pids);
	return shared->failures ? 1 : 0;
}
