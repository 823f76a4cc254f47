// SPDX-License-Identifier: GPL-2.0
/*
 * keyring_bridge: a kernel keyring per job, shared by its processes and
 * revoked when the job ends.
 *
 * Every job gets a keyring "_job.<jid>" owned by the job's owner.  Members
 * possess it; its owner may view, read, search and link it; nobody else
 * can, group root included (root acts as the owner, through setfsuid(), to
 * reach it).  /proc/keyring_bridge (root only) maps JIDs to serials.
 *
 * mode=session (default) makes it the session keyring of the processes
 * that join the job, mode=link links it into their session keyring,
 * mode=off only keeps the keyrings.  The rule, in the process's own
 * context (where commit_creds() is legal):
 *
 *  - a process that joins a job (create, attach) gets it if it runs as the
 *    job's owner (real, effective, saved and filesystem uid) and still has
 *    the session keyring it joined with;
 *  - one that joined as someone else (pam_job, spank_job: root setting up a
 *    user's session) gets it at its first exec as the owner, under the same
 *    condition; its children forked meanwhile are treated the same way;
 *  - a child forked before its parent's join was settled is treated as its
 *    parent;
 *  - any other child keeps the session keyring it inherited, the job's or
 *    not: a fork never installs one, so a process that replaced its session
 *    keyring (pam_keyinit, keyctl new_session) passes its own choice on;
 *  - an exec with credentials other than the owner's (su, a setuid
 *    program, one run after setuid()) gives the job's keyring up, and
 *    another job's keyring held as session keyring by a member that does
 *    not run as that job's owner.
 *
 * Keyrings are found by job, never trusted by name (a name's JID only
 * picks a hash bucket, the table's pointer decides).  A keyring is made
 * at a job's first join, only while the job has not ended (job_alive()),
 * and is revoked by the job's end, which clears it: what was in it and
 * linked nowhere else is destroyed, and any handle kept to it reads as
 * revoked.
 * A JID reused at once gets a new keyring: they are told apart by the
 * job's id.
 *
 * Each job keyring holds a key of type "job" named by the JID: a member
 * finds it with "keyctl request job <jid>" and reads the job's owner and
 * member counts from it, made at each read so that they are never stale.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cred.h>
#include <linux/hashtable.h>
#include <linux/key.h>
#include <linux/key-type.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/proc_fs.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/xarray.h>
#include <job_kernel.h>
#include <pnotify.h>
#include <uapi/job.h>
#include "wrapper/sched.h"

enum kb_mode { KB_SESSION, KB_LINK, KB_OFF };

static const char * const kb_mode_names[] = {
	[KB_SESSION] = "session", [KB_LINK] = "link", [KB_OFF] = "off",
};

static char *mode = "session";
module_param(mode, charp, 0444);
MODULE_PARM_DESC(mode, "session (default), link or off");

static enum kb_mode kb_mode;
/*
 * While pnotify_register() walks the running tasks: a child left
 * unsubscribed would be offered to kb_init() at the walk's next pass, and
 * a job that keeps forking would keep it from ending.
 */
static bool kb_registering;

static DEFINE_MUTEX(kb_lock);
static DEFINE_HASHTABLE(kb_keyrings, 8);
static struct pnotify_events kb_events;

/*
 * Possessors (members) do all; the owner may look and keep a link (which
 * reads as revoked once the job ends).  No group bits: a link is
 * possession, and group root holds users who are not root.
 */
#define KB_KEYRING_PERM (KEY_POS_ALL | KEY_USR_VIEW | KEY_USR_READ | \
			 KEY_USR_SEARCH | KEY_USR_LINK)

/* ---- the "job" key type ------------------------------------------------- */

/* Members (possessors) and the owner may read the description. */
#define KB_JOB_KEY_PERM (KEY_POS_VIEW | KEY_POS_READ | KEY_POS_SEARCH | \
			 KEY_POS_LINK | KEY_USR_VIEW | KEY_USR_READ)

static int kb_job_key_vet_description(const char *desc)
{
	u64 jid;

	return kstrtou64(desc, 0, &jid);
}

/* A JID matches in any notation: 0x441, 0x0000000000000441, 1089. */
static bool kb_job_key_cmp(const struct key *key,
			   const struct key_match_data *match)
{
	u64 jid, wanted;

	return !kstrtou64(key->description, 0, &jid) &&
	       !kstrtou64(match->raw_data, 0, &wanted) && jid == wanted;
}

static int kb_job_key_match_preparse(struct key_match_data *match)
{
	match->lookup_type = KEYRING_SEARCH_LOOKUP_ITERATE;
	match->cmp = kb_job_key_cmp;
	return kb_job_key_vet_description(match->raw_data);
}

/* The payload is the description: contents are made at each read. */
static int kb_job_key_instantiate(struct key *key,
				  struct key_preparsed_payload *prep)
{
	return prep->datalen ? -EINVAL : 0;
}

/*
 * Fills @info for the job the "job" key @key names if the caller may see
 * it: a member, the owner or a CAP_SYS_RESOURCE holder.
 */
static int kb_job_key_info(const struct key *key, struct job_info *info)
{
	kuid_t owner;
	u64 jid, id;
	int err;

	memset(info, 0, sizeof(*info));
	err = kstrtou64(key->description, 0, &info->jid);
	if (err)
		return err;
	err = job_get_info(info);
	if (err)
		return err == -ENODATA ? -EKEYREVOKED : err;
	if (job_task_job(current, &jid, &id, &owner) && jid == info->jid)
		return 0;
	owner = make_kuid(current_user_ns(), info->uid);
	if (uid_eq(owner, current_euid()) || capable(CAP_SYS_RESOURCE))
		return 0;
	return -EACCES;
}

static long kb_job_key_read(const struct key *key, char *buffer, size_t len)
{
	struct job_info info;
	char text[128];
	int n, err;

	err = kb_job_key_info(key, &info);
	if (err)
		return err;
	n = scnprintf(text, sizeof(text),
		      "jid=%#llx owner=%u prime_pid=%d processes=%u tasks=%u start_ns=%llu",
		      info.jid, info.uid, info.prime_pid, info.nr_processes,
		      info.nr_tasks, info.start_time_ns);
	if (buffer)
		memcpy(buffer, text, min_t(size_t, len, n));
	return n;
}

static void kb_job_key_describe(const struct key *key, struct seq_file *m)
{
	seq_puts(m, key->description);
}

static struct key_type kb_job_key_type = {
	.name = "job",
	.vet_description = kb_job_key_vet_description,
	.instantiate = kb_job_key_instantiate,
	.match_preparse = kb_job_key_match_preparse,
	.read = kb_job_key_read,
	.describe = kb_job_key_describe,
};

/* Puts the "job" key of @jid into its new @keyring. */
static int kb_job_key_add(struct key *keyring, u64 jid, kuid_t owner)
{
	struct key *key;
	char desc[24];
	int err;

	snprintf(desc, sizeof(desc), "%#llx", jid);
	key = key_alloc(&kb_job_key_type, desc, owner, GLOBAL_ROOT_GID,
			current_cred(), KB_JOB_KEY_PERM, KEY_ALLOC_NOT_IN_QUOTA,
			NULL);
	if (IS_ERR(key))
		return PTR_ERR(key);
	err = key_instantiate_and_link(key, NULL, 0, keyring, NULL);
	key_put(key);
	return err;
}

/* ---- job keyrings -------------------------------------------------------- */

struct kb_keyring {
	u64 jid;
	u64 id;
	struct key *keyring;
	struct hlist_node node;
};

static struct kb_keyring *kb_lookup_locked(u64 jid, u64 id)
{
	struct kb_keyring *kr;

	lockdep_assert_held(&kb_lock);
	hash_for_each_possible(kb_keyrings, kr, node, jid)
		if (kr->jid == jid && kr->id == id)
			return kr;
	return NULL;
}

/*
 * The keyring of the job @jid, @id, referenced, made on first use; never
 * for a job that has ended (-ENODATA), since its end would not revoke it.
 */
static struct key *kb_keyring_get(u64 jid, u64 id, kuid_t owner)
{
	struct kb_keyring *kr;
	struct key *keyring;
	char desc[JOB_KEYRING_NAME_SIZE];
	int err;

	mutex_lock(&kb_lock);
	kr = kb_lookup_locked(jid, id);
	if (kr) {
		keyring = key_get(kr->keyring);
		goto out;
	}
	keyring = ERR_PTR(-ENODATA);
	if (!job_alive(jid, id))
		goto out;
	keyring = ERR_PTR(-ENOMEM);
	kr = kzalloc(sizeof(*kr), GFP_KERNEL);
	if (!kr)
		goto out;
	snprintf(desc, sizeof(desc), JOB_KEYRING_NAME_FORMAT, jid);
	keyring = keyring_alloc(desc, owner, GLOBAL_ROOT_GID, current_cred(),
				KB_KEYRING_PERM, KEY_ALLOC_NOT_IN_QUOTA, NULL,
				NULL);
	if (IS_ERR(keyring)) {
		kfree(kr);
		goto out;
	}
	err = kb_job_key_add(keyring, jid, owner);
	if (err) {
		/* It may have been found by name meanwhile: dead to all. */
		key_revoke(keyring);
		key_put(keyring);
		kfree(kr);
		keyring = ERR_PTR(err);
		goto out;
	}
	kr->jid = jid;
	kr->id = id;
	kr->keyring = keyring;
	hash_add(kb_keyrings, &kr->node, jid);
	key_get(keyring);
out:
	mutex_unlock(&kb_lock);
	return keyring;
}

/*
 * Revoking a keyring clears it, atomically against links being added:
 * what was in it dies with it, and a handle kept to it reads as revoked.
 */
static void kb_keyring_destroy(struct kb_keyring *kr)
{
	key_revoke(kr->keyring);
	key_put(kr->keyring);
	kfree(kr);
}

/* ---- who gets a job's keyring -------------------------------------------- */

/*
 * A process's join, as the data of its subscription: the session keyring
 * it joined with, and when its keyring was first installed in one of its
 * threads, or declined for good (0: not yet; the process waits to run as
 * the owner).  Each thread installs it in its own credentials
 * (commit_creds() is for current only): a thread that still has the
 * session keyring it joined with has not yet, and the children it forks
 * are treated as joining too.  The threads the join's run was queued on
 * (by tid, their start time as value, a tid reused being another thread)
 * are each queued once.  Once every thread settled it, the subscription
 * ends (kb_join_end()).
 */
struct kb_join {
	struct rcu_head rcu;	/* freed by kb_leave(), atomic */
	spinlock_t lock;
	key_serial_t before;
	u64 settled_ns;
	unsigned int gen;	/* the process's joins so far */
	key_serial_t keyring;	/* the job's, once a run of this join had it */
	bool ended;		/* its subscription, under kb_lock */
	struct xarray queued;
};

static struct kb_join *kb_join_new(key_serial_t before)
{
	struct kb_join *join = kzalloc(sizeof(*join), GFP_KERNEL);

	if (join) {
		spin_lock_init(&join->lock);
		join->before = before;
		xa_init(&join->queued);
	}
	return join;
}

/* Process context. */
static void kb_join_free(struct kb_join *join)
{
	if (join)
		xa_destroy(&join->queued);
	kfree(join);
}

/*
 * Makes @sub's join unsettled again, made with the session keyring
 * @before; @join is a new one for a subscription that has none, freed if
 * not needed.  -EAGAIN, @join left to the caller, when the subscription
 * was ended meanwhile by kb_join_end().
 */
static int kb_join_restart(struct pnotify_subscriber *sub,
			   struct kb_join *join, key_serial_t before)
{
	struct kb_join *old;
	int err = 0;

	mutex_lock(&kb_lock);
	old = sub->data;
	if (old && old->ended) {
		err = -EAGAIN;
	} else if (old) {
		/*
		 * A new join: every thread is to run it.  Forgotten before
		 * the new join is seen, so that the runs a sweep of it
		 * queues stay marked until they begin (kb_join_end() waits
		 * for them).  A run of the old join, marked meanwhile, ends
		 * nothing: kb_join_end() reads the generation under kb_lock.
		 */
		xa_destroy(&old->queued);
		spin_lock(&old->lock);
		/* kb_inherit() reads them unlocked. */
		WRITE_ONCE(old->before, before);
		WRITE_ONCE(old->settled_ns, 0);
		WRITE_ONCE(old->keyring, 0);
		WRITE_ONCE(old->gen, old->gen + 1);
		spin_unlock(&old->lock);
		kb_join_free(join);
	} else {
		/* Its children's fork callbacks read it locklessly. */
		smp_store_release(&sub->data, join);
	}
	mutex_unlock(&kb_lock);
	return err;
}

static key_serial_t kb_session_serial(const struct cred *cred)
{
	return cred->session_keyring ? cred->session_keyring->serial : 0;
}

static key_serial_t kb_task_session_serial(struct task_struct *task)
{
	key_serial_t serial;

	rcu_read_lock();
	serial = kb_session_serial(__task_cred(task));
	rcu_read_unlock();
	return serial;
}

/* Every uid a key permission check or a key's ownership goes by. */
static bool kb_runs_as(const struct cred *cred, kuid_t owner)
{
	return uid_eq(cred->uid, owner) && uid_eq(cred->euid, owner) &&
	       uid_eq(cred->suid, owner) && uid_eq(cred->fsuid, owner);
}

/* Makes @keyring current's session keyring. */
static void kb_set_session(struct key *keyring)
{
	struct cred *new = prepare_creds();

	if (!new)
		return;
	key_put(new->session_keyring);
	new->session_keyring = key_get(keyring);
	commit_creds(new);
}

/*
 * mode=link: links @keyring into current's session keyring if that is its
 * owner's, current running as the job's owner.  Another's (root's, a
 * service's) may be held by other users' processes too, which would then
 * possess the job's keyring: current gets a session keyring of its own
 * instead, as KEYCTL_JOIN_SESSION_KEYRING makes one, with the job's in it.
 */
static void kb_link(struct key *keyring)
{
	const struct cred *cred = current_cred();
	struct key *session = cred->session_keyring;

	if (session && uid_eq(session->uid, cred->uid)) {
		if (session != keyring)
			key_link(session, keyring);
		return;
	}
	session = keyring_alloc("_ses", cred->uid, cred->gid, cred,
				KEY_POS_ALL | KEY_USR_VIEW | KEY_USR_READ,
				KEY_ALLOC_QUOTA_OVERRUN, NULL, NULL);
	if (IS_ERR(session))
		return;
	if (!key_link(session, keyring))
		kb_set_session(session);
	key_put(session);
}

static void kb_install(struct key *keyring)
{
	if (kb_mode == KB_LINK)
		kb_link(keyring);
	else if (current_cred()->session_keyring != keyring)
		kb_set_session(keyring);
}

/*
 * In current's own context, for a join made with the session keyring
 * @before: installs current's job's keyring if the rule allows.  Returns
 * false when current waits to run as its job's owner, true when the join
 * is settled (installed, or declined for good); the serial of the job's
 * keyring in *@installed when it went as far as installing it.
 */
static bool kb_settle(key_serial_t before, key_serial_t *installed)
{
	const struct cred *cred = current_cred();
	struct key *keyring;
	kuid_t owner;
	u64 jid, id;

	if (kb_mode == KB_OFF || !job_task_job(current, &jid, &id, &owner))
		return true;
	/* It chose another session keyring since: that choice stands. */
	if (kb_session_serial(cred) != before)
		return true;
	if (!kb_runs_as(cred, owner))
		return false;
	keyring = kb_keyring_get(jid, id, owner);
	if (IS_ERR(keyring))
		return true;
	kb_install(keyring);
	*installed = keyring->serial;
	key_put(keyring);
	return true;
}

static void kb_join_run(struct task_struct *task,
			struct pnotify_subscriber *sub);

/*
 * Whether a thread with credentials @cred, of a process whose join made
 * with the session keyring @before is settled, has yet to settle it
 * itself: it still has that session keyring, and that is neither the
 * job's own, @keyring (a member detached and attached again joins with
 * it), nor one all its threads share the job's keyring through
 * (mode=link links it into a session keyring of the user's own).  Atomic
 * context.
 */
static bool kb_cred_unsettled(const struct cred *cred, key_serial_t before,
			      key_serial_t keyring)
{
	const struct key *session = cred->session_keyring;
	key_serial_t serial = kb_session_serial(cred);

	if (kb_mode == KB_OFF || serial != before ||
	    (keyring && serial == keyring))
		return false;
	return kb_mode == KB_SESSION || !session ||
	       !uid_eq(session->uid, cred->uid);
}

/* kb_cred_unsettled() for current. */
static bool kb_thread_unsettled(const struct kb_join *join)
{
	return kb_cred_unsettled(current_cred(), READ_ONCE(join->before),
				 READ_ONCE(join->keyring));
}

/*
 * Queues @join's run on @t unless one is queued there already: marked in
 * join->queued (by tid, its start time telling a tid reused) until the
 * run begins.
 */
static void kb_join_queue(struct kb_join *join, struct task_struct *t)
{
	void *mark = xa_mk_value(t->start_time & LONG_MAX);
	unsigned long tid = task_pid_nr(t);

	if (xa_load(&join->queued, tid) == mark ||
	    xa_is_err(xa_store(&join->queued, tid, mark, GFP_KERNEL_ACCOUNT)))
		return;
	if (pnotify_call(t, &kb_events, kb_join_run))
		xa_cmpxchg(&join->queued, tid, mark, NULL, 0);
}

/*
 * Queues @join's run on each user thread of current's process, but
 * current, that still has the session keyring @before and has no run of
 * this join (the process's @gen-th) queued.  A join made since sweeps
 * for itself.
 */
static void kb_join_sweep(struct kb_join *join, key_serial_t before,
			  unsigned int gen)
{
	unsigned int n = get_nr_threads(current), i, cap;
	struct task_struct *t, **threads;

	do {
		cap = n + 4;
		threads = kvmalloc_array(cap, sizeof(*threads), GFP_KERNEL);
		if (!threads)
			return;
		n = 0;
		rcu_read_lock();
		for_each_thread(current, t) {
			if (t == current || !pn_task_is_user(t) ||
			    (t->flags & PF_EXITING) ||
			    kb_session_serial(__task_cred(t)) != before)
				continue;
			if (n < cap) {
				get_task_struct(t);
				threads[n] = t;
			}
			n++;
		}
		rcu_read_unlock();
		for (i = 0; i < min(n, cap); i++) {
			if (n <= cap && READ_ONCE(join->gen) == gen)
				kb_join_queue(join, threads[i]);
			put_task_struct(threads[i]);
		}
		kvfree(threads);
	} while (n > cap);
}

/*
 * Whether a user thread of current's process, not exiting, has yet to
 * settle the join made with the session keyring @before, the job's being
 * @keyring.
 */
static bool kb_process_unsettled(key_serial_t before, key_serial_t keyring)
{
	struct task_struct *t;
	bool unsettled = false;

	rcu_read_lock();
	for_each_thread(current, t) {
		if (pn_task_is_user(t) && !(t->flags & PF_EXITING) &&
		    kb_cred_unsettled(__task_cred(t), before, keyring)) {
			unsettled = true;
			break;
		}
	}
	rcu_read_unlock();
	return unsettled;
}

/*
 * Ends the subscription of current's process once every thread of it has
 * settled its join, the process's @gen-th, made with @before, and no run
 * of it is queued: from then on the process costs keyring_bridge nothing
 * at fork, exec or exit, its children keep what they inherit, and its
 * execs reach kb_watcher through its job, as an unsubscribed child's do.
 * A thread made since is made by a settled one (a thread cannot commit
 * credentials while it clones), with its credentials.  A queued run keeps
 * it: ending the subscription would drop the run, and mode=link counts a
 * thread with the user's own session keyring settled before the run
 * linked the job's into it; the run ends it when it is the last.  A later
 * join subscribes the process anew (kb_join()).
 */
static void kb_join_end(struct kb_join *join, key_serial_t before,
			unsigned int gen)
{
	if (kb_process_unsettled(before, READ_ONCE(join->keyring)))
		return;
	mutex_lock(&kb_lock);
	/*
	 * Unless the process joined again meanwhile.  The live subscription
	 * is this join's: kb_join() subscribes anew only once this one has
	 * ended, and the process cannot end while current runs here.
	 */
	if (join->gen == gen && !join->ended && xa_empty(&join->queued)) {
		join->ended = true;
		pnotify_unsubscribe(current, &kb_events);
	}
	mutex_unlock(&kb_lock);
}

/*
 * pnotify_call() after a join, and every exec while a thread has not
 * settled it: installs the keyring in current, if the rule allows.  A
 * thread that no longer holds the session keyring the process joined
 * with (it installed the job's, or had chosen another) has the join run
 * in every other thread that still does, each once at a time: a thread
 * made by one whose run came after the clone is found by that run.  Only
 * a thread whose run could not install (not running as the owner) can be
 * queued again, by a later sweep.  The run that finds every thread
 * settled ends the subscription.
 */
static void kb_join_run(struct task_struct *task,
			struct pnotify_subscriber *sub)
{
	/* Published by kb_join_restart() with smp_store_release(). */
	struct kb_join *join = smp_load_acquire(&sub->data);
	key_serial_t before, installed = 0;
	unsigned int gen;

	if (!join)
		return;
	xa_erase(&join->queued, task_pid_nr(current));
	spin_lock(&join->lock);
	before = join->before;
	gen = join->gen;
	spin_unlock(&join->lock);
	if (!kb_settle(before, &installed))
		return;
	spin_lock(&join->lock);
	/* Unless the process joined again meanwhile: that join is to be run. */
	if (join->gen == gen) {
		if (!join->settled_ns)
			WRITE_ONCE(join->settled_ns, ktime_get_ns());
		if (installed)
			WRITE_ONCE(join->keyring, installed);
	}
	spin_unlock(&join->lock);
	if (kb_session_serial(current_cred()) != before)
		kb_join_sweep(join, before, gen);
	kb_join_end(join, before, gen);
}

/*
 * In the fork hook (atomic, see pnotify.h), in the forking thread.  A
 * child is treated as joining when its parent's join was not settled, or
 * not in the thread that forks it: it settles its own in kb_fork(), in its
 * own context.  Any other child keeps what it inherited and is not
 * subscribed (but during the registration's walk): its execs reach
 * kb_watcher through its job.  The parent's join lives as long as its
 * subscription is linked, as it is during the hook; it is read without
 * its lock, which is taken with interrupts on.
 */
static int kb_inherit(struct task_struct *child,
		      struct pnotify_subscriber *sub,
		      struct pnotify_subscriber *parent)
{
	/* Published by kb_join_restart() with smp_store_release(). */
	struct kb_join *join = smp_load_acquire(&parent->data);

	if (join && (!READ_ONCE(join->settled_ns) || kb_thread_unsettled(join)))
		return PNOTIFY_CALL_FORK;
	return READ_ONCE(kb_registering) ? 0 : PNOTIFY_SKIP;
}

/*
 * After kb_inherit() found the parent's join unsettled at the fork: the
 * child, with its parent thread's credentials, settles its own.
 */
static int kb_fork(struct task_struct *task, struct pnotify_subscriber *sub,
		   void *parent_data)
{
	struct kb_join *parent = parent_data, *join;
	key_serial_t before, installed;

	spin_lock(&parent->lock);
	before = parent->before;
	spin_unlock(&parent->lock);
	/* A child that cannot wait, for want of memory, stays without. */
	if (kb_settle(before, &installed))
		return 0;
	join = kb_join_new(before);
	/*
	 * Subscribed since the hook, the child may have joined a job since:
	 * that join, newer, stands.
	 */
	mutex_lock(&kb_lock);
	if (!sub->data) {
		/* Read locklessly, as kb_join_restart()'s is. */
		smp_store_release(&sub->data, join);
		join = NULL;
	}
	mutex_unlock(&kb_lock);
	kb_join_free(join);
	return 0;
}

/*
 * Whether current's session keyring is a job's keyring while current does
 * not run as that job's owner: its job's, or another's (of a job it moved
 * from, or one it joined by name), found by the keyring, not by current's
 * job.
 */
static bool kb_session_is_foreign(void)
{
	const struct cred *cred = current_cred();
	struct key *session = cred->session_keyring;
	struct kb_keyring *kr;
	bool foreign = false;
	u64 jid;

	/* The common case, the owner's process with the owner's keyring. */
	if (!session || kb_runs_as(cred, session->uid))
		return false;
	/* A job's keyring is named by its JID (kb_keyring_get()). */
	if (sscanf(session->description, JOB_KEYRING_NAME_FORMAT, &jid) != 1)
		return false;
	mutex_lock(&kb_lock);
	hash_for_each_possible(kb_keyrings, kr, node, jid)
		foreign |= kr->keyring == session;
	mutex_unlock(&kb_lock);
	return foreign;
}

/*
 * In the exec hook (atomic, see pnotify.h): whether the exec may settle a
 * join still waiting for the owner's credentials (kb_join_run() runs it).
 * A join made unsettled again meanwhile is run by its own pnotify_call().
 */
static bool kb_exec_due(struct task_struct *task,
			struct pnotify_subscriber *sub)
{
	/* Published by kb_join_restart() with smp_store_release(). */
	struct kb_join *join = smp_load_acquire(&sub->data);

	return join &&
	       (!READ_ONCE(join->settled_ns) || kb_thread_unsettled(join));
}

static void kb_exit(struct task_struct *task, struct pnotify_subscriber *sub)
{
	kb_join_free(sub->data);
}

/*
 * In the exit hook, atomic: kfree() may sleep there on PREEMPT_RT, and so
 * may freeing the threads a multi-threaded process's join was queued on.
 */
static int kb_leave(struct task_struct *task, struct pnotify_subscriber *sub)
{
	struct kb_join *join = sub->data;

	if (join && !xa_empty(&join->queued))
		return PNOTIFY_CALL_EXIT;
	if (join)
		kfree_rcu(join, rcu);
	return 0;
}

/* Running members when the module loads: they join now. */
static int kb_init(struct task_struct *task, struct pnotify_subscriber *sub)
{
	kuid_t owner;
	u64 jid, id;

	if (!job_task_job(task, &jid, &id, &owner))
		return 1;
	sub->data = kb_join_new(kb_task_session_serial(task));
	return 0;
}

static struct pnotify_events kb_events = {
	.module = THIS_MODULE,
	.name = "keyring_bridge",
	.init = kb_init,
	.inherit = kb_inherit,
	.fork = kb_fork,
	.exec = kb_join_run,
	.exec_due = kb_exec_due,
	.leave = kb_leave,
	.exit = kb_exit,
};

/*
 * @task joined a job: records the join in its subscription (a task already
 * followed may join again, by attach) and runs it in the task's context.
 */
static void kb_join(struct task_struct *task)
{
	struct pnotify_subscriber *sub;
	struct kb_join *join;
	key_serial_t before = kb_task_session_serial(task);
	int err;

	join = kb_join_new(before);
	if (!join)
		return;
	do {
		err = pnotify_subscribe(task, &kb_events, join);
		if (err != -EEXIST)
			break;
		sub = pnotify_get_subscriber(task, kb_events.name);
		/* Ended meanwhile (kb_join_end()): subscribed anew. */
		err = sub ? kb_join_restart(sub, join, before) : -EAGAIN;
		if (sub)
			pnotify_put_subscriber(sub);
	} while (err == -EAGAIN);
	if (err) {
		kb_join_free(join);
		return;
	}
	pnotify_call(task, &kb_events, kb_join_run);
}

/*
 * In the exec hook of every job member (atomic, see job_kernel.h), in the
 * exec'ing task, which has its new credentials (begin_new_exec() commits
 * them before any binary format calls setup_new_exec(), since 5.8):
 * whether its session keyring is not its own and may be its job's.  An
 * exec by the owner queues no work.  The exec set suid and fsuid to euid
 * (cap_bprm_creds_from_file(), whatever the LSMs), so two uids tell.
 */
static bool kb_watch_due(struct task_struct *task,
			 struct pnotify_subscriber *sub)
{
	const struct cred *cred = current_cred();
	const struct key *session = cred->session_keyring;

	return session && !(uid_eq(cred->uid, session->uid) &&
			    uid_eq(cred->euid, session->uid));
}

/*
 * An exec with credentials other than the owner's (su, a setuid program,
 * one run after setuid()) gives the job's keyring up as session keyring,
 * or another job's (kb_session_is_foreign()), as if it had never had one:
 * it is not given to such a process either.
 * Given up, it is the process's again at its next exec as the owner
 * (newgrp, sg and sudo to oneself drop back): the process joins again,
 * with no session keyring.
 */
static void kb_watch_exec(struct task_struct *task)
{
	struct cred *new;

	if (!kb_session_is_foreign())
		return;
	new = prepare_creds();
	if (!new) {
		/* Better no process than one holding keys not its own. */
		force_sig(SIGKILL);
		return;
	}
	key_put(new->session_keyring);
	new->session_keyring = NULL;
	commit_creds(new);
	kb_join(current);
}

static struct job_exec_watcher kb_watcher = {
	.due = kb_watch_due,
	.exec = kb_watch_exec,
};

static int kb_job_event(struct notifier_block *nb, unsigned long type,
			void *data)
{
	struct job_event *event = data;
	struct kb_keyring *kr;
	struct key *keyring;

	if (type == JOB_EVENT_JOIN) {
		/*
		 * The keyring exists from the first join on, whoever gets it:
		 * pam_job and spank_job join it by name, jobctl shows it.
		 */
		keyring = kb_keyring_get(event->jid, event->id, event->owner);
		if (!IS_ERR(keyring))
			key_put(keyring);
		kb_join(event->task);
		return NOTIFY_OK;
	}
	/*
	 * Revoked before kb_lock is dropped: kb_session_is_foreign() takes a
	 * keyring it cannot find for no job's, and must not find it live.
	 */
	mutex_lock(&kb_lock);
	kr = kb_lookup_locked(event->jid, event->id);
	if (kr) {
		hash_del(&kr->node);
		kb_keyring_destroy(kr);
	}
	mutex_unlock(&kb_lock);
	return NOTIFY_OK;
}

static struct notifier_block kb_notifier = {
	.notifier_call = kb_job_event,
};

static int kb_proc_show(struct seq_file *m, void *v)
{
	struct kb_keyring *kr;
	unsigned int bkt;

	seq_printf(m, "mode: %s\n", kb_mode_names[kb_mode]);
	mutex_lock(&kb_lock);
	/* A JID reused at once: the keyring of its ended job goes unlisted. */
	hash_for_each(kb_keyrings, bkt, kr, node)
		if (job_alive(kr->jid, kr->id))
			seq_printf(m, "%#018llx %d\n", kr->jid,
				   kr->keyring->serial);
	mutex_unlock(&kb_lock);
	return 0;
}

/*
 * At unload, or a failed load: the keyrings of the jobs still alive, revoked
 * as if they had ended, under kb_lock, which the exec watcher's lookup
 * takes.
 */
static void kb_keyrings_revoke_all(void)
{
	struct kb_keyring *kr;
	struct hlist_node *tmp;
	unsigned int bkt;

	mutex_lock(&kb_lock);
	hash_for_each_safe(kb_keyrings, bkt, tmp, kr, node) {
		hash_del(&kr->node);
		kb_keyring_destroy(kr);
	}
	mutex_unlock(&kb_lock);
}

static int __init kb_module_init(void)
{
	int err;

	err = sysfs_match_string(kb_mode_names, mode);
	if (err < 0) {
		pr_err("mode=%s: use session, link or off\n", mode);
		return err;
	}
	kb_mode = err;
	err = register_key_type(&kb_job_key_type);
	if (err)
		return err;
	/*
	 * Before any join can settle (the init walk's, a job notifier's): a
	 * child of a settled member is not subscribed, and only the watcher
	 * sees its exec with foreign credentials.  Only a session keyring is
	 * given up at such an exec: in the other modes no exec is watched.
	 */
	if (kb_mode == KB_SESSION)
		err = job_register_exec_watcher(&kb_watcher);
	if (err) {
		pr_err("job's exec watcher is another module's: unload it first\n");
		goto out_key_type;
	}
	err = job_register_notifier(&kb_notifier);
	if (err)
		goto out_watcher;
	WRITE_ONCE(kb_registering, true);
	err = pnotify_register(&kb_events);
	WRITE_ONCE(kb_registering, false);
	if (err)
		goto out_notifier;
	if (!proc_create_single("keyring_bridge", 0400, NULL, kb_proc_show)) {
		err = -ENOMEM;
		goto out_events;
	}
	/* The members init subscribed join in their own context. */
	if (pnotify_call_all(&kb_events, kb_join_run))
		pr_warn("no memory to give every running member its job keyring\n");
	return 0;

out_events:
	pnotify_unregister(&kb_events);
out_notifier:
	job_unregister_notifier(&kb_notifier);
	kb_keyrings_revoke_all();
out_watcher:
	job_unregister_exec_watcher(&kb_watcher);
out_key_type:
	unregister_key_type(&kb_job_key_type);
	return err;
}

/*
 * No more joins or ends reach us, then every subscription ends, and the
 * keyrings of the jobs still alive are revoked as if they had ended; the
 * watcher goes last, for the members that exec meanwhile.
 */
static void __exit kb_module_exit(void)
{
	remove_proc_entry("keyring_bridge", NULL);
	job_unregister_notifier(&kb_notifier);
	pnotify_unregister(&kb_events);
	kb_keyrings_revoke_all();
	job_unregister_exec_watcher(&kb_watcher);
	unregister_key_type(&kb_job_key_type);
}

module_init(kb_module_init);
module_exit(kb_module_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("A kernel keyring per job, revoked when the job ends");
