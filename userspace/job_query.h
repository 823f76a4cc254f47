/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What jobctl and SGI's commands both look up: users, /proc files and the
 * lists of jobs and of a job's processes.
 */
#ifndef _JOB_QUERY_H
#define _JOB_QUERY_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "job.h"

/*
 * Looks a user up in /etc/passwd, by name when name is given, else by *uid;
 * the name goes to name_buf (if not NULL).
 */
bool find_user(const char *name, uid_t *uid, char *name_buf, size_t size);
/* The user's name, else the uid in decimal. */
void format_user(uid_t uid, char *buf, size_t size);

/*
 * Reads at most size - 1 bytes of /proc/PID/NAME into buf, NUL-terminated;
 * returns how many were read (0 if the file cannot be read).
 */
size_t read_proc_file(pid_t pid, const char *name, char *buf, size_t size);

/*
 * Every job, or every process of a job: a malloc()ed array of *length
 * entries, or NULL with errno set.  Lists that grew between counting and
 * listing are fetched again, never truncated.
 */
jid_t *list_all_jobs(int *length);
pid_t *list_job_pids(jid_t jid, int *length);

#endif /* _JOB_QUERY_H */
