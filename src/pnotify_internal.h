/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pnotify internals shared by the hook layer, the core and the guard.
 */
#ifndef _PNOTIFY_INTERNAL_H
#define _PNOTIFY_INTERNAL_H

#include <linux/atomic.h>
#include <linux/bug.h>
#include <linux/seq_file.h>
#include <linux/sched.h>

/*
 * The guard (sync= at load time) orders callback dispatch (readers) against
 * register and unregister (writers): once a writer has marked a subscriber
 * dying, no dispatch starts one of its fork, exec or init callbacks.
 */
int pn_sync_init(const char *mode);
void pn_sync_exit(void);
const char *pn_sync_name(void);
int pn_read_lock(void);
void pn_read_unlock(int cookie);
void pn_write_lock(void);
void pn_write_unlock(void);

/* Core entry points for the hooks; they run in the probe's atomic context. */
void pn_core_fork(struct task_struct *parent, struct task_struct *child);
void pn_core_exec(struct task_struct *task);
void pn_core_exit(struct task_struct *task);

/*
 * The direct calls of attach_pid() and setup_new_exec(), in
 * pnotify_tramp.S, and what they call.
 */
void pn_fork_tramp(void);
void pn_fork_direct_call(struct task_struct *child);
void pn_exec_tramp(void);
void pn_exec_direct_call(void);

/*
 * Holds on the hooks keep them armed: one per subscription prepared and
 * one per task followed.  pn_hooks_get() arms them if needed and holds
 * them (process context; fails if they cannot be armed, or with -EINTR
 * for a fatal signal while it waits); pn_hooks_hold() adds a hold for a
 * holder of one, pn_hooks_put() drops one, in any context.  The hooks
 * disarm idle_ms after the last hold went.
 */
int pn_hooks_get(void);
void pn_hooks_held_none(void);
void pn_hooks_last_put(long holds);
extern atomic_long_t pn_hook_holds;

/*
 * Inline, for every fork and exit of a followed process takes one of
 * each; what is rare, out of line.
 */
static inline void pn_hooks_hold(void)
{
	if (unlikely(atomic_long_inc_return(&pn_hook_holds) == 1))
		pn_hooks_held_none();
}

static inline void pn_hooks_put(void)
{
	long holds = atomic_long_dec_return(&pn_hook_holds);

	if (unlikely(holds <= 0))
		pn_hooks_last_put(holds);
}

/* For the benchmark module only (symbol namespace PNOTIFY_INTERNAL). */
int pn_core_dispatch_exec(struct task_struct *task);

int pn_core_init(void);
void pn_core_exit_module(void);
void pn_core_show(struct seq_file *m);

#endif /* _PNOTIFY_INTERNAL_H */
