// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Users, /proc files and job lists, for jobctl and SGI's commands.
 */
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "job_query.h"

/*
 * fgetpwent() rather than getpwnam(): the static jobctl runs in initramfs
 * images that have no NSS modules for glibc to load.
 */
bool find_user(const char *name, uid_t *uid, char *name_buf, size_t size)
{
	FILE *passwd = fopen("/etc/passwd", "re");
	struct passwd *entry;
	bool found = false;

	if (!passwd)
		return false;
	while (!found && (entry = fgetpwent(passwd))) {
		if (name ? strcmp(entry->pw_name, name) : entry->pw_uid != *uid)
			continue;
		*uid = entry->pw_uid;
		if (name_buf)
			snprintf(name_buf, size, "%s", entry->pw_name);
		found = true;
	}
	fclose(passwd);
	return found;
}

void format_user(uid_t uid, char *buf, size_t size)
{
	if (!find_user(NULL, &uid, buf, size))
		snprintf(buf, size, "%u", (unsigned int)uid);
}

size_t read_proc_file(pid_t pid, const char *name, char *buf, size_t size)
{
	char path[64];
	ssize_t length;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/%s", pid, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		buf[0] = '\0';
		return 0;
	}
	length = read(fd, buf, size - 1);
	close(fd);
	if (length < 0)
		length = 0;
	buf[length] = '\0';
	return (size_t)length;
}

static int count_jobs(jid_t unused)
{
	(void)unused;
	return job_getjidcnt();
}

static int list_jobs(jid_t unused, void *buf, int bufsize)
{
	(void)unused;
	return job_getjidlist(buf, bufsize);
}

static int list_pids(jid_t jid, void *buf, int bufsize)
{
	return job_getpidlist(jid, buf, bufsize);
}

/*
 * A full buffer may have been truncated, so the list is fetched again with
 * twice the room.
 */
static void *fetch_list(jid_t jid, size_t entry_size,
			int (*count)(jid_t), int (*list)(jid_t, void *, int),
			int *length)
{
	int capacity = count(jid);
	void *entries = NULL, *larger;

	*length = 0;
	if (capacity < 0)
		return NULL;
	for (capacity += 16; capacity <= INT32_MAX / 2 / (int)entry_size;
	     capacity *= 2) {
		larger = realloc(entries, capacity * entry_size);
		if (!larger)
			break;
		entries = larger;
		*length = list(jid, entries, capacity * (int)entry_size);
		if (*length < 0)
			break;
		if (*length < capacity)
			return entries;
	}
	if (*length >= 0)
		errno = ENOMEM;
	free(entries);
	return NULL;
}

jid_t *list_all_jobs(int *length)
{
	return fetch_list(0, sizeof(jid_t), count_jobs, list_jobs, length);
}

pid_t *list_job_pids(jid_t jid, int *length)
{
	return fetch_list(jid, sizeof(pid_t), job_getpidcnt, list_pids,
			  length);
}
