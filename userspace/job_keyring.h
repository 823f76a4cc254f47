/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A job's kernel keyring (keyring_bridge.ko): finding it, and making it the
 * session keyring.  Shared by jobctl, pam_job and spank_job.
 */
#ifndef _JOB_KEYRING_H
#define _JOB_KEYRING_H

#include "job.h"

/*
 * The serial of a job's keyring, or 0: from the root-only map
 * /proc/keyring_bridge, else from the caller's session keyring when it is
 * the job's (or has it linked in).
 */
long job_keyring_serial(jid_t jid);

/*
 * Makes the calling process possess the job's keyring through its session
 * keyring: the session keyring already is the job's (keyring_bridge's
 * mode=session installs it when a process joins a job) or holds it
 * (mode=link), else the process gets a fresh session keyring of its own
 * with the job's keyring linked in, found by serial, never by its name,
 * and linked as the job's owner, the only one besides its members the
 * keyring lets link it (root takes the owner's file system uid for that).
 * Needs the root-only map.  Returns the keyring's serial, or -1 with errno
 * ENOKEY when the job has no keyring (keyring_bridge not loaded), or
 * keyctl()'s errno (the process then has the fresh session keyring, or
 * the one it had).
 */
long job_keyring_join(jid_t jid);

/*
 * Links into the keyring of job @jid what the PAM modules before pam_job
 * left in the caller's session keyring for the job's owner (pam_krb5's
 * credential cache in the keyring pam_keyinit made for the session).  Only
 * from a session keyring made for the owner (owned by the owner, as
 * pam_keyinit makes it), neither the job's nor a user session keyring;
 * only the keys directly in it that the owner or root (the PAM modules
 * before) owns, never the job's keyring nor a user keyring (_uid.UID,
 * _uid_ses.UID).  Done in a child process, which leaves the caller's
 * keyrings as they were (looking at the session keyring installs one).
 * The keys stay in the session keyring as well.  The child holds the
 * job's keyring, found by serial, only while it links them: linked as the
 * owner into the session keyring (root takes the owner's file system uid),
 * and unlinked after.  Returns the
 * number of keys linked, or -1 with errno ENOKEY when the job has no
 * keyring, or keyctl()'s errno.
 */
long job_keyring_hand_over(jid_t jid);

/*
 * Whether keyring_bridge gives job keyrings to the jobs' processes itself
 * (mode=session or link): a process that joined a job as someone else
 * (root setting up a user's session) gets it at its first exec as the
 * job's owner.  1 or 0, or -1 when the root-only map cannot be read.
 */
int job_keyring_bridged(void);

#endif /* _JOB_KEYRING_H */
