/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pnotify: process notification for loadable modules.
 *
 * A subscriber module registers a named set of callbacks (struct
 * pnotify_events) and subscribes processes to it.  pnotify then calls it
 * on every fork, exec and end of those processes, and keeps one data
 * pointer per process and subscriber.  A subscription follows a process
 * (a thread group) from the fork that makes it, or the subscribe, to the
 * exit of its last thread: its threads come and go without a callback
 * (pnotify_threads_made() counts them), and any thread of it may be
 * named where a task is asked for.  Subscriptions pass from parent to
 * child process through the fork callback.
 *
 * The fork path has two steps.  inherit() runs in the fork itself, atomic,
 * before the child can be found by pid; fork() runs later in the child,
 * before its first user instruction, where it may sleep.  Every other
 * callback runs in process context where it may sleep (allocate with
 * GFP_KERNEL, take mutexes and rwsems): the kernel hooks only queue work,
 * and those callbacks run from that work in a task's own context.
 *
 *  - inherit(child, sub, parent): optional.  Runs in the forking thread with
 *    preemption and interrupts disabled, under its siglock and
 *    tasklist_lock, on every kernel including PREEMPT_RT: it may take only
 *    raw spinlocks and must not allocate, sleep or signal.  sub->data points
 *    to events->data_size zeroed bytes prepared before the fork; parent is
 *    the forking process's own subscription.  Returns 0 to subscribe the
 *    child at once, PNOTIFY_CALL_FORK to subscribe it and also run fork() in
 *    the child, PNOTIFY_SKIP to leave the child unsubscribed, < 0 to fail
 *    the fork: the child is then killed before it runs any user code.  A
 *    child subscribed here is followed from the instant it exists; exit()
 *    balances it whatever fork() returns later.
 *  - fork(child, sub, parent_data): without inherit(), the only fork step,
 *    run in the child: 0 keeps the child subscribed, PNOTIFY_SKIP (or any
 *    value > 0) drops the subscription, < 0 fails (the child is killed with
 *    SIGKILL before it runs user code).  parent_data stays valid for the
 *    whole call, even when the parent exits or is unsubscribed meanwhile:
 *    the parent's exit callback waits for its pending children.  After
 *    PNOTIFY_CALL_FORK the child is subscribed already; > 0 or < 0 then ends
 *    that subscription.  Being subscribed, it may be found, replaced or
 *    have calls queued before fork() runs, and those calls may run first.
 *  - exec(task, sub): optional; runs in the thread that exec'd, once exec
 *    has committed (every other thread of the process is gone), before the
 *    new image runs.  A subscription made while the exec commits may miss
 *    it.  A process none of whose subscriptions has one pays for its exec
 *    only the hook's lookup.
 *  - exec_due(task, sub): optional, with exec(): the exec's atomic step.
 *    It runs in the exec hook, in the exec'ing thread (current, with the
 *    credentials the new image runs with), in the same context as
 *    inherit() but with the process's subscriptions locked, and returns
 *    whether this exec needs exec().  When no subscription of the process
 *    needs it, the exec queues no work; when one does, every exec() runs.
 *    A subscriber may replace it while registered (WRITE_ONCE() or a
 *    release): the old one may still run until synchronize_rcu() returns.
 *  - exit(task, sub): runs exactly once for every subscription that was
 *    established (unless leave() ended it), when it ends: when the
 *    process's last thread exits (in its exit path, after exit_files(),
 *    before it becomes a zombie), when it is unsubscribed, or when the
 *    subscriber unregisters.  It may run in another task's context (the
 *    unsubscribing task, or the last pending child), so it must use @task,
 *    not current.  @task is a thread of the process, referenced, which may
 *    have exited long before (the one subscribed, say): use it for what
 *    the process shares (its signal_struct, its tgid), not for its own pid
 *    or state.  !atomic_read(&task->signal->live) tells an end from an
 *    unsubscription.
 *  - leave(task, sub): optional, the exit's atomic step, the twin of
 *    inherit().  It runs in @task, the thread whose exit ends the process
 *    (the later of the last to exit and the leader: see pnotify_core.c),
 *    past exit_mm() and before exit_files(), with preemption and
 *    interrupts disabled on every kernel, PREEMPT_RT included, and no lock
 *    held: as in inherit(), only raw spinlocks, no allocation, no sleep.
 *    It runs when nothing else holds the subscription and the subscriber
 *    is not unregistering.
 *    Other threads of the process may still be in their exit path.
 *    Returns 0 when the subscription is done (exit() is not called),
 *    PNOTIFY_CALL_EXIT when exit() must still run, where it may sleep:
 *    later in the same thread, or in whichever task drops the last
 *    reference first (an unregister, a pnotify_call_all() caller).
 *    A process all of whose subscriptions leave() ends queues no work at
 *    its end.  leave() is a fast path, not a promise: an end that does not
 *    come this way calls exit() alone, as a subscriber without leave() has
 *    it (another holder of the subscription, a fork callback pending,
 *    another subscriber of the process without leave(), pnotify's cache of
 *    prepared memory running low).
 *  - init(task, sub): optional; at registration, once per user process
 *    already running (@task is its leader, which may have exited before
 *    its other threads).  0 subscribes the process, anything else leaves it
 *    alone.  Once it returned 0, exit() (or leave()) ends it once, even if
 *    the subscription could not be established (the process exited
 *    meanwhile, or the hooks could not be armed).
 *
 * For one subscription, exit (or a leave() that returned 0) is the last
 * callback.  Kernel threads are never subscribed; kernel-internal workers
 * (io_uring, vhost) are threads of their process, and one may be the last
 * to exit it.
 */
#ifndef _PNOTIFY_H
#define _PNOTIFY_H

#include <linux/list.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <linux/atomic.h>
#include <linux/wait.h>

#define PNOTIFY_NAME_MAX 32
/* The largest per-subscription data pnotify prepares for inherit(). */
#define PNOTIFY_DATA_MAX 512

/* inherit() and fork() results besides 0 and -errno. */
#define PNOTIFY_SKIP 1
#define PNOTIFY_CALL_FORK 2
/* leave() result: exit() is still to run. */
#define PNOTIFY_CALL_EXIT 3

struct task_struct;
struct module;
struct pnotify_subscriber;
struct pn_task;

struct pnotify_events {
	struct module *module;
	const char *name;
	void *data;
	size_t data_size;	/* bytes of sub->data pnotify provides, or 0 */
	int (*init)(struct task_struct *task, struct pnotify_subscriber *sub);
	int (*inherit)(struct task_struct *child,
		       struct pnotify_subscriber *sub,
		       struct pnotify_subscriber *parent);
	int (*fork)(struct task_struct *task, struct pnotify_subscriber *sub,
		    void *parent_data);
	void (*exit)(struct task_struct *task, struct pnotify_subscriber *sub);
	/* Set before register, and kept until unregister. */
	int (*leave)(struct task_struct *task, struct pnotify_subscriber *sub);
	void (*exec)(struct task_struct *task, struct pnotify_subscriber *sub);
	bool (*exec_due)(struct task_struct *task,
			 struct pnotify_subscriber *sub);

	/* Private to pnotify. */
	struct list_head list;
	bool registered;	/* on pnotify's list: it may be subscribed */
	bool dying;
	bool leaveless;		/* as registered: no leave() */
	atomic_t nr_subs;
	atomic_long_t nr_fork, nr_exec, nr_exit, nr_init, nr_failed;
};

/*
 * Bytes read and written through system calls (rchar and wchar, as
 * /proc/PID/task/TID/io has them), 0 without CONFIG_TASK_XACCT.
 */
struct pnotify_io {
	u64 rchar, wchar;
};

struct pnotify_subscriber {
	struct pnotify_events *events;
	void *data;

	/* Private to pnotify. */
	struct task_struct *task;
	struct pn_task *entry;		/* the task's entry, once linked */
	struct hlist_node task_link;
	bool linked;			/* to entry, under its lock */
	bool called;			/* a call was ever queued */
	bool holds_hooks;		/* prepared: holds them armed */
	refcount_t ref;
	struct list_head fork_link;	/* on the child's pending forks */
	struct pnotify_subscriber *fork_parent;
	struct list_head calls;		/* pnotify_call()s queued */
	struct pn_task *spare_entry;	/* until established: what it needs */
	struct pn_task *spare_kit;
	/* The entry's thread count when linked, made since once unlinked. */
	unsigned int threads_base, threads_made;
	int exit_status;		/* see pnotify_exit_status() */
	u32 room_bytes;			/* of room[], at least data_size */
	/*
	 * See pnotify_exit_io(); while linked, less what the threads had
	 * done when it was linked (it may read as negative).
	 */
	struct pnotify_io io;
	unsigned long long room[];	/* data_size bytes, when nonzero */
};

/*
 * The user threads made in @sub's process while it was subscribed, once
 * the subscription has ended (in leave() and exit()): a subscriber that
 * counts tasks, not processes, adds them to the one it counted.
 */
static inline unsigned int
pnotify_threads_made(const struct pnotify_subscriber *sub)
{
	return sub->threads_made;
}

/*
 * What wait() reports of @sub's process, once the subscription has ended
 * (in leave() and exit()): read when the process ended, since its leader
 * may be reaped before exit() runs.  For a subscription ended before its
 * process (unsubscribed, unregistered), 0, or its group exit's code if
 * every thread was exiting already.
 */
static inline int pnotify_exit_status(const struct pnotify_subscriber *sub)
{
	return sub->exit_status;
}

/*
 * The I/O of @sub's process while it was subscribed, once the subscription
 * has ended (in leave() and exit()): what its threads read and wrote from
 * the link (or their birth) to their exit, or to the unlink.  Unlike the
 * process's own sum (/proc/PID/io), it has no part of the children it
 * waited for: a subscriber that follows them too counts each once.  Its
 * threads without a record (pnotify_core.c: kernel workers, and threads
 * made without memory for one) are not counted, and one that gets its
 * record only after the link (for want of memory then) counts from its
 * birth.  Nor may the account record that BSD process accounting writes
 * as the process ends be counted.
 */
static inline const struct pnotify_io *
pnotify_exit_io(const struct pnotify_subscriber *sub)
{
	return &sub->io;
}

/*
 * pnotify_exit_io() so far of @task's process's subscription to @events
 * whose data is @data, while it is linked: into @io, or -ENOENT, or
 * -EAGAIN when its threads kept exiting as it read them (a few times).
 * Process context, or any context where no entry lock of pnotify's is
 * held (not in a callback that runs in a hook); it walks the process's
 * threads under RCU.
 */
int pnotify_task_io(struct task_struct *task, struct pnotify_events *events,
		    const void *data, struct pnotify_io *io);

/*
 * Exported under the version of the callbacks' contract, so that a
 * subscriber built against another does not load beside this pnotify
 * ("Unknown symbol pnotify_register_v2"): 2, leave() with interrupts off.
 */
#define pnotify_register pnotify_register_v2
int pnotify_register(struct pnotify_events *events);
void pnotify_unregister(struct pnotify_events *events);

/*
 * Subscribes @task's process with sub->data = @data.  For a subscriber with data_size,
 * @data must be NULL: use pnotify_prepare() to fill sub->data first, then
 * pnotify_establish(); pnotify_discard() frees what was never established.
 * pnotify_prepare() allocates everything the subscription needs, with @gfp
 * (GFP_KERNEL, or GFP_KERNEL | __GFP_NOFAIL for a caller that cannot undo
 * what it did before), so that pnotify_establish() fails only for the
 * process's state (-ESRCH: its every thread exiting, -EEXIST: subscribed
 * already, -ENOENT: the subscriber is unregistering, -EINVAL: a kernel
 * thread), never for memory.
 * pnotify_prepare() and pnotify_subscribe() fail with -ENOENT for a
 * subscriber not registered (yet, or any more): one that learns of
 * processes before pnotify_register() returns has its init() offered them.  The
 * first of them after load arms the hooks, and fails if they cannot be
 * (-EOPNOTSUPP: ftrace is off, sysctl kernel.ftrace_enabled, or another
 * ftrace user may send kernel_clone() calls elsewhere, a livepatch of it,
 * a kprobe with a post handler on it or before 6.0 a BPF trampoline on it,
 * as the kernel log says; -EINTR: the caller got a fatal signal waiting
 * for another arming; another error of ftrace's as it is); they disarm
 * once nothing is followed (pnotify's idle_ms parameter), where the
 * kernel's ftrace allows (/proc/pnotify's hook_disarm).
 *
 * A followed process's fork of a process needs memory prepared before it
 * (see the kit in pnotify_core.c), made before the fork copies anything: a
 * fork that finds none fails with ENOMEM, as the kernel's own allocations
 * make it fail.  A subscription prepares it for every thread of the
 * process before it is established, so that a fork already under way
 * finds it too; without memory for it, such a fork's child is killed
 * before it runs user code, as a failed fork() callback would have it.
 */
int pnotify_subscribe(struct task_struct *task, struct pnotify_events *events,
		      void *data);
struct pnotify_subscriber *pnotify_prepare(struct task_struct *task,
					   struct pnotify_events *events,
					   gfp_t gfp);
int pnotify_establish(struct pnotify_subscriber *sub);
/*
 * pnotify_establish() in place of the process's subscription to the same
 * subscriber, if it has one, in one step: a fork in the process inherits
 * the one or the other, never neither.  The replaced subscription then
 * ends as by pnotify_unsubscribe(), its exit callback included.  -EEXIST
 * only if @same (called under the process's entry lock: atomic, see the
 * inherit callback) says the one it has already stands for @new; on an
 * error the process keeps what it had.
 */
typedef bool (*pnotify_same_fn)(const struct pnotify_subscriber *old,
				const struct pnotify_subscriber *new);
int pnotify_replace(struct pnotify_subscriber *sub, pnotify_same_fn same);
void pnotify_discard(struct pnotify_subscriber *sub);
int pnotify_unsubscribe(struct task_struct *task,
			struct pnotify_events *events);

/*
 * Returns a referenced subscription of @task's process to the subscriber
 * called @name, or NULL.  sub->data stays valid (its exit callback cannot run) until
 * pnotify_put_subscriber(), which may sleep.
 */
struct pnotify_subscriber *pnotify_get_subscriber(struct task_struct *task,
						  const char *name);
void pnotify_put_subscriber(struct pnotify_subscriber *sub);

/*
 * Runs @fn(task, sub) once in @task's own context, where it may sleep and
 * change its own credentials, before the thread next returns to user space
 * (a restartable sleep is interrupted for it); if @task has begun to exit,
 * in another user thread of its process that has not.  Its process must be
 * subscribed to @events; @fn is not called if the thread it was queued on
 * exits or @events unregisters first.  Returns 0, -ENOENT (not
 * subscribed), -ESRCH (no thread left) or -ENOMEM.  A call
 * still queued when its subscription ends is dropped, so that neither
 * unsubscribing nor unregistering waits for a task that does not run (one
 * stopped by SIGSTOP, say).
 */
/*
 * From inherit() only: makes @sig pending for the new process @child, as if
 * sent to it right after the fork.  It is delivered before the child's
 * first user instruction, and signals sent to the child later act on it as
 * usual (a SIGCONT discards a pending stop signal).
 */
void pnotify_inherit_signal(struct task_struct *child, int sig);

typedef void (*pnotify_call_fn)(struct task_struct *task,
				struct pnotify_subscriber *sub);
int pnotify_call(struct task_struct *task, struct pnotify_events *events,
		 pnotify_call_fn fn);
/* pnotify_call() for every process subscribed to @events. */
int pnotify_call_all(struct pnotify_events *events, pnotify_call_fn fn);

#endif /* _PNOTIFY_H */
