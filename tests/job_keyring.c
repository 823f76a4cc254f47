// SPDX-License-Identifier: GPL-2.0
/*
 * job_keyring: the keyring_bridge scenario's helpers.
 *
 *   job_keyring su-fork
 *	As su does once it has authenticated (run it setuid root): become
 *	root in every uid, join a new session keyring (pam_keyinit), then
 *	fork a child that adds the user key "root-secret" to its session
 *	keyring.  Prints "session=SERIAL key=SERIAL" from the child.
 *
 *   job_keyring drop-back COMMAND [ARG...]
 *	As newgrp, sg or sudo to oneself do (run it setuid root): back from
 *	the setuid exec to the real user in every uid and gid, exec COMMAND.
 *
 *   job_keyring race ROUNDS
 *	ROUNDS rounds over WORKERS processes on two JIDs, reused at once: a
 *	process creates the job, or attaches itself when it exists (racing its
 *	end), or is attached by another process; some end their job at once
 *	with a detach, racing the others' installations.  A member that joined
 *	a job it is still in must have that job's live keyring as session
 *	keyring, never another's.  Prints counts; exits 1 on any failure.
 *
 *   job_keyring threads ROUNDS
 *	ROUNDS times, a process of THREADS threads, each asking for its own
 *	session keyring all the while, and one more creating threads that
 *	do the same and forking children, creates a job (as root, for root):
 *	credentials are per thread, and every thread, those created during
 *	the join included, must come to hold the job's keyring, and every
 *	child forked once the create returned too.  Prints counts; exits 1
 *	on any failure.
 *
 *   job_keyring split JID ROUNDS
 *	For keyring_bridge mode=link, ROUNDS times: a process whose threads
 *	hold different session keyrings (its leader's and a keeper thread's
 *	one of root's own, another thread's one it joined), its leader
 *	exited, is attached to job JID.  The join's run goes to the first
 *	live thread, which chose another keyring, and queues the keeper's,
 *	which must link the job's keyring into the keyring it kept.  Exits
 *	1 if a keeper does not find it there within SETTLE_MS.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/keyctl.h>

#include "../userspace/job.h"
#include "../include/uapi/job.h"

#define WORKERS		4
#define RACE_HID	0x7aULL
#define DESC_MAX	128

enum outcome { CREATED, ATTACHED, ATTACHED_BY_OTHER, ENDED_FIRST, DETACHED,
	       NR_OUTCOMES, FAILED = NR_OUTCOMES };

static const char *const outcome_names[NR_OUTCOMES] = {
	"created", "attached itself", "attached by another",
	"found the job ended", "detached the job",
};

/* How a round's process leaves its job. */
enum leave { LEAVE_EXIT, LEAVE_DETACH_SELF, LEAVE_DETACH_JOB };

static long keyctl(int op, unsigned long a, unsigned long b, unsigned long c)
{
	return syscall(SYS_keyctl, op, a, b, c, 0);
}

static int su_fork(void)
{
	long session, key;
	pid_t pid;
	int status;

	if (setresgid(0, 0, 0) || setresuid(0, 0, 0)) {
		perror("job_keyring su-fork: setresuid (is it setuid root?)");
		return 1;
	}
	if (keyctl(KEYCTL_JOIN_SESSION_KEYRING, 0, 0, 0) < 0) {
		perror("job_keyring su-fork: join a new session keyring");
		return 1;
	}
	pid = fork();
	if (pid < 0) {
		perror("job_keyring su-fork: fork");
		return 1;
	}
	if (!pid) {
		key = syscall(SYS_add_key, "user", "root-secret", "r00t", 4,
			      KEY_SPEC_SESSION_KEYRING);
		session = keyctl(KEYCTL_GET_KEYRING_ID,
				 KEY_SPEC_SESSION_KEYRING, 0, 0);
		if (key < 0 || session < 0) {
			perror("job_keyring su-fork: add a key to @s");
			_exit(1);
		}
		printf("session=%ld key=%ld\n", session, key);
		_exit(fflush(stdout) ? 1 : 0);
	}
	return waitpid(pid, &status, 0) == pid && WIFEXITED(status) ?
	       WEXITSTATUS(status) : 1;
}

/*
 * Checks the session keyring of a process that joined job @jid: while it
 * is a member, it is that job's keyring, live.  0 or FAILED.
 */
static int check_session(jid_t jid)
{
	char desc[DESC_MAX], want[JOB_KEYRING_NAME_SIZE];
	const char *name;
	long n;

	n = keyctl(KEYCTL_DESCRIBE, KEY_SPEC_SESSION_KEYRING,
		   (unsigned long)desc, sizeof(desc));
	if (job_getjid(getpid()) != jid)
		return 0;	/* detached by another meanwhile */
	if (n < 0 || n > (long)sizeof(desc)) {
		fprintf(stderr, "member of %#" PRIx64 ": session keyring: %s\n",
			(uint64_t)jid, n < 0 ? strerror(errno) : "too long");
		return FAILED;
	}
	snprintf(want, sizeof(want), JOB_KEYRING_NAME_FORMAT,
		 (unsigned long long)jid);
	name = strrchr(desc, ';');
	if (!name || strcmp(name + 1, want)) {
		fprintf(stderr, "member of %#" PRIx64 ": session keyring %s\n",
			(uint64_t)jid, desc);
		return FAILED;
	}
	/* The keyring is usable: a job that ended would have revoked it. */
	if (syscall(SYS_add_key, "user", "round", "x", 1,
		    KEY_SPEC_SESSION_KEYRING) < 0 &&
	    job_getjid(getpid()) == jid) {
		fprintf(stderr, "member of %#" PRIx64 ": add a key: %s\n",
			(uint64_t)jid, strerror(errno));
		return FAILED;
	}
	return 0;
}

static int failed(const char *what, jid_t jid)
{
	fprintf(stderr, "%d: %s %#" PRIx64 ": %s\n", (int)getpid(), what,
		(uint64_t)jid, strerror(errno));
	return FAILED;
}

/* Joins @jid and leaves it as @leave says, maybe ending the job. */
static int join_round(jid_t jid, enum leave leave)
{
	enum outcome how = CREATED;

	if (job_create(jid, 0, 0) != jid) {
		/* Detached by another before its creator joined it. */
		if (errno == ENODATA)
			return ENDED_FIRST;
		if (errno != EBUSY)
			return failed("create", jid);
		if (job_attachpid(getpid(), jid) == jid)
			how = ATTACHED;
		else if (errno == ENODATA)
			return ENDED_FIRST;
		else
			return failed("attach itself to", jid);
	}
	if (check_session(jid))
		return FAILED;
	if (leave == LEAVE_DETACH_JOB && job_detachjid(jid) >= 0)
		return DETACHED;
	/* A detach that another's detach beat leaves it outside as well. */
	if (leave != LEAVE_EXIT && job_detachpid(getpid()) == (jid_t)-1 &&
	    errno != ENODATA)
		return failed("detach itself from", jid);
	return how;
}

/* A round in a child, which leaves its job by exiting. */
static int exit_round(jid_t jid)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return failed("fork for", jid);
	if (!pid)
		_exit(join_round(jid, LEAVE_EXIT));
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return failed("a member, status", status);
	return WEXITSTATUS(status);
}

/* A process outside any job, attached by its parent, checks itself. */
static int attached_round(jid_t jid)
{
	int go[2], status;
	char c;
	pid_t pid;

	if (pipe(go))
		return FAILED;
	pid = fork();
	if (pid < 0)
		return FAILED;
	if (!pid) {
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(ENDED_FIRST);
		_exit(check_session(jid) ? FAILED : ATTACHED_BY_OTHER);
	}
	close(go[0]);
	if (job_attachpid(pid, jid) != jid && errno != ENODATA)
		fprintf(stderr, "attach %d to %#" PRIx64 ": %s\n", (int)pid,
			(uint64_t)jid, strerror(errno));
	else if (job_getjid(pid) == jid && write(go[1], "", 1) != 1)
		perror("write");
	close(go[1]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return failed("the attached process, status", status);
	return WEXITSTATUS(status);
}

static int worker(int w, unsigned int rounds, const jid_t *jids)
{
	unsigned int i, count[NR_OUTCOMES + 1] = { 0 };
	int how;

	/* The worker itself joins and detaches, but for every other round. */
	for (i = 0; i < rounds; i++) {
		jid_t jid = jids[(i + w) & 1];

		switch (i % 4) {
		case 1:
			how = exit_round(jid);
			break;
		case 3:
			how = attached_round(jid);
			break;
		default:
			how = join_round(jid, i % 8 ? LEAVE_DETACH_SELF :
					 LEAVE_DETACH_JOB);
			break;
		}
		count[how > NR_OUTCOMES ? FAILED : how]++;
	}
	for (i = 0; i < NR_OUTCOMES; i++)
		printf("worker %d: %s: %u\n", w, outcome_names[i], count[i]);
	printf("worker %d: failed: %u\n", w, count[FAILED]);
	return count[FAILED] ? 1 : 0;
}

static int race(unsigned int rounds)
{
	jid_t jids[2] = { RACE_HID << 32 | 1, RACE_HID << 32 | 2 };
	int w, status, failed = 0;
	pid_t pids[WORKERS];

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (w = 0; w < WORKERS; w++) {
		pids[w] = fork();
		if (pids[w] < 0) {
			perror("fork");
			return 1;
		}
		if (!pids[w])
			_exit(worker(w, (rounds + WORKERS - 1) / WORKERS, jids));
	}
	for (w = 0; w < WORKERS; w++)
		if (waitpid(pids[w], &status, 0) != pids[w] ||
		    !WIFEXITED(status) || WEXITSTATUS(status))
			failed = 1;
	return failed;
}

#define THREADS		8
#define SPAWNED_MAX	64
#define SETTLE_MS	5000
#define FORKS_AFTER	4

/* One round of "threads": what its threads share. */
struct threads_round {
	char want[JOB_KEYRING_NAME_SIZE];	/* once known */
	atomic_bool known, stop;
	atomic_int holding;	/* threads that saw the job's keyring */
	atomic_int children, children_bad, children_early;
	pthread_t spawned[SPAWNED_MAX];
	atomic_int nr_spawned;
};

static struct threads_round tr;

/* Whether the calling thread's session keyring is named @want. */
static bool session_is(const char *want)
{
	char desc[DESC_MAX];
	const char *name;
	long n = keyctl(KEYCTL_DESCRIBE, KEY_SPEC_SESSION_KEYRING,
			(unsigned long)desc, sizeof(desc));

	if (n < 0 || n > (long)sizeof(desc))
		return false;
	name = strrchr(desc, ';');
	return name && !strcmp(name + 1, want);
}

/*
 * A thread of the round: asks for its session keyring until it is the
 * job's (counted once), then waits for the end.
 */
static void *threads_watch(void *arg)
{
	bool held = false;

	(void)arg;
	while (!atomic_load(&tr.stop)) {
		if (!held && atomic_load(&tr.known) && session_is(tr.want)) {
			held = true;
			atomic_fetch_add(&tr.holding, 1);
		}
		usleep(100);
	}
	return NULL;
}

/*
 * A child forked during the round: in a job, it has the job's keyring from
 * its first instruction (its own settle runs before it).
 */
static void threads_child(void)
{
	char want[JOB_KEYRING_NAME_SIZE];
	jid_t jid = job_getjid(getpid());

	if (jid == 0 || jid == (jid_t)-1)
		_exit(0);
	snprintf(want, sizeof(want), JOB_KEYRING_NAME_FORMAT,
		 (unsigned long long)jid);
	_exit(session_is(want) ? 0 : 1);
}

/*
 * Creates watching threads and forks children while the job is made, and
 * forks a few more once it is, from this thread, whose own run of the
 * join may not have come yet.  A child forked while the create is under
 * way may join the job before keyring_bridge follows the process (the
 * join is told after the membership): it is counted, not checked.
 */
static void *threads_spawn(void *arg)
{
	int after = 0;

	(void)arg;
	while (!atomic_load(&tr.stop) && after < FORKS_AFTER) {
		int i = atomic_load(&tr.nr_spawned);
		bool known = atomic_load(&tr.known);
		pid_t pid;
		int status;

		if (known) {
			after++;
		} else if (i < SPAWNED_MAX &&
			   !pthread_create(&tr.spawned[i], NULL, threads_watch,
					   NULL)) {
			atomic_store(&tr.nr_spawned, i + 1);
		}
		pid = fork();
		if (!pid)
			threads_child();
		if (pid > 0 && waitpid(pid, &status, 0) == pid) {
			atomic_fetch_add(&tr.children, 1);
			if (WIFEXITED(status) && !WEXITSTATUS(status))
				continue;
			atomic_fetch_add(known ? &tr.children_bad :
					 &tr.children_early, 1);
		}
	}
	return NULL;
}

/* The process of one round; exits 0 when every thread got the keyring. */
static int threads_process(void)
{
	pthread_t watchers[THREADS], spawner;
	jid_t jid = 0;
	int i, expected, ms, ok;

	/*
	 * A thread without a session keyring that asks for it is given its
	 * user's, in its own credentials: a session keyring of its choosing,
	 * which a join leaves alone.  Asked for first, it is every thread's.
	 */
	session_is("");
	for (i = 0; i < THREADS; i++)
		if (pthread_create(&watchers[i], NULL, threads_watch, NULL))
			return failed("pthread_create", 0);
	if (pthread_create(&spawner, NULL, threads_spawn, NULL))
		return failed("pthread_create", 0);
	usleep(2000);
	jid = job_create(0, 0, 0);
	if (jid == (jid_t)-1)
		return failed("create a job", 0);
	snprintf(tr.want, sizeof(tr.want), JOB_KEYRING_NAME_FORMAT,
		 (unsigned long long)jid);
	atomic_store(&tr.known, true);
	pthread_join(spawner, NULL);
	/* The main thread too, which asks here. */
	expected = THREADS + atomic_load(&tr.nr_spawned) + 1;
	for (ms = 0; ms < SETTLE_MS; ms++) {
		if (atomic_load(&tr.holding) + session_is(tr.want) == expected)
			break;
		usleep(1000);
	}
	ok = atomic_load(&tr.holding) + session_is(tr.want) == expected;
	atomic_store(&tr.stop, true);
	for (i = 0; i < THREADS; i++)
		pthread_join(watchers[i], NULL);
	for (i = 0; i < atomic_load(&tr.nr_spawned); i++)
		pthread_join(tr.spawned[i], NULL);
	if (!ok || atomic_load(&tr.children_bad)) {
		fprintf(stderr, "job %#" PRIx64 ": %d of %d threads hold its keyring, %d of %d children in it without it\n",
			(uint64_t)jid, atomic_load(&tr.holding) +
			session_is(tr.want), expected,
			atomic_load(&tr.children_bad),
			atomic_load(&tr.children));
		return 1;
	}
	printf("threads=%d children=%d (%d forked during the create without the keyring)\n",
	       expected, atomic_load(&tr.children),
	       atomic_load(&tr.children_early));
	return 0;
}

static int threads(unsigned int rounds)
{
	unsigned int round, bad = 0;
	int status;
	pid_t pid;

	for (round = 0; round < rounds; round++) {
		pid = fork();
		if (pid < 0)
			return failed("fork", 0);
		if (!pid) {
			fflush(stdout);
			_exit(threads_process());
		}
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			bad++;
	}
	printf("threads: %u rounds, %u failed\n", rounds, bad);
	return bad ? 1 : 0;
}

/* One process of "split": what its threads share. */
struct split_process {
	int jid_pipe[2];	/* the JID, once attached, for the keeper */
	int ready_pipe[2];	/* for the parent: the threads are made */
	atomic_bool joined_own;
};

static struct split_process sp;

/* Joins a session keyring of its own, then waits for the process's end. */
static void *split_own(void *arg)
{
	(void)arg;
	if (keyctl(KEYCTL_JOIN_SESSION_KEYRING, (unsigned long)"split-own",
		   0, 0) < 0)
		_exit(failed("join a session keyring of its own", 0));
	atomic_store(&sp.joined_own, true);
	for (;;)
		pause();
	return NULL;
}

/*
 * Keeps the leader's session keyring; once told the JID, ends the process
 * with 0 when the job's keyring is linked into it, else 1.
 */
static void *split_keeper(void *arg)
{
	char want[JOB_KEYRING_NAME_SIZE];
	jid_t jid;
	int ms;

	(void)arg;
	if (read(sp.jid_pipe[0], &jid, sizeof(jid)) != sizeof(jid))
		_exit(failed("read the JID", 0));
	snprintf(want, sizeof(want), JOB_KEYRING_NAME_FORMAT,
		 (unsigned long long)jid);
	for (ms = 0; ms < SETTLE_MS; ms++) {
		if (keyctl(KEYCTL_SEARCH, KEY_SPEC_SESSION_KEYRING,
			   (unsigned long)"keyring", (unsigned long)want) >= 0)
			_exit(0);
		usleep(1000);
	}
	fprintf(stderr, "job %#" PRIx64 ": its keyring is not linked into the session keyring the keeper thread kept\n",
		(uint64_t)jid);
	_exit(1);
}

/* The process of one round: its leader exits once its threads are made. */
static void split_process(void)
{
	pthread_t own, keeper;
	char ready = 0;

	if (keyctl(KEYCTL_JOIN_SESSION_KEYRING, (unsigned long)"split", 0,
		   0) < 0)
		_exit(failed("join a session keyring", 0));
	if (pthread_create(&own, NULL, split_own, NULL))
		_exit(failed("pthread_create", 0));
	while (!atomic_load(&sp.joined_own))
		usleep(100);
	if (pthread_create(&keeper, NULL, split_keeper, NULL))
		_exit(failed("pthread_create", 0));
	if (write(sp.ready_pipe[1], &ready, 1) != 1)
		_exit(failed("write the process's ready", 0));
	pthread_exit(NULL);
}

/* Whether @pid's leader is a zombie (its threads live on). */
static bool leader_exited(pid_t pid)
{
	char path[64], state = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	if (fscanf(f, "%*d (%*[^)]) %c", &state) != 1)
		state = 0;
	fclose(f);
	return state == 'Z';
}

static int split(jid_t jid, unsigned int rounds)
{
	unsigned int round, bad = 0;
	int status;
	char ready;
	pid_t pid;

	for (round = 0; round < rounds; round++) {
		if (pipe(sp.jid_pipe) || pipe(sp.ready_pipe))
			return failed("pipe", jid);
		pid = fork();
		if (pid < 0)
			return failed("fork", jid);
		if (!pid)
			split_process();
		if (read(sp.ready_pipe[0], &ready, 1) != 1)
			return failed("read the process's ready", jid);
		while (!leader_exited(pid))
			usleep(1000);
		if (job_attachpid(pid, jid) == (jid_t)-1)
			return failed("attach the process to", jid);
		if (write(sp.jid_pipe[1], &jid, sizeof(jid)) != sizeof(jid))
			return failed("write the JID", jid);
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			bad++;
		close(sp.jid_pipe[0]);
		close(sp.jid_pipe[1]);
		close(sp.ready_pipe[0]);
		close(sp.ready_pipe[1]);
	}
	printf("split: %u rounds, %u failed\n", rounds, bad);
	return bad ? 1 : 0;
}

static int drop_back(char **argv)
{
	uid_t uid = getuid();
	gid_t gid = getgid();

	if (setresgid(gid, gid, gid) || setresuid(uid, uid, uid)) {
		perror("job_keyring drop-back: setresuid");
		return 1;
	}
	execvp(argv[0], argv);
	perror("job_keyring drop-back: exec");
	return 1;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "su-fork"))
		return su_fork();
	if (argc > 2 && !strcmp(argv[1], "drop-back"))
		return drop_back(argv + 2);
	if (argc == 3 && !strcmp(argv[1], "race") && atoi(argv[2]) > 0)
		return race(atoi(argv[2]));
	if (argc == 3 && !strcmp(argv[1], "threads") && atoi(argv[2]) > 0)
		return threads(atoi(argv[2]));
	if (argc == 4 && !strcmp(argv[1], "split") && atoi(argv[3]) > 0)
		return split(strtoull(argv[2], NULL, 0), atoi(argv[3]));
	fprintf(stderr, "usage: job_keyring su-fork | drop-back COMMAND... | race ROUNDS | threads ROUNDS | split JID ROUNDS\n");
	return 2;
}
