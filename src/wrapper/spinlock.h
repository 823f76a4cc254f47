/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Raw spinlocks taken where interrupts are off already: inside an entry's
 * lock section (taken with them saved on PREEMPT_RT, whose siglock and
 * tasklist_lock leave them on in the fork hook) or the exit hook's
 * local_irq_save(), and so in the inherit() and leave() those make.  The
 * hooks have preemption disabled too.
 *
 * Nothing preempts a lock's holder there, so the preempt count that
 * raw_spin_lock() raises guards nothing.  Without lock debugging such a
 * lock is taken as raw_spin_lock() takes it past that count,
 * do_raw_spin_lock(): the arch lock, inline.  That is about ten
 * instructions less a section than the out-of-line call, and a fork and
 * exit in a job make seven.  With lockdep or spinlock debugging, which
 * check the lock, raw_spin_lock() itself.
 */
#ifndef _PNOTIFY_WRAPPER_SPINLOCK_H
#define _PNOTIFY_WRAPPER_SPINLOCK_H

#include <linux/bug.h>
#include <linux/irqflags.h>
#include <linux/lockdep.h>
#include <linux/spinlock.h>
/* After spinlock.h: 6.12's bit_spinlock.h uses cpu_relax() unincluded. */
#include <linux/list_bl.h>

/*
 * What lockdep checks in debug builds, checked on any kernel in test
 * builds, whose stock lane runs the inline locks.
 */
static __always_inline void pn_assert_irqs_off(void)
{
#ifdef PNOTIFY_TEST_DELAYS
	WARN_ON_ONCE(!irqs_disabled());
#else
	lockdep_assert_irqs_disabled();
#endif
}

#if defined(CONFIG_DEBUG_LOCK_ALLOC) || defined(CONFIG_DEBUG_SPINLOCK)

static __always_inline void pn_lock_irqs_off_nested(raw_spinlock_t *lock,
						    int subclass)
	__acquires(lock)
{
	pn_assert_irqs_off();
	raw_spin_lock_nested(lock, subclass);
}

static __always_inline void pn_unlock_irqs_off(raw_spinlock_t *lock)
	__releases(lock)
{
	raw_spin_unlock(lock);
}

#else

static __always_inline void pn_lock_irqs_off_nested(raw_spinlock_t *lock,
						    int subclass)
	__acquires(lock)
{
	pn_assert_irqs_off();
	do_raw_spin_lock(lock);
}

static __always_inline void pn_unlock_irqs_off(raw_spinlock_t *lock)
	__releases(lock)
{
	do_raw_spin_unlock(lock);
}

#endif

static __always_inline void pn_lock_irqs_off(raw_spinlock_t *lock)
	__acquires(lock)
{
	pn_lock_irqs_off_nested(lock, 0);
}

/*
 * hlist_bl_lock() and hlist_bl_unlock() where interrupts are off, as
 * above: the bit lock without the preempt count of bit_spin_lock().
 * Where that lock sets no bit (!SMP) or checks it, the lock itself.
 */
#if defined(CONFIG_SMP) && !defined(CONFIG_DEBUG_SPINLOCK)

static __always_inline void pn_bl_lock_irqs_off(struct hlist_bl_head *b)
	__acquires(b)
{
	pn_assert_irqs_off();
	while (unlikely(test_and_set_bit_lock(0, (unsigned long *)b)))
		while (test_bit(0, (unsigned long *)b))
			cpu_relax();
}

static __always_inline void pn_bl_unlock_irqs_off(struct hlist_bl_head *b)
	__releases(b)
{
	__clear_bit_unlock(0, (unsigned long *)b);
}

#else

static __always_inline void pn_bl_lock_irqs_off(struct hlist_bl_head *b)
	__acquires(b)
{
	pn_assert_irqs_off();
	hlist_bl_lock(b);
}

static __always_inline void pn_bl_unlock_irqs_off(struct hlist_bl_head *b)
	__releases(b)
{
	hlist_bl_unlock(b);
}

#endif

#endif /* _PNOTIFY_WRAPPER_SPINLOCK_H */
