/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * The job container ABI: ioctl requests on /proc/job, compatible with SGI's
 * Linux Job (2003-2006).  Shared by job.ko and libjob: the one definition of
 * every structure that crosses the boundary.
 *
 * A job is a process and all of its descendants, identified by a 64-bit JID
 * (host id << 32 | counter).  Fields prefixed r_ are results.
 */
#ifndef _UAPI_JOB_H
#define _UAPI_JOB_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define JOB_PROC_PATH "/proc/job"

/*
 * keyring_bridge.ko names each job's keyring so (a printf format of the
 * JID): userspace finds a job's keyring by this name.
 */
#define JOB_KEYRING_NAME_FORMAT "_job.%016llx"
#define JOB_KEYRING_NAME_SIZE 22	/* "_job.", 16 hex digits, NUL */

/* The request numbers of SGI's job; the size field is sizeof(void *). */
#define JOB_IOCTL_TYPE 'A'
#define JOB_REQUEST(n) _IOWR(JOB_IOCTL_TYPE, n, void *)

enum job_request {
	JOB_NOOP = 0,		/* never implemented: EBADRQC */
	JOB_CREATE = 1,
	JOB_ATTACH = 2,		/* reserved: EBADRQC */
	JOB_DETACH = 3,		/* reserved: EBADRQC */
	JOB_GETJID = 4,
	JOB_WAITJID = 5,
	JOB_KILLJID = 6,
	JOB_GETJIDCNT = 9,
	JOB_GETJIDLST = 10,
	JOB_GETPIDCNT = 11,
	JOB_GETPIDLST = 12,
	JOB_SETJLIMIT = 13,	/* 13 to 16: never implemented, EBADRQC */
	JOB_GETJLIMIT = 14,
	JOB_GETJUSAGE = 15,
	JOB_FREE = 16,
	JOB_GETUSER = 17,
	JOB_GETPRIMEPID = 18,
	JOB_SETHID = 19,
	JOB_DETACHJID = 20,
	JOB_DETACHPID = 21,
	JOB_ATTACHPID = 22,
	JOB_OPT_MAX = 23,
	/* Beyond SGI. */
	JOB_GETINFO = 32,	/* struct job_info of a live job */
	JOB_GETACCT = 33,	/* struct job_acct of a live or ended job */
	JOB_READACCT = 34,	/* take the oldest record of an ended job */
};

struct job_create {
	__u64 r_jid;
	__u64 jid;		/* 0: let the kernel choose */
	int user;
	int options;
};

struct job_getjid {
	__u64 r_jid;
	__kernel_pid_t pid;
};

struct job_waitjid {
	__u64 r_jid;
	__u64 jid;
	int stat;
	int options;
};

struct job_killjid {
	int r_val;
	__u64 jid;
	int sig;
};

struct job_jidcnt {
	int r_val;
};

/* For the lists, r_val is the capacity in, the count written out. */
struct job_jidlst {
	int r_val;
	__u64 *jid;
};

struct job_pidcnt {
	int r_val;
	__u64 jid;
};

struct job_pidlst {
	int r_val;
	__kernel_pid_t *pid;
	__u64 jid;
};

struct job_user {
	int r_user;
	__u64 jid;
};

struct job_primepid {
	__kernel_pid_t r_pid;
	__u64 jid;
};

struct job_sethid {
	unsigned long r_hid;
	unsigned long hid;
};

struct job_detachjid {
	int r_val;
	__u64 jid;
};

struct job_detachpid {
	__u64 r_jid;
	__kernel_pid_t pid;
};

/* r_jid is the job to attach to. */
struct job_attachpid {
	__u64 r_jid;
	__kernel_pid_t pid;
};

/*
 * Beyond SGI: the same layout on 32 and 64 bits (only fixed-size fields,
 * naturally aligned), so no compat variant is needed.
 */
struct job_info {
	__u64 jid;		/* in */
	__u64 start_time_ns;	/* CLOCK_REALTIME when the job was created */
	__u32 uid;		/* owner, in the caller's user namespace */
	__s32 prime_pid;	/* in the caller's pid namespace, 0 if gone */
	__u32 nr_processes;
	__u32 nr_tasks;		/* processes and their threads */
};

struct job_acct {
	__u64 jid;		/* in for JOB_GETACCT, out for JOB_READACCT */
	__u64 start_time_ns;	/* CLOCK_REALTIME */
	__u64 end_time_ns;	/* 0 while the job lives */
	__u64 utime_ns;		/* user CPU time of all members, ended or not */
	__u64 stime_ns;		/* system CPU time */
	__u64 maxrss_kb;	/* largest peak RSS of any member process */
	/*
	 * Bytes read and written through system calls (rchar, wchar) by
	 * the members' threads while in the job, each counted once: unlike
	 * /proc/PID/io, a process's count has no part of its children.
	 */
	__u64 read_bytes;
	__u64 write_bytes;
	__u64 nr_processes;	/* processes that ran in the job */
	__u64 nr_tasks;		/* tasks (processes and threads) that ran */
	__u32 uid;
	__s32 exit_status;	/* wait status of the last process to leave */
	__u32 ended;
	__u32 pad;
};

#endif /* _UAPI_JOB_H */
