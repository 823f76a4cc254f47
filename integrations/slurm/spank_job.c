// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * spank_job: a Slurm SPANK plugin that runs every Slurm job in a job
 * container (job.ko) on each of its nodes, with JID = host id << 32 | Slurm
 * job id, so that an admin finds, signals and accounts a Slurm job's
 * processes on any node with one JID, whatever they did to leave Slurm's
 * process tracking (double fork, setsid).
 *
 *   required spank_job.so [hid=HEX] [keys=VAR[,VAR...]]      (plugstack.conf)
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
 *   accounting.  Not at step end: the steps of a Slurm job share its JID,
 *   and a batch script's job must survive the end of each srun step in it.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
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

#define NODE_HID_PATH "/sys/module/job/parameters/hid"
/* A user key's payload is at most 32767 bytes; a token is far less. */
#define KEY_VALUE_MAX 4096
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

struct spank_job_options {
	bool have_hid;
	unsigned int hid;
	const char *keys;	/* comma-separated variable names, or NULL */
};

static int parse_options(int ac, char **av, struct spank_job_options *opt)
{
	int i, ret = 0;

	for (i = 0; i < ac; i++) {
		if (!strncmp(av[i], "hid=", 4)) {
			opt->have_hid = parse_hid(av[i] + 4, &opt->hid) == 0;
			if (!opt->have_hid) {
				slurm_error("spank_job: bad option %s: hid= takes a host id of 1 to 8 hex digits, e.g. hid=2a",
					    av[i]);
				ret = -1;
			}
		} else if (!strncmp(av[i], "keys=", 5) && av[i][5]) {
			opt->keys = av[i] + 5;
		} else {
			slurm_error("spank_job: unknown option %s: spank_job takes hid=HEX and keys=VAR[,VAR...]",
				    av[i]);
			ret = -1;
		}
	}
	return ret;
}

/* The node's host id: job.ko's hid= parameter, which jsethid changes. */
static int node_hid(unsigned int *hid)
{
	FILE *f = fopen(NODE_HID_PATH, "re");
	int ok;

	if (!f) {
		slurm_error("spank_job: cannot read %s: %m (is job.ko loaded? modprobe job)",
			    NODE_HID_PATH);
		return -1;
	}
	ok = fscanf(f, "%u", hid) == 1;
	fclose(f);
	if (!ok)
		slurm_error("spank_job: %s holds no host id", NODE_HID_PATH);
	return ok ? 0 : -1;
}

/* The Slurm job's JID and, for messages, its text and the job id. */
struct slurm_jid {
	jid_t jid;
	uint32_t job_id;
	char text[JID_STRING_SIZE];
};

static int slurm_jid(spank_t sp, int ac, char **av, struct slurm_jid *sj,
		     struct spank_job_options *opt)
{
	spank_err_t err;

	if (parse_options(ac, av, opt) < 0)
		return -1;
	if (!opt->have_hid && node_hid(&opt->hid) < 0)
		return -1;
	err = spank_get_item(sp, S_JOB_ID, &sj->job_id);
	if (err != ESPANK_SUCCESS) {
		slurm_error("spank_job: no Slurm job id: %s", spank_strerror(err));
		return -1;
	}
	sj->jid = (jid_t)opt->hid << 32 | sj->job_id;
	format_jid(sj->jid, sj->text);
	return 0;
}

/*
 * Puts the calling task in the job: creates it, or attaches to it when it
 * exists (EBUSY); a job that ended in between (ENODATA) is created again.
 */
static int enter_job(const struct slurm_jid *sj, uid_t uid)
{
	int tries;

	for (tries = 0; tries < ENTER_TRIES; tries++) {
		if (job_create(sj->jid, uid, 0) == sj->jid)
			return 0;
		if (errno != EBUSY)
			break;
		if (job_attachpid(getpid(), sj->jid) == sj->jid)
			return 0;
		if (errno != ENODATA)
			break;
	}
	slurm_error("spank_job: cannot put task %d in job %s: %m%s", (int)getpid(),
		    sj->text, errno == ENOSYS ? " (modprobe job)" : "");
	return -1;
}

int slurm_spank_task_init_privileged(spank_t sp, int ac, char **av)
{
	struct spank_job_options opt = { 0 };
	struct slurm_jid sj;
	spank_err_t err;
	uid_t uid;

	if (!spank_remote(sp))
		return 0;
	if (slurm_jid(sp, ac, av, &sj, &opt) < 0)
		return -1;
	err = spank_get_item(sp, S_JOB_UID, &uid);
	if (err != ESPANK_SUCCESS) {
		slurm_error("spank_job: no user id: %s", spank_strerror(err));
		return -1;
	}
	if (enter_job(&sj, uid) < 0)
		return -1;
	/*
	 * keyring_bridge's mode=session has made the job's keyring the task's
	 * session keyring already; with mode=link the task joins it here.
	 */
	if (opt.keys && job_keyring_join(sj.jid) < 0) {
		slurm_error("spank_job: job %s: no job keyring for keys=: %m (modprobe keyring_bridge)",
			    sj.text);
		return -1;
	}
	slurm_debug("spank_job: task %d in job %s", (int)getpid(), sj.text);
	return 0;
}

/* Moves one variable of the task's environment into its session keyring. */
static int move_to_keyring(spank_t sp, const char *name)
{
	char value[KEY_VALUE_MAX];
	spank_err_t err;

	err = spank_getenv(sp, name, value, sizeof(value));
	if (err == ESPANK_ENV_NOEXIST)
		return 0;
	if (err != ESPANK_SUCCESS) {
		slurm_error("spank_job: keys=: cannot read %s: %s", name,
			    spank_strerror(err));
		return -1;
	}
	if (syscall(SYS_add_key, "user", name, value, strlen(value),
		    KEY_SPEC_SESSION_KEYRING) < 0) {
		slurm_error("spank_job: keys=: cannot add key %s to the job keyring: %m",
			    name);
		return -1;
	}
	explicit_bzero(value, sizeof(value));
	return spank_unsetenv(sp, name) == ESPANK_SUCCESS ? 0 : -1;
}

int slurm_spank_task_init(spank_t sp, int ac, char **av)
{
	struct spank_job_options opt = { 0 };
	char name[SPANK_OPTION_MAXLEN + 1];
	const char *next, *comma;
	size_t length;

	if (!spank_remote(sp) || parse_options(ac, av, &opt) < 0 || !opt.keys)
		return 0;
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
			return -1;
	}
	return 0;
}

/* One line of the job's accounting in the Slurm log. */
static void log_accounting(const struct slurm_jid *sj, const char *when)
{
	struct job_acct acct;

	if (job_getacct(sj->jid, &acct) < 0) {
		if (errno != ENODATA)
			slurm_error("spank_job: accounting of job %s: %m", sj->text);
		return;
	}
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

/* Waits, a bounded time, for the job to have no process left. */
static void wait_job_end(jid_t jid)
{
	const struct timespec poll = { 0, END_POLL_MS * 1000000L };
	int waited;

	for (waited = 0; waited < END_WAIT_MS; waited += END_POLL_MS) {
		if (job_getpidcnt(jid) <= 0)
			return;
		nanosleep(&poll, NULL);
	}
}

int slurm_spank_job_epilog(spank_t sp, int ac, char **av)
{
	struct spank_job_options opt = { 0 };
	struct slurm_jid sj;

	if (slurm_jid(sp, ac, av, &sj, &opt) < 0)
		return 0;
	/* job.ko's kill reaches children forked while it runs, too. */
	if (job_killjid(sj.jid, SIGKILL) == 0) {
		slurm_info("spank_job: Slurm job %u ended: SIGKILL to what was left of job %s",
			   sj.job_id, sj.text);
		wait_job_end(sj.jid);
	} else if (errno != ENODATA) {
		slurm_error("spank_job: cannot kill job %s: %m", sj.text);
	}
	log_accounting(&sj, "Slurm job end");
	return 0;
}
