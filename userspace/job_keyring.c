// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A job's kernel keyring: see job_keyring.h.  Plain keyctl(2) system calls,
 * so that neither jobctl nor the PAM and Slurm plugins need libkeyutils.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/keyctl.h>

#include "job_keyring.h"
#include "../include/uapi/job.h"

#define KEYRING_MAP "/proc/keyring_bridge"

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
