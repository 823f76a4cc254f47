// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A job's kernel keyring: see job_keyring.h.  Plain keyctl(2) system calls,
 * so that neither jobctl nor the PAM and Slurm plugins need libkeyutils.
 */
#define _GNU_SOURCE	/* pipe2() */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/keyctl.h>

#include "job_keyring.h"
#include "../include/uapi/job.h"

#define KEYRING_MAP "/proc/keyring_bridge"

/* The session keyrings job_keyring_hand_over() takes keys from. */
#define HAND_OVER_MAX_KEYS 256

/* The keyring's serial from keyring_bridge's map, 0 if none, -1 if no map. */
static long mapped_serial(jid_t jid)
{
	char line[64];
	unsigned long long map_jid;
	long serial = 0, found;
	FILE *map = fopen(KEYRING_MAP, "re");

	if (!map)
		return -1;
	while (!serial && fgets(line, sizeof(line), map))
		if (sscanf(line, "%llx %ld", &map_jid, &found) == 2 &&
		    map_jid == jid)
			serial = found;
	fclose(map);
	return serial;
}

static long session_keyring_serial(void)
{
	return syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID,
		       KEY_SPEC_SESSION_KEYRING, 0);
}

long job_keyring_serial(jid_t jid)
{
	char name[JOB_KEYRING_NAME_SIZE], desc[64];
	long serial = mapped_serial(jid), found;

	if (serial >= 0)
		return serial;
	snprintf(name, sizeof(name), JOB_KEYRING_NAME_FORMAT,
		 (unsigned long long)jid);
	found = syscall(SYS_keyctl, KEYCTL_DESCRIBE, KEY_SPEC_SESSION_KEYRING,
			desc, sizeof(desc));
	if (found > 0 && found <= (long)sizeof(desc) &&
	    !strcmp(strrchr(desc, ';') ? strrchr(desc, ';') + 1 : "", name))
		return session_keyring_serial();
	found = syscall(SYS_keyctl, KEYCTL_SEARCH, KEY_SPEC_SESSION_KEYRING,
			"keyring", name, 0);
	return found > 0 ? found : 0;
}

/* Whether the session keyring holds the keyring @serial named @name. */
static int session_holds(long serial, const char *name)
{
	return syscall(SYS_keyctl, KEYCTL_SEARCH, KEY_SPEC_SESSION_KEYRING,
		       "keyring", name, 0) == serial;
}

/*
 * Links the keyring @serial of a job of @owner into the session keyring
 * with the owner's file system uid, which key permissions go by: the job
 * keyring grants link to its owner only, and root (CAP_SETUID) may take
 * that uid, anyone else keeps their own and gets EACCES.
 */
static long link_as_owner(long serial, uid_t owner)
{
	uid_t fsuid = setfsuid(owner);
	long linked = syscall(SYS_keyctl, KEYCTL_LINK, serial,
			      KEY_SPEC_SESSION_KEYRING);
	int err = errno;

	setfsuid(fsuid);
	errno = err;
	return linked;
}

long job_keyring_join(jid_t jid)
{
	char name[JOB_KEYRING_NAME_SIZE];
	long serial = mapped_serial(jid);

	if (serial <= 0) {
		errno = ENOKEY;
		return -1;
	}
	snprintf(name, sizeof(name), JOB_KEYRING_NAME_FORMAT,
		 (unsigned long long)jid);
	if (session_keyring_serial() == serial || session_holds(serial, name))
		return serial;
	/*
	 * Never by name, which anyone can give a keyring of theirs: a fresh
	 * session keyring of the caller's own, the job's linked in by serial.
	 */
	if (syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL) < 0 ||
	    link_as_owner(serial, job_getuid(jid)) < 0)
		return -1;
	return serial;
}

/* What KEYCTL_DESCRIBE says of a key: "type;uid;gid;perm;description". */
struct key_desc {
	char text[4096 + 64];
	const char *name;
	unsigned int uid;
	int keyring;
};

static int describe(int32_t key, struct key_desc *desc)
{
	long len = syscall(SYS_keyctl, KEYCTL_DESCRIBE, key, desc->text,
			   sizeof(desc->text));
	int name_at = -1;

	if (len < 0)
		return -1;
	if ((size_t)len > sizeof(desc->text) ||
	    sscanf(desc->text, "%*[^;];%u;%*u;%*x;%n", &desc->uid,
		   &name_at) != 1 || name_at < 0) {
		errno = EINVAL;
		return -1;
	}
	desc->name = desc->text + name_at;
	desc->keyring = !strncmp(desc->text, "keyring;", strlen("keyring;"));
	return 0;
}

/* A user's own keyring (_uid.UID, _uid_ses.UID), which only the kernel names. */
static int is_user_keyring(const struct key_desc *desc)
{
	char uid_keyring[32], uid_session[32];

	snprintf(uid_keyring, sizeof(uid_keyring), "_uid.%u", desc->uid);
	snprintf(uid_session, sizeof(uid_session), "_uid_ses.%u", desc->uid);
	return desc->keyring && (!strcmp(desc->name, uid_keyring) ||
				 !strcmp(desc->name, uid_session));
}

/* Whether job_keyring_hand_over() links the key @key of @owner's session. */
static int handed_over(int32_t key, uid_t owner)
{
	struct key_desc desc;

	return describe(key, &desc) == 0 &&
	       (desc.uid == owner || desc.uid == 0) && !is_user_keyring(&desc);
}

/*
 * job_keyring_hand_over() in a child process: looking at the session
 * keyring installs one in a process that has none (the user's session
 * keyring), and keyring_bridge would then see the join's session keyring
 * replaced.  Links into the keyring @serial of a job of @owner.
 */
static long hand_over(long serial, uid_t owner)
{
	int32_t keys[HAND_OVER_MAX_KEYS];
	long session = session_keyring_serial(), size;
	struct key_desc desc;
	size_t count, taken = 0, linked = 0, i;
	int held = 0, err = 0;

	if (session < 0 || describe((int32_t)session, &desc) < 0)
		return -1;
	if (session == serial || desc.uid != owner || is_user_keyring(&desc))
		return 0;
	size = syscall(SYS_keyctl, KEYCTL_READ, session, keys, sizeof(keys));
	if (size < 0)
		return -1;
	if ((size_t)size > sizeof(keys)) {
		errno = E2BIG;
		return -1;
	}
	count = (size_t)size / sizeof(keys[0]);
	for (i = 0; i < count; i++) {
		held |= keys[i] == serial;
		if (keys[i] != serial && handed_over(keys[i], owner))
			keys[taken++] = keys[i];
	}
	/* Possessing the job's keyring is what lets one link keys into it. */
	if (!taken || (!held && link_as_owner(serial, owner) < 0))
		return taken ? -1 : 0;
	for (i = 0; i < taken && !err; i++) {
		if (syscall(SYS_keyctl, KEYCTL_LINK, keys[i], serial) < 0)
			err = errno;
		else
			linked++;
	}
	if (!held && syscall(SYS_keyctl, KEYCTL_UNLINK, serial,
			     KEY_SPEC_SESSION_KEYRING) < 0 && !err)
		err = errno;
	errno = err;
	return err ? -1 : (long)linked;
}

long job_keyring_hand_over(jid_t jid)
{
	struct { long linked; int err; } result = { 0 };
	long serial = mapped_serial(jid);
	uid_t owner = job_getuid(jid);
	int fds[2], err;
	ssize_t got;
	pid_t pid;

	if (serial <= 0) {
		errno = ENOKEY;
		return -1;
	}
	if (owner == (uid_t)-1 || pipe2(fds, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		result.linked = hand_over(serial, owner);
		result.err = errno;
		_exit(write(fds[1], &result, sizeof(result)) != sizeof(result));
	}
	err = errno;
	close(fds[1]);
	do
		got = pid < 0 ? 0 : read(fds[0], &result, sizeof(result));
	while (got < 0 && errno == EINTR);
	close(fds[0]);
	if (pid < 0) {
		errno = err;
		return -1;
	}
	/* ECHILD when the application lets the kernel reap its children. */
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	if (got != sizeof(result)) {
		errno = ECHILD;
		return -1;
	}
	errno = result.err;
	return result.linked;
}

int job_keyring_bridged(void)
{
	char mode[16] = "";
	FILE *map = fopen(KEYRING_MAP, "re");
	int found;

	if (!map)
		return -1;
	found = fscanf(map, "mode: %15s", mode);
	fclose(map);
	if (found != 1)
		return -1;
	return !strcmp(mode, "session") || !strcmp(mode, "link");
}
