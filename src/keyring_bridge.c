// SPDX-License-Identifier: GPL-2.0
/*
 * keyring_bridge: a kernel keyring per job, shared by its processes and
 * revoked when the job ends.
 *
 * Every job gets a keyring "_job.<jid>" owned by the job's owner.  A process
 * that joins a job (create or attach) gets it as its session keyring, in its
 * own context (pnotify_call()), where commit_creds() is legal; children
 * inherit it with their credentials, and the fork callback re-installs it
 * in a child whose parent had replaced its session keyring.  Members possess
 * the keyring; its owner and group root may view, read, search and link
 * it; nobody else can.  /proc/keyring_bridge (root only) maps JIDs to serials.
 * When the job ends, the keyring is cleared (its keys, linked nowhere else,
 * are destroyed) and revoked, so that any handle kept to it reads as
 * revoked.
 *
 * mode=session (default) installs the keyring as the session keyring,
 * mode=link links it into the existing session keyring, mode=off only
 * keeps the keyrings.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cred.h>
#include <linux/hashtable.h>
#include <linux/key.h>
#include <linux/key-type.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/proc_fs.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <job_kernel.h>
#include <pnotify.h>
#include <uapi/job.h>

enum kb_mode { KB_SESSION, KB_LINK, KB_OFF };

static const char * const kb_mode_names[] = {
	[KB_SESSION] = "session", [KB_LINK] = "link", [KB_OFF] = "off",
};

static char *mode = "session";
module_param(mode, charp, 0444);
MODULE_PARM_DESC(mode, "session (default), link or off");

static enum kb_mode kb_mode;

struct kb_keyring {
	u64 jid;
	struct key *keyring;
	struct hlist_node node;
};

static DEFINE_MUTEX(kb_lock);
static DEFINE_HASHTABLE(kb_keyrings, 8);
static struct pnotify_events kb_events;

/*
 * Possessors (members) do all; the owner and group root may look and keep
 * a link (which reads as revoked once the job ends).
 */
#define KB_KEYRING_PERM (KEY_POS_ALL | KEY_USR_VIEW | KEY_USR_READ | \
			 KEY_USR_SEARCH | KEY_USR_LINK | KEY_GRP_VIEW | \
			 KEY_GRP_READ | KEY_GRP_SEARCH | KEY_GRP_LINK)

static struct kb_keyring *kb_lookup_locked(u64 jid)
{
	struct kb_keyring *kr;

	hash_for_each_possible(kb_keyrings, kr, node, jid)
		if (kr->jid == jid)
			return kr;
	return NULL;
}

/* @jid's keyring, referenced, made on first use. */
static struct key *kb_keyring_get(u64 jid, kuid_t owner)
{
	struct kb_keyring *kr;
	struct key *keyring;
	char desc[JOB_KEYRING_NAME_SIZE];

	mutex_lock(&kb_lock);
	kr = kb_lookup_locked(jid);
	if (kr) {
		keyring = key_get(kr->keyring);
		goto out;
	}
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
	kr->jid = jid;
	kr->keyring = keyring;
	hash_add(kb_keyrings, &kr->node, jid);
	key_get(keyring);
out:
	mutex_unlock(&kb_lock);
	return keyring;
}

/* Clears and revokes a keyring: what was in it dies with it. */
static void kb_keyring_destroy(struct kb_keyring *kr)
{
	keyring_clear(kr->keyring);
	key_revoke(kr->keyring);
	key_put(kr->keyring);
	kfree(kr);
}

/* Makes @keyring current's session keyring, or links it there. */
static void kb_install(struct key *keyring)
{
	const struct cred *old = current_cred();
	struct cred *new;

	if (kb_mode == KB_LINK) {
		if (old->session_keyring && old->session_keyring != keyring)
			key_link(old->session_keyring, keyring);
		return;
	}
	if (old->session_keyring == keyring)
		return;
	new = prepare_creds();
	if (!new)
		return;
	key_put(new->session_keyring);
	new->session_keyring = key_get(keyring);
	commit_creds(new);
}

/* In the joining task's own context: install its job's keyring. */
static void kb_install_for(struct task_struct *task,
			   struct pnotify_subscriber *sub)
{
	struct key *keyring;
	kuid_t owner;
	u64 jid;

	if (kb_mode == KB_OFF || !job_task_job(task, &jid, &owner))
		return;
	keyring = kb_keyring_get(jid, owner);
	if (IS_ERR(keyring))
		return;
	kb_install(keyring);
	key_put(keyring);
}

static int kb_fork(struct task_struct *task, struct pnotify_subscriber *sub,
		   void *parent_data)
{
	kb_install_for(task, sub);
	return 0;
}

/* Nothing to release: the keyring belongs to the job, not to the task. */
static void kb_exit(struct task_struct *task, struct pnotify_subscriber *sub)
{
}

/* Running members when the module loads: follow them and install theirs. */
static int kb_init(struct task_struct *task, struct pnotify_subscriber *sub)
{
	kuid_t owner;
	u64 jid;

	return job_task_job(task, &jid, &owner) ? 0 : 1;
}

static struct pnotify_events kb_events = {
	.module = THIS_MODULE,
	.name = "keyring_bridge",
	.init = kb_init,
	.fork = kb_fork,
	.exit = kb_exit,
};

static int kb_job_event(struct notifier_block *nb, unsigned long type,
			void *data)
{
	struct job_event *event = data;
	struct kb_keyring *kr;
	int err;

	if (type == JOB_EVENT_JOIN) {
		err = pnotify_subscribe(event->task, &kb_events, NULL);
		if (!err || err == -EEXIST)
			pnotify_call(event->task, &kb_events, kb_install_for);
		return NOTIFY_OK;
	}
	mutex_lock(&kb_lock);
	kr = kb_lookup_locked(event->jid);
	if (kr)
		hash_del(&kr->node);
	mutex_unlock(&kb_lock);
	if (kr)
		kb_keyring_destroy(kr);
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
	hash_for_each(kb_keyrings, bkt, kr, node)
		seq_printf(m, "%#018llx %d\n", kr->jid, kr->keyring->serial);
	mutex_unlock(&kb_lock);
	return 0;
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
	err = job_register_notifier(&kb_notifier);
	if (err)
		return err;
	err = pnotify_register(&kb_events);
	if (err)
		goto out_notifier;
	if (!proc_create_single("keyring_bridge", 0400, NULL, kb_proc_show)) {
		err = -ENOMEM;
		goto out_events;
	}
	/* The members init subscribed get their keyring in their context. */
	if (pnotify_call_all(&kb_events, kb_install_for))
		pr_warn("no memory to give every running member its job keyring\n");
	return 0;

out_events:
	pnotify_unregister(&kb_events);
out_notifier:
	job_unregister_notifier(&kb_notifier);
	return err;
}

/*
 * No more joins or ends reach us, then every subscription ends; the
 * keyrings of the jobs still alive are revoked as if they had ended.
 */
static void __exit kb_module_exit(void)
{
	struct kb_keyring *kr;
	struct hlist_node *tmp;
	unsigned int bkt;

	remove_proc_entry("keyring_bridge", NULL);
	job_unregister_notifier(&kb_notifier);
	pnotify_unregister(&kb_events);
	hash_for_each_safe(kb_keyrings, bkt, tmp, kr, node) {
		hash_del(&kr->node);
		kb_keyring_destroy(kr);
	}
}

module_init(kb_module_init);
module_exit(kb_module_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("A kernel keyring per job, revoked when the job ends");
