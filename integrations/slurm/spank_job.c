// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * spank_job: a Slurm SPANK plugin that runs every Slurm job in a job
 * container (job.ko) on each of its nodes, with JID = Slurm job id << 32,
 * so that an admin finds, signals and accounts a Slurm job's processes on
 * any node with one JID, whatever they did to leave Slurm's process
 * tracking (double fork, setsid).
 *
 *   required spank_job.so [keys=VAR[,VAR...]]      (plugstack.conf)
 *
 * The lower half of a Slurm job's JID is 0, which job.ko's counter (kernel
 * chosen JIDs, pam_job's default) and pam_job's hid= never give: Slurm jobs
 * and login sessions cannot share a JID, whatever the host ids, and the
 * JID of a Slurm job does not depend on the node's host id, which jsethid
 * may change while the job runs.
 *
 * - task_init_privileged (each task, after fork, still root, before exec):
 *   the task creates the job, or joins it when another task or step of the
 *   same Slurm job made it first.  The tasks join, not slurmstepd: the step
 *   daemon must stay out of the job, so that killing the job never kills
 *   Slurm's own daemon and the job ends with the user's last process.
 * - task_init (each task, as the user, before exec): the step's variables
 *   named by keys= move from the environment into the job's keyring.
 * - exit (slurmstepd, step end): the job's accounting so far in the step's
 *   log (slurmd's log file).
 * - job_epilog (slurmd, when the Slurm job ends on the node, after scancel
 *   too): SIGKILL to every process left in the job, then its final
 *   accounting; a failure (processes left) fails the epilog, which drains
 *   the node.  Not at step end: the steps of a Slurm job share its JID,
 *   and a batch script's job must survive the end of each srun step in it.
 *
 * A job is the plugin's only if it made it for this Slurm job: the creating
 * task records the job's start time in STATE_DIR/<Slurm job id> (root
 * only, under a lock), and a task attaches, and the epilog kills, only when
 * the job holding the JID has the Slurm job's user as owner and that start
 * time.  Any other job holding the JID (root's jobctl create --jid, what a
 * failed epilog of an earlier Slurm job with the same id left) is left
 * alone and the task fails.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <linux/keyctl.h>
#include <slurm/spank.h>

#include "job.h"
#include "job_keyring.h"
#include "jobctl_util.h"
#include "../include/uapi/job.h"

SPANK_PLUGIN(job, 1);

#define STATE_DIR "/run/spank_job"
/* A user key's payload is at most 32767 bytes. */
#define KEY_VALUE_MAX 32767
/* How long the epilog waits for the killed processes to be gone. */
#define END_WAIT_MS 10000
#define END_POLL_MS 50
/*
 * The batch script's step id, SLURM_BATCH_SCRIPT of slurm/slurm.h: that
 * header cannot be included here, its struct job_info (Slurm's job
 * description) clashes with the one of the job ABI.
 */
#define SLURM_BATCH_STEP_ID 0xfffffffbU
/* A create that loses to a job ending between its EBUSY and the attach. */
#define ENTER_TRIES 3
/* Where sbatch and srun keep their --export list, values included. */
#define EXPORT_VAR "SLURM_EXPORT_ENV"

struct spank_job_options {
	const char *keys;	/* comma-separated variable names, or NULL */
};

/*
 * The job keyring's serial, found by task_init_privileged (as root, from
 * keyring_bridge's root-only map) for task_init (as the user) of the same
 * task process.
 */
static long job_keyring;

static int parse_options(int ac, char **av, struct spank_job_options *opt)
{
	int i, ret = 0;

	for (i = 0; i < ac; i++) {
		if (!strncmp(av[i], "keys=", 5) && av[i][5]) {
			opt->keys = av[i] + 5;
		} else if (!strncmp(av[i], "hid=", 4)) {
			slurm_error("spank_job: option %s: a Slurm job's JID is its Slurm job id << 32 on every node, whatever the host id: drop hid=",
				    av[i]);
			ret = -1;
		} else {
			slurm_error("spank_job: unknown option %s: spank_job takes keys=VAR[,VAR...]",
				    av[i]);
			ret = -1;
		}
	}
	return ret;
}

/* The Slurm job's JID and user and, for messages, the JID's text. */
struct slurm_jid {
	jid_t jid;
	uint32_t job_id;
	uid_t uid;
	char text[JID_STRING_SIZE];
};

static int slurm_jid(spank_t sp, int ac, char **av, struct slurm_jid *sj,
		     struct spank_job_options *opt)
{
	spank_err_t err;

	if (parse_options(ac, av, opt) < 0)
		return -1;
	err = spank_get_item(sp, S_JOB_ID, &sj->job_id);
	if (err != ESPANK_SUCCESS || !sj->job_id) {
		slurm_error("spank_job: no Slurm job id: %s", spank_strerror(err));
		return -1;
	}
	err = spank_get_item(sp, S_JOB_UID, &sj->uid);
	if (err != ESPANK_SUCCESS) {
		slurm_error("spank_job: Slurm job %u: no user id: %s",
			    sj->job_id, spank_strerror(err));
		return -1;
	}
	sj->jid = (jid_t)sj->job_id << 32;
	format_jid(sj->jid, sj->text);
	return 0;
}

/*
 * The Slurm job's record on this node, STATE_DIR/<Slurm job id>, opened
 * and locked: the tasks of all its steps and its epilog take turns.
 */
static int state_open(const struct slurm_jid *sj, char *path, size_t size)
{
	int fd;

	if (mkdir(STATE_DIR, 0700) < 0 && errno != EEXIST) {
		slurm_error("spank_job: cannot make %s: %m", STATE_DIR);
		return -1;
	}
	snprintf(path, size, "%s/%" PRIu32, STATE_DIR, sj->job_id);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0 || flock(fd, LOCK_EX) < 0) {
		slurm_error("spank_job: Slurm job %u: cannot open and lock %s: %m",
			    sj->job_id, path);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* The start time recorded when the plugin made the job, 0 if none. */
static uint64_t state_start(int fd)
{
	char text[32];
	ssize_t n = pread(fd, text, sizeof(text) - 1, 0);

	if (n <= 0)
		return 0;
	text[n] = '\0';
	return strtoull(text, NULL, 10);
}

static int state_record(const struct slurm_jid *sj, int fd, uint64_t start)
{
	char text[32];
	int n = snprintf(text, sizeof(text), "%" PRIu64 "\n", start);

	if (ftruncate(fd, 0) < 0 || pwrite(fd, text, n, 0) != n) {
		slurm_error("spank_job: Slurm job %u: cannot record job %s in %s: %m",
			    sj->job_id, sj->text, STATE_DIR);
		return -1;
	}
	return 0;
}

/*
 * Whether the live job holding the Slurm job's JID is the one the plugin
 * made for it: 1 yes, 0 no (logged), -1 with errno (ENODATA: no such job).
 */
static int job_is_ours(const struct slurm_jid *sj, int fd)
{
	struct job_info info = { .jid = sj->jid };
	uint64_t start;

	if (job_getinfo(sj->jid, &info) < 0)
		return -1;
	start = state_start(fd);
	if (info.uid == sj->uid && start && info.start_time_ns == start)
		return 1;
	slurm_error("spank_job: JID %s is held by a job of uid %u that spank_job did not make for Slurm job %u of uid %u: left alone",
		    sj->text, info.uid, sj->job_id, (unsigned int)sj->uid);
	return 0;
}

/* Creates the job, with the calling task in it, and records it. */
static int create_job(const struct slurm_jid *sj, int fd)
{
	struct job_info info = { .jid = sj->jid };

	if (job_create(sj->jid, sj->uid, 0) != sj->jid)
		return -1;
	if (job_getinfo(sj->jid, &info) < 0)
		return -1;
	return state_record(sj, fd, info.start_time_ns);
}

/* Why a task could not enter its job; errno 0: job_create() returned 0. */
static const char *enter_error(int err)
{
	if (!err)
		return "job creation is disabled on this node (host id 0xffffffff: jsethid to enable it)";
	if (err == ENOSYS)
		return "the kernel has no job support (modprobe job)";
	return strerror(err);
}

/*
 * Puts the calling task in the job: creates it, or attaches to it when it
 * exists (EBUSY) and is the plugin's for this Slurm job; a job that ended
 * in between (ENODATA) is created again.
 */
static int enter_job(const struct slurm_jid *sj)
{
	char path[sizeof(STATE_DIR) + 16];
	int fd, tries, ours = 1, ret = -1;

	fd = state_open(sj, path, sizeof(path));
	if (fd < 0)
		return -1;
	for (tries = 0; tries < ENTER_TRIES && ret < 0; tries++) {
		errno = 0;
		if (!create_job(sj, fd)) {
			ret = 0;
			break;
		}
		if (errno != EBUSY)
			break;
		ours = job_is_ours(sj, fd);
		if (ours < 0 && errno == ENODATA)
			continue;
		if (ours <= 0)
			break;
		if (job_attachpid(getpid(), sj->jid) == sj->jid)
			ret = 0;
		else if (errno != ENODATA)
			break;
	}
	close(fd);
	if (ret < 0 && ours)
		slurm_error("spank_job: cannot put task %d in job %s: %s", (int)getpid(),
			    sj->text, enter_error(errno));
	return ret;
}

int slurm_spank_task_init_privileged(spank_t sp, int ac, char **av)
{
	struct spank_job_options opt = { 0 };
	struct slurm_jid sj;

	if (!spank_remote(sp))
		return 0;
	if (slurm_jid(sp, ac, av, &sj, &opt) < 0 || enter_job(&sj) < 0)
		return -1;
	/*
	 * keyring_bridge has made the job's keyring the task's session
	 * keyring (mode=session) or linked it there (mode=link); with
	 * mode=off the task gets it here.
	 */
	if (opt.keys) {
		job_keyring = job_keyring_join(sj.jid);
		if (job_keyring < 0) {
			slurm_error("spank_job: job %s: no job keyring for keys=: %m%s",
				    sj.text, errno == ENOKEY ? " (modprobe keyring_bridge)" : "");
			return -1;
		}
	}
	slurm_debug("spank_job: task %d in job %s", (int)getpid(), sj.text);
	return 0;
}

/* Whether @entry of an --export list sets one of the keys= variables. */
static bool sets_key(const char *entry, size_t length, const char *keys)
{
	const char *next, *comma;
	size_t name;

	for (next = keys; *next; next = comma ? comma + 1 : next + name) {
		comma = strchr(next, ',');
		name = comma ? (size_t)(comma - next) : strlen(next);
		if (name && length > name && entry[name] == '=' &&
		    !strncmp(entry, next, name))
			return true;
	}
	return false;
}

/*
 * sbatch --export=ALL,TOKEN=... leaves the value in SLURM_EXPORT_ENV too,
 * which every task inherits: the keys= entries go.
 */
static int scrub_export_list(spank_t sp, const char *keys)
{
	char **env, *list = NULL, *kept;
	const char *entry, *comma;
	size_t length, used = 0;
	int i, ret = 0;

	if (spank_get_item(sp, S_JOB_ENV, &env) != ESPANK_SUCCESS)
		return 0;
	for (i = 0; env[i]; i++)
		if (!strncmp(env[i], EXPORT_VAR "=", sizeof(EXPORT_VAR)))
			list = env[i] + sizeof(EXPORT_VAR);
	if (!list)
		return 0;
	kept = calloc(1, strlen(list) + 1);
	if (!kept) {
		slurm_error("spank_job: keys=: no memory to scrub %s", EXPORT_VAR);
		return -1;
	}
	for (entry = list; *entry; entry = comma ? comma + 1 : entry + length) {
		comma = strchr(entry, ',');
		length = comma ? (size_t)(comma - entry) : strlen(entry);
		if (!length || sets_key(entry, length, keys))
			continue;
		if (used)
			kept[used++] = ',';
		memcpy(kept + used, entry, length);
		used += length;
	}
	if (used < strlen(list)) {
		spank_err_t err = used ? spank_setenv(sp, EXPORT_VAR, kept, 1) :
					 spank_unsetenv(sp, EXPORT_VAR);

		if (err != ESPANK_SUCCESS) {
			slurm_error("spank_job: keys=: cannot scrub %s: %s",
				    EXPORT_VAR, spank_strerror(err));
			ret = -1;
		}
	}
	explicit_bzero(kept, used);
	free(kept);
	return ret;
}

/*
 * Adds the user key @name with @value to the job's keyring unless it holds
 * one already: the steps of a Slurm job share its keyring, and one must
 * not replace the secret another runs with.  The key is made in the
 * task's thread keyring and moved with KEYCTL_MOVE_EXCL, atomic against
 * the other tasks and steps.  0 if the job's keyring then holds @value as
 * @name (this task's or another task's of the same value), else -1.
 */
static int add_key_once(const char *name, const char *value)
{
	char held[KEY_VALUE_MAX + 1];
	size_t length = strlen(value);
	long key, found, n;
	int ret = -1;

	key = syscall(SYS_add_key, "user", name, value, length,
		      KEY_SPEC_THREAD_KEYRING);
	if (key < 0) {
		slurm_error("spank_job: keys=: cannot make key %s: %m", name);
		return -1;
	}
	if (!syscall(SYS_keyctl, KEYCTL_MOVE, key, KEY_SPEC_THREAD_KEYRING,
		     job_keyring, KEYCTL_MOVE_EXCL))
		return 0;
	if (errno == EEXIST) {
		found = syscall(SYS_keyctl, KEYCTL_SEARCH, job_keyring, "user",
				name, 0);
		n = found < 0 ? -1 : syscall(SYS_keyctl, KEYCTL_READ, found,
					     held, sizeof(held));
		if (n == (long)length && !memcmp(held, value, length))
			ret = 0;
		else
			slurm_error("spank_job: keys=: the job keyring holds %s already, with another value: a step never replaces another's key",
				    name);
		explicit_bzero(held, sizeof(held));
	} else {
		slurm_error("spank_job: keys=: cannot add key %s to the job keyring: %m",
			    name);
	}
	syscall(SYS_keyctl, KEYCTL_INVALIDATE, key);
	return ret;
}

/* Moves one variable of the task's environment into the job's keyring. */
static int move_to_keyring(spank_t sp, const char *name)
{
	char value[KEY_VALUE_MAX + 1];
	spank_err_t err;
	int ret = 0;

	err = spank_getenv(sp, name, value, sizeof(value));
	if (err == ESPANK_ENV_NOEXIST)
		return 0;
	if (err == ESPANK_NOSPACE) {
		slurm_error("spank_job: keys=: %s is longer than a key holds (%d bytes)",
			    name, KEY_VALUE_MAX);
		ret = -1;
	} else if (err != ESPANK_SUCCESS) {
		slurm_error("spank_job: keys=: cannot read %s: %s", name,
			    spank_strerror(err));
		ret = -1;
	} else if (!value[0]) {
		slurm_info("spank_job: keys=: %s is empty: no key", name);
	} else if (add_key_once(name, value) < 0) {
		ret = -1;
	}
	explicit_bzero(value, sizeof(value));
	if (spank_unsetenv(sp, name) != ESPANK_SUCCESS) {
		slurm_error("spank_job: keys=: cannot unset %s", name);
		ret = -1;
	}
	return ret;
}

int slurm_spank_task_init(spank_t sp, int ac, char **av)
{
	struct spank_job_options opt = { 0 };
	char name[SPANK_OPTION_MAXLEN + 1];
	const char *next, *comma;
	size_t length;
	int ret;

	if (!spank_remote(sp) || parse_options(ac, av, &opt) < 0 || !opt.keys)
		return 0;
	ret = scrub_export_list(sp, opt.keys);
	for (next = opt.keys; *next; next = comma ? comma + 1 : next + length) {
		comma = strchr(next, ',');
		length = comma ? (size_t)(comma - next) : strlen(next);
		if (!length || length >= sizeof(name)) {
			slurm_error("spank_job: keys=%s: empty or too long a variable name",
				    opt.keys);
			return -1;
		}
		memcpy(name, next, length);
		name[length] = '\0';
		if (move_to_keyring(sp, name) < 0)
			ret = -1;
	}
	return ret;
}

/* One line of the job's accounting in the Slurm log, if it is ours. */
static void log_accounting(const struct slurm_jid *sj, const char *when)
{
	char path[sizeof(STATE_DIR) + 16];
	struct job_acct acct;
	uint64_t start;
	int fd;

	fd = state_open(sj, path, sizeof(path));
	if (fd < 0)
		return;
	start = state_start(fd);
	close(fd);
	if (!start)
		return;
	if (job_getacct(sj->jid, &acct) < 0) {
		if (errno != ENODATA)
			slurm_error("spank_job: accounting of job %s: %m", sj->text);
		return;
	}
	if (acct.uid != sj->uid || acct.start_time_ns != start)
		return;
	slurm_info("spank_job: %s: job %s (Slurm job %u): user %.3f s, system %.3f s, peak RSS %llu kB, read %llu B, written %llu B, %llu processes, %llu tasks%s",
		   when, sj->text, sj->job_id, acct.utime_ns / 1e9,
		   acct.stime_ns / 1e9, (unsigned long long)acct.maxrss_kb,
		   (unsigned long long)acct.read_bytes,
		   (unsigned long long)acct.write_bytes,
		   (unsigned long long)acct.nr_processes,
		   (unsigned long long)acct.nr_tasks,
		   acct.ended ? ", ended" : "");
}

int slurm_spank_exit(spank_t sp, int ac, char **av)
{
	struct spank_job_options opt = { 0 };
	struct slurm_jid sj;
	uint32_t step_id;
	char when[32];

	if (!spank_remote(sp) || slurm_jid(sp, ac, av, &sj, &opt) < 0)
		return 0;
	if (spank_get_item(sp, S_JOB_STEPID, &step_id) != ESPANK_SUCCESS)
		return 0;
	if (step_id == SLURM_BATCH_STEP_ID)
		snprintf(when, sizeof(when), "batch step end");
	else
		snprintf(when, sizeof(when), "step %u end", step_id);
	log_accounting(&sj, when);
	return 0;
}

/* Waits, a bounded time, for the job to have no process left: how many are. */
static int wait_job_end(jid_t jid)
{
	const struct timespec poll = { 0, END_POLL_MS * 1000000L };
	int waited, left = 0;

	for (waited = 0; waited < END_WAIT_MS; waited += END_POLL_MS) {
		left = job_getpidcnt(jid);
		if (left <= 0)
			return 0;
		nanosleep(&poll, NULL);
	}
	return left;
}

/* SIGKILL to what is left in the Slurm job's job, if it is ours. */
static int kill_job(const struct slurm_jid *sj, int fd)
{
	int ours = job_is_ours(sj, fd), left;

	if (ours < 0 && errno == ENODATA)
		return 0;
	if (ours < 0) {
		slurm_error("spank_job: Slurm job %u: cannot read job %s: %m",
			    sj->job_id, sj->text);
		return -1;
	}
	if (!ours)
		return 0;
	/* job.ko's kill reaches children forked while it runs, too. */
	if (job_killjid(sj->jid, SIGKILL) < 0) {
		if (errno == ENODATA)
			return 0;
		slurm_error("spank_job: Slurm job %u: cannot kill job %s: %m",
			    sj->job_id, sj->text);
		return -1;
	}
	slurm_info("spank_job: Slurm job %u ended: SIGKILL to what was left of job %s",
		   sj->job_id, sj->text);
	left = wait_job_end(sj->jid);
	if (left) {
		slurm_error("spank_job: Slurm job %u: %d processes of job %s still alive %d s after SIGKILL: the node needs a look",
			    sj->job_id, left, sj->text, END_WAIT_MS / 1000);
		return -1;
	}
	return 0;
}

/*
 * A non-zero return fails Slurm's epilog on the node, which drains it:
 * processes that survive the job are the admin's to look at.
 */
int slurm_spank_job_epilog(spank_t sp, int ac, char **av)
{
	struct spank_job_options opt = { 0 };
	char path[sizeof(STATE_DIR) + 16];
	struct slurm_jid sj;
	int fd, ret;

	if (slurm_jid(sp, ac, av, &sj, &opt) < 0)
		return -1;
	fd = state_open(&sj, path, sizeof(path));
	if (fd < 0)
		return -1;
	ret = kill_job(&sj, fd);
	close(fd);
	log_accounting(&sj, "Slurm job end");
	if (unlink(path) < 0)
		slurm_error("spank_job: Slurm job %u: cannot remove %s: %m",
			    sj.job_id, path);
	return ret;
}
