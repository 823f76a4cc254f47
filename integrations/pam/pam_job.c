// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pam_job: every login session in a job container (job.ko), as SGI's
 * pam_job did, so that all the processes of a login can be listed, signalled
 * and accounted as one with the session's JID.
 *
 *   session optional pam_job.so [hid=HEX] [keyring] [fatal] [debug]
 *
 * open_session puts the PAM application's process, and so every process it
 * forks for the session, in a job owned by the session's user, and sets
 * JOB_JID=0x... in the PAM environment.  close_session does nothing: the job
 * ends with its last process, as jobs do, not when the login ends.
 */
#include <errno.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>
#include <security/pam_ext.h>
#include <security/pam_modules.h>
#include <security/pam_modutil.h>

#include "job.h"
#include "job_keyring.h"
#include "jobctl_util.h"

/* How many JIDs above the session's pid hid= tries before giving up. */
#define HID_JID_TRIES 64

struct pam_job_options {
	bool keyring;	/* the session must possess the job's keyring */
	bool fatal;	/* no job, no session */
	bool debug;
	bool have_hid;
	unsigned int hid;
};

/* Returns -1 after logging every bad option, so that all can be fixed. */
static int parse_options(pam_handle_t *pamh, int argc, const char **argv,
			 struct pam_job_options *opt)
{
	int i, ret = 0;

	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "keyring")) {
			opt->keyring = true;
		} else if (!strcmp(argv[i], "fatal")) {
			opt->fatal = true;
		} else if (!strcmp(argv[i], "debug")) {
			opt->debug = true;
		} else if (!strncmp(argv[i], "hid=", 4)) {
			opt->have_hid = parse_hid(argv[i] + 4, &opt->hid) == 0;
			if (!opt->have_hid) {
				pam_syslog(pamh, LOG_ERR,
					   "bad option %s: hid= takes a host id of 1 to 8 hex digits, e.g. hid=2a",
					   argv[i]);
				ret = -1;
			}
		} else {
			pam_syslog(pamh, LOG_ERR,
				   "unknown option %s: pam_job takes hid=HEX, keyring, fatal and debug",
				   argv[i]);
			ret = -1;
		}
	}
	return ret;
}

/*
 * A new job whose JID has the host id @hid in its upper half, without
 * changing the node's host id (JOB_SETHID would change it for every other
 * creator of jobs, batch systems included): the lower half is the session
 * process's pid, or the next free value above it.
 */
static jid_t create_with_hid(unsigned int hid, uid_t uid)
{
	uint32_t low = (uint32_t)getpid();
	jid_t jid;
	int tries;

	for (tries = 0; tries < HID_JID_TRIES; tries++) {
		jid = job_create((jid_t)hid << 32 | low, uid, 0);
		if (jid != (jid_t)-1 || errno != EBUSY)
			return jid;
		if (!++low)
			low = 1;
	}
	return (jid_t)-1;
}

/* A new job owned by @uid with the calling process in it. */
static jid_t new_job(const struct pam_job_options *opt, uid_t uid)
{
	if (opt->have_hid)
		return create_with_hid(opt->hid, uid);
	return job_create(0, uid, 0);
}

/*
 * The session's job.  A process already in a job of the session's user
 * stays in it (su or sudo to oneself inside a batch job or another login):
 * a job must not be escapable by starting a session.  A session of another
 * user (su - alice in root's job) gets a job of its own: it must share no
 * job, keyring or kill with another user.
 */
static jid_t session_job(pam_handle_t *pamh, const struct pam_job_options *opt,
			 uid_t uid, bool *joined)
{
	char jid_text[JID_STRING_SIZE];
	jid_t jid = job_getjid(getpid());
	uid_t owner;

	*joined = true;
	if (jid == (jid_t)-1 && errno != ENODATA)
		return (jid_t)-1;
	if (jid == (jid_t)-1)
		return new_job(opt, uid);
	format_jid(jid, jid_text);
	owner = job_getuid(jid);
	if (owner == uid) {
		*joined = false;
		if (opt->debug)
			pam_syslog(pamh, LOG_DEBUG,
				   "already in job %s: the session stays in it",
				   jid_text);
		return jid;
	}
	pam_syslog(pamh, LOG_INFO,
		   "in job %s of uid %d: the session of uid %u gets a job of its own",
		   jid_text, owner == (uid_t)-1 ? -1 : (int)owner, (unsigned int)uid);
	return new_job(opt, uid);
}

static void log_job_error(pam_handle_t *pamh, const char *user, int err)
{
	const char *what;

	switch (err) {
	case ENOSYS:
		what = "the kernel has no job support (/proc/job is missing: modprobe job, package pnotify-dkms)";
		break;
	case EPERM:
		what = "not permitted (creating a job needs CAP_SYS_RESOURCE: the PAM application must run as root)";
		break;
	case EBUSY:
		what = "no free JID (with hid=, the 64 JIDs above the session's pid are taken)";
		break;
	case 0:
		what = "job creation is disabled on this host (host id 0xffffffff: jsethid to enable it)";
		break;
	default:
		what = strerror(err);
		break;
	}
	pam_syslog(pamh, LOG_ERR, "no job for the session of %s: %s", user, what);
}

/*
 * The session possesses the job's keyring of the user @uid; @jid_text names
 * the job.  What the session modules before pam_job left for the user in
 * the application's session keyring (pam_krb5's credential cache in
 * pam_keyinit's keyring) is linked into the job's keyring first, where the
 * session's processes find it.  Root setting up the user's session, having
 * just @joined the job, leaves its session keyring alone when
 * keyring_bridge gives the job's keyring to the session's first program
 * that runs as the user (job(7)); a session staying in the job it was in
 * (su to oneself) has no join for keyring_bridge to settle.
 */
static int join_job_keyring(pam_handle_t *pamh,
			    const struct pam_job_options *opt, jid_t jid,
			    uid_t uid, bool joined, const char *jid_text)
{
	long linked = job_keyring_hand_over(jid);
	int ret = 0;

	if (linked < 0 && errno != ENOKEY) {
		pam_syslog(pamh, LOG_ERR,
			   "cannot link the keys of the session keyring into the keyring of job %s: %m",
			   jid_text);
		ret = -1;
	} else if (linked > 0 && opt->debug) {
		pam_syslog(pamh, LOG_DEBUG,
			   "%ld keys of the session keyring linked into the keyring of job %s",
			   linked, jid_text);
	}
	if (joined && geteuid() != uid && job_keyring_bridged() == 1 &&
	    job_keyring_serial(jid) > 0)
		return ret;
	if (job_keyring_join(jid) > 0)
		return ret;
	if (errno == ENOKEY)
		pam_syslog(pamh, LOG_ERR,
			   "job %s has no keyring (modprobe keyring_bridge, or drop the keyring option)",
			   jid_text);
	else
		pam_syslog(pamh, LOG_ERR,
			   "cannot give the session the keyring of job %s: %m",
			   jid_text);
	return -1;
}

/* PAM_SUCCESS or PAM_SESSION_ERR, whatever failed. */
static int open_job_session(pam_handle_t *pamh,
			    const struct pam_job_options *opt)
{
	char jid_text[JID_STRING_SIZE], env[sizeof("JOB_JID=") + JID_STRING_SIZE];
	struct passwd *pw;
	const void *item;
	const char *user;
	bool joined;
	jid_t jid;

	/* pam_get_user() could prompt for a name, here in the session phase. */
	if (pam_get_item(pamh, PAM_USER, &item) != PAM_SUCCESS || !item) {
		pam_syslog(pamh, LOG_ERR, "no user for the session");
		return PAM_SESSION_ERR;
	}
	user = item;
	pw = pam_modutil_getpwnam(pamh, user);
	if (!pw) {
		pam_syslog(pamh, LOG_ERR, "no user %s in the password database", user);
		return PAM_SESSION_ERR;
	}
	jid = session_job(pamh, opt, pw->pw_uid, &joined);
	if (jid == (jid_t)-1 || jid == 0) {
		log_job_error(pamh, user, jid ? errno : 0);
		return PAM_SESSION_ERR;
	}
	format_jid(jid, jid_text);
	if (opt->keyring &&
	    join_job_keyring(pamh, opt, jid, pw->pw_uid, joined, jid_text) < 0)
		return PAM_SESSION_ERR;
	snprintf(env, sizeof(env), "JOB_JID=%s", jid_text);
	if (pam_putenv(pamh, env) != PAM_SUCCESS) {
		pam_syslog(pamh, LOG_ERR, "cannot set %s in the PAM environment", env);
		return PAM_SESSION_ERR;
	}
	if (opt->debug)
		pam_syslog(pamh, LOG_DEBUG, "session of %s in job %s", user, jid_text);
	return PAM_SUCCESS;
}

PAM_EXTERN int pam_sm_open_session(pam_handle_t *pamh, int flags, int argc,
				   const char **argv)
{
	struct pam_job_options opt = { 0 };
	int ret;

	(void)flags;
	ret = parse_options(pamh, argc, argv, &opt) < 0 ? PAM_SESSION_ERR :
	      open_job_session(pamh, &opt);
	/* SGI's pam_job logged and let the login in; fatal refuses it. */
	if (ret != PAM_SUCCESS && !opt.fatal)
		return PAM_SUCCESS;
	return ret;
}

/* The job outlives the login when processes of it do (nohup, daemons). */
PAM_EXTERN int pam_sm_close_session(pam_handle_t *pamh, int flags, int argc,
				    const char **argv)
{
	(void)pamh;
	(void)flags;
	(void)argc;
	(void)argv;
	return PAM_SUCCESS;
}
