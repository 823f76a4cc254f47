// SPDX-License-Identifier: GPL-2.0
/*
 * job_fuzz: random ioctls on /proc/job, each of which must give a clean
 * result (success or one of the errors the ABI defines) and never a crash.
 *
 *   job_fuzz CALLS [SEED]
 *
 * Meant for a test VM: as root it changes the host id (restored at the end),
 * creates, detaches and signals jobs, including any other job it finds.
 * The fuzzing runs in a child, which may kill or stop its own job with a
 * KILLJID: the parent then continues or replaces it until CALLS calls were
 * made, keeping the counts in shared memory.  A child may die only of a
 * signal its own last KILLJID could have sent.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../userspace/job.h"
#include "../include/uapi/job.h"
#include "interrupting_alarm.h"

#define HIGHEST_FUZZED_REQUEST	40
#define KERNEL_DIRECT_MAP	0xffff888000000000UL
#define KERNEL_TEXT		0xffffffff81000000UL
#define TIMER_INTERVAL_USEC	5000	/* interrupts a WAITJID on a live job */
#define KNOWN_JIDS_MAX		64
#define KNOWN_JIDS_REFRESH	64	/* calls between two JOB_GETJIDLST */
#define VICTIM_CHECK_INTERVAL	256	/* calls between two victim checks */
#define CREATED_JIDS_MAX	8192
#define FAILURE_TEXT_MAX	512
#define JOB_END_TIMEOUT_SEC	10
#define CAP_SYS_RESOURCE_BIT	24
#define SMALLEST_REQUEST_SIZE	sizeof(struct job_jidcnt)

/* The results a call may give; anything else is a failure. */
static const struct {
	int err;
	const char *name;
} clean_results[] = {
	{ 0, "success" },
	{ EBADRQC, "EBADRQC" },
	{ EFAULT, "EFAULT" },
	{ EINVAL, "EINVAL" },
	{ ENODATA, "ENODATA" },
	{ ESRCH, "ESRCH" },
	{ EPERM, "EPERM" },
	{ EBUSY, "EBUSY" },
	{ EINTR, "EINTR" },
};

#define NR_CLEAN_RESULTS	(sizeof(clean_results) / sizeof(clean_results[0]))
#define RESULT_UNEXPECTED	NR_CLEAN_RESULTS
#define RESULT_KILLED		(NR_CLEAN_RESULTS + 1)
#define NR_RESULTS		(NR_CLEAN_RESULTS + 2)

/* Where the argument of a call points. */
enum arg_kind {
	ARG_BUFFER,		/* a valid buffer of generated words */
	ARG_MISALIGNED,		/* the same, 1 to 7 bytes further */
	ARG_READ_ONLY,		/* the same words, through a read-only view */
	ARG_NULL,
	ARG_ONE,		/* (void *)1 */
	ARG_UNMAPPED,
	ARG_KERNEL_DIRECT_MAP,
	ARG_KERNEL_TEXT,
	ARG_STRADDLING,		/* the last bytes before a guard page */
	NR_ARG_KINDS,
};

static const char *const arg_kind_names[NR_ARG_KINDS] = {
	[ARG_BUFFER] = "buffer",
	[ARG_MISALIGNED] = "misaligned buffer",
	[ARG_READ_ONLY] = "read-only buffer",
	[ARG_NULL] = "NULL",
	[ARG_ONE] = "(void *)1",
	[ARG_UNMAPPED] = "unmapped page",
	[ARG_KERNEL_DIRECT_MAP] = "kernel direct map",
	[ARG_KERNEL_TEXT] = "kernel text",
	[ARG_STRADDLING] = "buffer straddling a guard page",
};

/* Relative frequency of each argument kind. */
static const unsigned int arg_kind_weights[NR_ARG_KINDS] = {
	[ARG_BUFFER] = 50,
	[ARG_MISALIGNED] = 10,
	[ARG_READ_ONLY] = 10,
	[ARG_NULL] = 5,
	[ARG_ONE] = 5,
	[ARG_UNMAPPED] = 5,
	[ARG_KERNEL_DIRECT_MAP] = 5,
	[ARG_KERNEL_TEXT] = 5,
	[ARG_STRADDLING] = 5,
};

/* The requests job.ko implements: the others must give EBADRQC. */
static const unsigned int implemented_requests[] = {
	JOB_CREATE, JOB_GETJID, JOB_WAITJID, JOB_KILLJID, JOB_GETJIDCNT,
	JOB_GETJIDLST, JOB_GETPIDCNT, JOB_GETPIDLST, JOB_GETUSER,
	JOB_GETPRIMEPID, JOB_SETHID, JOB_DETACHJID, JOB_DETACHPID,
	JOB_ATTACHPID, JOB_GETINFO, JOB_GETACCT, JOB_READACCT,
};

/* Those that need CAP_SYS_RESOURCE. */
static const unsigned int privileged_requests[] = {
	JOB_CREATE, JOB_SETHID, JOB_DETACHJID, JOB_DETACHPID, JOB_ATTACHPID,
	JOB_READACCT,
};

#define ARRAY_LEN(a)	(sizeof(a) / sizeof((a)[0]))

/* Shared by the parent and the fuzzing children. */
struct fuzz_shared {
	unsigned long calls;			/* made so far, by all children */
	unsigned long results[NR_RESULTS];
	unsigned long children;			/* fuzzing children started */
	unsigned long stops;			/* children stopped by their KILLJID */
	int pending_signal;			/* what the call in flight may send */
	char pending_call[FAILURE_TEXT_MAX];	/* and its description */
	unsigned long failures;
	char first_failure[FAILURE_TEXT_MAX];
	unsigned int nr_created;
	jid_t created[CREATED_JIDS_MAX];	/* every job a child was moved into */
};

/* The memory the arguments point into, mapped before forking. */
struct fuzz_memory {
	unsigned char *buffer;		/* read-write view of one page */
	const unsigned char *read_only;	/* read-only view of the same page */
	unsigned char *inner;		/* a page the lists may be written to */
	unsigned char *guard;		/* PROT_NONE page right after it */
	void *unmapped;
};

struct fuzz_child {
	struct fuzz_shared *shared;
	const struct fuzz_memory *mem;
	unsigned long total_calls;
	bool privileged;
	uint64_t rng;
	int fd;
	pid_t victim;			/* a sleeper of ours, safe to attach */
	pid_t dead_pid;			/* a reaped victim */
	jid_t known_jids[KNOWN_JIDS_MAX];
	int nr_known_jids;
};

static uint64_t rng_next(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545f4914f6cdd1dULL;
}

static unsigned int rng_below(uint64_t *state, unsigned int bound)
{
	return (unsigned int)((rng_next(state) >> 32) % bound);
}

static void vformat_failure(struct fuzz_shared *shared, const char *format,
			    va_list args)
{
	if (!shared->failures++)
		vsnprintf(shared->first_failure, sizeof(shared->first_failure),
			  format, args);
}

static void record_failure(struct fuzz_shared *shared, const char *format, ...)
{
	va_list args;

	va_start(args, format);
	vformat_failure(shared, format, args);
	va_end(args);
}

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static bool in_list(const unsigned int *list, size_t length, unsigned int n)
{
	size_t i;

	for (i = 0; i < length; i++)
		if (list[i] == n)
			return true;
	return false;
}

/* The request job.ko dispatches @cmd to, or -1: its own rule. */
static int job_request_of(unsigned int cmd)
{
	if (_IOC_TYPE(cmd) != JOB_IOCTL_TYPE || _IOC_SIZE(cmd) != sizeof(void *) ||
	    !in_list(implemented_requests, ARRAY_LEN(implemented_requests),
		     _IOC_NR(cmd)))
		return -1;
	return (int)_IOC_NR(cmd);
}

static bool has_cap_sys_resource(void)
{
	unsigned long long caps = 0;
	char line[256];
	FILE *status = fopen("/proc/self/status", "r");

	if (!status)
		die("/proc/self/status");
	while (fgets(line, sizeof(line), status))
		if (sscanf(line, "CapEff: %llx", &caps) == 1)
			break;
	fclose(status);
	return caps & (1ULL << CAP_SYS_RESOURCE_BIT);
}

static void *map_pages(size_t pages, int prot)
{
	void *p = mmap(NULL, pages * getpagesize(), prot,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		die("mmap");
	return p;
}

static void map_fuzz_memory(struct fuzz_memory *mem)
{
	size_t page = getpagesize();
	int fd = memfd_create("job_fuzz", 0);

	if (fd < 0 || ftruncate(fd, page) < 0)
		die("memfd");
	mem->buffer = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	mem->read_only = mmap(NULL, page, PROT_READ, MAP_SHARED, fd, 0);
	if (mem->buffer == MAP_FAILED || mem->read_only == MAP_FAILED)
		die("mmap memfd");
	close(fd);
	mem->inner = map_pages(2, PROT_READ | PROT_WRITE);
	mem->guard = mem->inner + page;
	if (mprotect(mem->guard, page, PROT_NONE) < 0)
		die("mprotect");
	mem->unmapped = map_pages(1, PROT_READ);
	munmap(mem->unmapped, page);
}

static enum arg_kind random_arg_kind(uint64_t *rng)
{
	unsigned int total = 0, pick;
	enum arg_kind kind;

	for (kind = 0; kind < NR_ARG_KINDS; kind++)
		total += arg_kind_weights[kind];
	pick = rng_below(rng, total);
	for (kind = 0; pick >= arg_kind_weights[kind]; kind++)
		pick -= arg_kind_weights[kind];
	return kind;
}

static unsigned int random_request(uint64_t *rng)
{
	unsigned int pick = rng_below(rng, 100);

	if (pick < 70)
		return JOB_REQUEST(rng_below(rng, HIGHEST_FUZZED_REQUEST + 1));
	if (pick < 90)
		return _IOC(rng_below(rng, 4), JOB_IOCTL_TYPE, rng_below(rng, 256),
			    rng_below(rng, 1U << _IOC_SIZEBITS));
	return (unsigned int)rng_next(rng);
}

/* An inner pointer for the list requests: good or bad. */
static uint64_t random_pointer(struct fuzz_child *c)
{
	const struct fuzz_memory *mem = c->mem;

	switch (rng_below(&c->rng, 8)) {
	case 0:
		return 0;
	case 1:
		return 1;
	case 2:
		return (uintptr_t)mem->unmapped;
	case 3:
		return KERNEL_DIRECT_MAP;
	case 4:
		return KERNEL_TEXT;
	case 5:
		return (uintptr_t)mem->read_only;
	case 6:
		return (uintptr_t)(mem->guard - 1 - rng_below(&c->rng, 64));
	default:
		return (uintptr_t)(mem->inner + rng_below(&c->rng, 8));
	}
}

/* A pid or a count: sign-extended, so both halves of the word make sense. */
static uint64_t random_small_int(struct fuzz_child *c)
{
	static const int fixed[] = { 0, 1, 2, -1, INT_MIN, INT_MAX, 4096 };
	unsigned int pick = rng_below(&c->rng, ARRAY_LEN(fixed) + 3);
	int n;

	if (pick < ARRAY_LEN(fixed))
		n = fixed[pick];
	else if (pick == ARRAY_LEN(fixed))
		n = getpid();
	else if (pick == ARRAY_LEN(fixed) + 1)
		n = c->victim;
	else
		n = c->dead_pid;
	return (uint64_t)(int64_t)n;
}

static uint64_t random_word(struct fuzz_child *c)
{
	unsigned int pick = rng_below(&c->rng, 10);

	if (pick < 3 && c->nr_known_jids)
		return c->known_jids[rng_below(&c->rng, c->nr_known_jids)];
	if (pick < 6)
		return random_small_int(c);
	if (pick < 8)
		return random_pointer(c);
	return rng_next(&c->rng);
}

static void refresh_known_jids(struct fuzz_child *c)
{
	int n = job_getjidlist(c->known_jids, sizeof(c->known_jids));

	c->nr_known_jids = n < 0 ? 0 : n;
}

static pid_t start_victim(void)
{
	pid_t parent = getpid(), pid = fork();

	if (pid)
		return pid < 0 ? 0 : pid;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(0);
	for (;;)
		pause();
}

/* Replaces the victim once a KILLJID killed it; its pid is then dead. */
static void check_victim(struct fuzz_child *c)
{
	if (c->victim && waitpid(c->victim, NULL, WNOHANG) != c->victim)
		return;
	c->dead_pid = c->victim;
	c->victim = start_victim();
}

/*
 * Attaching init or the test's shell to a job the fuzzer then kills would take
 * the machine down: ATTACHPID only gets our own processes or none.
 */
static void keep_attach_inside(struct fuzz_child *c, unsigned char *request)
{
	pid_t *pid = (pid_t *)(request + offsetof(struct job_attachpid, pid));
	pid_t p;

	memcpy(&p, pid, sizeof(p));
	if (p <= 0 || p == getpid() || p == c->victim ||
	    (kill(p, 0) < 0 && errno == ESRCH))
		return;
	memcpy(pid, &c->victim, sizeof(c->victim));
}

struct fuzz_call {
	unsigned int cmd;
	int request;		/* job_request_of(cmd) */
	enum arg_kind kind;
	void *arg;
	unsigned char *words;	/* the argument through the writable view */
};

static void prepare_arg(struct fuzz_child *c, struct fuzz_call *call)
{
	const struct fuzz_memory *mem = c->mem;
	size_t offset = 0, i;
	uint64_t word;

	call->words = NULL;
	switch (call->kind) {
	case ARG_MISALIGNED:
		offset = 1 + rng_below(&c->rng, 7);
		/* fall through */
	case ARG_BUFFER:
	case ARG_READ_ONLY:
		call->words = mem->buffer + offset;
		for (i = 0; i + sizeof(word) <= 256; i += sizeof(word)) {
			word = random_word(c);
			memcpy(mem->buffer + i, &word, sizeof(word));
		}
		call->arg = (call->kind == ARG_READ_ONLY ?
			     (void *)mem->read_only : (void *)mem->buffer) + offset;
		break;
	case ARG_NULL:
		call->arg = NULL;
		break;
	case ARG_ONE:
		call->arg = (void *)1;
		break;
	case ARG_UNMAPPED:
		call->arg = mem->unmapped;
		break;
	case ARG_KERNEL_DIRECT_MAP:
		call->arg = (void *)KERNEL_DIRECT_MAP;
		break;
	case ARG_KERNEL_TEXT:
		call->arg = (void *)KERNEL_TEXT;
		break;
	case ARG_STRADDLING:
		call->arg = mem->guard - 1 -
			    rng_below(&c->rng, SMALLEST_REQUEST_SIZE - 1);
		break;
	case NR_ARG_KINDS:
		break;
	}
	if (call->words && call->request == JOB_ATTACHPID)
		keep_attach_inside(c, call->words);
}

/* The signal the call may send to our own job, or 0. */
static int signal_sent_by(const struct fuzz_call *call)
{
	int sig;

	if (call->request != JOB_KILLJID || !call->words)
		return 0;
	memcpy(&sig, call->words + offsetof(struct job_killjid, sig), sizeof(sig));
	return sig;
}

static void describe_call(const struct fuzz_call *call, char *text, size_t size)
{
	int n;
	size_t i;
	uint64_t word;

	if (call->request >= 0)
		n = snprintf(text, size, "ioctl(JOB_REQUEST(%d) = 0x%08x, %s %p)",
			     call->request, call->cmd, arg_kind_names[call->kind],
			     call->arg);
	else
		n = snprintf(text, size, "ioctl(0x%08x, %s %p)", call->cmd,
			     arg_kind_names[call->kind], call->arg);
	for (i = 0; call->words && i < 4 && n > 0 && (size_t)n < size; i++) {
		memcpy(&word, call->words + i * sizeof(word), sizeof(word));
		n += snprintf(text + n, size - n, "%s0x%" PRIx64,
			      i ? " " : " words ", word);
	}
}

/* Why @err cannot be the result of @call, or NULL if it can. */
static const char *wrong_result(const struct fuzz_child *c,
				const struct fuzz_call *call, int err)
{
	size_t i;

	for (i = 0; i < NR_CLEAN_RESULTS && clean_results[i].err != err; i++)
		;
	if (i == NR_CLEAN_RESULTS)
		return "not an error of the ABI";
	if (call->request < 0)
		return err == EBADRQC ? NULL : "expected EBADRQC";
	if (call->kind == ARG_NULL)
		return err == EINVAL ? NULL : "expected EINVAL";
	if (!call->words)
		return err == EFAULT ? NULL : "expected EFAULT";
	/* Written back before anything else is checked (job(7)). */
	if (call->kind == ARG_READ_ONLY)
		return err == EFAULT ? NULL : "expected EFAULT (a read-only argument)";
	if (!c->privileged &&
	    in_list(privileged_requests, ARRAY_LEN(privileged_requests),
		    (unsigned int)call->request))
		return err == EPERM ? NULL : "expected EPERM";
	return NULL;
}

static void count_result(struct fuzz_child *c, const struct fuzz_call *call,
			 int err)
{
	struct fuzz_shared *shared = c->shared;
	const char *why = wrong_result(c, call, err);
	size_t i;

	for (i = 0; i < NR_CLEAN_RESULTS && clean_results[i].err != err; i++)
		;
	if (why) {
		shared->results[RESULT_UNEXPECTED]++;
		record_failure(shared, "%s -> %s (%s)", shared->pending_call,
			       err ? strerror(err) : "success", why);
	} else {
		shared->results[i]++;
	}
}

/* Remembers the job a CREATE may have moved us into, for the cleanup. */
static void record_own_job(struct fuzz_shared *shared)
{
	jid_t jid = job_getjid(getpid());
	unsigned int i;

	if (jid == (jid_t)-1)
		return;
	for (i = shared->nr_created; i > 0; i--)
		if (shared->created[i - 1] == jid)
			return;
	if (shared->nr_created == CREATED_JIDS_MAX)
		record_failure(shared, "more than %d jobs created", CREATED_JIDS_MAX);
	else
		shared->created[shared->nr_created++] = jid;
}

static void fuzz_one_call(struct fuzz_child *c)
{
	struct fuzz_shared *shared = c->shared;
	struct fuzz_call call;
	int ret, err;

	call.cmd = random_request(&c->rng);
	call.request = job_request_of(call.cmd);
	call.kind = random_arg_kind(&c->rng);
	prepare_arg(c, &call);
	describe_call(&call, shared->pending_call, sizeof(shared->pending_call));
	shared->pending_signal = signal_sent_by(&call);
	ret = ioctl(c->fd, call.cmd, call.arg);
	err = ret < 0 ? errno : 0;
	shared->pending_signal = 0;
	if (ret > 0)
		record_failure(shared, "%s -> %d (positive)", shared->pending_call,
			       ret);
	count_result(c, &call, err);
	if (call.request == JOB_CREATE)
		record_own_job(shared);
	shared->calls++;
}

/* SIGALRM interrupts blocking calls instead of restarting them. */
static void install_alarm_handler(void)
{
	if (install_interrupting_alarm() < 0)
		die("sigaction");
}

static void start_interval_timer(void)
{
	struct itimerval timer = {
		.it_interval = { .tv_usec = TIMER_INTERVAL_USEC },
		.it_value = { .tv_usec = TIMER_INTERVAL_USEC },
	};

	install_alarm_handler();
	if (setitimer(ITIMER_REAL, &timer, NULL) < 0)
		die("setitimer");
}

static void __attribute__((noreturn)) run_fuzz_child(struct fuzz_child *c)
{
	unsigned long n = 0;

	c->fd = open(JOB_PROC_PATH, O_RDONLY | O_CLOEXEC);
	if (c->fd < 0)
		die(JOB_PROC_PATH);
	c->victim = start_victim();
	refresh_known_jids(c);
	start_interval_timer();
	while (c->shared->calls < c->total_calls) {
		if (++n % KNOWN_JIDS_REFRESH == 0)
			refresh_known_jids(c);
		if (n % VICTIM_CHECK_INTERVAL == 0)
			check_victim(c);
		fuzz_one_call(c);
	}
	_exit(0);
}

static bool is_stop_signal(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN ||
	       sig == SIGTTOU;
}

/* Waits for a fuzzing child to end; false if it ended wrongly. */
static bool supervise_child(struct fuzz_shared *shared, pid_t child)
{
	int status;

	for (;;) {
		if (waitpid(child, &status, WUNTRACED) < 0) {
			if (errno == EINTR)
				continue;
			die("waitpid");
		}
		if (WIFSTOPPED(status) && is_stop_signal(WSTOPSIG(status)) &&
		    WSTOPSIG(status) == shared->pending_signal) {
			shared->stops++;
			kill(child, SIGCONT);
			continue;
		}
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
			return true;
		if (WIFSIGNALED(status) && WTERMSIG(status) == shared->pending_signal) {
			/* The call in flight killed its own caller: it counts. */
			shared->results[RESULT_KILLED]++;
			shared->calls++;
			shared->pending_signal = 0;
			return true;
		}
		if (WIFSTOPPED(status))
			record_failure(shared, "fuzzing child stopped by signal %d after %s",
				       WSTOPSIG(status), shared->pending_call);
		else if (WIFSIGNALED(status))
			record_failure(shared, "fuzzing child killed by signal %d (%s) in %s",
				       WTERMSIG(status), strsignal(WTERMSIG(status)),
				       shared->pending_call);
		else
			record_failure(shared, "fuzzing child exited with status %d",
				       WEXITSTATUS(status));
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
		return false;
	}
}

static unsigned long job_sethid_raw(int fd, unsigned long hid)
{
	struct job_sethid req = { .hid = hid };

	if (ioctl(fd, JOB_REQUEST(JOB_SETHID), &req) < 0)
		die("JOB_SETHID");
	return req.r_hid;
}

/* Kills what is left of the jobs the children were moved into. */
static void end_created_jobs(struct fuzz_shared *shared)
{
	unsigned int i;
	jid_t jid;

	install_alarm_handler();
	for (i = 0; i < shared->nr_created; i++) {
		jid = shared->created[i];
		if (job_killjid(jid, SIGKILL) < 0) {
			if (errno != ENODATA)
				record_failure(shared, "cleanup: killjid(0x%" PRIx64 "): %s",
					       jid, strerror(errno));
			continue;
		}
		alarm(JOB_END_TIMEOUT_SEC);
		if (job_waitjid(jid, NULL, 0) == (jid_t)-1 && errno != ENODATA)
			record_failure(shared, "cleanup: waitjid(0x%" PRIx64 "): %s",
				       jid, strerror(errno));
		alarm(0);
		if (job_getpidcnt(jid) >= 0 || errno != ENODATA)
			record_failure(shared, "cleanup: job 0x%" PRIx64 " still there",
				       jid);
	}
}

static void print_report(const struct fuzz_shared *shared, double seconds)
{
	size_t i;

	printf("%-10s %10s\n", "result", "calls");
	for (i = 0; i < NR_CLEAN_RESULTS; i++)
		printf("%-10s %10lu\n", clean_results[i].name, shared->results[i]);
	printf("%-10s %10lu\n", "unexpected", shared->results[RESULT_UNEXPECTED]);
	printf("%-10s %10lu  (the caller killed by its own KILLJID)\n", "killed",
	       shared->results[RESULT_KILLED]);
	printf("children %lu, stopped by their own KILLJID %lu, jobs created %u\n",
	       shared->children, shared->stops, shared->nr_created);
	printf("%.1f s, %.0f calls/s\n", seconds, shared->calls / seconds);
	if (shared->failures)
		printf("FAIL: %lu failures, the first: %s\n", shared->failures,
		       shared->first_failure);
	else
		printf("ok: %lu calls\n", shared->calls);
}

static double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct fuzz_memory mem;
	struct fuzz_shared *shared;
	struct fuzz_child child = { 0 };
	unsigned long hid = 0;
	uint64_t seed;
	double start;
	pid_t pid;
	int fd;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: %s CALLS [SEED]\n", argv[0]);
		return 2;
	}
	child.total_calls = strtoul(argv[1], NULL, 0);
	seed = argc > 2 ? strtoull(argv[2], NULL, 0) :
			  (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	printf("seed %" PRIu64 "\n", seed);
	fflush(stdout);

	fd = open(JOB_PROC_PATH, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die(JOB_PROC_PATH);
	child.privileged = has_cap_sys_resource();
	if (child.privileged)
		job_sethid_raw(fd, hid = job_sethid_raw(fd, 0));
	shared = mmap(NULL, sizeof(*shared), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared == MAP_FAILED)
		die("mmap");
	map_fuzz_memory(&mem);	/* the last mapping: keeps a hole unmapped */
	child.shared = shared;
	child.mem = &mem;

	start = now_seconds();
	while (shared->calls < child.total_calls) {
		/* Odd, so never the xorshift's stuck state 0. */
		child.rng = (seed + ++shared->children) * 0x9e3779b97f4a7c15ULL | 1;
		pid = fork();
		if (pid < 0)
			die("fork");
		if (!pid)
			run_fuzz_child(&child);
		if (!supervise_child(shared, pid))
			break;
	}
	if (child.privileged) {
		job_sethid_raw(fd, hid);
		end_created_jobs(shared);
	}
	close(fd);
	print_report(shared, now_seconds() - start);
	return shared->failures ? 1 : 0;
}
