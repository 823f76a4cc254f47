/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Raw spinlocks taken where interrupts are off already, on every kernel
 * PREEMPT_RT included: in the fork and exit hooks, and in the callbacks
 * they make (inherit(), leave()).
 *
 * With interrupts off nothing preempts the holder, so the preempt count
 * that raw_spin_lock() raises guards nothing there.  Without lock
 * debugging the lock is then the arch lock alone, inline, as
 * bpf_spin_lock() takes it: about ten instructions less a section than the
 * out-of-line call, which a fork in a job makes seven times.  With lockdep
 * or spinlock debugging, which check the lock, raw_spin_lock() itself.
 */
#ifndef _PNOTIFY_WRAPPER_SPINLOCK_H
#define _PNOTIFY_WRAPPER_SPINLOCK_H

#include <linux/irqflags.h>
#include <linux/lockdep.h>
#include <linux/spinlock.h>

#if defined(CONFIG_DEBUG_LOCK_ALLOC) || defined(CONFIG_DEBUG_SPINLOCK)

static __always_inline void pn_lock_irqs_off_nested(raw_spinlock_t *lock,
						    int subclass)
{
	lockdep_assert_irqs_disabled();
	raw_spin_lock_nested(lock, subclass);
}

static __always_inline void pn_unlock_irqs_off(raw_spinlock_t *lock)
{
	raw_spin_unlock(lock);
}

#else

static __always_inline void pn_lock_irqs_off_nested(raw_spinlock_t *lock,
						    int subclass)
{
	do_raw_spin_lock(lock);
}

static __always_inline void pn_unlock_irqs_off(raw_spinlock_t *lock)
{
	do_raw_spin_unlock(lock);
}

#endif

static __always_inline void pn_lock_irqs_off(raw_spinlock_t *lock)
{
	pn_lock_irqs_off_nested(lock, 0);
}

#endif /* _PNOTIFY_WRAPPER_SPINLOCK_H */
