/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libjob: the SGI Linux Job library interface.
 *
 * Drop-in compatible with SGI's job.h: batch systems (Slurm, Torque, OpenPBS),
 * pam_job and CSA call exactly these functions, so their prototypes and error
 * conventions must not change.  Errors return (jid_t)-1 or -1 and set errno;
 * ENOSYS means the job module is not loaded.
 */
#ifndef _JOB_H
#define _JOB_H

#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef uint64_t jid_t;

jid_t job_create(jid_t jid_requested, uid_t uid, int options);
jid_t job_getjid(pid_t pid);
jid_t job_waitjid(jid_t jid, int *status, int options);
int job_killjid(jid_t jid, int sig);
int job_getjidcnt(void);
int job_getjidlist(jid_t *jid, int bufsize);		/* bufsize in bytes */
int job_getpidcnt(jid_t jid);
int job_getpidlist(jid_t jid, pid_t *pid, int bufsize);	/* bufsize in bytes */
uid_t job_getuid(jid_t jid);
pid_t job_getprimepid(jid_t jid);
int job_sethid(unsigned int hid);	/* 0 on success */
int job_detachjid(jid_t jid);		/* how many processes were detached */
jid_t job_detachpid(pid_t pid);		/* the JID the process was in */
jid_t job_attachpid(pid_t pid, jid_t jid_requested);
/*
 * SGI's later library: starts (1) or stops (0) the CSA daemon.  job.ko has
 * none, it keeps the accounting itself: always -1, EOPNOTSUPP (or EINVAL,
 * ENOSYS); see job_runcsa(3).
 */
int job_runcsa(int run);

#ifdef JOB_IRIX_COMPAT
#define getjid()		job_getjid(getpid())
#define killjob(jid, sig)	job_killjid(jid, sig)
#define makenewjob(rjid, uid)	job_create(rjid, uid, 0)
#endif

/*
 * Beyond SGI: information and accounting.  The structures belong to the
 * kernel ABI; include the uapi header (include/uapi/job.h) for their
 * definitions.
 */
struct job_info;
struct job_acct;

/* Details of a live job; ENODATA if there is none with that JID. */
int job_getinfo(jid_t jid, struct job_info *info);
/* Accounting of a live job, or of an ended one whose record is pending. */
int job_getacct(jid_t jid, struct job_acct *acct);
/* Takes out the oldest pending record of an ended job; ENODATA if none. */
int job_readacct(struct job_acct *acct);

#ifdef __cplusplus
}
#endif

#endif /* _JOB_H */
