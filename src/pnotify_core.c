// SPDX-License-Identifier: GPL-2.0
/*
 * pnotify core: which tasks are followed, by whom, and the dispatch of
 * subscriber callbacks.
 *
 * Followed tasks have an entry in a hash table keyed by task pointer; a task
 * that no subscriber follows has none, and costs one RCU lookup per fork and
 * exit.  The hooks (atomic context) only look up entries, snapshot a parent's
 * subscriptions and queue task works; every callback runs from those works,
 * in the task's own context, where sleeping is legal:
 *
 *  fork  the child's work runs before its first return to user space;
 *  exec  the work runs before the new image's first instruction;
 *  exit  the work runs in exit_task_work(), before the task is a zombie.
 *
 * A subscription (struct pnotify_subscriber) is reference counted: one
 * reference while it is linked to its task, one per child whose fork
 * callback has yet to run, one per dispatch in flight.  Its exit callback
 * runs when the last reference goes, so that parent_data outlives the
 * children's fork callbacks and exit is always the last callback.
 *
 * Locks: entry->lock, then events->subs_lock.  Both are spinlocks, taken by
 * the hooks too.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/rhashtable.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/mm.h>
#include <pnotify.h>
#include "pnotify_internal.h"
#include "wrapper/sched.h"
#include "wrapper/task_work.h"

enum pn_task_flag {
	PN_DEAD,		/* out of the table, takes no new subscription */
	PN_EXIT_QUEUED,		/* the exit work is queued or running */
	PN_EXEC_QUEUED,
};

struct pn_fork;

/* A followed task. */
struct pn_task {
	struct rhash_head node;
	struct task_struct *task;
	spinlock_t lock;
	struct list_head subs;
	unsigned int nr_subs;
	unsigned long flags;
	struct pn_fork *fork_pending;
	refcount_t ref;			/* table + queued works */
	struct callback_head exec_work;
	struct callback_head exit_work;
	struct rcu_head rcu;
};

/* A child's inheritance, recorded by the fork hook, run by its task work. */
struct pn_fork {
	struct callback_head work;
	struct pn_task *child;		/* NULL: no entry could be made */
	unsigned int nr;
	struct pnotify_subscriber *parent_subs[];
};

static const struct rhashtable_params pn_table_params = {
	.key_len = sizeof(struct task_struct *),
	.key_offset = offsetof(struct pn_task, task),
	.head_offset = offsetof(struct pn_task, node),
	.automatic_shrinking = true,
};

static struct rhashtable pn_table;
static LIST_HEAD(pn_events_list);
static DEFINE_MUTEX(pn_register_mutex);
/* Woken when works in flight or a subscriber's subscriptions drain. */
static DECLARE_WAIT_QUEUE_HEAD(pn_drain_wq);

static struct {
	atomic_long_t tasks;
	atomic_long_t works_inflight;
	atomic_long_t forks_followed;
	atomic_long_t fork_failures;
} pn_stats;

/* ---- entries ---------------------------------------------------------- */

static struct pn_task *pn_task_alloc(struct task_struct *task, gfp_t gfp)
{
	struct pn_task *e = kzalloc(sizeof(*e), gfp);

	if (!e)
		return NULL;
	get_task_struct(task);
	e->task = task;
	spin_lock_init(&e->lock);
	INIT_LIST_HEAD(&e->subs);
	refcount_set(&e->ref, 1);
	atomic_long_inc(&pn_stats.tasks);
	return e;
}

static void pn_task_put(struct pn_task *e)
{
	if (!refcount_dec_and_test(&e->ref))
		return;
	put_task_struct(e->task);
	atomic_long_dec(&pn_stats.tasks);
	kfree_rcu(e, rcu);
}

/* @task's entry, locked (maybe dead), or NULL.  Any context. */
static struct pn_task *pn_task_lock(struct task_struct *task)
{
	struct pn_task *e;

	rcu_read_lock();
	e = rhashtable_lookup(&pn_table, &task, pn_table_params);
	if (e)
		spin_lock(&e->lock);
	rcu_read_unlock();
	return e;
}

/*
 * Returns @task's entry, locked, inserting @new if there is none; frees @new
 * if it was not used.  May run in atomic context.
 */
static struct pn_task *pn_task_get_or_insert(struct pn_task *new)
{
	struct pn_task *e;

	for (;;) {
		rcu_read_lock();
		e = rhashtable_lookup_get_insert_fast(&pn_table, &new->node,
						      pn_table_params);
		if (IS_ERR(e)) {
			rcu_read_unlock();
			pn_task_put(new);
			return e;
		}
		if (!e)
			e = new;
		spin_lock(&e->lock);
		rcu_read_unlock();
		/* Entries leave the table under their lock: this one is gone. */
		if (!test_bit(PN_DEAD, &e->flags))
			break;
		spin_unlock(&e->lock);
	}
	if (e != new)
		pn_task_put(new);
	return e;
}

/* Takes @e out of the table; the caller holds e->lock and drops the ref. */
static void pn_task_unhash(struct pn_task *e)
{
	set_bit(PN_DEAD, &e->flags);
	rhashtable_remove_fast(&pn_table, &e->node, pn_table_params);
}

/* An entry that follows nothing and has no fork pending leaves the table. */
static bool pn_task_unhash_if_idle(struct pn_task *e)
{
	if (e->nr_subs || e->fork_pending || test_bit(PN_DEAD, &e->flags))
		return false;
	pn_task_unhash(e);
	return true;
}

/* ---- task works ------------------------------------------------------- */

static int pn_queue_work(struct task_struct *task, struct callback_head *work,
			 task_work_func_t func, int notify)
{
	int err;

	init_task_work(work, func);
	atomic_long_inc(&pn_stats.works_inflight);
	err = task_work_add(task, work, notify);
	if (err)
		atomic_long_dec(&pn_stats.works_inflight);
	return err;
}

/*
 * The last thing a work does.  Module unload waits for works in flight to
 * drain, then for an RCU grace period, which covers this wake-up.
 */
static void pn_work_done(void)
{
	rcu_read_lock();
	if (atomic_long_dec_and_test(&pn_stats.works_inflight))
		wake_up_all(&pn_drain_wq);
	rcu_read_unlock();
}

/* ---- subscriptions ---------------------------------------------------- */

static struct pnotify_subscriber *pn_sub_alloc(struct task_struct *task,
					       struct pnotify_events *events)
{
	struct pnotify_subscriber *sub = kzalloc(sizeof(*sub), GFP_KERNEL);

	if (!sub)
		return NULL;
	sub->events = events;
	get_task_struct(task);
	sub->task = task;
	INIT_LIST_HEAD(&sub->task_link);
	INIT_LIST_HEAD(&sub->events_link);
	refcount_set(&sub->ref, 1);
	atomic_inc(&events->nr_subs);
	return sub;
}

/* Frees a subscription; exit_cb says whether it was ever established. */
static void pn_sub_free(struct pnotify_subscriber *sub, bool exit_cb)
{
	struct pnotify_events *events = sub->events;

	might_sleep();
	if (exit_cb) {
		events->exit(sub->task, sub);
		atomic_long_inc(&events->nr_exit);
	}
	put_task_struct(sub->task);
	kfree(sub);
	/* After the decrement, events may be freed: touch only our own. */
	if (atomic_dec_and_test(&events->nr_subs))
		wake_up_all(&pn_drain_wq);
}

static void pn_sub_put(struct pnotify_subscriber *sub)
{
	if (refcount_dec_and_test(&sub->ref))
		pn_sub_free(sub, true);
}

static struct pnotify_subscriber *pn_task_find_sub(struct pn_task *e,
						   struct pnotify_events *events,
						   const char *name)
{
	struct pnotify_subscriber *sub;

	list_for_each_entry(sub, &e->subs, task_link)
		if (sub->events == events ||
		    (name && !strcmp(sub->events->name, name)))
			return sub;
	return NULL;
}

/*
 * Links @sub to its task's entry @e (locked).  The store-buffer pairing with
 * pn_core_exit(): either the exit hook finds this entry, or we see
 * PF_EXITING here and refuse a task whose exit work will not come.
 */
static int pn_sub_link(struct pn_task *e, struct pnotify_subscriber *sub)
{
	struct pnotify_events *events = sub->events;
	int err = 0;

	/* Orders our table insert before the PF_EXITING read. */
	smp_mb();
	if (test_bit(PN_DEAD, &e->flags) ||
	    ((READ_ONCE(e->task->flags) & PF_EXITING) &&
	     !test_bit(PN_EXIT_QUEUED, &e->flags)))
		return -ESRCH;
	if (pn_task_find_sub(e, events, NULL))
		return -EEXIST;
	spin_lock(&events->subs_lock);
	if (events->dying) {
		err = -ENOENT;
	} else {
		list_add_tail(&sub->events_link, &events->subs);
		list_add_tail(&sub->task_link, &e->subs);
		e->nr_subs++;
	}
	spin_unlock(&events->subs_lock);
	return err;
}

/* Unlinks @sub from @e (locked); the caller then drops the link's ref. */
static void pn_sub_unlink(struct pn_task *e, struct pnotify_subscriber *sub)
{
	spin_lock(&sub->events->subs_lock);
	list_del_init(&sub->events_link);
	spin_unlock(&sub->events->subs_lock);
	list_del_init(&sub->task_link);
	e->nr_subs--;
}

/* Establishes @sub on @task, making an entry for it if needed. */
static int pn_attach(struct task_struct *task, struct pnotify_subscriber *sub)
{
	struct pn_task *new, *e;
	bool unhashed;
	int err;

	new = pn_task_alloc(task, GFP_KERNEL);
	if (!new)
		return -ENOMEM;
	e = pn_task_get_or_insert(new);
	if (IS_ERR(e))
		return PTR_ERR(e);
	err = pn_sub_link(e, sub);
	unhashed = err && pn_task_unhash_if_idle(e);
	spin_unlock(&e->lock);
	if (unhashed)
		pn_task_put(e);
	return err;
}

/* ---- fork ------------------------------------------------------------- */

/* Kill a child that must not run user code: it has not run yet. */
static void pn_fork_kill(struct task_struct *child)
{
	atomic_long_inc(&pn_stats.fork_failures);
	send_sig_info(SIGKILL, SEND_SIG_PRIV, child);
}

static void pn_fork_work(struct callback_head *work);

void pn_core_fork(struct task_struct *parent, struct task_struct *child)
{
	struct pn_task *pe, *ce, *new;
	struct pnotify_subscriber *sub;
	struct pn_fork *rec;

	pe = pn_task_lock(parent);
	if (likely(!pe))
		return;
	if (test_bit(PN_DEAD, &pe->flags) || !pe->nr_subs ||
	    !pn_task_is_user(child)) {
		spin_unlock(&pe->lock);
		return;
	}
	rec = kmalloc(struct_size(rec, parent_subs, pe->nr_subs),
		      GFP_NOWAIT | __GFP_NOWARN);
	if (!rec) {
		spin_unlock(&pe->lock);
		pn_fork_kill(child);
		return;
	}
	rec->nr = 0;
	list_for_each_entry(sub, &pe->subs, task_link) {
		refcount_inc(&sub->ref);
		rec->parent_subs[rec->nr++] = sub;
	}
	spin_unlock(&pe->lock);
	atomic_long_inc(&pn_stats.forks_followed);

	/* From here on the child's work releases rec, even on failure. */
	rec->child = NULL;
	new = pn_task_alloc(child, GFP_NOWAIT | __GFP_NOWARN);
	ce = new ? pn_task_get_or_insert(new) : NULL;
	if (!IS_ERR_OR_NULL(ce)) {
		refcount_inc(&ce->ref);
		ce->fork_pending = rec;
		rec->child = ce;
		spin_unlock(&ce->lock);
	}
	/* A task that has not run yet has task works enabled. */
	WARN_ON_ONCE(pn_queue_work(child, &rec->work, pn_fork_work,
				   PN_TWA_RESUME));
}

/* Runs one inherited subscription's fork callback for the child @e. */
static int pn_inherit(struct pn_task *e, struct pnotify_subscriber *psub)
{
	struct pnotify_events *events = psub->events;
	struct pnotify_subscriber *sub;
	int ret;

	if (READ_ONCE(events->dying))
		return 0;
	sub = pn_sub_alloc(e->task, events);
	if (!sub)
		return -ENOMEM;
	ret = events->fork(e->task, sub, psub->data);
	atomic_long_inc(&events->nr_fork);
	if (ret) {
		if (ret < 0)
			atomic_long_inc(&events->nr_failed);
		pn_sub_free(sub, false);
		return ret < 0 ? ret : 0;
	}
	spin_lock(&e->lock);
	ret = pn_sub_link(e, sub);
	spin_unlock(&e->lock);
	/* Established by fork but not linkable (unregistering): end it now. */
	if (ret)
		pn_sub_free(sub, true);
	return 0;
}

/*
 * Runs the fork callbacks of a child, once: from its fork work, or from its
 * exit work when it exits before the fork work ran (task works run LIFO).
 */
static void pn_run_fork(struct pn_fork *rec)
{
	struct pn_task *e = rec->child;
	int cookie, err = e ? 0 : -ENOMEM;
	unsigned int i;

	if (e) {
		spin_lock(&e->lock);
		if (e->fork_pending != rec) {
			spin_unlock(&e->lock);
			return;
		}
		spin_unlock(&e->lock);
	}
	cookie = pn_read_lock();
	for (i = 0; i < rec->nr; i++) {
		if (!err)
			err = pn_inherit(e, rec->parent_subs[i]);
		pn_sub_put(rec->parent_subs[i]);
	}
	pn_read_unlock(cookie);
	rec->nr = 0;

	if (e) {
		bool unhashed;

		spin_lock(&e->lock);
		e->fork_pending = NULL;
		unhashed = pn_task_unhash_if_idle(e);
		spin_unlock(&e->lock);
		if (unhashed)
			pn_task_put(e);
	}
	if (err && !(current->flags & PF_EXITING)) {
		atomic_long_inc(&pn_stats.fork_failures);
		force_sig(SIGKILL);
	}
}

static void pn_fork_work(struct callback_head *work)
{
	struct pn_fork *rec = container_of(work, struct pn_fork, work);

	pn_run_fork(rec);
	if (rec->child)
		pn_task_put(rec->child);
	kfree(rec);
	pn_work_done();
}

/* ---- exec ------------------------------------------------------------- */

/* References @e's subscriptions into a new array; NULL when it has none. */
static struct pnotify_subscriber **pn_task_snapshot(struct pn_task *e,
						    unsigned int *nr)
{
	struct pnotify_subscriber **subs = NULL, *sub;
	unsigned int cap;

	for (;;) {
		cap = READ_ONCE(e->nr_subs);
		if (cap) {
			subs = kmalloc_array(cap, sizeof(*subs), GFP_KERNEL);
			if (!subs)
				return NULL;
		}
		spin_lock(&e->lock);
		if (e->nr_subs <= cap)
			break;
		spin_unlock(&e->lock);
		kfree(subs);
	}
	*nr = 0;
	list_for_each_entry(sub, &e->subs, task_link) {
		refcount_inc(&sub->ref);
		subs[(*nr)++] = sub;
	}
	spin_unlock(&e->lock);
	return subs;
}

/* Runs the exec callbacks of @e's subscriptions under the guard. */
static void pn_dispatch_exec(struct pn_task *e)
{
	struct pnotify_subscriber **subs;
	unsigned int nr = 0, i;
	int cookie;

	cookie = pn_read_lock();
	subs = pn_task_snapshot(e, &nr);
	for (i = 0; i < nr; i++) {
		struct pnotify_events *events = subs[i]->events;

		if (events->exec && !READ_ONCE(events->dying)) {
			events->exec(e->task, subs[i]);
			atomic_long_inc(&events->nr_exec);
		}
		pn_sub_put(subs[i]);
	}
	pn_read_unlock(cookie);
	kfree(subs);
}

static void pn_exec_work(struct callback_head *work)
{
	struct pn_task *e = container_of(work, struct pn_task, exec_work);

	clear_bit(PN_EXEC_QUEUED, &e->flags);
	pn_dispatch_exec(e);
	pn_task_put(e);
	pn_work_done();
}

/*
 * Claims @flag on @task's live entry and references it for the work the
 * caller then queues; NULL when the task is not followed, has nothing to
 * dispatch, or the work is queued already.  Atomic context.
 */
static struct pn_task *pn_task_claim(struct task_struct *task, int flag,
				     bool need_subs)
{
	struct pn_task *e = pn_task_lock(task);
	bool claimed;

	if (likely(!e))
		return NULL;
	claimed = !test_bit(PN_DEAD, &e->flags) && (!need_subs || e->nr_subs) &&
		  !test_and_set_bit(flag, &e->flags);
	if (claimed)
		refcount_inc(&e->ref);
	spin_unlock(&e->lock);
	return claimed ? e : NULL;
}

void pn_core_exec(struct task_struct *task)
{
	struct pn_task *e = pn_task_claim(task, PN_EXEC_QUEUED, true);

	if (e && pn_queue_work(task, &e->exec_work, pn_exec_work,
			       PN_TWA_RESUME)) {
		clear_bit(PN_EXEC_QUEUED, &e->flags);
		pn_task_put(e);
	}
}

/*
 * The exec dispatch of @task run at once, in the caller's context, for the
 * benchmark module (tests/kmod/pnotify_bench.c): the hooks' lookup, the
 * guard's read side and the callbacks, without the kprobe and task work
 * around them.  -ENOENT (after the lookup) when @task is not followed.
 */
int pn_core_dispatch_exec(struct task_struct *task)
{
	struct pn_task *e = pn_task_lock(task);
	bool live;

	if (!e)
		return -ENOENT;
	/* A live entry holds the table's reference: taking one is safe. */
	live = !test_bit(PN_DEAD, &e->flags);
	if (live)
		refcount_inc(&e->ref);
	spin_unlock(&e->lock);
	if (!live)
		return -ENOENT;
	pn_dispatch_exec(e);
	pn_task_put(e);
	return 0;
}
EXPORT_SYMBOL_NS_GPL(pn_core_dispatch_exec, PNOTIFY_INTERNAL);

/* ---- exit ------------------------------------------------------------- */

/* Ends every subscription of @e and takes it out of the table. */
static void pn_task_end(struct pn_task *e)
{
	struct pnotify_subscriber *sub, *next;
	LIST_HEAD(ended);
	bool unhashed = false;

	spin_lock(&e->lock);
	list_for_each_entry_safe(sub, next, &e->subs, task_link) {
		pn_sub_unlink(e, sub);
		list_add_tail(&sub->task_link, &ended);
	}
	if (!test_bit(PN_DEAD, &e->flags)) {
		pn_task_unhash(e);
		unhashed = true;
	}
	spin_unlock(&e->lock);
	list_for_each_entry_safe(sub, next, &ended, task_link) {
		list_del_init(&sub->task_link);
		pn_sub_put(sub);
	}
	if (unhashed)
		pn_task_put(e);
}

static void pn_exit_work(struct callback_head *work)
{
	struct pn_task *e = container_of(work, struct pn_task, exit_work);
	struct pn_fork *rec;

	spin_lock(&e->lock);
	rec = e->fork_pending;
	spin_unlock(&e->lock);
	if (rec)
		pn_run_fork(rec);
	pn_task_end(e);
	pn_task_put(e);
	pn_work_done();
}

void pn_core_exit(struct task_struct *task)
{
	struct pn_task *e;

	/* Pairs with pn_sub_link(): PF_EXITING is set, now look. */
	smp_mb();
	e = pn_task_claim(task, PN_EXIT_QUEUED, false);
	/* Queued before exit_task_work(): it cannot fail here. */
	if (e && WARN_ON_ONCE(pn_queue_work(task, &e->exit_work, pn_exit_work,
					    PN_TWA_NONE)))
		pn_task_put(e);
}

/* ---- the subscriber API ------------------------------------------------ */

int pnotify_subscribe(struct task_struct *task, struct pnotify_events *events,
		      void *data)
{
	struct pnotify_subscriber *sub;
	int err;

	might_sleep();
	if (!pn_task_is_user(task))
		return -EINVAL;
	sub = pn_sub_alloc(task, events);
	if (!sub)
		return -ENOMEM;
	sub->data = data;
	err = pn_attach(task, sub);
	if (err)
		pn_sub_free(sub, false);
	return err;
}
EXPORT_SYMBOL_GPL(pnotify_subscribe);

int pnotify_unsubscribe(struct task_struct *task,
			struct pnotify_events *events)
{
	struct pnotify_subscriber *sub = NULL;
	struct pn_task *e;
	bool unhashed = false;

	might_sleep();
	e = pn_task_lock(task);
	if (e) {
		sub = pn_task_find_sub(e, events, NULL);
		if (sub) {
			pn_sub_unlink(e, sub);
			unhashed = pn_task_unhash_if_idle(e);
		}
		spin_unlock(&e->lock);
	}
	if (unhashed)
		pn_task_put(e);
	if (!sub)
		return -ENOENT;
	pn_sub_put(sub);
	return 0;
}
EXPORT_SYMBOL_GPL(pnotify_unsubscribe);

struct pnotify_subscriber *pnotify_get_subscriber(struct task_struct *task,
						  const char *name)
{
	struct pnotify_subscriber *sub = NULL;
	struct pn_task *e;

	e = pn_task_lock(task);
	if (e) {
		sub = pn_task_find_sub(e, NULL, name);
		if (sub)
			refcount_inc(&sub->ref);
		spin_unlock(&e->lock);
	}
	return sub;
}
EXPORT_SYMBOL_GPL(pnotify_get_subscriber);

void pnotify_put_subscriber(struct pnotify_subscriber *sub)
{
	pn_sub_put(sub);
}
EXPORT_SYMBOL_GPL(pnotify_put_subscriber);

/* A pnotify_call() in flight. */
struct pn_call {
	struct callback_head work;
	struct pnotify_subscriber *sub;
	pnotify_call_fn fn;
};

static void pn_call_work(struct callback_head *work)
{
	struct pn_call *call = container_of(work, struct pn_call, work);
	struct pnotify_events *events = call->sub->events;
	int cookie;

	cookie = pn_read_lock();
	if (!READ_ONCE(events->dying) && !(current->flags & PF_EXITING))
		call->fn(current, call->sub);
	pn_sub_put(call->sub);
	pn_read_unlock(cookie);
	kfree(call);
	pn_work_done();
}

/* Queues @fn in @sub's task; consumes the caller's reference on @sub. */
static int pn_call_queue(struct pnotify_subscriber *sub, pnotify_call_fn fn)
{
	struct pn_call *call = kmalloc(sizeof(*call), GFP_KERNEL);
	int err = -ENOMEM;

	if (call) {
		call->sub = sub;
		call->fn = fn;
		err = pn_queue_work(sub->task, &call->work, pn_call_work,
				    PN_TWA_SIGNAL);
	}
	if (err) {
		pn_sub_put(sub);
		kfree(call);
	}
	return err;
}

int pnotify_call(struct task_struct *task, struct pnotify_events *events,
		 pnotify_call_fn fn)
{
	struct pnotify_subscriber *sub;

	might_sleep();
	sub = pnotify_get_subscriber(task, events->name);
	return sub ? pn_call_queue(sub, fn) : -ENOENT;
}
EXPORT_SYMBOL_GPL(pnotify_call);

int pnotify_call_all(struct pnotify_events *events, pnotify_call_fn fn)
{
	struct pnotify_subscriber **subs, *sub;
	unsigned int cap, n = 0, i;
	int err = 0;

	might_sleep();
	cap = atomic_read(&events->nr_subs);
	subs = kvmalloc_array(max(cap, 1U), sizeof(*subs), GFP_KERNEL);
	if (!subs)
		return -ENOMEM;
	spin_lock(&events->subs_lock);
	list_for_each_entry(sub, &events->subs, events_link) {
		if (n == cap)
			break;
		refcount_inc(&sub->ref);
		subs[n++] = sub;
	}
	spin_unlock(&events->subs_lock);
	for (i = 0; i < n; i++)
		if (pn_call_queue(subs[i], fn) == -ENOMEM)
			err = -ENOMEM;
	kvfree(subs);
	return err;
}
EXPORT_SYMBOL_GPL(pnotify_call_all);

/* ---- registration ------------------------------------------------------ */

/* References every user task alive now; returns the count, or < 0. */
static int pn_snapshot_tasks(struct task_struct ***out)
{
	struct task_struct *g, *t, **tasks = NULL;
	int n, cap = 0;

	for (;;) {
		n = 0;
		rcu_read_lock();
		for_each_process_thread(g, t) {
			if (!pn_task_is_user(t) || (t->flags & PF_EXITING))
				continue;
			if (n < cap) {
				get_task_struct(t);
				tasks[n] = t;
			}
			n++;
		}
		rcu_read_unlock();
		if (n <= cap)
			break;
		while (cap)
			put_task_struct(tasks[--cap]);
		kvfree(tasks);
		cap = n + n / 4 + 16;
		tasks = kvmalloc_array(cap, sizeof(*tasks), GFP_KERNEL);
		if (!tasks)
			return -ENOMEM;
	}
	*out = tasks;
	return n;
}

/* Offers every running user task to the new subscriber's init callback. */
static void pn_run_init(struct pnotify_events *events)
{
	struct task_struct **tasks;
	int n, i, cookie;

	n = pn_snapshot_tasks(&tasks);
	if (n < 0) {
		pr_warn("%s: no memory to offer running tasks to init\n",
			events->name);
		atomic_long_inc(&events->nr_failed);
		return;
	}
	cookie = pn_read_lock();
	for (i = 0; i < n; i++) {
		struct pnotify_subscriber *sub;

		sub = pn_sub_alloc(tasks[i], events);
		if (!sub) {
			atomic_long_inc(&events->nr_failed);
		} else if (events->init(tasks[i], sub)) {
			pn_sub_free(sub, false);
		} else {
			atomic_long_inc(&events->nr_init);
			/* Exited or inherited meanwhile: end it, balanced. */
			if (pn_attach(tasks[i], sub))
				pn_sub_free(sub, true);
		}
		put_task_struct(tasks[i]);
	}
	pn_read_unlock(cookie);
	kvfree(tasks);
}

int pnotify_register(struct pnotify_events *events)
{
	struct pnotify_events *other;
	int err = 0;

	if (!events->name || !events->name[0] ||
	    strnlen(events->name, PNOTIFY_NAME_MAX + 1) > PNOTIFY_NAME_MAX ||
	    !events->fork || !events->exit)
		return -EINVAL;

	INIT_LIST_HEAD(&events->subs);
	spin_lock_init(&events->subs_lock);
	events->dying = false;
	atomic_set(&events->nr_subs, 0);
	atomic_long_set(&events->nr_fork, 0);
	atomic_long_set(&events->nr_exec, 0);
	atomic_long_set(&events->nr_exit, 0);
	atomic_long_set(&events->nr_init, 0);
	atomic_long_set(&events->nr_failed, 0);

	mutex_lock(&pn_register_mutex);
	list_for_each_entry(other, &pn_events_list, list) {
		if (!strcmp(other->name, events->name)) {
			err = -EBUSY;
			goto out;
		}
	}
	pn_write_lock();
	list_add_tail(&events->list, &pn_events_list);
	pn_write_unlock();
	if (events->init)
		pn_run_init(events);
out:
	mutex_unlock(&pn_register_mutex);
	return err;
}
EXPORT_SYMBOL_GPL(pnotify_register);

/* Ends one linked subscription of a dying subscriber; false when none left. */
static bool pn_end_one(struct pnotify_events *events)
{
	struct pnotify_subscriber *sub;
	struct pn_task *e = NULL;
	bool unhashed = false;

	spin_lock(&events->subs_lock);
	sub = list_first_entry_or_null(&events->subs, struct pnotify_subscriber,
				       events_link);
	if (sub) {
		/* A linked subscription keeps its entry in the table. */
		e = rhashtable_lookup_fast(&pn_table, &sub->task,
					   pn_table_params);
		refcount_inc(&e->ref);
	}
	spin_unlock(&events->subs_lock);
	if (!sub)
		return false;

	spin_lock(&e->lock);
	if (!list_empty(&sub->task_link)) {
		pn_sub_unlink(e, sub);
		unhashed = pn_task_unhash_if_idle(e);
	} else {
		sub = NULL;
	}
	spin_unlock(&e->lock);
	if (unhashed)
		pn_task_put(e);
	pn_task_put(e);
	if (sub)
		pn_sub_put(sub);
	return true;
}

void pnotify_unregister(struct pnotify_events *events)
{
	might_sleep();
	mutex_lock(&pn_register_mutex);
	pn_write_lock();
	WRITE_ONCE(events->dying, true);
	list_del(&events->list);
	pn_write_unlock();

	while (pn_end_one(events))
		cond_resched();
	/* Children still pending on a parent subscription end it later. */
	wait_event(pn_drain_wq, !atomic_read(&events->nr_subs));
	mutex_unlock(&pn_register_mutex);
}
EXPORT_SYMBOL_GPL(pnotify_unregister);

/* ---- module ------------------------------------------------------------ */

void pn_core_show(struct seq_file *m)
{
	struct pnotify_events *ev;

	seq_printf(m, "sync: %s\n", pn_sync_name());
	seq_printf(m, "tasks: %ld\n", atomic_long_read(&pn_stats.tasks));
	seq_printf(m, "works_inflight: %ld\n",
		   atomic_long_read(&pn_stats.works_inflight));
	seq_printf(m, "forks_followed: %ld\n",
		   atomic_long_read(&pn_stats.forks_followed));
	seq_printf(m, "fork_failures: %ld\n",
		   atomic_long_read(&pn_stats.fork_failures));
	seq_printf(m, "%-32s %8s %10s %10s %10s %8s %8s\n", "subscriber",
		   "tasks", "forks", "execs", "exits", "inits", "failed");
	mutex_lock(&pn_register_mutex);
	list_for_each_entry(ev, &pn_events_list, list)
		seq_printf(m, "%-32s %8d %10ld %10ld %10ld %8ld %8ld\n",
			   ev->name, atomic_read(&ev->nr_subs),
			   atomic_long_read(&ev->nr_fork),
			   atomic_long_read(&ev->nr_exec),
			   atomic_long_read(&ev->nr_exit),
			   atomic_long_read(&ev->nr_init),
			   atomic_long_read(&ev->nr_failed));
	mutex_unlock(&pn_register_mutex);
}

int pn_core_init(void)
{
	return rhashtable_init(&pn_table, &pn_table_params);
}

static void pn_task_free_leftover(void *ptr, void *arg)
{
	pn_task_put(ptr);
}

/* Called after the hooks are gone: no new work can be queued. */
void pn_core_exit_module(void)
{
	wait_event(pn_drain_wq, !atomic_long_read(&pn_stats.works_inflight));
	/* Let the last pn_work_done() leave its read section. */
	synchronize_rcu();
	rhashtable_free_and_destroy(&pn_table, pn_task_free_leftover, NULL);
	rcu_barrier();
}
