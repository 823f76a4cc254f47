// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libjob: SGI's job library over the ioctl interface of /proc/job.
 *
 * Every call opens /proc/job afresh rather than caching a descriptor: a
 * cached one would leak into children across fork() and exec(), go stale when
 * the module is reloaded, and need locking in threaded callers.  The open is
 * cheap next to what the batch systems do around each call.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "job.h"
#include "../include/uapi/job.h"

/*
 * Opens /proc/job, or fails with errno set: a missing /proc/job means no
 * kernel support, which SGI's clients (OpenPBS) recognise only as ENOSYS.
 */
static int job_open(void)
{
	int fd = open(JOB_PROC_PATH, O_RDONLY | O_CLOEXEC);

	if (fd < 0 && errno == ENOENT)
		errno = ENOSYS;
	return fd;
}

/* Issues one request.  Returns ioctl()'s result, or -1 with errno set. */
static int job_ioctl(enum job_request request, void *arg)
{
	int fd, ret, saved_errno;

	fd = job_open();
	if (fd < 0)
		return -1;
	ret = ioctl(fd, JOB_REQUEST(request), arg);
	saved_errno = errno;
	close(fd);
	errno = saved_errno;
	return ret;
}

/* Capacity in entries of a caller's buffer of bufsize bytes, or -1. */
static int list_capacity(const void *buf, int bufsize, size_t entry_size)
{
	if (bufsize < 0 || (!buf && bufsize > 0)) {
		errno = EINVAL;
		return -1;
	}
	return bufsize / (int)entry_size;
}

jid_t job_create(jid_t jid_requested, uid_t uid, int options)
{
	struct job_create req = {
		.jid = jid_requested,
		.user = (int)uid,
		.options = options,
	};

	if (job_ioctl(JOB_CREATE, &req) < 0)
		return (jid_t)-1;
	return req.r_jid;
}

jid_t job_getjid(pid_t pid)
{
	struct job_getjid req = { .pid = pid };

	if (job_ioctl(JOB_GETJID, &req) < 0)
		return (jid_t)-1;
	return req.r_jid;
}

jid_t job_waitjid(jid_t jid, int *status, int options)
{
	struct job_waitjid req = { .jid = jid, .options = options };

	if (job_ioctl(JOB_WAITJID, &req) < 0)
		return (jid_t)-1;
	if (status)
		*status = req.stat;
	return req.r_jid;
}

int job_killjid(jid_t jid, int sig)
{
	struct job_killjid req = { .jid = jid, .sig = sig };

	if (job_ioctl(JOB_KILLJID, &req) < 0)
		return -1;
	return 0;
}

int job_getjidcnt(void)
{
	struct job_jidcnt req = { 0 };

	if (job_ioctl(JOB_GETJIDCNT, &req) < 0)
		return -1;
	return req.r_val;
}

int job_getjidlist(jid_t *jid, int bufsize)
{
	/* jid_t and __u64 are both 64-bit, but unsigned long vs long long. */
	struct job_jidlst req = { .jid = (__u64 *)jid };

	req.r_val = list_capacity(jid, bufsize, sizeof(*jid));
	if (req.r_val < 0 || job_ioctl(JOB_GETJIDLST, &req) < 0)
		return -1;
	return req.r_val;
}

int job_getpidcnt(jid_t jid)
{
	struct job_pidcnt req = { .jid = jid };

	if (job_ioctl(JOB_GETPIDCNT, &req) < 0)
		return -1;
	return req.r_val;
}

int job_getpidlist(jid_t jid, pid_t *pid, int bufsize)
{
	struct job_pidlst req = { .pid = pid, .jid = jid };

	req.r_val = list_capacity(pid, bufsize, sizeof(*pid));
	if (req.r_val < 0 || job_ioctl(JOB_GETPIDLST, &req) < 0)
		return -1;
	return req.r_val;
}

uid_t job_getuid(jid_t jid)
{
	struct job_user req = { .jid = jid };

	if (job_ioctl(JOB_GETUSER, &req) < 0)
		return (uid_t)-1;
	return (uid_t)req.r_user;
}

pid_t job_getprimepid(jid_t jid)
{
	struct job_primepid req = { .jid = jid };

	if (job_ioctl(JOB_GETPRIMEPID, &req) < 0)
		return -1;
	return req.r_pid;
}

/*
 * Returns 0 rather than the host id: a host id of 0xffffffff (the value that
 * disables job creation) would read as the error return -1.
 */
int job_sethid(unsigned int hid)
{
	struct job_sethid req = { .hid = hid };

	if (job_ioctl(JOB_SETHID, &req) < 0)
		return -1;
	return 0;
}

int job_detachjid(jid_t jid)
{
	struct job_detachjid req = { .jid = jid };

	if (job_ioctl(JOB_DETACHJID, &req) < 0)
		return -1;
	return req.r_val;
}

jid_t job_detachpid(pid_t pid)
{
	struct job_detachpid req = { .pid = pid };

	if (job_ioctl(JOB_DETACHPID, &req) < 0)
		return (jid_t)-1;
	return req.r_jid;
}

jid_t job_attachpid(pid_t pid, jid_t jid_requested)
{
	/* Here r_jid is the input: the job to attach to. */
	struct job_attachpid req = { .r_jid = jid_requested, .pid = pid };

	if (job_ioctl(JOB_ATTACHPID, &req) < 0)
		return (jid_t)-1;
	return req.r_jid;
}

int job_getinfo(jid_t jid, struct job_info *info)
{
	if (!info) {
		errno = EINVAL;
		return -1;
	}
	*info = (struct job_info){ .jid = jid };
	return job_ioctl(JOB_GETINFO, info) < 0 ? -1 : 0;
}

int job_getacct(jid_t jid, struct job_acct *acct)
{
	if (!acct) {
		errno = EINVAL;
		return -1;
	}
	*acct = (struct job_acct){ .jid = jid };
	return job_ioctl(JOB_GETACCT, acct) < 0 ? -1 : 0;
}

int job_readacct(struct job_acct *acct)
{
	if (!acct) {
		errno = EINVAL;
		return -1;
	}
	*acct = (struct job_acct){ 0 };
	return job_ioctl(JOB_READACCT, acct) < 0 ? -1 : 0;
}

/*
 * SGI's later library asked its job daemon to start (run 1) or stop (run
 * 0) the CSA accounting daemon that ran inside it.  Here there is no such
 * daemon to start or stop: job.ko keeps the accounting of every job itself,
 * and an accounting daemon takes the records of ended jobs with
 * job_readacct().  So, rather than a success that would have CSA's init
 * script report accounting started, EOPNOTSUPP (jxcsa and the script report
 * it as a failure); EINVAL for another run, ENOSYS without the module, as
 * every call.
 */
int job_runcsa(int run)
{
	int fd;

	if (run != 0 && run != 1) {
		errno = EINVAL;
		return -1;
	}
	fd = job_open();
	if (fd < 0)
		return -1;
	close(fd);
	errno = EOPNOTSUPP;
	return -1;
}
