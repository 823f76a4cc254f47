// SPDX-License-Identifier: GPL-2.0
/*
 * pnotify_test: drives the pnotify test subscriber (pnotify_testsub.ko) from
 * user space and checks that its callbacks are counted exactly, for every
 * way of making a task.  Each subcommand prints "ok: ..." and exits 0, or
 * prints "FAIL: ..." and exits 1.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <spawn.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CTL "/proc/pnotify_testsub"

extern char **environ;

struct counters {
	long subscribed, fork, exec, exit, unsubscribe, init, live, foreign;
	long threads;
};

static void fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("FAIL: ", stdout);
	vprintf(fmt, ap);
	putchar('\n');
	va_end(ap);
	exit(1);
}

static int ctl_write(const char *cmd)
{
	int fd = open(CTL, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, cmd, strlen(cmd));
	close(fd);
	return n < 0 ? -errno : 0;
}

static void ctl(const char *cmd)
{
	int err = ctl_write(cmd);

	if (err)
		fail("'%s' > " CTL ": %s", cmd, strerror(-err));
}

static struct counters read_counters(void)
{
	struct counters c = { 0 };
	static const struct {
		const char *name;
		size_t off;
	} fields[] = {
		{ "subscribed", offsetof(struct counters, subscribed) },
		{ "fork", offsetof(struct counters, fork) },
		{ "exec", offsetof(struct counters, exec) },
		{ "exit", offsetof(struct counters, exit) },
		{ "unsubscribe", offsetof(struct counters, unsubscribe) },
		{ "init", offsetof(struct counters, init) },
		{ "live", offsetof(struct counters, live) },
		{ "foreign", offsetof(struct counters, foreign) },
		{ "threads", offsetof(struct counters, threads) },
	};
	char name[32];
	long value;
	FILE *f = fopen(CTL, "r");

	if (!f)
		fail("open " CTL ": %s (is pnotify_testsub loaded?)",
		     strerror(errno));
	while (fscanf(f, "%31[^:]: %ld\n", name, &value) == 2) {
		for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
			if (!strcmp(name, fields[i].name))
				*(long *)((char *)&c + fields[i].off) = value;
	}
	fclose(f);
	return c;
}

static void expect(const char *what, long got, long want)
{
	if (got != want)
		fail("%s: got %ld, want %ld", what, got, want);
}

/* Reaps @n children; returns how many exited with status 0. */
static int reap(int n)
{
	int ok = 0, status;

	while (n-- > 0) {
		if (wait(&status) < 0)
			fail("wait: %s", strerror(errno));
		ok += WIFEXITED(status) && WEXITSTATUS(status) == 0;
	}
	return ok;
}

/* Checks the deltas of fork, exec and exit callbacks since @before. */
static void expect_delta(const struct counters *before, long forks, long execs,
			 long exits)
{
	struct counters now = read_counters();

	expect("fork callbacks", now.fork - before->fork, forks);
	expect("exec callbacks", now.exec - before->exec, execs);
	expect("exit callbacks", now.exit - before->exit, exits);
	expect("callbacks outside their task", now.foreign, 0);
}

/* Each returns the new child's pid, or -1 with errno set. */
static pid_t fork_child(void)
{
	pid_t pid = fork();

	if (!pid)
		_exit(read_counters().subscribed ? 0 : 1);
	return pid;
}

/* The child exits at once, never returning from the vfork()ing frame. */
static pid_t vfork_child(void)
{
	pid_t pid = vfork();

	if (!pid)
		_exit(0);
	return pid;
}

static pid_t clone3_child(void)
{
	struct clone_args args = { .exit_signal = SIGCHLD };
	long pid = syscall(SYS_clone3, &args, sizeof(args));

	if (!pid)
		syscall(SYS_exit_group, 0);
	return pid;
}

static pid_t spawn_child(void)
{
	char *argv[] = { "true", NULL };
	pid_t pid;
	int err = posix_spawn(&pid, "/bin/true", NULL, NULL, argv, environ);

	errno = err;
	return err ? -1 : pid;
}

/*
 * Makes @n children with @make_child from a subscribed process: exactly n
 * fork and n exit callbacks, and @execs_each exec callbacks per child.
 */
static void count_children(const char *what, int n, pid_t (*make_child)(void),
			   int execs_each)
{
	struct counters before;
	int i;

	ctl("subscribe");
	before = read_counters();
	for (i = 0; i < n; i++)
		if (make_child() < 0)
			fail("%s: %s", what, strerror(errno));
	expect("children that exited subscribed", reap(n), n);
	expect_delta(&before, n, (long)n * execs_each, n);
	printf("ok: %d %s, each followed\n", n, what);
}

static void do_forks(int n)
{
	count_children("forks", n, fork_child, 0);
}

static void do_vforks(int n)
{
	count_children("vforks", n, vfork_child, 0);
}

static void do_clone3(int n)
{
	count_children("clone3 children", n, clone3_child, 0);
}

static void do_spawns(int n)
{
	count_children("posix_spawn children", n, spawn_child, 1);
}

static void *thread_return(void *arg)
{
	return arg;
}

/*
 * A subscription follows a process: its @n threads come and go without a
 * callback, and are counted in it when it ends (here, by unsubscribing).
 */
static void do_threads(int n)
{
	pthread_t *threads = calloc(n, sizeof(*threads));
	struct counters before, now;
	int i;

	if (!threads)
		fail("out of memory");
	ctl("subscribe");
	before = read_counters();
	for (i = 0; i < n; i++)
		if (pthread_create(&threads[i], NULL, thread_return, NULL))
			fail("pthread_create");
	for (i = 0; i < n; i++)
		pthread_join(threads[i], NULL);
	free(threads);
	expect("subscribed after its threads exited",
	       read_counters().subscribed, 1);
	ctl("unsubscribe");
	now = read_counters();
	expect_delta(&before, 0, 0, 0);
	expect("unsubscribe callbacks", now.unsubscribe - before.unsubscribe, 1);
	expect("threads counted", now.threads - before.threads, n);
	printf("ok: %d threads\n", n);
}

/* A line "NAME: N" of /proc/pnotify, or -1 if there is none. */
static long pnotify_stat(const char *name)
{
	FILE *f = fopen("/proc/pnotify", "r");
	size_t len = strlen(name);
	char line[128];
	long n = -1;

	if (!f)
		fail("open /proc/pnotify: %s", strerror(errno));
	while (n < 0 && fgets(line, sizeof(line), f))
		if (!strncmp(line, name, len) && line[len] == ':')
			n = atol(line + len + 1);
	fclose(f);
	return n;
}

/* /proc/pnotify's count of the entries bound: processes' and records. */
static long tasks_followed(void)
{
	long n = pnotify_stat("tasks");

	if (n < 0)
		fail("no 'tasks:' line in /proc/pnotify");
	return n;
}

#define KNOBS "/sys/module/pnotify/parameters/"

/* A test build's knob of pnotify's (a bool's Y is 1); else 0. */
static unsigned int pnotify_knob(const char *name)
{
	char path[128], value[16] = "";
	FILE *f;

	snprintf(path, sizeof(path), KNOBS "%s", name);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (!fgets(value, sizeof(value), f))
		value[0] = 0;
	fclose(f);
	return value[0] == 'Y' ? 1 : (unsigned int)strtoul(value, NULL, 10);
}

/* Sets a test build's knob of pnotify's: false without one. */
static bool pnotify_knob_set(const char *name, unsigned int n)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), KNOBS "%s", name);
	f = fopen(path, "w");
	if (!f)
		return false;
	fprintf(f, "%u\n", n);
	if (fclose(f))
		fail("%u > %s: %s", n, path, strerror(errno));
	return true;
}

/* The test build's spin as a record is entered, with 2 CPUs to race it. */
static bool record_spins(void)
{
	return pnotify_knob("test_delay_record_us") > 0 &&
	       sysconf(_SC_NPROCESSORS_ONLN) > 1;
}

/*
 * Waits up to 60 s for tasks_followed() to be @want: an entry retired is
 * unbound a grace period or two later, and debug kernels are slow.
 */
static void expect_tasks_followed(const char *what, long want)
{
	long got = tasks_followed();

	for (int i = 0; i < 6000 && got != want; i++) {
		usleep(10000);
		got = tasks_followed();
	}
	expect(what, got, want);
}

/* Threads told to exit together, each after its own delay. */
static pthread_mutex_t go_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t go_cond = PTHREAD_COND_INITIALIZER;
static bool go;

static void *thread_exit_after(void *usecs)
{
	pthread_mutex_lock(&go_lock);
	while (!go)
		pthread_cond_wait(&go_cond, &go_lock);
	pthread_mutex_unlock(&go_lock);
	usleep((useconds_t)(uintptr_t)usecs);
	return NULL;
}

/*
 * A subscription's attach gives each thread of the process but the leader a
 * record for its next fork; a thread's exit takes its record out with no
 * lock (it has none, it ends nothing), so a record entered as its thread
 * begins to exit must be refused.  @n times: 4 threads are told to exit,
 * each 0 to 10 ms later, just before the process subscribes, as the attach
 * enters their records one after the other; once they are gone, only the
 * process's entry is left, no record.  The test build spins before each
 * record is entered (test_delay_record_us): there, with 2 CPUs or more (on
 * one, no thread can begin to exit in the spin, its lock held with
 * interrupts off), the test goes on, up to 20 times longer, until a record
 * was refused, so the window was reached.  Run with nothing else followed.
 */
static void do_thread_records(int n)
{
	bool spins = record_spins();
	long refused = pnotify_stat("records_refused");
	unsigned int seed = 1;
	pthread_t threads[4];
	int i, t;

	expect_tasks_followed("entries before the test", 0);
	for (i = 0; i < n || (spins && i < 20 * n &&
			      pnotify_stat("records_refused") == refused); i++) {
		go = false;
		for (t = 0; t < 4; t++)
			if (pthread_create(&threads[t], NULL, thread_exit_after,
					   (void *)(uintptr_t)(rand_r(&seed) % 10000)))
				fail("pthread_create");
		pthread_mutex_lock(&go_lock);
		go = true;
		pthread_cond_broadcast(&go_cond);
		pthread_mutex_unlock(&go_lock);
		ctl("subscribe");
		for (t = 0; t < 4; t++)
			pthread_join(threads[t], NULL);
		expect_tasks_followed("entries of the process, its threads gone", 1);
		ctl("unsubscribe");
	}
	expect_tasks_followed("entries once unsubscribed", 0);
	refused = pnotify_stat("records_refused") - refused;
	if (spins && !refused)
		fail("no record refused in %d subscriptions: the window was not reached", i);
	printf("ok: %d subscriptions of a process as its threads exit, records refused: %ld\n",
	       i, refused);
}

/* Threads that make threads as their process subscribes, then fork. */
static pthread_mutex_t spawn_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t spawn_cond = PTHREAD_COND_INITIALIZER;
static bool spawn_go, fork_go;
static int spawned, forks_done, forks_killed, forks_failed;

static void spawn_wait(bool *flag)
{
	pthread_mutex_lock(&spawn_lock);
	while (!*flag)
		pthread_cond_wait(&spawn_cond, &spawn_lock);
	pthread_mutex_unlock(&spawn_lock);
}

static void spawn_tell(bool *flag)
{
	pthread_mutex_lock(&spawn_lock);
	*flag = true;
	pthread_cond_broadcast(&spawn_cond);
	pthread_mutex_unlock(&spawn_lock);
}

/* One fork, counted: a child killed at birth had no kit to join. */
static void fork_once(void)
{
	int status;
	pid_t pid;

	pid = fork();
	if (!pid)
		_exit(0);
	pthread_mutex_lock(&spawn_lock);
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		forks_failed++;
	else if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
		forks_killed++;
	else if (!WIFEXITED(status) || WEXITSTATUS(status))
		forks_failed++;
	forks_done++;
	pthread_mutex_unlock(&spawn_lock);
}

/* One fork once told to. */
static void *thread_fork(void *arg)
{
	spawn_wait(&fork_go);
	fork_once();
	return arg;
}

/* One fork as soon as it runs, then waits to be told to end. */
static void *thread_fork_first(void *arg)
{
	fork_once();
	spawn_wait(&fork_go);
	return arg;
}

/* Makes a thread after @usecs, once told to, then forks with it. */
static void *thread_spawn(void *usecs)
{
	pthread_t thread;
	bool made;

	spawn_wait(&spawn_go);
	usleep((useconds_t)(uintptr_t)usecs);
	made = !pthread_create(&thread, NULL, thread_fork, NULL);
	pthread_mutex_lock(&spawn_lock);
	spawned++;
	if (!made)
		forks_failed++;
	pthread_cond_broadcast(&spawn_cond);
	pthread_mutex_unlock(&spawn_lock);
	thread_fork(NULL);
	if (made)
		pthread_join(thread, NULL);
	return NULL;
}

/*
 * An attach stocks each thread of its process in turn, and a thread made
 * by one not stocked yet finds no kit to take for its record in its fork
 * hook when the cache is empty: the attach must see it and stock it too,
 * so that every thread's first fork after the attach has its kit.  @n
 * times: 4 threads each make a thread 0 to 10 ms after they are told to,
 * just before the process subscribes; then all 9 fork once, and no child
 * may be killed at birth.  The test build bypasses the cache
 * (test_kits_skip 1) and sleeps 10 ms after each thread the attach stocks
 * (test_delay_stock_us), so that threads it has not reached make theirs
 * meanwhile: there the test goes on, up to 20 times longer, until a new
 * thread got no record from its creator (records_spared: it took a spare
 * one; records_missed: none was left), so the window was reached; a
 * thread missed has its record made by a task work of its own, or, that
 * work queued for another, by a kworker's stock.  Run with nothing else
 * followed.
 */
static long records_uncreated(void)
{
	return pnotify_stat("records_spared") + pnotify_stat("records_missed");
}

static void do_attach_threads(int n)
{
	bool widened = pnotify_knob("test_kits_skip") == 1 &&
		       pnotify_knob_set("test_delay_stock_us", 10000);
	long uncreated = records_uncreated();
	long missed = pnotify_stat("records_missed");
	long failures = pnotify_stat("fork_failures");
	long later = pnotify_stat("record_works") + pnotify_stat("stock_works");
	unsigned int seed = 1;
	pthread_t threads[4];
	int i, t;

	expect_tasks_followed("entries before the test", 0);
	for (i = 0; i < n || (widened && i < 20 * n &&
			      records_uncreated() == uncreated); i++) {
		spawn_go = fork_go = false;
		spawned = 0;
		for (t = 0; t < 4; t++)
			if (pthread_create(&threads[t], NULL, thread_spawn,
					   (void *)(uintptr_t)(rand_r(&seed) % 10000)))
				fail("pthread_create");
		spawn_tell(&spawn_go);
		ctl("subscribe");
		pthread_mutex_lock(&spawn_lock);
		while (spawned < 4)
			pthread_cond_wait(&spawn_cond, &spawn_lock);
		pthread_mutex_unlock(&spawn_lock);
		spawn_tell(&fork_go);
		thread_fork(NULL);
		for (t = 0; t < 4; t++)
			pthread_join(threads[t], NULL);
		if (forks_failed)
			fail("%d forks or threads failed", forks_failed);
		if (forks_killed)
			fail("round %d: %d children killed at birth, their thread left without a kit",
			     i, forks_killed);
		expect_tasks_followed("entries of the process, its threads gone", 1);
		ctl("unsubscribe");
	}
	if (widened)
		pnotify_knob_set("test_delay_stock_us", 0);
	expect_tasks_followed("entries once unsubscribed", 0);
	expect("forks failed in pnotify", pnotify_stat("fork_failures") - failures, 0);
	uncreated = records_uncreated() - uncreated;
	missed = pnotify_stat("records_missed") - missed;
	later = pnotify_stat("record_works") + pnotify_stat("stock_works") - later;
	if (widened && !uncreated)
		fail("no thread left without a record by its creator in %d attaches: the window was not reached",
		     i);
	if (missed && !later)
		fail("%ld threads left without a record, none made later", missed);
	printf("ok: %d attaches as threads make threads, records not from their creator: %ld, spares gone: %ld, made later: %ld\n",
	       i, uncreated, missed, later);
}

/* Forks at once: a thread that found no kit for its child has it killed. */
static void *thread_fork_now(void *arg)
{
	spawn_tell(&fork_go);
	return thread_fork(arg);
}

static int forks_done_read(void)
{
	int n;

	pthread_mutex_lock(&spawn_lock);
	n = forks_done;
	pthread_mutex_unlock(&spawn_lock);
	return n;
}

/* A thread that forks as soon as it runs, joined. */
static void thread_fork_joined(int i)
{
	pthread_t thread;

	fork_go = false;
	if (pthread_create(&thread, NULL, thread_fork_now, NULL))
		fail("pthread_create");
	pthread_join(thread, NULL);
	if (forks_failed || forks_killed)
		fail("thread %d: %d forks failed, %d children killed at birth",
		     i, forks_failed, forks_killed);
}

/*
 * A new thread left without a record by its fork hook (in the test build,
 * test_records_skip and test_spares_skip: as if neither the cache, its
 * creator nor the spares had one)
 * has it made by a task work before it first runs in user space: @n
 * threads, one at a time, each forking as soon as it runs, keep their
 * children, each record made by a record work.  That work serves one
 * thread at a time (the test build holds it 200 ms, test_delay_refill_us):
 * 4 threads made at once, the others have a kworker stock their process,
 * and once every thread has its record, all fork and keep their
 * children.  Without the knob, the threads get their records in the hook.
 */
static void do_unrecorded_threads(int n)
{
	bool skips = pnotify_knob("test_records_skip") &&
		     pnotify_knob("test_spares_skip");
	long works = pnotify_stat("record_works");
	long failures = pnotify_stat("fork_failures");
	pthread_t threads[4];
	long stocks;
	bool held;
	int i;

	expect_tasks_followed("entries before the test", 0);
	ctl("subscribe");
	for (i = 0; i < n; i++)
		thread_fork_joined(i);
	expect_tasks_followed("entries of the process, its threads gone", 1);
	held = skips && pnotify_knob_set("test_delay_refill_us", 200000);
	/*
	 * A record is counted once entered, its kit made after: a fork
	 * between then takes one from the cache, which the gate below
	 * needs (attach-threads bypassed it).
	 */
	pnotify_knob_set("test_kits_skip", 0);
	stocks = pnotify_stat("stock_works");
	fork_go = false;
	for (i = 0; i < 4; i++)
		if (pthread_create(&threads[i], NULL, thread_fork, NULL))
			fail("pthread_create");
	for (i = 0; i < 6000 && tasks_followed() != 5; i++)
		usleep(10000);
	expect("entries of the process and its 4 new threads", tasks_followed(), 5);
	if (held)
		pnotify_knob_set("test_delay_refill_us", 0);
	spawn_tell(&fork_go);
	for (i = 0; i < 4; i++)
		pthread_join(threads[i], NULL);
	if (forks_failed || forks_killed)
		fail("4 threads made at once: %d forks failed, %d children killed at birth",
		     forks_failed, forks_killed);
	stocks = pnotify_stat("stock_works") - stocks;
	if (held && !stocks)
		fail("4 threads left without a record at once, no stock of their process");
	ctl("unsubscribe");
	expect("forks failed in pnotify", pnotify_stat("fork_failures") - failures, 0);
	works = pnotify_stat("record_works") - works;
	if (skips && works < n)
		fail("%ld record works for %d threads left without a record", works, n);
	printf("ok: %d threads fork as they start, record works: %ld; 4 at once, stocks: %ld\n",
	       n, works, stocks);
}

/* pnotify_core.c's PN_SPARE_RECORDS. */
#define SPARE_RECORDS 16

/*
 * A new thread that neither the cache nor its creator can give a record
 * (the test build's test_records_skip) takes a spare one in its fork
 * hook, its kit made by its own work before it runs, which tops the
 * spares up again: @n threads, one at a time, each forking as soon as it
 * runs, keep their children, each with a spare and none with a record
 * work, and the spares are all there after.  Then, the spares not topped
 * up (test_spares_frozen) and a kworker's stock sleeping 100 ms a thread
 * (test_delay_stock_us), so that a thread it had to stock would outrun
 * it, as many threads as there are spares, each forking as soon as it
 * runs, and 4 more, made at once: the first take every spare and keep
 * their children (without the spares, some were killed at birth), the
 * others find none and have their records made later; once every thread
 * has its record, they fork too and keep their children.  One more
 * thread's work tops the spares up again.  Without the knobs, the
 * threads get their records as usual.
 */
static void do_spare_records(int n)
{
	bool spares_only = pnotify_knob("test_records_skip") &&
			   !pnotify_knob("test_spares_skip");
	long spared = pnotify_stat("records_spared");
	long works = pnotify_stat("record_works");
	long failures = pnotify_stat("fork_failures");
	pthread_t threads[SPARE_RECORDS + 4];
	int i, burst = SPARE_RECORDS + 4;
	bool frozen;
	long missed;

	expect_tasks_followed("entries before the test", 0);
	ctl("subscribe");
	for (i = 0; i < n; i++)
		thread_fork_joined(i);
	expect_tasks_followed("entries of the process, its threads gone", 1);
	if (spares_only) {
		expect("spare records taken", pnotify_stat("records_spared") - spared, n);
		expect("record works", pnotify_stat("record_works") - works, 0);
	}
	expect("spare records", pnotify_stat("spare_records"), SPARE_RECORDS);
	frozen = spares_only && pnotify_knob_set("test_spares_frozen", 1) &&
		 pnotify_knob_set("test_delay_stock_us", 100000);
	spared = pnotify_stat("records_spared");
	missed = pnotify_stat("records_missed");
	fork_go = false;
	forks_done = 0;
	for (i = 0; i < burst; i++)
		if (pthread_create(&threads[i], NULL,
				   i < SPARE_RECORDS ? thread_fork_first : thread_fork, NULL))
			fail("pthread_create");
	/*
	 * The first threads' children reaped (each counted while it lives),
	 * a record is counted once made, its kit after: every work done,
	 * each thread has both.
	 */
	for (i = 0; i < 6000 && (forks_done_read() < SPARE_RECORDS ||
				 tasks_followed() != burst + 1 ||
				 pnotify_stat("works_inflight")); i++)
		usleep(10000);
	expect("entries of the process and its new threads", tasks_followed(), burst + 1);
	expect("works in flight", pnotify_stat("works_inflight"), 0);
	if (frozen) {
		pnotify_knob_set("test_spares_frozen", 0);
		pnotify_knob_set("test_delay_stock_us", 0);
	}
	spawn_tell(&fork_go);
	for (i = 0; i < burst; i++)
		pthread_join(threads[i], NULL);
	if (forks_failed || forks_killed)
		fail("%d threads made at once: %d forks failed, %d children killed at birth",
		     burst, forks_failed, forks_killed);
	spared = pnotify_stat("records_spared") - spared;
	missed = pnotify_stat("records_missed") - missed;
	if (frozen && (spared != SPARE_RECORDS || !missed))
		fail("%d threads made at once with %d spares: %ld spares taken, %ld threads found none",
		     burst, SPARE_RECORDS, spared, missed);
	thread_fork_joined(n);
	expect("spare records, topped up", pnotify_stat("spare_records"), SPARE_RECORDS);
	ctl("unsubscribe");
	expect("forks failed in pnotify", pnotify_stat("fork_failures") - failures, 0);
	printf("ok: %d threads fork as they start; %d at once: %ld spares taken, %ld found none\n",
	       n, burst, spared, missed);
}

static void *thread_sleep(void *arg)
{
	pause();
	return arg;
}

/*
 * A process with @n threads ends with exit_group(): one fork and one exit
 * callback, its threads counted.
 */
static void do_exit_group(int n)
{
	struct counters before;
	pid_t pid;
	int i;

	ctl("subscribe");
	before = read_counters();
	pid = fork();
	if (pid < 0)
		fail("fork: %s", strerror(errno));
	if (!pid) {
		pthread_t thread;

		for (i = 0; i < n; i++)
			if (pthread_create(&thread, NULL, thread_sleep, NULL))
				_exit(2);
		syscall(SYS_exit_group, 0);
	}
	expect("exit_group child", reap(1), 1);
	expect_delta(&before, 1, 0, 1);
	expect("threads counted", read_counters().threads - before.threads, n);
	printf("ok: exit_group of %d threads\n", n + 1);
}

/* A zombie has had its exit callback; reaping it adds nothing. */
static void do_zombie(void)
{
	struct counters before;
	char path[64], state = 0;
	pid_t pid;
	FILE *f;
	int i;

	ctl("subscribe");
	before = read_counters();
	pid = fork();
	if (pid < 0)
		fail("fork: %s", strerror(errno));
	if (!pid)
		_exit(0);
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	for (i = 0; i < 500 && state != 'Z'; i++) {
		f = fopen(path, "r");
		if (!f || fscanf(f, "%*d %*s %c", &state) != 1)
			fail("read %s", path);
		fclose(f);
		if (state != 'Z')
			usleep(10000);
	}
	if (state != 'Z')
		fail("child %d never became a zombie", pid);
	expect_delta(&before, 1, 0, 1);
	snprintf(path, sizeof(path), "call %d", pid);
	expect("a call to a zombie fails with ESRCH", -ctl_write(path), ESRCH);
	snprintf(path, sizeof(path), "subscribe %d", pid);
	expect("subscribing a zombie fails with ESRCH", -ctl_write(path),
	       ESRCH);
	expect("reaped", reap(1), 1);
	expect_delta(&before, 1, 0, 1);
	printf("ok: zombie counted once, before reaping\n");
}

/* A dropped child is not subscribed, and neither are its own children. */
static void do_drop(int n)
{
	struct counters before;
	int i;

	ctl("subscribe");
	ctl("mode drop");
	before = read_counters();
	for (i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0)
			fail("fork: %s", strerror(errno));
		if (!pid) {
			if (read_counters().subscribed)
				_exit(1);
			pid = fork();
			if (!pid)
				_exit(0);
			_exit(reap(1) == 1 ? 0 : 1);
		}
	}
	expect("dropped children not subscribed", reap(n), n);
	expect_delta(&before, n, 0, 0);
	printf("ok: %d dropped children, grandchildren not followed\n", n);
}

/* A failed fork callback: the child dies before running user code. */
static void do_fail(int n)
{
	struct counters before;
	int i, status, pipefd[2];
	char byte;

	if (pipe(pipefd))
		fail("pipe: %s", strerror(errno));
	ctl("subscribe");
	ctl("mode fail");
	before = read_counters();
	for (i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0)
			fail("fork: %s", strerror(errno));
		if (!pid) {
			if (write(pipefd[1], "x", 1) != 1)
				_exit(3);
			_exit(0);
		}
		if (waitpid(pid, &status, 0) != pid)
			fail("waitpid: %s", strerror(errno));
		if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL)
			fail("child %d was not killed (status %#x)", pid,
			     status);
	}
	close(pipefd[1]);
	if (read(pipefd[0], &byte, 1) != 0)
		fail("a child whose fork callback failed ran user code");
	expect_delta(&before, n, 0, 0);
	printf("ok: %d failed forks, no child escaped\n", n);
}

/* One link of a chain: subscribed, and so is every descendant. */
static int chain_link(int remaining)
{
	pid_t pid;

	if (!read_counters().subscribed)
		return 1;
	if (!remaining)
		return 0;
	pid = fork();
	if (pid < 0)
		return 2;
	if (!pid)
		_exit(chain_link(remaining - 1));
	return reap(1) == 1 ? 0 : 1;
}

/* A chain of @depth processes, each the child of the one before. */
static void do_chain(int depth)
{
	struct counters before;
	pid_t pid;

	ctl("subscribe");
	before = read_counters();
	pid = fork();
	if (pid < 0)
		fail("fork: %s", strerror(errno));
	if (!pid)
		_exit(chain_link(depth - 1));
	expect("every generation subscribed", reap(1), 1);
	expect_delta(&before, depth, 0, depth);
	printf("ok: a chain of %d generations inherited\n", depth);
}

/* Forks children that exit at once, in @procs processes, for @seconds. */
static void do_storm(int procs, int seconds)
{
	time_t end = time(NULL) + seconds;
	long forks = 0;
	int p;

	for (p = 0; p < procs; p++) {
		if (fork() == 0) {
			while (time(NULL) < end) {
				pid_t pid = fork();

				if (pid == 0)
					_exit(0);
				if (pid > 0 && waitpid(pid, NULL, 0) == pid)
					forks++;
			}
			printf("storm %d: %ld forks\n", getpid(), forks);
			_exit(0);
		}
	}
	reap(procs);
}

static void usage(void)
{
	fputs("usage: pnotify_test forks|vforks|clone3|spawns|threads|"
	      "exit-group|\n"
	      "                    drop|fail|chain|thread-records|attach-threads|\n"
	      "                    unrecorded-threads|spare-records N\n"
	      "       pnotify_test zombie\n"
	      "       pnotify_test storm PROCS SECONDS\n", stderr);
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		void (*run)(int n);
	} tests[] = {
		{ "forks", do_forks },	   { "vforks", do_vforks },
		{ "clone3", do_clone3 },   { "spawns", do_spawns },
		{ "threads", do_threads }, { "exit-group", do_exit_group },
		{ "drop", do_drop },	   { "fail", do_fail },
		{ "chain", do_chain },	   { "thread-records", do_thread_records },
		{ "attach-threads", do_attach_threads },
		{ "unrecorded-threads", do_unrecorded_threads },
		{ "spare-records", do_spare_records },
	};

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 2 && !strcmp(argv[1], "zombie")) {
		do_zombie();
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "storm")) {
		do_storm(atoi(argv[2]), atoi(argv[3]));
		return 0;
	}
	if (argc != 3 || atoi(argv[2]) < 1)
		usage();
	for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
		if (!strcmp(argv[1], tests[i].name)) {
			tests[i].run(atoi(argv[2]));
			return 0;
		}
	}
	usage();
}
