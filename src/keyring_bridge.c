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
	u64 jid;
	int err;

	memset(info, 0, sizeof(*info));
	err = kstrtou64(key->description, 0, &info->jid);
	if (err)
		return err;
	err = job_get_info(info);
	if (err)
		return err == -ENODATA ? -EKEYREVOKED : err;
	if (job_task_job(current, &jid, &owner) && jid == info->jid)
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
	int err;

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
	err = kb_job_key_add(keyring, jid, owner);
	if (err) {
		key_put(keyring);
		kfree(kr);
		keyring = ERR_PTR(err);
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
	err = register_key_type(&kb_job_key_type);
	if (err)
		return err;
	err = job_register_notifier(&kb_notifier);
	if (err)
		goto out_key_type;
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
out_key_type:
	unregister_key_type(&kb_job_key_type);
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
	unregister_key_type(&kb_job_key_type);
}

module_init(kb_module_init);
module_exit(kb_module_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("A kernel keyring per job, revoked when the job ends");
