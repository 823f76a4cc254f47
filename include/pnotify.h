/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pnotify: process notification for loadable modules.
 *
 * A subscriber module registers a named set of callbacks (struct
 * pnotify_events) and subscribes tasks to it.  pnotify then calls it on
 * every fork, exec and exit of those tasks, and keeps one data pointer per
 * task and subscriber.  Subscriptions pass from parent to child through the
 * fork callback.
 *
 * Every callback runs in process context where it may sleep (allocate with
 * GFP_KERNEL, take mutexes and rwsems): the kernel hooks only queue work, and
 * the callbacks run from that work in a task's own context.
 *
 *  - fork(child, sub, parent_data): runs in the child, before the child
 *    executes its first user instruction.  Returns 0 to keep the child
 *    subscribed, > 0 to drop this subscription, < 0 to fail: the child is
 *    then killed with SIGKILL before it runs any user code (for a thread,
 *    that takes down its whole thread group).  parent_data stays valid for
 *    the whole call, even when the parent exits or is unsubscribed meanwhile:
 *    the parent's exit callback waits for its pending children.
 *  - exec(task, sub): runs in the task after exec has committed, before the
 *    new image runs.
 *  - exit(task, sub): runs exactly once for every subscription that was
 *    established, when it ends: when the task exits (in its exit path, after
 *    exit_files(), before it becomes a zombie), when it is unsubscribed, or
 *    when the subscriber unregisters.  It may run in another task's context
 *    (the unsubscribing task, or the last pending child), so it must use
 *    @task, not current.  task->flags & PF_EXITING tells an exit from an
 *    unsubscription.
 *  - init(task, sub): optional; at registration, once per user task already
 *    running.  0 subscribes the task, anything else leaves it alone.
 *
 * For one subscription, exit is the last callback.  Kernel threads and
 * kernel-internal workers (io_uring, vhost) are never subscribed: they never
 * return to user space.
 */
#ifndef _PNOTIFY_H
#define _PNOTIFY_H

#include <linux/list.h>
#include <linux/refcount.h>
#include <linux/atomic.h>
#include <linux/wait.h>

#define PNOTIFY_NAME_MAX 32

struct task_struct;
struct module;
struct pnotify_subscriber;

struct pnotify_events {
	struct module *module;
	const char *name;
	void *data;
	int (*init)(struct task_struct *task, struct pnotify_subscriber *sub);
	int (*fork)(struct task_struct *task, struct pnotify_subscriber *sub,
		    void *parent_data);
	void (*exit)(struct task_struct *task, struct pnotify_subscriber *sub);
	void (*exec)(struct task_struct *task, struct pnotify_subscriber *sub);

	/* Private to pnotify. */
	struct list_head list;
	struct list_head subs;
	spinlock_t subs_lock;
	bool dying;
	atomic_t nr_subs;
	wait_queue_head_t drained;
	atomic_long_t nr_fork, nr_exec, nr_exit, nr_init, nr_failed;
};

struct pnotify_subscriber {
	struct pnotify_events *events;
	void *data;

	/* Private to pnotify. */
	struct task_struct *task;
	struct list_head task_link;
	struct list_head events_link;
	refcount_t ref;
};

int pnotify_register(struct pnotify_events *events);
void pnotify_unregister(struct pnotify_events *events);

int pnotify_subscribe(struct task_struct *task, struct pnotify_events *events,
		      void *data);
int pnotify_unsubscribe(struct task_struct *task,
			struct pnotify_events *events);

/*
 * Returns a referenced subscription of @task to the subscriber called @name,
 * or NULL.  sub->data stays valid (its exit callback cannot run) until
 * pnotify_put_subscriber(), which may sleep.
 */
struct pnotify_subscriber *pnotify_get_subscriber(struct task_struct *task,
						  const char *name);
void pnotify_put_subscriber(struct pnotify_subscriber *sub);

/*
 * Runs @fn(task, sub) once in @task's own context, where it may sleep and
 * change its own credentials, before the task next returns to user space (a
 * restartable sleep is interrupted for it).  @task must be subscribed to
 * @events; @fn is not called if the task exits or @events unregisters first.
 * Returns 0, -ENOENT (not subscribed), -ESRCH (exiting) or -ENOMEM.
 */
typedef void (*pnotify_call_fn)(struct task_struct *task,
				struct pnotify_subscriber *sub);
int pnotify_call(struct task_struct *task, struct pnotify_events *events,
		 pnotify_call_fn fn);
/* pnotify_call() for every task subscribed to @events. */
int pnotify_call_all(struct pnotify_events *events, pnotify_call_fn fn);

#endif /* _PNOTIFY_H */
