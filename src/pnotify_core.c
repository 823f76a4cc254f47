// SPDX-License-Identifier: GPL-2.0
/*
 * pnotify core: which tasks are followed, by whom, and the dispatch of
 * subscriber callbacks.
 *
 * Followed tasks have an entry in a fixed hash table keyed by task pointer;
 * a task that no subscriber follows has none, and costs one RCU lookup per
 * fork, exec and exit.  The hooks run in atomic context, on PREEMPT_RT too:
 * they take only raw spinlocks and bit locks and never allocate.  So what
 * a fork needs is ready before it begins: every user thread of a followed
 * process holds a *kit*, the entry its next child will get, with one
 * subscription block per subscription the child may inherit, and the fork
 * hook consumes it.  The hook then takes the thread's next kit, and the
 * child's first (a new thread's record and its kit), from a cache
 * (pn_kits); what the cache lacks is made by a task work of the thread
 * that lacks it, which runs before that thread next returns to user
 * space, hence before its next fork (pn_refill_work()); a thread left
 * without a record takes a spare one (pn_spares), or, those gone, has its
 * process's entry queue one for it (pn_record_work()), or, that work
 * taken, a kworker stock the process (pn_stock_work()).  A fork fails for
 * want of a kit only when memory did (or, under way when its task got a
 * subscription, without a kit that fits it; or by a thread left without a
 * record, the spares gone, that outran that kworker): its child is killed
 * before it runs (pn_fork_doom()).  The
 * cache holds the unused kits of tasks that exit, and their entries made
 * kits again after their grace period (pn_dead_recycle()), so that a fork
 * and an exit in a job allocate nothing and queue no work in the steady
 * state.
 *
 * Callbacks other than inherit run from task works, in the task's own
 * context, where sleeping is legal:
 *
 *  prep  a child's fork callbacks: before its first return to user space;
 *  exec  before the new image's first instruction;
 *  exit  in exit_task_work(), before the task is a zombie; none when every
 *        subscription of the task ends by leave() in the exit hook.
 *
 * A subscription (struct pnotify_subscriber) is reference counted: one
 * reference while it is linked to its task, one per child whose fork
 * callback has yet to run, one per dispatch in flight.  Its exit callback
 * runs when the last reference goes, so that parent_data outlives the
 * children's fork callbacks and exit is always the last callback.
 *
 * A subscriber's subscriptions are found by a walk of the table (its
 * unregister, pnotify_call_all()), so that forks and exits keep no list of
 * them.
 *
 * Locks: a pn_exiting list's bit lock, then entry->lock, then a table
 * bucket's bit lock, then pn_calls_lock; entry->lock, then pn_kits_lock;
 * all raw; entry->lock, then the workqueue's pool lock, raw too
 * (pn_task_queue_stock()).  A subscriber's inherit() runs under the
 * parent's entry->lock.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/ktime.h>
#include <linux/hash.h>
#include <linux/instrumented.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/oom.h>
#include <linux/poison.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/string.h>
/* After the scheduler's headers: bit_spinlock.h needs cpu_relax(). */
#include <linux/list_bl.h>
#include <linux/rculist_bl.h>
#include <pnotify.h>
#include "pnotify_internal.h"
#include "wrapper/sched.h"
#include "wrapper/shrinker.h"
#include "wrapper/spinlock.h"
#include "wrapper/task_work.h"

/* 16384 buckets: a chain stays short with tens of thousands followed. */
#define PN_TABLE_BITS 14

enum pn_task_flag {
	PN_DEAD,		/* out of the table, takes no new subscription */
	PN_EXIT_QUEUED,		/* the process's end is claimed */
	PN_EXEC_QUEUED,
	PN_PREP_QUEUED,
	PN_REFILL_QUEUED,
	PN_RECORD_QUEUED,	/* a process's: see pn_task_queue_record() */
	PN_STOCK_QUEUED,	/* a process's: see pn_task_queue_stock() */
	/* The two exit hooks a process's end waits for: see pn_core_exit(). */
	PN_LIVE_ZERO,		/* a thread's hook read signal->live == 0 */
	PN_LEADER_EXITED,	/* the leader's hook ran */
};

/*
 * A followed process, keyed by its signal_struct; a *record*, a thread of
 * one, other than its leader, that holds its kit (pn_fork_record()), keyed
 * by its task; before it is either, a kit for some task's next child, and
 * on the kit cache, a kit for some fork.
 */
struct pn_task {
	/* Zeroed by pn_entry_reset(), up to lock. */
	unsigned int nr_records;
	/* New threads left without a record, the cache empty: under lock. */
	unsigned int records_missed;
	/* User threads made in the process while followed: no lock. */
	atomic_t nr_threads_made;
	/*
	 * pn_attach()es under way, and the most subscriptions and data one of
	 * them makes the process have: its threads' next forks need kits
	 * that size already (see pn_threads_stock()).
	 */
	unsigned int nr_attaching;
	unsigned int attach_nr;
	/*
	 * Under lock: moves as a thread of the process counts its I/O or
	 * changes place in the set that has not (pnotify_task_io()).
	 */
	unsigned int io_gen;
	size_t attach_room;
	int exit_status;		/* once the process ended: wait()'s */
	unsigned int nr_subs;
	size_t subs_room;		/* the largest data_size of subs */
	unsigned long flags;
	struct pn_task *kit;		/* the next child's entry; cached: next */
	/*
	 * Of an exit ended in the hook: what it could not free (it may not,
	 * on PREEMPT_RT), for the grace period's end.
	 */
	struct pn_task *dead_kits;
	struct pnotify_subscriber *dead_blocks;
	/* Set by pn_entry_reset(), up to node. */
	raw_spinlock_t lock;		/* taken with interrupts off */
	refcount_t ref;			/* table + queued works */
	struct hlist_head subs;		/* in the order they were linked */
	struct list_head forks;		/* subscriptions awaiting fork() */
	/* A process's: its records, under its lock; a record's: the link. */
	struct list_head records;
	/*
	 * The table's key: the process's signal_struct, or the record's
	 * task.  NULL once let go of (pn_entry_unbind()): a struct freed and
	 * made again for another process never finds this entry.
	 */
	const void *key;
	/*
	 * Referenced: a process's leader (the thread that exec'd last), a
	 * record's thread; NULL once let go of.
	 */
	struct task_struct *task;
	/* Each written before it is read: see pn_entry_reset(). */
	struct hlist_bl_node node;
	struct hlist_bl_head *bucket;	/* node's: see pn_entry_hash() */
	struct pn_task *next_dead;	/* once unreferenced: see pn_task_put() */
	unsigned long irqflags;		/* of the lock's holder */
	struct callback_head prep_work;
	struct callback_head exec_work;
	struct callback_head exit_work;
	struct callback_head refill_work;
	struct callback_head record_work;
	struct work_struct stock_work;
	struct hlist_bl_node exit_node;	/* on pn_exiting while it is queued */
	/*
	 * As a kit: blocks of room bytes of data each, taken from the end;
	 * kept when the entry is made a kit again (pn_dead_recycle()).
	 */
	size_t room;
	unsigned int nr_slots;		/* of prepared[] */
	unsigned int nr_prepared;
	struct pnotify_subscriber *prepared[];
};

/*
 * Its buckets' bit locks are taken inside an entry's lock section, whose
 * interrupts are off: pn_bl_lock_irqs_off().
 */
static struct hlist_bl_head *pn_table;
/*
 * The entries whose exit work is queued or running: where an unregister
 * finds the subscriptions a leave() linked again to an entry out of the
 * table, and what an unload that waits for works in flight names in its
 * warnings.  Bit locked, as the table; a static empty head is all zeroes.
 */
#define PN_EXITING_BITS 6
static struct hlist_bl_head pn_exiting[1U << PN_EXITING_BITS];
static LIST_HEAD(pn_events_list);
static DEFINE_MUTEX(pn_register_mutex);
/*
 * What a kit must hold: one block per subscriber, of the largest data.
 * An unregistering subscriber counts until its last subscription is gone:
 * a task may hold one of them meanwhile, and a kit one block short would
 * fail its next fork.
 */
static unsigned int pn_nr_events;
static size_t pn_room;
/*
 * Of those, the ones without leave() or unregistering: while there are
 * none, which is most of the time, the exit hook need not look at a
 * process's subscriptions to know it can end them (pn_task_can_leave()).
 * Raised before any subscription can see the cause (registered, dying),
 * lowered once none is left.  Under pn_register_mutex.
 */
static unsigned int pn_nr_leaveless;
/*
 * Clean kits (unbound; their blocks are readied at use), linked through
 * ->kit: those of exited tasks, and those exit works make to keep
 * PN_KITS_LOW, for the fork hook to stock the forking task from.  Sized
 * for the subscribers registered when they were kept; once a subscriber
 * registers, they are freed.  Taken with interrupts off: the
 * fork hook takes the lock.  Up to PN_KITS_MAX: the end of a job of a
 * thousand processes is kept for the next one, not freed (a kill of 1,000
 * members costs 250 to 430 instructions a member less than with 256),
 * and memory pressure takes them back (pn_caches_scan()).
 */
#define PN_KITS_MAX 2048
#define PN_KITS_LOW 16
static DEFINE_RAW_SPINLOCK(pn_kits_lock);
static struct pn_task *pn_kits;
static unsigned int pn_nr_kits;
/*
 * Under the same lock, the blocks of ended subscriptions (linked
 * through ->fork_parent), of pn_room bytes: with them, the entry of a task
 * gone is made a kit again rather than freed.
 */
#define PN_BLOCKS_MAX 2048
static struct pnotify_subscriber *pn_blocks;
static unsigned int pn_nr_blocks;
static size_t pn_blocks_room;		/* of every block cached */
/*
 * Under the same lock, bare records (entries without blocks, linked
 * through ->kit) for new threads left without one when neither the kit
 * cache nor their creator has an entry to give (pn_fork_record()): that
 * many at once still get theirs before they run.  Each one's own work
 * then makes its kit, and tops the spares up (pn_spares_top_up()).
 */
#define PN_SPARE_RECORDS 16
static struct pn_task *pn_spares;
static unsigned int pn_nr_spares;
/*
 * Not with KASAN (the debug lanes): a use after free of an entry or a
 * block would touch another live one, unseen, where KASAN reports it.
 */
#define PN_REUSE (!IS_ENABLED(CONFIG_KASAN))
/* Orders queued pnotify_call()s against the end of their subscription. */
static DEFINE_RAW_SPINLOCK(pn_calls_lock);
/* Woken when works in flight or a subscriber's subscriptions drain. */
static DECLARE_WAIT_QUEUE_HEAD(pn_drain_wq);

/* Most tasks have a subscription or two: their execs allocate nothing. */
#define PN_SNAPSHOT_ON_STACK 4

/*
 * Test builds only (make modules PNOTIFY_TEST_DELAYS=y, the debug lane's):
 * knobs that widen the windows unloading races with, all off until set,
 * and one that makes an exec's snapshot allocate.
 */
#ifdef PNOTIFY_TEST_DELAYS
static unsigned int test_delay_end_us;
module_param(test_delay_end_us, uint, 0644);
MODULE_PARM_DESC(test_delay_end_us,
		 "test only: sleep between referencing a subscription to end (unregister, unsubscribe) and ending it");
static unsigned int test_delay_exit_us;
module_param(test_delay_exit_us, uint, 0644);
MODULE_PARM_DESC(test_delay_exit_us,
		 "test only: sleep before dropping each subscription an exiting task's exit work has unlinked");
static unsigned int test_delay_leave_us;
module_param(test_delay_leave_us, uint, 0644);
MODULE_PARM_DESC(test_delay_leave_us,
		 "test only: spin (atomic) before dropping each subscription the exit hook has unlinked");
static char test_hold_comm[TASK_COMM_LEN];
module_param_string(test_hold_comm, test_hold_comm, sizeof(test_hold_comm), 0444);
MODULE_PARM_DESC(test_hold_comm,
		 "test only: the task works of tasks of this name end only once pnotify's unload has begun (or after a minute)");
static unsigned int test_delay_return_us;
module_param(test_delay_return_us, uint, 0644);
MODULE_PARM_DESC(test_delay_return_us,
		 "test only: spin (preemptible, never sleeping) in a task work's return path, after it stopped counting in flight; in an unload, counted from the end of its drain");
static unsigned int test_delay_fork_us;
module_param(test_delay_fork_us, uint, 0644);
MODULE_PARM_DESC(test_delay_fork_us,
		 "test only: spin (atomic) at the end of the hook of every followed fork, its child subscribed, its pid not yet attached");
static unsigned int test_delay_unregister_us;
module_param(test_delay_unregister_us, uint, 0644);
MODULE_PARM_DESC(test_delay_unregister_us,
		 "test only: sleep in an unregister between its grace period and ending the subscriptions left");
static unsigned int test_delay_init_us;
module_param(test_delay_init_us, uint, 0644);
MODULE_PARM_DESC(test_delay_init_us,
		 "test only: sleep in a registration's walk after each task its init() took");
static unsigned int test_delay_call_us;
module_param(test_delay_call_us, uint, 0644);
MODULE_PARM_DESC(test_delay_call_us,
		 "test only: spin (atomic) in a call's work between taking the call off its subscription and referencing it");

static unsigned int test_delay_straggle_us;
module_param(test_delay_straggle_us, uint, 0644);
MODULE_PARM_DESC(test_delay_straggle_us,
		 "test only: spin (atomic) at the start of the exit hook of a thread whose process has threads not exiting yet");

static unsigned int test_delay_record_us;
module_param(test_delay_record_us, uint, 0644);
MODULE_PARM_DESC(test_delay_record_us,
		 "test only: spin (atomic) as a thread's record is entered by an attach or a refill work, between seeing the thread not exiting and entering it");

static unsigned int test_delay_stock_us;
module_param(test_delay_stock_us, uint, 0644);
MODULE_PARM_DESC(test_delay_stock_us,
		 "test only: sleep in a stock of a process's threads after each thread it stocks");

static unsigned int test_delay_refill_us;
module_param(test_delay_refill_us, uint, 0644);
MODULE_PARM_DESC(test_delay_refill_us,
		 "test only: sleep in a refill work before it makes its kit, in a record work before it lets another thread queue it; an unload's beginning cuts it to 500 ms more");
static unsigned int test_kits_skip;
module_param(test_kits_skip, uint, 0644);
MODULE_PARM_DESC(test_kits_skip,
		 "test only: in one followed fork in N, take no kit from the cache, as if it were empty (1: every one); 0: none");
static atomic_t pn_test_forks = ATOMIC_INIT(0);
static bool test_records_skip;
module_param(test_records_skip, bool, 0644);
MODULE_PARM_DESC(test_records_skip,
		 "test only: give a thread no record from the cache or its creator in its fork hook, as if neither had a kit");
#define pn_test_records_skip() READ_ONCE(test_records_skip)
static bool test_spares_skip;
module_param(test_spares_skip, bool, 0644);
MODULE_PARM_DESC(test_spares_skip,
		 "test only: give a thread no spare record in its fork hook, as if there were none");
#define pn_test_spares_skip() READ_ONCE(test_spares_skip)
static bool test_spares_frozen;
module_param(test_spares_frozen, bool, 0644);
MODULE_PARM_DESC(test_spares_frozen,
		 "test only: do not top the spare records up");
#define pn_test_spares_frozen() READ_ONCE(test_spares_frozen)

static bool pn_test_kits_skip(void)
{
	unsigned int n = READ_ONCE(test_kits_skip);

	return n && !(atomic_inc_return(&pn_test_forks) % n);
}

static unsigned int test_snapshot_on_stack = PN_SNAPSHOT_ON_STACK;
module_param(test_snapshot_on_stack, uint, 0644);
MODULE_PARM_DESC(test_snapshot_on_stack,
		 "test only: how many subscriptions an exec's snapshot takes on the stack (at most 4) before it allocates");

#define pn_snapshot_on_stack() \
	min_t(unsigned int, READ_ONCE(test_snapshot_on_stack), \
	      PN_SNAPSHOT_ON_STACK)
#define pn_test_sleep(name) fsleep(READ_ONCE(test_delay_##name##_us))
#define pn_test_spin(name) pn_test_spin_us(READ_ONCE(test_delay_##name##_us))

/*
 * Instructions, never a sleep: for the hooks' atomic context too.  By the
 * clock, not mdelay(): a guest under emulation whose TSCs are unsynchronized
 * can run a delay loop far short of its time.  The clocksource must run
 * with interrupts off (TSC, HPET, ACPI PM; not jiffies), as the fork hook's
 * spin holds tasklist_lock with them off, where other CPUs may wait.
 */
static void pn_test_spin_us(unsigned int us)
{
	u64 end = ktime_get_mono_fast_ns() + (u64)us * NSEC_PER_USEC;

	while (ktime_get_mono_fast_ns() < end)
		cpu_relax();
}

/*
 * A thread that leaves others not exiting yet spins: the last two of an
 * exit_group() exit together, and the second ends the process with the
 * first left behind.  (The one ending it must not spin: with preemption
 * off in the hook, two spinning threads hold both CPUs of a small VM.)
 */
static void pn_test_straggle(struct task_struct *task)
{
	if (atomic_read(&task->signal->live))
		pn_test_spin(straggle);
}

static bool pn_test_unloading;
static bool pn_test_unload_drained;
static DECLARE_WAIT_QUEUE_HEAD(pn_test_unload_wq);
/* Tasks in a work's return path, past the in-flight count. */
static atomic_t pn_test_returning = ATOMIC_INIT(0);
/* How long a return path in an unload may wait for the drain's end. */
#define PN_TEST_DRAIN_WAIT_US (60 * USEC_PER_SEC)

/*
 * A refill work's sleep ends when the unload begins, and goes on 500 ms
 * from there: the unload's drain finds it asleep in flight however long
 * the unloads before it took, on any kernel.
 */
static void pn_test_refill_sleep(void)
{
	wait_event_timeout(pn_test_unload_wq, READ_ONCE(pn_test_unloading),
			   usecs_to_jiffies(READ_ONCE(test_delay_refill_us)));
	if (READ_ONCE(pn_test_unloading))
		msleep(500);
}

/*
 * A held work is in flight when the unload waits for works to drain.
 * Counted apart (works_held): a refill work in flight is not held.
 */
static atomic_t pn_test_held = ATOMIC_INIT(0);

static void pn_test_work_end(void)
{
	if (test_hold_comm[0] &&
	    !strncmp(current->comm, test_hold_comm, sizeof(test_hold_comm))) {
		atomic_inc(&pn_test_held);
		wait_event_timeout(pn_test_unload_wq,
				   READ_ONCE(pn_test_unloading), 60 * HZ);
		atomic_dec(&pn_test_held);
	}
	atomic_inc(&pn_test_returning);
}

static void pn_test_show(struct seq_file *m)
{
	seq_printf(m, "works_held: %d\n", atomic_read(&pn_test_held));
}

/*
 * The rest of the return path drawn out: instructions, never a sleep.  In
 * an unload, past the drain's end whenever that comes, so that the text
 * is still in use as the unload goes on.  Until then it gives way to the
 * unload at cond_resched(), a preemption (RCU Tasks still waits for it),
 * where preemption is voluntary.
 */
static void pn_test_work_return(void)
{
	u64 end = ktime_get_mono_fast_ns() +
		  PN_TEST_DRAIN_WAIT_US * NSEC_PER_USEC;

	if (READ_ONCE(test_delay_return_us) && READ_ONCE(pn_test_unloading))
		while (!READ_ONCE(pn_test_unload_drained) &&
		       ktime_get_mono_fast_ns() < end)
			cond_resched();
	pn_test_spin(return);
	atomic_dec(&pn_test_returning);
}

static void pn_test_unload_begins(void)
{
	WRITE_ONCE(pn_test_unloading, true);
	wake_up_all(&pn_test_unload_wq);
}

static void pn_test_drained(void)
{
	pr_info("unload: %d tasks in a work's return path after the drain\n",
		atomic_read(&pn_test_returning));
	WRITE_ONCE(pn_test_unload_drained, true);
}

/* Our text is about to go: no task may still be running it. */
static void pn_test_unloadable(void)
{
	WARN_ON(atomic_read(&pn_test_returning));
}

/*
 * The links an entry's reset no longer zeroes, poisoned: a read before its
 * write follows a wild pointer, not a stale or zero one.
 */
static void pn_test_poison(struct pn_task *e)
{
	memset(&e->node, POISON_INUSE, sizeof(e->node));
	memset(&e->bucket, POISON_INUSE, sizeof(e->bucket));
	memset(&e->next_dead, POISON_INUSE, sizeof(e->next_dead));
}

/* In every log of a load: a production system must not run this build. */
static void pn_test_build_says_so(void)
{
	pr_warn("test build (PNOTIFY_TEST_DELAYS=y): its test_* parameters widen race windows; not for production use\n");
}
#else
#define pn_snapshot_on_stack() PN_SNAPSHOT_ON_STACK
#define pn_test_kits_skip() false
#define pn_test_records_skip() false
#define pn_test_spares_skip() false
#define pn_test_spares_frozen() false
#define pn_test_sleep(name) do { } while (0)
#define pn_test_refill_sleep() do { } while (0)
#define pn_test_spin(name) do { } while (0)
static inline void pn_test_straggle(struct task_struct *task) { }
static inline void pn_test_work_end(void) { }
static inline void pn_test_show(struct seq_file *m) { }
static inline void pn_test_work_return(void) { }
static inline void pn_test_unload_begins(void) { }
static inline void pn_test_drained(void) { }
static inline void pn_test_unloadable(void) { }
static inline void pn_test_build_says_so(void) { }
static inline void pn_test_poison(struct pn_task *e) { }
#endif

static struct {
	atomic_long_t tasks;
	atomic_long_t works_inflight;
	atomic_long_t forks_followed;
	atomic_long_t fork_failures;
	atomic_long_t kits_made;
	atomic_long_t refill_works;	/* run: see pn_refill_work() */
	atomic_long_t record_works;	/* run: see pn_record_work() */
	atomic_long_t stock_works;	/* run on a live process */
	atomic_long_t records_refused;	/* their thread exiting */
	atomic_long_t records_spared;	/* spares taken: see pn_spares */
	atomic_long_t records_missed;	/* new threads', the spares gone */
	atomic_long_t exits_in_hook;	/* ended by the hook: no exit work */
	atomic_long_t exits_left_behind; /* threads counted at their end */
	atomic_long_t exec_works;	/* queued: a subscriber has exec() */
} pn_stats;

/* ---- entries and kits --------------------------------------------------- */

/* Frees @e and the kit it holds, if any (a kit holds none). */
static void pn_entry_free(struct pn_task *e)
{
	struct pn_task *kit;
	unsigned int i;

	for (; e; e = kit) {
		kit = e->kit;
		for (i = 0; i < e->nr_prepared; i++)
			kfree(e->prepared[i]);
		kfree(e);
	}
}

/*
 * Everything of an entry but its blocks, as a new one has it: its counts
 * and links zeroed, its lock, lists, reference and key set, and the
 * fields none reads before writing (node on) left as they are: a
 * recycled entry's reset zeroes 10 words, not 23.  Not under kmemleak,
 * which would take their old pointers for references; the lock too under
 * lock statistics, whose ip its init does not set.  Else field by field:
 * a memset() of those 10 words is a rep stos, whose start costs more than
 * the stores it saves (about 9 instructions an entry, under TCG too).
 */
static __always_inline void pn_entry_reset(struct pn_task *e)
{
	if (IS_ENABLED(CONFIG_DEBUG_KMEMLEAK) || IS_ENABLED(CONFIG_LOCK_STAT)) {
		memset(e, 0, IS_ENABLED(CONFIG_DEBUG_KMEMLEAK) ?
			     offsetof(struct pn_task, room) :
			     offsetof(struct pn_task, ref));
	} else {
		/*
		 * A field added before lock is reset here too: with none
		 * of the padding, lock would move.
		 */
		BUILD_BUG_ON(IS_ENABLED(CONFIG_64BIT) &&
			     offsetof(struct pn_task, lock) != 80);
		e->nr_records = 0;
		e->records_missed = 0;
		atomic_set(&e->nr_threads_made, 0);
		e->nr_attaching = 0;
		e->attach_nr = 0;
		e->io_gen = 0;
		e->attach_room = 0;
		e->exit_status = 0;
		e->nr_subs = 0;
		e->subs_room = 0;
		e->flags = 0;
		e->kit = NULL;
		e->dead_kits = NULL;
		e->dead_blocks = NULL;
	}
	pn_test_poison(e);
	raw_spin_lock_init(&e->lock);
	refcount_set(&e->ref, 1);
	INIT_HLIST_HEAD(&e->subs);
	INIT_LIST_HEAD(&e->forks);
	INIT_LIST_HEAD(&e->records);
	e->key = NULL;
	e->task = NULL;
}

/* The bytes of a block with @room bytes of data. */
static size_t pn_block_size(size_t room)
{
	struct pnotify_subscriber *b;

	return struct_size(b, room, DIV_ROUND_UP(room, 8));
}

/*
 * Readies @b, a kit's, for a subscription of @events as inherit() gets it:
 * what pn_sub_init() does not set, and its data zeroed in whole words (up
 * to 7 bytes past data_size, inside room[]).  memset64() is an inline rep
 * stosq; memset() of a size known only here is a call, and rep stosb on
 * CPUs with ERMS, which TCG runs as an instruction a byte.  A reused
 * block's other bytes are left as they are: they are no one's.
 */
static void pn_block_ready(struct pnotify_subscriber *b,
			   const struct pnotify_events *events)
{
	size_t words = DIV_ROUND_UP(events->data_size, 8);

	b->entry = NULL;
	b->fork_parent = NULL;
	b->spare_entry = NULL;
	b->spare_kit = NULL;
	/* The inline assembly is not instrumented: KASAN checks it here. */
	instrument_write(b->room, words * sizeof(b->room[0]));
	memset64(b->room, 0, words);
}

/* An entry bound to no task, with @nr blocks of @room bytes each. */
static struct pn_task *pn_entry_alloc(unsigned int nr, size_t room, gfp_t gfp)
{
	struct pn_task *e = kmalloc(struct_size(e, prepared, nr), gfp);
	struct pnotify_subscriber *b;

	if (!e)
		return NULL;
	pn_entry_reset(e);
	e->room = room;
	e->nr_slots = nr;
	for (e->nr_prepared = 0; e->nr_prepared < nr; e->nr_prepared++) {
		b = kzalloc(pn_block_size(room), gfp);
		if (!b) {
			pn_entry_free(e);
			return NULL;
		}
		b->room_bytes = room;
		e->prepared[e->nr_prepared] = b;
	}
	return e;
}

/*
 * Any context, for a holder of the hooks (the parent's entry, a prepared
 * subscription): a followed process holds them too.  The reference goes
 * at the end, else in an RCU callback.
 */
static __always_inline void pn_entry_bind(struct pn_task *e,
					  struct task_struct *task,
					  const void *key)
{
	get_task_struct(task);
	e->task = task;
	e->key = key;
	atomic_long_inc(&pn_stats.tasks);
	pn_hooks_hold();
}

/*
 * The leader of @task's process, referenced, or NULL once the process is
 * reaped: found by its tgid, since task->group_leader may name a leader
 * an exec by another thread replaced and released (de_thread()).  @task
 * is referenced: its signal_struct stays with it.
 */
static struct task_struct *pn_task_leader(struct task_struct *task)
{
	struct task_struct *leader;

	rcu_read_lock();
	leader = pid_task(task_tgid(task), PIDTYPE_PID);
	if (leader)
		get_task_struct(leader);
	rcu_read_unlock();
	return leader;
}

/*
 * Any context.  The last reference to the task may go here: a process's
 * leader reaped after an exec by another thread (de_thread()).  That is
 * legal in any context, on PREEMPT_RT too, where put_task_struct() defers
 * the free to call_rcu() when not preemptible.
 */
static inline void pn_entry_unbind(struct pn_task *e)
{
	struct task_struct *task = e->task;

	/*
	 * RCU readers of the table compare it (pn_lookup()): cleared before
	 * the put that may free the task, whose address a new one may take.
	 */
	WRITE_ONCE(e->key, NULL);
	WRITE_ONCE(e->task, NULL);
	put_task_struct(task);
	atomic_long_dec(&pn_stats.tasks);
	pn_hooks_put();
}

static void pn_dead_recycle(struct pn_task *dead);

/*
 * Entries no longer referenced wait for a grace period (RCU readers may
 * still look at them) before they are made kits again.  One call_rcu()
 * serves them all: those buried before it was made wait for its end on
 * pn_dead_waiting, those buried since on pn_dead_next for the one its
 * callback makes next.  (A call_rcu() each cost a fork and exit in a job
 * about as much again as the rest of the entry's end.)  A callback
 * recycles all it waited for, as rcu_do_batch() ran all their callbacks
 * once there were many: capped, it would fall behind the exits of a large
 * machine.  Under pn_kits_lock.
 */
static struct pn_task *pn_dead_waiting, *pn_dead_next;
static bool pn_grace_pending;
static struct rcu_head pn_grace;

static void pn_grace_ended(struct rcu_head *rcu)
{
	struct pn_task *e;
	unsigned long flags;
	bool again;

	raw_spin_lock_irqsave(&pn_kits_lock, flags);
	e = pn_dead_waiting;
	pn_dead_waiting = pn_dead_next;
	pn_dead_next = NULL;
	again = pn_dead_waiting;
	pn_grace_pending = again;
	raw_spin_unlock_irqrestore(&pn_kits_lock, flags);
	/* Only what was buried before it is made waits on it. */
	if (again)
		call_rcu(&pn_grace, pn_grace_ended);
	pn_dead_recycle(e);
}

/*
 * Buries @e, unreferenced, to wait for a grace period; pn_kits_lock held.
 * Returns whether the caller, once unlocked, must start one.
 */
static bool pn_task_bury_locked(struct pn_task *e)
{
	bool start = !pn_grace_pending;

	if (start) {
		e->next_dead = NULL;
		pn_dead_waiting = e;
		pn_grace_pending = true;
	} else {
		e->next_dead = pn_dead_next;
		pn_dead_next = e;
	}
	return start;
}

/* Any context, the hooks included. */
static void pn_task_put(struct pn_task *e)
{
	unsigned long flags;
	bool start;

	if (!refcount_dec_and_test(&e->ref))
		return;
	raw_spin_lock_irqsave(&pn_kits_lock, flags);
	start = pn_task_bury_locked(e);
	raw_spin_unlock_irqrestore(&pn_kits_lock, flags);
	if (start)
		call_rcu(&pn_grace, pn_grace_ended);
}

/*
 * Once its end has come, @e out of the table (and of pn_exiting): its
 * task_struct would otherwise wait for @e's grace period, which may be the
 * next one's too: each one kept is one more to allocate, zeroed.  Past
 * this, lookups compare e->key, and what may run there takes the task
 * from its caller (pn_task_queue_prep(), pn_dispatch_exec()).  Any
 * context.
 */
static void pn_task_let_go(struct pn_task *e)
{
	pn_entry_unbind(e);
	pn_task_put(e);
}

/*
 * At unload, once no entry can be put any more: until no call is pending,
 * then until the callback that found none to make has returned.
 */
static void pn_dead_drain(void)
{
	do
		rcu_barrier();
	while (READ_ONCE(pn_grace_pending));
	rcu_barrier();
}

static bool pn_kit_fits(const struct pn_task *kit, unsigned int nr,
			size_t room)
{
	return kit && kit->nr_prepared >= nr && kit->room >= room;
}

/* How many blocks, how large, @e's next child may need; e->lock held. */
static void pn_task_needs(struct pn_task *e, unsigned int *nr, size_t *room)
{
	*nr = max(e->nr_subs, e->attach_nr);
	*room = max(e->subs_room, e->attach_room);
}

/*
 * Takes the cache's first kit if it fits (@nr, @room); pn_kits_lock held.
 * A kit that does not fit any more stays for pn_kit_get() to free.
 */
static struct pn_task *pn_kits_pop(unsigned int nr, size_t room)
{
	struct pn_task *kit = pn_kits;

	if (!pn_kit_fits(kit, nr, room))
		return NULL;
	pn_kits = kit->kit;
	pn_nr_kits--;
	kit->kit = NULL;
	return kit;
}

/* A new kit for any set of subscriptions of the subscribers registered now. */
static struct pn_task *pn_kit_new(unsigned int nr, size_t room, gfp_t gfp)
{
	struct pn_task *kit;

	kit = pn_entry_alloc(max(nr, READ_ONCE(pn_nr_events)),
			     max(room, READ_ONCE(pn_room)), gfp);
	if (kit)
		atomic_long_inc(&pn_stats.kits_made);
	return kit;
}

/*
 * A kit that fits (@nr, @room) and the subscribers registered now: a cached
 * one, or a new one.  Process context.
 */
static struct pn_task *pn_kit_get(unsigned int nr, size_t room, gfp_t gfp)
{
	struct pn_task *kit, *stale = NULL;
	unsigned long flags;

	nr = max(nr, READ_ONCE(pn_nr_events));
	room = max(room, READ_ONCE(pn_room));
	raw_spin_lock_irqsave(&pn_kits_lock, flags);
	kit = pn_kits_pop(nr, room);
	if (!kit && pn_kits) {
		/* Sized before a subscriber registered: the rest are too. */
		stale = pn_kits;
		pn_kits = NULL;
		pn_nr_kits = 0;
	}
	raw_spin_unlock_irqrestore(&pn_kits_lock, flags);
	pn_entry_free(stale);
	return kit ?: pn_kit_new(nr, room, gfp);
}

/* Frees a list of blocks linked through ->fork_parent. */
static void pn_blocks_free(struct pnotify_subscriber *b)
{
	struct pnotify_subscriber *next;

	for (; b; b = next) {
		next = b->fork_parent;
		kfree(b);
	}
}

/*
 * Readies the block cache for blocks of @room bytes: if it holds others
 * (cached before a subscriber with more data registered), takes them off
 * for the caller to free once unlocked.  pn_kits_lock held.
 */
static struct pnotify_subscriber *pn_blocks_stale(size_t room)
{
	struct pnotify_subscriber *stale = pn_blocks;

	if (pn_blocks_room == room)
		return NULL;
	pn_blocks = NULL;
	pn_nr_blocks = 0;
	pn_blocks_room = room;
	return stale;
}

/* Puts @kit on the cache; pn_kits_lock held, and room on it. */
static void pn_kits_push(struct pn_task *kit)
{
	kit->kit = pn_kits;
	pn_kits = kit;
	pn_nr_kits++;
}

/*
 * Makes a block look new to kmemleak, which would take its old pointers for
 * references; its link (->fork_parent) stays.
 */
static void pn_block_scrub(struct pnotify_subscriber *b)
{
	struct pnotify_subscriber *next = b->fork_parent;
	size_t room = b->room_bytes;

	memset(b, 0, pn_block_size(room));
	b->room_bytes = room;
	b->fork_parent = next;
}

/* pn_block_scrub() for each of a list linked through ->fork_parent. */
static void pn_blocks_scrub(struct pnotify_subscriber *b)
{
	for (; b; b = b->fork_parent)
		pn_block_scrub(b);
}

/*
 * Keeps, in one section of the cache lock, the kits linked through ->kit
 * from *@kits, for forks, and the blocks of ended subscriptions linked
 * through ->fork_parent from *@blocks, for pn_dead_recycle(), all that fit
 * the subscribers registered now and the cache; leaves there what the
 * caller must free: those that do not, and cached blocks of a size kits no
 * longer have.  Then drops a reference of @put, if given, burying it in
 * the same section if it was the last: *@kits and *@blocks may be @put's
 * own, which its grace period frees.  Any context, the exit hook included.
 */
static void pn_cache_keep(struct pn_task **kits,
			  struct pnotify_subscriber **blocks,
			  struct pn_task *put)
{
	unsigned int nr = READ_ONCE(pn_nr_events);
	size_t room = READ_ONCE(pn_room);
	struct pnotify_subscriber *b = *blocks, *b_next, *stale = NULL;
	struct pn_task *kit = *kits, *next;
	bool start = false;
	unsigned long flags;

	*kits = NULL;
	*blocks = NULL;
	if (IS_ENABLED(CONFIG_DEBUG_KMEMLEAK))
		pn_blocks_scrub(b);
	raw_spin_lock_irqsave(&pn_kits_lock, flags);
	for (; kit; kit = next) {
		next = kit->kit;
		if (pn_kit_fits(kit, nr, room) && pn_nr_kits < PN_KITS_MAX) {
			pn_kits_push(kit);
		} else {
			kit->kit = *kits;
			*kits = kit;
		}
	}
	if (PN_REUSE && b)
		stale = pn_blocks_stale(room);
	for (; b; b = b_next) {
		b_next = b->fork_parent;
		if (PN_REUSE && b->room_bytes == room &&
		    pn_nr_blocks < PN_BLOCKS_MAX) {
			b->fork_parent = pn_blocks;
			pn_blocks = b;
			pn_nr_blocks++;
		} else {
			b->fork_parent = stale;
			stale = b;
		}
	}
	*blocks = stale;
	/* Once its outputs are written: its grace period frees them. */
	if (put && refcount_dec_and_test(&put->ref))
		start = pn_task_bury_locked(put);
	raw_spin_unlock_irqrestore(&pn_kits_lock, flags);
	if (start)
		call_rcu(&pn_grace, pn_grace_ended);
}

/*
 * pn_cache_keep() for an entry let go of with one kit, its own or its
 * record's unused one (every followed thread holds one), and no block:
 * the kit is cached in the section of the cache lock that drops @e's
 * reference, if it fits and there is room; else it waits for @e's grace
 * period.  Interrupts off, which every caller has: the lock needs no
 * saving.
 */
static __always_inline void pn_task_put_kit(struct pn_task *e)
{
	struct pn_task *kit = e->dead_kits;
	bool start = false;

	pn_lock_irqs_off(&pn_kits_lock);
	if (pn_kit_fits(kit, READ_ONCE(pn_nr_events), READ_ONCE(pn_room)) &&
	    pn_nr_kits < PN_KITS_MAX) {
		pn_kits_push(kit);
		e->dead_kits = NULL;
	}
	if (refcount_dec_and_test(&e->ref))
		start = pn_task_bury_locked(e);
	pn_unlock_irqs_off(&pn_kits_lock);
	if (start)
		call_rcu(&pn_grace, pn_grace_ended);
}

/*
 * pn_task_let_go() with interrupts off, in a hook, which may not free, or
 * under an entry's lock: what @e's dead_kits and dead_blocks hold goes to
 * the caches, in the section that puts @e, and what they cannot take
 * waits for @e's grace period.  Most have nothing to keep (a process that
 * never forked): they are only put.
 */
static __always_inline void pn_entry_let_go_atomic(struct pn_task *e)
{
	pn_entry_unbind(e);
	if (e->dead_blocks || (e->dead_kits && e->dead_kits->kit))
		pn_cache_keep(&e->dead_kits, &e->dead_blocks, e);
	else if (e->dead_kits)
		pn_task_put_kit(e);
	else
		pn_task_put(e);
}

/* Keeps @kit for a fork if it fits, or frees it. */
static void pn_kit_put(struct pn_task *kit)
{
	struct pnotify_subscriber *none = NULL;

	pn_cache_keep(&kit, &none, NULL);
	pn_entry_free(kit);
}

/* Keeps the block of an ended subscription for reuse, or frees it. */
static void pn_block_put(struct pnotify_subscriber *b)
{
	struct pn_task *none = NULL;

	b->fork_parent = NULL;
	pn_cache_keep(&none, &b, NULL);
	pn_blocks_free(b);
}

/*
 * Keeps PN_KITS_LOW kits in the cache, from the exits of followed tasks (in
 * process context), for the fork hook: a fork takes a kit, the exit of its
 * child gives one back, and no thread needs a refill work.
 */
static void pn_kits_top_up(void)
{
	struct pn_task *kit;
	unsigned int i;

	/* Memory an OOM victim may take is for its exit, not for a cache. */
	if (tsk_is_oom_victim(current))
		return;
	for (i = 0; i < PN_KITS_LOW && READ_ONCE(pn_nr_kits) < PN_KITS_LOW;
	     i++) {
		kit = pn_kit_new(0, 0, GFP_KERNEL | __GFP_NORETRY | __GFP_NOWARN);
		if (!kit)
			return;
		pn_kit_put(kit);
	}
}

/* Takes a spare record, if there is one; pn_kits_lock held. */
static struct pn_task *pn_spares_pop(void)
{
	struct pn_task *rec = pn_spares;

	if (!rec || unlikely(pn_test_spares_skip()))
		return NULL;
	pn_spares = rec->kit;
	pn_nr_spares--;
	rec->kit = NULL;
	atomic_long_inc(&pn_stats.records_spared);
	return rec;
}

/*
 * Keeps PN_SPARE_RECORDS spare records, from the works that stock threads
 * and the exit works (in process context): a thread that took one tops
 * them up before it runs in user space.
 */
static void pn_spares_top_up(void)
{
	struct pn_task *rec;
	unsigned long flags;
	unsigned int i;

	if (tsk_is_oom_victim(current) || unlikely(pn_test_spares_frozen()))
		return;
	for (i = 0; i < PN_SPARE_RECORDS &&
	     READ_ONCE(pn_nr_spares) < PN_SPARE_RECORDS; i++) {
		rec = pn_entry_alloc(0, 0, GFP_KERNEL | __GFP_NORETRY |
					   __GFP_NOWARN);
		if (!rec)
			return;
		raw_spin_lock_irqsave(&pn_kits_lock, flags);
		if (pn_nr_spares < PN_SPARE_RECORDS) {
			rec->kit = pn_spares;
			pn_spares = rec;
			pn_nr_spares++;
			rec = NULL;
		}
		raw_spin_unlock_irqrestore(&pn_kits_lock, flags);
		pn_entry_free(rec);
	}
}

/* Entries made kits in one section of the cache lock, at most. */
#define PN_RECYCLE_BATCH 32

/*
 * Caches the clean kits linked through ->kit from *@kits, each topped up
 * to @nr blocks of @room bytes from the cached ones, in one section of the
 * cache lock: PN_RECYCLE_BATCH at most, fewer once the cache is full.
 * Those short of blocks go on *@unfit, the others not taken stay on
 * *@kits.  Returns whether the cache has room left.
 */
static bool pn_kits_recycle_some(struct pn_task **kits, struct pn_task **unfit,
				 unsigned int nr, size_t room)
{
	struct pn_task *e = *kits, *next;
	struct pnotify_subscriber *b, *stale;
	unsigned int want, n;
	unsigned long flags;
	bool room_left;

	raw_spin_lock_irqsave(&pn_kits_lock, flags);
	stale = pn_blocks_stale(room);
	for (n = 0; e && n < PN_RECYCLE_BATCH && pn_nr_kits < PN_KITS_MAX;
	     n++, e = next) {
		next = e->kit;
		want = max(nr, e->nr_prepared) - e->nr_prepared;
		if (pn_nr_blocks < want) {
			e->kit = *unfit;
			*unfit = e;
			continue;
		}
		for (; want; want--) {
			b = pn_blocks;
			pn_blocks = b->fork_parent;
			pn_nr_blocks--;
			b->fork_parent = NULL;
			e->prepared[e->nr_prepared++] = b;
		}
		pn_kits_push(e);
	}
	room_left = pn_nr_kits < PN_KITS_MAX;
	raw_spin_unlock_irqrestore(&pn_kits_lock, flags);
	pn_blocks_free(stale);
	*kits = e;
	return room_left;
}

/*
 * Caches the @n kits linked through ->kit from @first to @last, all in
 * one section of the cache lock, if there is room for them all.
 */
static bool pn_kits_push_all(struct pn_task *first, struct pn_task *last,
			     unsigned int n)
{
	unsigned long flags;
	bool room_left;

	raw_spin_lock_irqsave(&pn_kits_lock, flags);
	room_left = pn_nr_kits + n <= PN_KITS_MAX;
	if (room_left) {
		last->kit = pn_kits;
		pn_kits = first;
		pn_nr_kits += n;
	}
	raw_spin_unlock_irqrestore(&pn_kits_lock, flags);
	return room_left;
}

/*
 * Makes the entries linked through ->next_dead from @dead, of tasks gone
 * (out of the table, past their grace period), clean kits again, their
 * blocks made up from the cached ones, and caches them: those with all
 * their blocks (most: pn_entry_keep_blocks()) together, the others a few
 * to a section of the cache lock; frees those that cannot be (sized
 * before a subscriber registered, too few blocks cached, the cache full).
 * What a grace period ago still referenced them goes first.  An RCU
 * callback: any context but the hooks'.
 */
static void pn_dead_recycle(struct pn_task *dead)
{
	unsigned int nr = READ_ONCE(pn_nr_events), nr_whole = 0;
	size_t room = READ_ONCE(pn_room);
	struct pn_task *e, *next, *kits = NULL, *unfit = NULL;
	struct pn_task *whole = NULL, *whole_last = NULL;

	for (e = dead; e; e = next) {
		next = e->next_dead;
		if (e->task)
			pn_entry_unbind(e);
		pn_entry_free(e->dead_kits);
		pn_blocks_free(e->dead_blocks);
		/* Its kit went when it left the table (pn_task_unhash()). */
		if (!PN_REUSE || WARN_ON_ONCE(e->kit) || e->nr_slots < nr ||
		    e->room != room) {
			pn_entry_free(e);
			continue;
		}
		pn_entry_reset(e);
		if (e->nr_prepared >= nr) {
			if (!whole)
				whole_last = e;
			e->kit = whole;
			whole = e;
			nr_whole++;
		} else {
			e->kit = kits;
			kits = e;
		}
	}
	/* With no room for them all, the cache takes what it can. */
	if (whole && !pn_kits_push_all(whole, whole_last, nr_whole)) {
		whole_last->kit = kits;
		kits = whole;
	}
	while (kits && pn_kits_recycle_some(&kits, &unfit, nr, room))
		;
	pn_entry_free(kits);
	pn_entry_free(unfit);
}

/*
 * The caches' kits and blocks, which memory pressure may take back, all
 * but PN_KITS_LOW kits: without them exits would leave the hook for their
 * works, and forks queue works to make their kits (pn_refill_work()).
 */
static unsigned long pn_caches_count(struct shrinker *shrinker,
				     struct shrink_control *sc)
{
	unsigned int kits = READ_ONCE(pn_nr_kits);

	return (kits > PN_KITS_LOW ? kits - PN_KITS_LOW : 0) +
	       READ_ONCE(pn_nr_blocks);
}

/* Takes @max at most off the caches; pn_kits_lock held. */
static unsigned long pn_caches_take(unsigned long max, struct pn_task **kits,
				    struct pnotify_subscriber **blocks)
{
	struct pnotify_subscriber *b;
	struct pn_task *kit;
	unsigned long n;

	for (n = 0; n < max && pn_nr_kits > PN_KITS_LOW; n++) {
		kit = pn_kits;
		pn_kits = kit->kit;
		pn_nr_kits--;
		kit->kit = *kits;
		*kits = kit;
	}
	for (; n < max && pn_blocks; n++) {
		b = pn_blocks;
		pn_blocks = b->fork_parent;
		pn_nr_blocks--;
		b->fork_parent = *blocks;
		*blocks = b;
	}
	return n;
}

/* A few a section of the cache lock, which the fork hook spins on. */
static unsigned long pn_caches_scan(struct shrinker *shrinker,
				    struct shrink_control *sc)
{
	struct pnotify_subscriber *blocks;
	unsigned long freed = 0, n, flags;
	struct pn_task *kits;

	do {
		kits = NULL;
		blocks = NULL;
		raw_spin_lock_irqsave(&pn_kits_lock, flags);
		n = pn_caches_take(min_t(unsigned long, PN_RECYCLE_BATCH,
					 sc->nr_to_scan - freed),
				   &kits, &blocks);
		raw_spin_unlock_irqrestore(&pn_kits_lock, flags);
		pn_entry_free(kits);
		pn_blocks_free(blocks);
		freed += n;
	} while (n && freed < sc->nr_to_scan);
	return freed ?: SHRINK_STOP;
}

static struct shrinker *pn_caches_shrinker;

/* At unload. */
static void pn_kits_free(void)
{
	pn_entry_free(pn_kits);
	pn_kits = NULL;
	pn_nr_kits = 0;
	pn_blocks_free(pn_blocks);
	pn_blocks = NULL;
	pn_nr_blocks = 0;
	pn_entry_free(pn_spares);
	pn_spares = NULL;
	pn_nr_spares = 0;
}

static struct hlist_bl_head *pn_bucket(const void *key)
{
	return &pn_table[hash_ptr(key, PN_TABLE_BITS)];
}

#ifdef PNOTIFY_TEST_DELAYS
/* A bucket kept stale would lock another chain than the entry's. */
static void pn_test_bucket_check(const struct pn_task *e)
{
	WARN_ON_ONCE(e->bucket != pn_bucket(e->key));
}
#else
static inline void pn_test_bucket_check(const struct pn_task *e) { }
#endif

/*
 * hlist_bl_first_rcu(), whose check knows only rcu_read_lock() and the
 * bucket lock: the hooks look up with preemption disabled, which holds off
 * the grace period an entry waits for just as well.
 */
static struct hlist_bl_node *pn_bucket_first(struct hlist_bl_head *head)
{
	return (struct hlist_bl_node *)
		((unsigned long)rcu_dereference_check(head->first,
						      hlist_bl_is_locked(head) ||
						      rcu_read_lock_any_held()) &
		 ~LIST_BL_LOCKMASK);
}

/*
 * The entry of @key in @head, its bucket, maybe dead; under RCU or with
 * preemption disabled.  A process's key and a record's are a
 * signal_struct and a task_struct: two live objects, never the same
 * address.
 */
static struct pn_task *pn_bucket_lookup(struct hlist_bl_head *head,
					const void *key)
{
	struct hlist_bl_node *pos;
	struct pn_task *e;

	for (pos = pn_bucket_first(head); pos;
	     pos = rcu_dereference_raw(pos->next)) {
		e = hlist_bl_entry(pos, struct pn_task, node);
		if (READ_ONCE(e->key) == key)
			return e;
	}
	return NULL;
}

static struct pn_task *pn_lookup(const void *key)
{
	return pn_bucket_lookup(pn_bucket(key), key);
}

/*
 * Enters @e in @head, the bucket of its key, locked.  The bucket is kept
 * for the unhash, where the hash would be made again (a fork and exit
 * in a job hash each entry once, not twice).
 */
static void pn_entry_hash(struct pn_task *e, struct hlist_bl_head *head)
{
	e->bucket = head;
	hlist_bl_add_head_rcu(&e->node, head);
}

/* The entry of @task's process, maybe dead; as pn_lookup(). */
static struct pn_task *pn_task_lookup(struct task_struct *task)
{
	return pn_lookup(task->signal);
}

/*
 * Entry locks are taken with interrupts off: the fork hook takes them under
 * siglock and tasklist_lock, which interrupts take too.  @irqs_off: the
 * caller has them off already and keeps them off (the exit hook; the
 * fork hook, but on PREEMPT_RT, where those locks sleep and leave them
 * on), so that they need no saving (about 30 instructions a fork in a
 * job), and unlocks the same way, which restores nothing.
 */
static __always_inline void __pn_entry_lock(struct pn_task *e, int subclass,
					    bool irqs_off)
{
	unsigned long flags;

	if (irqs_off && !IS_ENABLED(CONFIG_PREEMPT_RT)) {
		pn_lock_irqs_off_nested(&e->lock, subclass);
		return;
	}
	raw_spin_lock_irqsave_nested(&e->lock, flags, subclass);
	e->irqflags = flags;
}

static __always_inline void __pn_entry_unlock(struct pn_task *e,
					      bool irqs_off)
{
	if (irqs_off && !IS_ENABLED(CONFIG_PREEMPT_RT))
		pn_unlock_irqs_off(&e->lock);
	else
		raw_spin_unlock_irqrestore(&e->lock, e->irqflags);
}

static void pn_entry_lock(struct pn_task *e)
{
	__pn_entry_lock(e, 0, false);
}

static void pn_entry_unlock(struct pn_task *e)
{
	__pn_entry_unlock(e, false);
}

/*
 * In the fork hook, and in the exit hook, which turns interrupts off for
 * its whole end (pn_core_exit()): see __pn_entry_lock().
 */
static __always_inline void pn_hook_lock(struct pn_task *e, int subclass)
{
	__pn_entry_lock(e, subclass, true);
}

static __always_inline void pn_hook_unlock(struct pn_task *e)
{
	__pn_entry_unlock(e, true);
}

/*
 * @task's entry, locked (maybe dead), or NULL; as pn_task_lookup().  The
 * hooks' lookup: they run with preemption disabled.  @irqs_off: see
 * __pn_entry_lock().
 */
static __always_inline struct pn_task *
pn_task_lock_rcu(struct task_struct *task, bool irqs_off)
{
	struct pn_task *e = pn_task_lookup(task);

	if (e)
		__pn_entry_lock(e, 0, irqs_off);
	return e;
}

/*
 * The live entry of @task's process, locked, or NULL, from @e, what
 * pn_task_lookup() found.  An entry found dead was taken out of the table
 * in the section of its lock that marked it so (it went idle as another
 * attach entered a new one, say): a walk begun since cannot find it.
 */
static __always_inline struct pn_task *
pn_entry_lock_live(struct pn_task *e, struct task_struct *task, bool irqs_off)
{
	for (; e; e = pn_task_lookup(task)) {
		__pn_entry_lock(e, 0, irqs_off);
		if (!test_bit(PN_DEAD, &e->flags))
			return e;
		__pn_entry_unlock(e, irqs_off);
	}
	return NULL;
}

/* The hooks' lookup: see pn_entry_lock_live(). */
static __always_inline struct pn_task *
pn_task_lock_live(struct task_struct *task, bool irqs_off)
{
	return pn_entry_lock_live(pn_task_lookup(task), task, irqs_off);
}

/* @task's entry, locked (maybe dead), or NULL.  Any context. */
static struct pn_task *pn_task_lock(struct task_struct *task)
{
	struct pn_task *e;

	rcu_read_lock();
	e = pn_task_lock_rcu(task, false);
	rcu_read_unlock();
	return e;
}

/*
 * Returns the live entry of new->task, locked, inserting @new if there is
 * none.  An entry leaves the table in the same section of its lock that
 * marks it dead, so a live one found under the bucket lock stays.
 */
static struct pn_task *pn_task_get_or_insert(struct pn_task *new)
{
	struct hlist_bl_head *head = pn_bucket(new->key);
	struct pn_task *e;
	bool live;

	for (;;) {
		rcu_read_lock();
		e = pn_bucket_lookup(head, new->key);
		if (e)
			pn_entry_lock(e);
		rcu_read_unlock();
		if (e && !test_bit(PN_DEAD, &e->flags))
			return e;
		if (e)
			pn_entry_unlock(e);
		pn_entry_lock(new);
		pn_bl_lock_irqs_off(head);
		e = pn_bucket_lookup(head, new->key);
		live = e && !test_bit(PN_DEAD, &e->flags);
		if (!live)
			pn_entry_hash(new, head);
		pn_bl_unlock_irqs_off(head);
		if (!live)
			return new;
		pn_entry_unlock(new);
	}
}

/*
 * Takes @e (locked), a process's entry or a record, out of the table;
 * returns its kit, on the chain *@kits (linked through ->kit).
 */
static __always_inline void pn_entry_unhash(struct pn_task *e,
					    struct pn_task **kits)
{
	struct hlist_bl_head *head = e->bucket;

	pn_test_bucket_check(e);
	set_bit(PN_DEAD, &e->flags);
	pn_bl_lock_irqs_off(head);
	hlist_bl_del_rcu(&e->node);
	pn_bl_unlock_irqs_off(head);
	if (e->kit) {
		e->kit->kit = *kits;
		*kits = e->kit;
		e->kit = NULL;
	}
}

/*
 * Takes the record @rec of @e (locked) out of the table and off @e's
 * list, its kit onto rec->dead_kits: the caller lets go of it, @e still
 * locked (pn_entry_let_go_atomic()).
 */
static void pn_record_unhash(struct pn_task *e, struct pn_task *rec)
{
	pn_entry_unhash(rec, &rec->dead_kits);
	list_del_init(&rec->records);
	e->nr_records--;
}

/*
 * Takes @e (locked) and its records out of the table; returns their kits,
 * linked through ->kit, which the caller frees once unlocked, before
 * dropping the table's reference, and leaves the records on e->records
 * for it to let go of (pn_records_let_go()): no one else touches the list
 * of an entry out of the table.
 */
static __always_inline struct pn_task *pn_task_unhash(struct pn_task *e)
{
	struct pn_task *rec, *kits = NULL;

	pn_entry_unhash(e, &kits);
	list_for_each_entry(rec, &e->records, records)
		pn_entry_unhash(rec, &kits);
	e->nr_records = 0;
	/* Its records no longer found: see pnotify_task_io(). */
	e->io_gen++;
	return kits;
}

/*
 * An entry that follows nothing, has no fork pending and no attach under
 * way leaves the table.
 */
static bool pn_task_unhash_if_idle(struct pn_task *e, struct pn_task **kit)
{
	if (e->nr_subs || !list_empty(&e->forks) || e->nr_attaching ||
	    test_bit(PN_DEAD, &e->flags))
		return false;
	*kit = pn_task_unhash(e);
	return true;
}

/* Lets go of the records on @gone.  Any context. */
static void pn_records_let_go(struct list_head *gone)
{
	struct pn_task *rec, *next;

	list_for_each_entry_safe(rec, next, gone, records) {
		list_del_init(&rec->records);
		pn_task_let_go(rec);
	}
}

/*
 * Drops the table's reference of an entry taken out by the caller, and
 * lets go of its records.
 */
static void pn_task_retire(struct pn_task *e, struct pn_task *kit)
{
	pn_records_let_go(&e->records);
	pn_kit_put(kit);
	pn_task_put(e);
}

/*
 * Where @task, a thread of @e's process (locked, live), keeps its next
 * child's kit: @e for the leader it is bound to, else the thread's record,
 * or NULL when it has none.  A record is its process's: it changes only
 * under the process's entry lock.  With preemption disabled.
 */
static __always_inline struct pn_task *pn_kit_holder(struct pn_task *e,
						     struct task_struct *task)
{
	struct pn_task *rec;

	if (task == e->task)
		return e;
	if (!e->nr_records)
		return NULL;
	rec = pn_lookup(task);
	return rec && !test_bit(PN_DEAD, &rec->flags) ? rec : NULL;
}

/* A record for @task, bound to it, in no table yet.  Sleeps. */
static struct pn_task *pn_record_new(struct task_struct *task, gfp_t gfp)
{
	struct pn_task *rec = pn_entry_alloc(0, 0, gfp);

	if (rec)
		pn_entry_bind(rec, task, task);
	return rec;
}

/*
 * Enters the record @rec, of no other, for @e (locked, live), unless its
 * thread has begun to exit (false): the exit hook looks up an exiting
 * thread's record without @e's lock (pn_core_exit()), after PF_EXITING and
 * a full barrier; it finds the record, or this sees PF_EXITING and takes
 * it out again.  A record refused may still be seen by such a lookup: it
 * is let go of, never entered again.
 */
static bool pn_record_add(struct pn_task *e, struct pn_task *rec)
{
	struct hlist_bl_head *head = pn_bucket(rec->key);

	pn_test_spin(record);
	pn_bl_lock_irqs_off(head);
	pn_entry_hash(rec, head);
	pn_bl_unlock_irqs_off(head);
	/* Pairs with the exit hook's, between PF_EXITING and its lookup. */
	smp_mb();
	if (READ_ONCE(rec->task->flags) & PF_EXITING) {
		pn_entry_unhash(rec, &rec->dead_kits);
		/* A read of its I/O may have found it meanwhile. */
		e->io_gen++;
		atomic_long_inc(&pn_stats.records_refused);
		return false;
	}
	list_add_tail(&rec->records, &e->records);
	e->nr_records++;
	return true;
}

/*
 * Gives @task, a thread of @e's process, a kit for its next child that
 * fits (and @min_nr blocks of @min_room at least), from the cache or made,
 * in place of one that does not: in @e for its leader, else in its
 * record, made if it has none; then tops the spare records up.  Sleeps.
 * False without memory; true too when there is nothing to stock (the
 * entry dead, the thread exiting, its record refused).
 */
static bool pn_task_refill(struct pn_task *e, struct task_struct *task,
			   unsigned int min_nr, size_t min_room)
{
	struct pn_task *kit = NULL, *rec = NULL, *holder;
	bool stocked, dead;
	unsigned int nr;
	size_t room;

	for (;;) {
		pn_entry_lock(e);
		pn_task_needs(e, &nr, &room);
		nr = max(nr, min_nr);
		room = max(room, min_room);
		/* Killed (an OOM victim among them): no fork to come. */
		dead = test_bit(PN_DEAD, &e->flags) ||
		       (READ_ONCE(task->flags) & PF_EXITING) ||
		       fatal_signal_pending(task);
		holder = dead ? NULL : pn_kit_holder(e, task);
		if (!dead && !holder && rec) {
			dead = !pn_record_add(e, rec);
			if (!dead) {
				holder = rec;
				rec = NULL;
			}
		}
		if (holder && !pn_kit_fits(holder->kit, nr, room) &&
		    pn_kit_fits(kit, nr, room))
			swap(holder->kit, kit);
		stocked = dead || (holder && pn_kit_fits(holder->kit, nr, room));
		pn_entry_unlock(e);
		pn_kit_put(kit);
		kit = NULL;
		if (stocked)
			break;
		if (!holder && !rec) {
			rec = pn_record_new(task, GFP_KERNEL);
			if (!rec)
				break;
		} else {
			kit = pn_kit_get(nr, room, GFP_KERNEL);
			if (!kit)
				break;
		}
	}
	if (rec)
		pn_task_let_go(rec);
	if (stocked)
		pn_spares_top_up();
	return stocked;
}

/* ---- task works --------------------------------------------------------- */

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
 * Wakes the unload or unregister waiting for a drain, if one waits: most
 * drains (a task's last work done) have no one to wake.
 */
static void pn_drained(void)
{
	if (wq_has_sleeper(&pn_drain_wq))
		wake_up_all(&pn_drain_wq);
}

/* A work no longer in flight: run, or dropped by the unload. */
static void pn_work_uncount(void)
{
	if (atomic_long_dec_and_test(&pn_stats.works_inflight))
		pn_drained();
}

/*
 * The last thing a work does.  The unload waits for works in flight to
 * drain, then for an RCU grace period, which covers this section (its
 * wake-up may block on PREEMPT_RT), then for RCU Tasks, which covers the
 * returns after it: see pn_core_exit_module().
 */
static void pn_work_done(void)
{
	pn_test_work_end();
	rcu_read_lock();
	pn_work_uncount();
	rcu_read_unlock();
	pn_test_work_return();
}

/* Whether a subscription of @e (locked) needs its exec callback now. */
static bool pn_task_wants_exec(struct pn_task *e)
{
	struct pnotify_subscriber *sub;
	struct pnotify_events *events;
	bool (*due)(struct task_struct *task, struct pnotify_subscriber *sub);

	hlist_for_each_entry(sub, &e->subs, task_link) {
		events = sub->events;
		due = READ_ONCE(events->exec_due);
		if (events->exec && (!due || due(e->task, sub)))
			return true;
	}
	return false;
}

/*
 * Binds @e (locked, live) to @task, which exec'd and which de_thread()
 * made its process's leader in place of the thread @e was bound to.  The
 * record of @task becomes the process's: its kit, if @e's does not fit,
 * and the old leader's exit no longer counts (pn_task_ends_process()).
 * Returns the old leader, whose reference the caller drops once unlocked.
 */
static struct task_struct *pn_task_rebind(struct pn_task *e,
					  struct task_struct *task)
{
	struct task_struct *old = e->task;
	struct pn_task *rec = pn_kit_holder(e, task);
	unsigned int nr;
	size_t room;

	if (rec) {
		pn_record_unhash(e, rec);
		pn_task_needs(e, &nr, &room);
		if (!pn_kit_fits(e->kit, nr, room))
			swap(e->kit, rec->dead_kits);
	}
	get_task_struct(task);
	e->task = task;
	clear_bit(PN_LEADER_EXITED, &e->flags);
	e->io_gen++;
	if (rec)
		pn_entry_let_go_atomic(rec);
	return old;
}

/*
 * Binds @e (locked, just entered) to its process's leader when the task
 * it was bound to no longer is (an exec by another thread replaced it).
 * Returns the task let go of, for the caller to put once unlocked.
 */
static struct task_struct *pn_task_rebind_leader(struct pn_task *e)
{
	struct task_struct *leader, *old = NULL;

	rcu_read_lock();
	leader = pid_task(task_tgid(e->task), PIDTYPE_PID);
	if (leader && leader != e->task)
		old = pn_task_rebind(e, leader);
	rcu_read_unlock();
	return old;
}

/*
 * Claims the exec work of @task's process's live entry and references it
 * for the caller to queue; NULL when the process is not followed, no
 * subscription of it needs its exec callback, or the work is queued
 * already.  Atomic context.
 */
static struct pn_task *pn_task_claim_exec(struct task_struct *task)
{
	struct pn_task *e = pn_task_lock_live(task, false);
	struct task_struct *old = NULL;
	bool claimed;

	if (likely(!e))
		return NULL;
	if (e->task != task)
		old = pn_task_rebind(e, task);
	claimed = pn_task_wants_exec(e) &&
		  !test_and_set_bit(PN_EXEC_QUEUED, &e->flags);
	if (claimed)
		refcount_inc(&e->ref);
	pn_entry_unlock(e);
	if (old)
		put_task_struct(old);
	return claimed ? e : NULL;
}

static void pn_prep_work(struct callback_head *work);

/*
 * Claims @e's prep work and references @e for it; e->lock held and @e live,
 * since once unlocked a walk of all threads may end a new thread's
 * subscriptions and retire its entry.
 */
static bool pn_task_claim_prep(struct pn_task *e)
{
	if (test_and_set_bit(PN_PREP_QUEUED, &e->flags))
		return false;
	refcount_inc(&e->ref);
	return true;
}

/*
 * Queues the prep work claimed on @e, on @child, its task, not yet run: its
 * task works are enabled.  Not e->task: once unlocked, @child may have let
 * go of @e.
 */
static void pn_task_queue_prep(struct pn_task *e, struct task_struct *child)
{
	if (WARN_ON_ONCE(pn_queue_work(child, &e->prep_work, pn_prep_work,
				       PN_TWA_RESUME))) {
		clear_bit(PN_PREP_QUEUED, &e->flags);
		pn_task_put(e);
	}
}

/* ---- subscriptions ------------------------------------------------------ */

/* Readies a zeroed (or pn_block_ready()) block for @task; no reference yet. */
static void pn_sub_init(struct pnotify_subscriber *sub,
			struct task_struct *task,
			struct pnotify_events *events)
{
	sub->events = events;
	sub->data = events->data_size ? sub->room : NULL;
	sub->task = task;
	INIT_HLIST_NODE(&sub->task_link);
	sub->linked = false;
	sub->threads_made = 0;
	sub->exit_status = 0;
	sub->io.rchar = 0;
	sub->io.wchar = 0;
	sub->called = false;
	sub->holds_hooks = false;
	INIT_LIST_HEAD(&sub->fork_link);
	INIT_LIST_HEAD(&sub->calls);
	refcount_set(&sub->ref, 1);
}

/* The references a subscription holds until freed.  Any context. */
static void pn_sub_hold(struct pnotify_subscriber *sub)
{
	get_task_struct(sub->task);
	atomic_inc(&sub->events->nr_subs);
}

/* A subscription with what establishing it needs. */
static struct pnotify_subscriber *pn_sub_alloc(struct task_struct *task,
					       struct pnotify_events *events,
					       gfp_t gfp)
{
	struct pnotify_subscriber *sub;

	might_sleep();
	sub = kzalloc(pn_block_size(events->data_size), gfp);
	if (!sub)
		return ERR_PTR(-ENOMEM);
	sub->room_bytes = events->data_size;
	sub->spare_entry = pn_entry_alloc(0, 0, gfp);
	sub->spare_kit = pn_kit_get(1, events->data_size, gfp);
	if (!sub->spare_entry || !sub->spare_kit) {
		pn_entry_free(sub->spare_entry);
		pn_kit_put(sub->spare_kit);
		kfree(sub);
		return ERR_PTR(-ENOMEM);
	}
	pn_sub_init(sub, task, events);
	pn_sub_hold(sub);
	return sub;
}

static void pn_sub_free(struct pnotify_subscriber *sub, bool exit_cb);

/* The hooks are armed before any subscription can be established. */
struct pnotify_subscriber *pnotify_prepare(struct task_struct *task,
					   struct pnotify_events *events,
					   gfp_t gfp)
{
	struct pnotify_subscriber *sub;
	int err;

	/*
	 * Not before pnotify_register() has set it up and counted it in
	 * what kits hold (a subscriber may hear of tasks to follow, from
	 * job.ko's notifier, before it is registered): its init() offers
	 * it the running tasks then.
	 */
	if (!smp_load_acquire(&events->registered))
		return ERR_PTR(-ENOENT);
	sub = pn_sub_alloc(task, events, gfp);
	if (IS_ERR(sub))
		return sub;
	err = pn_hooks_get();
	if (err) {
		pn_sub_free(sub, false);
		return ERR_PTR(err);
	}
	sub->holds_hooks = true;
	return sub;
}
EXPORT_SYMBOL_GPL(pnotify_prepare);

/* A queued pnotify_call(). */
struct pn_call {
	struct callback_head work;
	struct list_head link;		/* on sub->calls, under pn_calls_lock */
	struct pnotify_subscriber *sub;	/* NULL once the subscription ended */
	pnotify_call_fn fn;
};

/*
 * Queued calls are dropped: their works free themselves.  Any context.
 * @sub is no one's any more.  A call is queued under a reference, which
 * its queuing dropped after marking @sub called, so a subscription never
 * called, as most are, need not take the global lock.  (Not by an empty
 * list: a call's work takes its call off before it tries for a reference,
 * in the lock's section this would not wait for.)
 */
static void pn_sub_drop_calls(struct pnotify_subscriber *sub)
{
	struct pn_call *call, *next;

	if (!sub->called)
		return;
	raw_spin_lock(&pn_calls_lock);
	list_for_each_entry_safe(call, next, &sub->calls, link) {
		call->sub = NULL;
		list_del_init(&call->link);
	}
	raw_spin_unlock(&pn_calls_lock);
}

/*
 * Frees a subscription; exit_cb says whether its exit() is due (it was
 * established, or init() took its task).
 */
static void pn_sub_free(struct pnotify_subscriber *sub, bool exit_cb)
{
	struct pnotify_events *events = sub->events;

	might_sleep();
	pn_sub_drop_calls(sub);
	pn_entry_free(sub->spare_entry);
	pn_kit_put(sub->spare_kit);
	if (exit_cb) {
		events->exit(sub->task, sub);
		atomic_long_inc(&events->nr_exit);
	}
	put_task_struct(sub->task);
	if (sub->holds_hooks)
		pn_hooks_put();
	pn_block_put(sub);
	/* After the decrement, events may be freed: touch only our own. */
	if (atomic_dec_and_test(&events->nr_subs))
		pn_drained();
}

void pnotify_discard(struct pnotify_subscriber *sub)
{
	pn_sub_free(sub, false);
}
EXPORT_SYMBOL_GPL(pnotify_discard);

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

	hlist_for_each_entry(sub, &e->subs, task_link)
		if (sub->events == events ||
		    (name && !strcmp(sub->events->name, name)))
			return sub;
	return NULL;
}

/*
 * Adds to @io what @task has read and written: another thread's counts
 * are read as they run, as /proc does.
 */
static void pn_io_add(struct pnotify_io *io, const struct task_struct *task)
{
#ifdef CONFIG_TASK_XACCT
	io->rchar += data_race(READ_ONCE(task->ioac.rchar));
	io->wchar += data_race(READ_ONCE(task->ioac.wchar));
#endif
}

/* Whether @task, exiting, has read or written nothing: most never do. */
static bool pn_io_none(const struct task_struct *task)
{
#ifdef CONFIG_TASK_XACCT
	return !(task->ioac.rchar | task->ioac.wchar);
#else
	return true;
#endif
}

/* Adds @io to every subscription of @e (locked). */
static void pn_subs_add_io(struct pn_task *e, const struct pnotify_io *io)
{
	struct pnotify_subscriber *sub;

	hlist_for_each_entry(sub, &e->subs, task_link) {
		sub->io.rchar += io->rchar;
		sub->io.wchar += io->wchar;
	}
}

/*
 * Adds to @io what the counted threads of @e's (locked) process whose exit
 * hook has not counted theirs (pn_task_ends_process()) have read and
 * written: its leader, until its hook ran, and the threads that hold a
 * record.  A walk of its records: at a link, an unlink and an end that
 * leaves threads behind.
 */
static void pn_io_add_pending(struct pn_task *e, struct pnotify_io *io)
{
	struct pn_task *rec;

	if (!test_bit(PN_LEADER_EXITED, &e->flags))
		pn_io_add(io, e->task);
	list_for_each_entry(rec, &e->records, records)
		pn_io_add(io, rec->task);
}

/*
 * @e's (locked) subscription to @events or @name; none once @e is out of
 * the table, where it holds only subscriptions whose leave() ran, for
 * their exit work or unregister to end.
 */
static struct pnotify_subscriber *pn_task_find_live(struct pn_task *e,
						    struct pnotify_events *events,
						    const char *name)
{
	if (test_bit(PN_DEAD, &e->flags))
		return NULL;
	return pn_task_find_sub(e, events, name);
}

/*
 * Links @sub to @e (locked), after the others: callbacks run in the order
 * subscriptions were made, in a child as in its parent.  Threads made
 * while it is linked are counted from here, after those counted before it
 * was linked again (leave()).  Inline: in the fork hook, a call costs as
 * much as the body.  (An hlist: a process has a subscription or two, and
 * an hlist's add is not a call, where CONFIG_DEBUG_LIST makes a list's
 * one.)
 */
static __always_inline void pn_sub_add(struct pn_task *e,
				       struct pnotify_subscriber *sub)
{
	struct hlist_node *last = e->subs.first;

	sub->threads_base = atomic_read(&e->nr_threads_made) -
			    sub->threads_made;
	sub->entry = e;
	sub->linked = true;
	if (!last) {
		hlist_add_head(&sub->task_link, &e->subs);
	} else {
		while (last->next)
			last = last->next;
		hlist_add_behind(&sub->task_link, last);
	}
	e->nr_subs++;
	e->subs_room = max(e->subs_room, sub->events->data_size);
}

/* Whether every thread of @e's process has begun to exit. */
static bool pn_process_exiting(const struct pn_task *e)
{
	return !atomic_read(&e->task->signal->live);
}

/*
 * What pn_sub_unlink() and pn_task_unlink_all() do to each: the threads
 * made while @sub was linked, and the process's exit status once its end
 * is claimed, or before that, with every thread exiting, its group exit's
 * code if it has one.
 */
static __always_inline void pn_sub_unlinked(struct pn_task *e,
					    struct pnotify_subscriber *sub)
{
	const struct signal_struct *sig = e->task->signal;

	sub->linked = false;
	sub->threads_made = atomic_read(&e->nr_threads_made) -
			    sub->threads_base;
	if (test_bit(PN_EXIT_QUEUED, &e->flags))
		sub->exit_status = e->exit_status;
	else if (pn_process_exiting(e) &&
		 (READ_ONCE(sig->flags) & SIGNAL_GROUP_EXIT))
		sub->exit_status = READ_ONCE(sig->group_exit_code);
}

/* Unlinks @sub from @e (locked); the caller then drops the link's ref. */
static void pn_sub_unlink(struct pn_task *e, struct pnotify_subscriber *sub)
{
	struct pnotify_subscriber *other;

	pn_sub_unlinked(e, sub);
	/* An end counted the threads left (pn_task_ends_process()). */
	if (!test_bit(PN_EXIT_QUEUED, &e->flags))
		pn_io_add_pending(e, &sub->io);
	hlist_del_init(&sub->task_link);
	e->nr_subs--;
	e->subs_room = 0;
	hlist_for_each_entry(other, &e->subs, task_link)
		e->subs_room = max(e->subs_room, other->events->data_size);
}

/*
 * Links @sub to its process's entry @e (locked), from process context, in
 * place of the process's subscription to the same subscriber when
 * @replaced is given and @same (if any) says they differ: that one is
 * unlinked and returned there, for the caller to drop its link's
 * reference once unlocked.  The store-buffer pairing with pn_core_exit():
 * either the hook of the thread that took signal->live to 0 finds this
 * entry, or we see 0 here and refuse a process whose end will not come.
 */
static int pn_sub_link(struct pn_task *e, struct pnotify_subscriber *sub,
		       struct pnotify_subscriber **replaced, pnotify_same_fn same)
{
	struct pnotify_events *events = sub->events;
	struct pnotify_io before = { 0 };
	struct pnotify_subscriber *old;

	/* Orders our table insert before the signal->live read. */
	smp_mb();
	if (test_bit(PN_DEAD, &e->flags) ||
	    (pn_process_exiting(e) && !test_bit(PN_EXIT_QUEUED, &e->flags)))
		return -ESRCH;
	old = pn_task_find_sub(e, events, NULL);
	if (old && (!replaced || (same && same(old, sub))))
		return -EEXIST;
	/* Read under the entry lock, which unregister's end loop takes. */
	if (READ_ONCE(events->dying))
		return -ENOENT;
	/*
	 * Its I/O counts from now: what the threads did before, they add at
	 * their exit all the same, and a replaced subscription has it, from
	 * the same reading.  (A process whose end is claimed adds nothing
	 * more.)
	 */
	if (old) {
		before = old->io;
		pn_sub_unlink(e, old);
		before.rchar = old->io.rchar - before.rchar;
		before.wchar = old->io.wchar - before.wchar;
		*replaced = old;
	} else if (!test_bit(PN_EXIT_QUEUED, &e->flags)) {
		pn_io_add_pending(e, &before);
	}
	pn_sub_add(e, sub);
	sub->io.rchar -= before.rchar;
	sub->io.wchar -= before.wchar;
	return 0;
}

/*
 * Whether @sub is linked to its entry (locked).  Not by task_link: an
 * exiting task's pn_task_end() keeps the subscriptions it unlinked on a
 * list of its own through it until it drops them.
 */
static bool pn_sub_linked(const struct pnotify_subscriber *sub)
{
	return sub->linked;
}

/*
 * Ends @sub if it is still linked to @e; the caller holds references on
 * both.  Returns whether it ended it.
 */
static bool pn_sub_end(struct pn_task *e, struct pnotify_subscriber *sub)
{
	struct pn_task *kit = NULL;
	bool linked, unhashed = false;

	/* An exit or another end may take it meanwhile. */
	pn_test_sleep(end);
	pn_entry_lock(e);
	linked = pn_sub_linked(sub);
	if (linked) {
		pn_sub_unlink(e, sub);
		unhashed = pn_task_unhash_if_idle(e, &kit);
	}
	pn_entry_unlock(e);
	if (unhashed)
		pn_task_retire(e, kit);
	if (linked)
		pn_sub_put(sub);
	return linked;
}

static int pn_snapshot_tasks(struct task_struct *of, struct task_struct ***out);

/*
 * Gives every user thread of @task's process, @e's (referenced), a kit
 * for @nr subscriptions of @room bytes; for an attach (@e kept in the
 * table by e->nr_attaching), before they are linked: no hook runs before
 * a fork where one could be made, and a fork under way when the process
 * gets a subscription finds it in the fork hook.  A thread made after
 * e->nr_attaching was raised, one made since the snapshot among them,
 * gets kits of that size from its fork hook (pn_task_needs()).  Without
 * memory, a thread's next fork fails (pn_fork_doom()) and asks for its
 * kit again.
 */
#define PN_STOCK_PASSES 3

static unsigned int pn_records_missed(struct pn_task *e)
{
	unsigned int missed;

	pn_entry_lock(e);
	missed = e->records_missed;
	pn_entry_unlock(e);
	return missed;
}

static void pn_threads_stock(struct pn_task *e, struct task_struct *task,
			     unsigned int nr, size_t room)
{
	struct task_struct **threads;
	unsigned int missed, passes = 0;
	int n, i;

	if (get_nr_threads(task) < 2) {
		pn_task_refill(e, task, nr, room);
		return;
	}
	/*
	 * A thread made meanwhile by one not stocked yet, the cache empty,
	 * got no record (pn_fork_record()), and may not be in the snapshot:
	 * again, a few times at most (threads made and gone without end
	 * would keep it going); one left over had a kworker's stock queued.
	 */
	do {
		missed = pn_records_missed(e);
		n = pn_snapshot_tasks(task, &threads);
		for (i = 0; i < n; i++) {
			pn_task_refill(e, threads[i], nr, room);
			put_task_struct(threads[i]);
			pn_test_sleep(stock);
		}
		if (n > 0)
			kvfree(threads);
	} while (n >= 0 && pn_records_missed(e) != missed &&
		 ++passes < PN_STOCK_PASSES);
}

/*
 * Establishes the prepared @sub on @task, making an entry for it if needed,
 * with a kit that fits the new subscription before it is visible: a fork
 * right after inherits it.  With @replace, in place of the task's
 * subscription to the same subscriber (unless @same), which then ends.
 */
static int pn_attach(struct task_struct *task, struct pnotify_subscriber *sub,
		     bool replace, pnotify_same_fn same)
{
	struct pn_task *new = sub->spare_entry, *kit = sub->spare_kit;
	struct task_struct *leader = pn_task_leader(task), *was_leader = NULL;
	struct pnotify_subscriber *replaced = NULL;
	size_t room = sub->events->data_size;
	struct pn_task *e, *old = NULL;
	bool unhashed = false;
	unsigned int nr;
	size_t need;
	int err;

	sub->spare_entry = NULL;
	sub->spare_kit = NULL;
	if (!leader) {
		pn_entry_free(new);
		pn_kit_put(kit);
		return -ESRCH;
	}
	pn_entry_bind(new, leader, task->signal);
	put_task_struct(leader);
	e = pn_task_get_or_insert(new);
	/*
	 * The store-buffer pairings with the exec and exit hooks, and the
	 * fork hook's of a new thread: either their lookup finds this entry,
	 * or we see what came before it (the thread on its process's list,
	 * for pn_threads_stock()).  An
	 * exec by another thread may have replaced the leader found (its
	 * de_thread() clears the old one's exit_signal) before its hook,
	 * which found no entry: bind the new one.  A leader that exited
	 * before its process was followed found no entry in its hook: the
	 * process's end waits for no other.  (One in do_exit() between
	 * PF_EXITING and its exit_code may not have written it yet.)
	 */
	smp_mb();
	if (e == new && !thread_group_leader(e->task))
		was_leader = pn_task_rebind_leader(e);
	if (e == new && (READ_ONCE(e->task->flags) & PF_EXITING))
		set_bit(PN_LEADER_EXITED, &e->flags);
	pn_task_needs(e, &nr, &need);
	/* A replace leaves the process as many subscriptions as before. */
	if (replace && pn_task_find_sub(e, sub->events, NULL))
		nr--;
	need = max(need, room);
	if (!pn_kit_fits(e->kit, nr + 1, need) && pn_kit_fits(kit, nr + 1, need))
		swap(e->kit, kit);
	e->nr_attaching++;
	e->attach_nr = max(e->attach_nr, nr + 1);
	e->attach_room = max(e->attach_room, need);
	refcount_inc(&e->ref);
	pn_entry_unlock(e);
	if (was_leader)
		put_task_struct(was_leader);
	pn_threads_stock(e, task, nr + 1, need);
	pn_entry_lock(e);
	if (!--e->nr_attaching) {
		e->attach_nr = 0;
		e->attach_room = 0;
	}
	err = pn_sub_link(e, sub, replace ? &replaced : NULL, same);
	if (err)
		unhashed = pn_task_unhash_if_idle(e, &old);
	pn_entry_unlock(e);
	if (unhashed)
		pn_task_retire(e, old);
	pn_task_put(e);
	if (e != new)
		pn_task_put(new);
	pn_kit_put(kit);
	if (replaced)
		pn_sub_put(replaced);
	return err;
}

int pnotify_establish(struct pnotify_subscriber *sub)
{
	might_sleep();
	if (!pn_task_is_user(sub->task))
		return -EINVAL;
	return pn_attach(sub->task, sub, false, NULL);
}
EXPORT_SYMBOL_GPL(pnotify_establish);

int pnotify_replace(struct pnotify_subscriber *sub, pnotify_same_fn same)
{
	might_sleep();
	if (!pn_task_is_user(sub->task))
		return -EINVAL;
	return pn_attach(sub->task, sub, true, same);
}
EXPORT_SYMBOL_GPL(pnotify_replace);

/* ---- fork --------------------------------------------------------------- */

/*
 * Kills a child that must not run user code.  The fork hook holds the
 * parent's siglock, which a thread child shares, and the child cannot be
 * found by pid yet: its pending set is ours to touch, and a signal sent the
 * usual way would take that siglock again.
 */
static void pn_fork_doom(struct task_struct *child)
{
	atomic_long_inc(&pn_stats.fork_failures);
	sigaddset(&child->pending.signal, SIGKILL);
	set_tsk_thread_flag(child, TIF_SIGPENDING);
}

/*
 * Gives the child @ce a subscription for @psub's subscriber, from a block of
 * the parent's @kit.  Returns < 0 when the fork must fail.
 */
static int pn_fork_inherit(struct pn_task *ce, struct pn_task *kit,
			   struct pnotify_subscriber *psub)
{
	struct pnotify_events *events = psub->events;
	struct pnotify_subscriber *sub;
	int ret = 0;

	/* Unregister waits for an RCU grace period after setting dying. */
	if (READ_ONCE(events->dying))
		return 0;
	/* Subscribed already, by a walk of all threads that saw it early. */
	if (ce != kit && pn_task_find_sub(ce, events, NULL))
		return 0;
	if (!kit->nr_prepared || events->data_size > kit->room)
		return -ENOMEM;
	sub = kit->prepared[kit->nr_prepared - 1];
	pn_block_ready(sub, events);
	pn_sub_init(sub, ce->task, events);
	if (events->inherit) {
		ret = events->inherit(ce->task, sub, psub);
		if (ret < 0)
			atomic_long_inc(&events->nr_failed);
		/* The block stays in the kit. */
		if (ret < 0 || ret == PNOTIFY_SKIP)
			return ret < 0 ? ret : 0;
		pn_sub_add(ce, sub);
	}
	kit->prepared[--kit->nr_prepared] = NULL;
	pn_sub_hold(sub);
	if (!events->inherit || (ret == PNOTIFY_CALL_FORK && events->fork)) {
		/* Linked already: the pending list holds a reference too. */
		if (events->inherit)
			refcount_inc(&sub->ref);
		refcount_inc(&psub->ref);
		sub->fork_parent = psub;
		list_add_tail(&sub->fork_link, &ce->forks);
	}
	return 0;
}

/*
 * The child's entry, locked by pn_hook_lock(): the @kit bound to it,
 * entered in the table, or the entry a walk of all threads (attach, init)
 * gave the child between its joining its thread group and this hook.
 */
static struct pn_task *pn_fork_entry(struct pn_task *kit)
{
	struct hlist_bl_head *head = pn_bucket(kit->key);
	struct pn_task *e;

	for (;;) {
		pn_hook_lock(kit, SINGLE_DEPTH_NESTING);
		pn_bl_lock_irqs_off(head);
		e = pn_bucket_lookup(head, kit->key);
		if (e && test_bit(PN_DEAD, &e->flags))
			e = NULL;
		if (!e)
			pn_entry_hash(kit, head);
		pn_bl_unlock_irqs_off(head);
		if (!e)
			return kit;
		pn_hook_unlock(kit);
		/* RCU keeps it: the hook runs with preemption disabled. */
		pn_hook_lock(e, SINGLE_DEPTH_NESTING);
		if (!test_bit(PN_DEAD, &e->flags))
			return e;
		pn_hook_unlock(e);
	}
}

/*
 * Stocks every thread of the process @e (referenced by its queuing), in a
 * kworker: those left without a record while @e's record work was queued
 * for another (pn_task_queue_record()).
 */
static void pn_stock_work(struct work_struct *work)
{
	struct pn_task *e = container_of(work, struct pn_task, stock_work);
	struct task_struct *leader;

	/* A thread left out from here on queues another stock. */
	clear_bit(PN_STOCK_QUEUED, &e->flags);
	smp_mb__after_atomic();
	pn_entry_lock(e);
	leader = test_bit(PN_DEAD, &e->flags) ? NULL : e->task;
	if (leader) {
		get_task_struct(leader);
		/*
		 * The records it binds hold the hooks too: not from 0, if
		 * every thread exits and @e is let go of meanwhile.
		 */
		pn_hooks_hold();
	}
	pn_entry_unlock(e);
	if (leader) {
		atomic_long_inc(&pn_stats.stock_works);
		pn_threads_stock(e, leader, 0, 0);
		pn_hooks_put();
		put_task_struct(leader);
	}
	pn_task_put(e);
	pn_work_done();
}

/*
 * Has a kworker stock the threads of @e's process (locked, live): from
 * the fork hook, whose raw locks and disabled interrupts queue_work()
 * allows (its pool lock is raw); counted in flight, so that the unload
 * waits for it.
 */
static void pn_task_queue_stock(struct pn_task *e)
{
	if (test_and_set_bit(PN_STOCK_QUEUED, &e->flags))
		return;
	refcount_inc(&e->ref);
	INIT_WORK(&e->stock_work, pn_stock_work);
	atomic_long_inc(&pn_stats.works_inflight);
	queue_work(system_unbound_wq, &e->stock_work);
}

/*
 * Makes the record of current, a thread of the process @e (referenced by
 * its queuing) left without one, before it runs in user space again.
 */
static void pn_record_work(struct callback_head *work)
{
	struct pn_task *e = container_of(work, struct pn_task, record_work);

	pn_test_refill_sleep();
	clear_bit(PN_RECORD_QUEUED, &e->flags);
	atomic_long_inc(&pn_stats.record_works);
	pn_task_refill(e, current, 0, 0);
	pn_task_put(e);
	pn_work_done();
}

/*
 * Has @task, a user thread of @e's process (locked, live) left without a
 * record, current or a new thread not running yet, make one in a task
 * work before it runs in user space: it has no entry of its own to queue
 * it on, so @e holds it, for one thread at a time; with it queued for
 * another, a kworker stocks the process, which the thread may outrun.
 */
static void pn_task_queue_record(struct pn_task *e, struct task_struct *task)
{
	if (test_and_set_bit(PN_RECORD_QUEUED, &e->flags)) {
		pn_task_queue_stock(e);
		return;
	}
	refcount_inc(&e->ref);
	if (WARN_ON_ONCE(pn_queue_work(task, &e->record_work, pn_record_work,
				       PN_TWA_RESUME))) {
		clear_bit(PN_RECORD_QUEUED, &e->flags);
		pn_task_put(e);
	}
}

/*
 * Makes the kit @holder's thread, current, lacks, in its own context:
 * queued by the fork hook (pn_task_queue_refill()), it runs before the
 * thread next returns to user space, so before its next fork.  Without
 * memory that fork fails (pn_fork_doom()) and asks for the kit again.
 */
static void pn_refill_work(struct callback_head *work)
{
	struct pn_task *holder = container_of(work, struct pn_task,
					      refill_work);
	struct pn_task *e;

	clear_bit(PN_REFILL_QUEUED, &holder->flags);
	pn_test_refill_sleep();
	e = pn_task_lock(current);
	if (e && test_bit(PN_DEAD, &e->flags)) {
		pn_entry_unlock(e);
		e = NULL;
	} else if (e) {
		refcount_inc(&e->ref);
		pn_entry_unlock(e);
	}
	atomic_long_inc(&pn_stats.refill_works);
	if (e) {
		pn_task_refill(e, current, 0, 0);
		pn_task_put(e);
	} else {
		/* It may have taken a spare record. */
		pn_spares_top_up();
	}
	pn_task_put(holder);
	pn_work_done();
}

/*
 * Has @task, which holds @holder (locked by the fork hook) or is bound to
 * it, make the kit the hook could not take from the cache: @task is the
 * forking thread or its new child, neither back in user space yet.
 */
static void pn_task_queue_refill(struct pn_task *holder,
				 struct task_struct *task)
{
	if (test_and_set_bit(PN_REFILL_QUEUED, &holder->flags))
		return;
	refcount_inc(&holder->ref);
	if (WARN_ON_ONCE(pn_queue_work(task, &holder->refill_work,
				       pn_refill_work, PN_TWA_RESUME))) {
		clear_bit(PN_REFILL_QUEUED, &holder->flags);
		pn_task_put(holder);
	}
}

/*
 * After a fork, @pe (the parent's process entry) and @ce (the child's)
 * locked, interrupts off: the forking thread's next kit, in @holder, and the child's
 * first, from the cache, or else made by the work of the thread that
 * lacks one.  A kit the fork left short (the child had an entry already,
 * and took blocks from it) is made again by the work.
 */
static void pn_fork_restock(struct pn_task *pe, struct pn_task *holder,
			    struct task_struct *parent, struct pn_task *ce,
			    struct task_struct *child)
{
	/* The kit the fork did not take, maybe left short. */
	bool kept = holder->kit;
	unsigned int nr;
	size_t room;

	pn_task_needs(pe, &nr, &room);
	if (likely(!pn_test_kits_skip())) {
		pn_lock_irqs_off(&pn_kits_lock);
		if (!kept)
			holder->kit = pn_kits_pop(nr, room);
		if (!ce->kit)
			ce->kit = pn_kits_pop(nr, room);
		pn_unlock_irqs_off(&pn_kits_lock);
	}
	/* A kit popped fits. */
	if (kept ? !pn_kit_fits(holder->kit, nr, room) : !holder->kit)
		pn_task_queue_refill(holder, parent);
	if (!ce->kit)
		pn_task_queue_refill(ce, child);
}

/*
 * Gives @task, a user thread of @pe's process (locked, live) other than its
 * leader, a record with a kit for its next fork, unless it has one (an
 * attach's, pn_threads_stock(), which can see a new thread before its fork
 * hook runs).  The record is an entry from the cache, or else, the cache
 * empty, @creator's own kit, which @creator's work then makes again, or
 * else a spare record; the record's kit, if the cache has none, is made by
 * @task's work.  In the fork hook: for a new thread, made by @creator,
 * current, and not running yet; and for current itself (@task ==
 * @creator), found with no record as it forks: the cache's kit is then for
 * its child, its record a spare unless the cache has two.
 */
static void pn_fork_record(struct pn_task *pe, struct task_struct *creator,
			   struct task_struct *task, unsigned int nr,
			   size_t room)
{
	bool skip = pn_test_records_skip(), cache;
	struct pn_task *holder, *rec = NULL, *kit = NULL;
	struct hlist_bl_head *head;

	/*
	 * An attach entered it, and may still be making its kit: the
	 * thread's own work makes one too, before it can fork.
	 */
	holder = pn_kit_holder(pe, task);
	if (holder) {
		if (!pn_kit_fits(holder->kit, nr, room))
			pn_task_queue_refill(holder, task);
		return;
	}
	holder = skip ? NULL : pn_kit_holder(pe, creator);
	cache = !skip && likely(!pn_test_kits_skip());
	/* In the fork hook's lock section: interrupts are off. */
	pn_lock_irqs_off(&pn_kits_lock);
	if (task == creator && (!cache || pn_nr_kits < 2))
		rec = pn_spares_pop();
	if (!rec && cache)
		rec = pn_kits_pop(0, 0);
	if (rec && cache)
		kit = pn_kits_pop(nr, room);
	pn_unlock_irqs_off(&pn_kits_lock);
	if (!rec && holder && holder->kit) {
		rec = holder->kit;
		holder->kit = NULL;
	}
	/* Its work makes @creator's kit, given away or missing. */
	if (holder && !holder->kit)
		pn_task_queue_refill(holder, creator);
	if (!rec && task != creator) {
		pn_lock_irqs_off(&pn_kits_lock);
		rec = pn_spares_pop();
		pn_unlock_irqs_off(&pn_kits_lock);
	}
	/*
	 * None: its record is made later (pn_task_queue_record()).  An
	 * attach's stock under way looks again.
	 */
	if (!rec) {
		pn_task_queue_record(pe, task);
		if (task != creator) {
			pe->records_missed++;
			atomic_long_inc(&pn_stats.records_missed);
		}
		return;
	}
	pn_entry_bind(rec, task, task);
	rec->kit = kit;
	head = pn_bucket(rec->key);
	pn_bl_lock_irqs_off(head);
	pn_entry_hash(rec, head);
	pn_bl_unlock_irqs_off(head);
	list_add_tail(&rec->records, &pe->records);
	pe->nr_records++;
	if (!kit)
		pn_task_queue_refill(rec, task);
}

/*
 * The hook holds the forking task's siglock, and the new process cannot be
 * found yet: its pending set is ours, as copy_process() treats the signals
 * it held back during the fork.
 */
void pnotify_inherit_signal(struct task_struct *child, int sig)
{
	struct sigpending *pending = &child->signal->shared_pending;

	if (sig == SIGCONT)
		sigdelsetmask(&pending->signal, SIG_KERNEL_STOP_MASK);
	else if (sig_kernel_stop(sig))
		sigdelset(&pending->signal, SIGCONT);
	sigaddset(&pending->signal, sig);
	set_tsk_thread_flag(child, TIF_SIGPENDING);
}
EXPORT_SYMBOL_GPL(pnotify_inherit_signal);

/*
 * A fork of current, a thread of @pe's process (locked, live), found no kit
 * that fits in @holder, its record or @pe, or no record: a record with a
 * kit from the cache, if it has them, else its work asks for one (with no
 * record, pn_task_queue_record()).  Returns its holder now.
 */
static struct pn_task *pn_fork_kit_missing(struct pn_task *pe,
					   struct pn_task *holder,
					   struct task_struct *parent)
{
	unsigned int nr;
	size_t room;

	pn_task_needs(pe, &nr, &room);
	if (!holder) {
		pn_fork_record(pe, parent, parent, nr, room);
		holder = pn_kit_holder(pe, parent);
	} else if (!holder->kit && likely(!pn_test_kits_skip())) {
		pn_lock_irqs_off(&pn_kits_lock);
		holder->kit = pn_kits_pop(nr, room);
		pn_unlock_irqs_off(&pn_kits_lock);
	}
	/* With none, pn_fork_record() asked for one. */
	if (holder && !pn_kit_fits(holder->kit, nr, room))
		pn_task_queue_refill(holder, parent);
	return holder;
}

/*
 * Counts @child, a new user thread of current's process, in the process's
 * entry, if it is followed, and gives it its record when its process's
 * forks need kits (pn_fork_record()).  The count unlocked: it is read only against itself
 * (pn_sub_add(), pn_sub_unlinked()), and a thread made as a subscription
 * is linked or unlinked counts on either side of it.  An entry found dead
 * is counted in for nothing.
 */
static void pn_core_fork_thread(struct task_struct *parent,
				struct task_struct *child)
{
	struct pn_task *e;
	unsigned int nr;
	size_t room;

	/*
	 * Pairs with pn_attach(): @child is on its process's thread list, a
	 * full barrier; now look.  Either the attach's stock sees @child, or
	 * this sees the attach's entry (or both: pn_fork_record()).
	 */
	smp_mb();
	e = pn_task_lookup(parent);
	if (likely(!e) || !pn_task_is_user(child))
		return;
	atomic_inc(&e->nr_threads_made);
	e = pn_task_lock_live(parent, true);
	if (!e)
		return;
	pn_task_needs(e, &nr, &room);
	if (nr)
		pn_fork_record(e, parent, child, nr, room);
	pn_hook_unlock(e);
}

/*
 * The fork hook: the child is complete and about to be made findable by
 * pid; @parent is the forking task, current.  A new thread of a followed
 * process is counted, and followed with its process; a new process gets
 * its entry from the kit of the thread that forks it.  Atomic, see
 * pn_hook_fork().
 */
void pn_core_fork(struct task_struct *parent, struct task_struct *child)
{
	struct pn_task *pe, *ce, *kit, *holder;
	struct pnotify_subscriber *psub;
	bool failed = false, prep_child;

	if (child->signal == parent->signal) {
		pn_core_fork_thread(parent, child);
		return;
	}
	pe = pn_task_lock_live(parent, true);
	if (likely(!pe))
		return;
	if (!pe->nr_subs || !pn_task_is_user(child)) {
		pn_hook_unlock(pe);
		return;
	}
	atomic_long_inc(&pn_stats.forks_followed);
	holder = pn_kit_holder(pe, parent);
	kit = holder ? holder->kit : NULL;
	if (!pn_kit_fits(kit, pe->nr_subs, 0)) {
		holder = pn_fork_kit_missing(pe, holder, parent);
		kit = holder ? holder->kit : NULL;
	}
	if (!pn_kit_fits(kit, pe->nr_subs, 0)) {
		/*
		 * No kit, for want of memory when it was to be made, or one
		 * too small, for a subscription added during this fork: the
		 * thread asked for one again.
		 */
		pn_hook_unlock(pe);
		pn_fork_doom(child);
		return;
	}
	pn_entry_bind(kit, child, child->signal);
	ce = pn_fork_entry(kit);
	if (ce == kit)
		holder->kit = NULL;
	else
		/* The kit stays the parent's, short of the blocks used. */
		pn_entry_unbind(kit);
	hlist_for_each_entry(psub, &pe->subs, task_link)
		if (pn_fork_inherit(ce, kit, psub) < 0)
			failed = true;
	pn_fork_restock(pe, holder, parent, ce, child);
	/*
	 * The child's prep work runs its fork callbacks, or lets go of an
	 * entry left idle.
	 */
	prep_child = (!list_empty(&ce->forks) || !ce->nr_subs) &&
		     pn_task_claim_prep(ce);
	pn_hook_unlock(ce);
	pn_hook_unlock(pe);
	if (prep_child)
		pn_task_queue_prep(ce, child);
	if (failed)
		pn_fork_doom(child);
	pn_test_spin(fork);
}

/*
 * Runs the fork callback of @sub, taken from the child @e's pending forks:
 * a subscription to establish (no inherit) or one that inherit() asked for
 * (linked in the hook, with a reference of the pending list's, which this
 * drops).  Returns < 0 to fail.
 */
static int pn_fork_one(struct pn_task *e, struct pnotify_subscriber *sub,
		       struct pnotify_subscriber *parent, bool inherited)
{
	struct pnotify_events *events = sub->events;
	bool call = !READ_ONCE(events->dying);
	int ret = PNOTIFY_SKIP;

	/* Ended meanwhile (detached, unregistered): its exit waits for us. */
	if (inherited) {
		pn_entry_lock(e);
		call = call && pn_sub_linked(sub);
		pn_entry_unlock(e);
	}
	if (call) {
		ret = events->fork(e->task, sub, parent->data);
		atomic_long_inc(&events->nr_fork);
		if (ret < 0)
			atomic_long_inc(&events->nr_failed);
	}
	if (inherited) {
		if (call && ret)
			pn_sub_end(e, sub);
		pn_sub_put(sub);
		return call ? ret : 0;
	}
	if (ret) {
		pn_sub_free(sub, false);
		return ret;
	}
	pn_entry_lock(e);
	ret = pn_sub_link(e, sub, NULL, NULL);
	pn_entry_unlock(e);
	/* Established by fork but not linkable (unregistering): end it now. */
	if (ret)
		pn_sub_free(sub, true);
	return 0;
}

/*
 * Runs the pending fork callbacks of the child @e, in the child: from its
 * prep work, or from its exit work when it exits first.
 */
static void pn_run_forks(struct pn_task *e)
{
	struct pnotify_subscriber *sub, *parent;
	bool failed = false;
	int cookie;

	/*
	 * Only the hook that made the task adds to its list, before the task
	 * ran, and only the task takes from it: most tasks have none pending.
	 */
	if (list_empty(&e->forks))
		return;
	cookie = pn_read_lock();
	for (;;) {
		pn_entry_lock(e);
		sub = list_first_entry_or_null(&e->forks,
					       struct pnotify_subscriber,
					       fork_link);
		if (sub)
			list_del_init(&sub->fork_link);
		pn_entry_unlock(e);
		if (!sub)
			break;
		parent = sub->fork_parent;
		sub->fork_parent = NULL;
		/* Only inherit() links a subscription before its fork(). */
		if (pn_fork_one(e, sub, parent, !!sub->entry) < 0)
			failed = true;
		pn_sub_put(parent);
	}
	pn_read_unlock(cookie);
	if (failed && !(current->flags & PF_EXITING)) {
		atomic_long_inc(&pn_stats.fork_failures);
		force_sig(SIGKILL);
	}
}

static void pn_prep_work(struct callback_head *work)
{
	struct pn_task *e = container_of(work, struct pn_task, prep_work);
	struct pn_task *kit = NULL;
	bool unhashed = false;

	clear_bit(PN_PREP_QUEUED, &e->flags);
	pn_run_forks(e);
	pn_entry_lock(e);
	/* Every fork callback dropped its subscription: follow nothing. */
	unhashed = pn_task_unhash_if_idle(e, &kit);
	pn_entry_unlock(e);
	if (unhashed)
		pn_task_retire(e, kit);
	pn_task_put(e);
	pn_work_done();
}

/* ---- exec --------------------------------------------------------------- */

/*
 * References @e's subscriptions into @stack, or into a new array when they
 * are more than PN_SNAPSHOT_ON_STACK, and returns it.  That allocation
 * cannot fail: an exec's callbacks are never skipped for want of memory
 * (keyring_bridge gives a job's keyring up in one).
 */
static struct pnotify_subscriber **
pn_task_snapshot(struct pn_task *e, struct pnotify_subscriber **stack,
		 unsigned int *nr)
{
	struct pnotify_subscriber **subs = stack, *sub;
	unsigned int cap = pn_snapshot_on_stack();

	for (;;) {
		pn_entry_lock(e);
		if (e->nr_subs <= cap)
			break;
		cap = e->nr_subs;
		pn_entry_unlock(e);
		if (subs != stack)
			kfree(subs);
		/* A pointer per subscriber registered: small. */
		subs = kmalloc_array(cap, sizeof(*subs),
				     GFP_KERNEL | __GFP_NOFAIL);
	}
	*nr = 0;
	hlist_for_each_entry(sub, &e->subs, task_link) {
		refcount_inc(&sub->ref);
		subs[(*nr)++] = sub;
	}
	pn_entry_unlock(e);
	return subs;
}

/*
 * Runs the exec callbacks of @e's subscriptions, those of @task, under the
 * guard.  @task from the caller: an entry found live may since have been
 * let go of (pn_task_let_go()).
 */
static void pn_dispatch_exec(struct pn_task *e, struct task_struct *task)
{
	struct pnotify_subscriber *stack[PN_SNAPSHOT_ON_STACK], **subs;
	unsigned int nr, i;
	int cookie;

	cookie = pn_read_lock();
	subs = pn_task_snapshot(e, stack, &nr);
	for (i = 0; i < nr; i++) {
		struct pnotify_events *events = subs[i]->events;

		if (events->exec && !READ_ONCE(events->dying)) {
			events->exec(task, subs[i]);
			atomic_long_inc(&events->nr_exec);
		}
		pn_sub_put(subs[i]);
	}
	pn_read_unlock(cookie);
	if (subs != stack)
		kfree(subs);
}

static void pn_exec_work(struct callback_head *work)
{
	struct pn_task *e = container_of(work, struct pn_task, exec_work);

	clear_bit(PN_EXEC_QUEUED, &e->flags);
	/* Out of the table by the exit hook: its subscriptions have left. */
	if (!test_bit(PN_DEAD, &e->flags))
		pn_dispatch_exec(e, current);
	pn_task_put(e);
	pn_work_done();
}

void pn_core_exec(struct task_struct *task)
{
	struct pn_task *e;

	/*
	 * Pairs with pn_attach(): de_thread() has made @task the leader; now
	 * look.
	 */
	smp_mb();
	e = pn_task_claim_exec(task);

	if (!e)
		return;
	if (pn_queue_work(task, &e->exec_work, pn_exec_work, PN_TWA_RESUME)) {
		clear_bit(PN_EXEC_QUEUED, &e->flags);
		pn_task_put(e);
		return;
	}
	atomic_long_inc(&pn_stats.exec_works);
}

/*
 * The exec dispatch of @task run at once, in the caller's context, for the
 * benchmark module (tests/kmod/pnotify_bench.c): the hooks' lookup, the
 * guard's read side and the callbacks, without the ftrace callback and
 * task work around them.  -ENOENT (after the lookup) when @task is not followed.
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
	pn_entry_unlock(e);
	if (!live)
		return -ENOENT;
	pn_dispatch_exec(e, task);
	pn_task_put(e);
	return 0;
}
EXPORT_SYMBOL_NS_GPL(pn_core_dispatch_exec, PNOTIFY_INTERNAL);

/* ---- exit --------------------------------------------------------------- */

/*
 * Unlinks every subscription of @e (locked), whose process's end is
 * claimed (its I/O all counted), onto @ended, whence the caller takes each
 * off (pn_sub_take_ended()) and drops its link's reference once unlocked.
 * Inline: in the exit hook, a call costs as much as the body.
 */
static __always_inline void pn_task_unlink_all(struct pn_task *e,
					       struct hlist_head *ended)
{
	struct pnotify_subscriber *sub;

	hlist_for_each_entry(sub, &e->subs, task_link)
		pn_sub_unlinked(e, sub);
	e->nr_subs = 0;
	e->subs_room = 0;
	hlist_move_list(&e->subs, ended);
}

/*
 * Takes @sub off a list of pn_task_unlink_all()'s, which its caller walks
 * to the end and drops: no neighbour of @sub is looked at again, and needs
 * no update.
 */
static void pn_sub_take_ended(struct pnotify_subscriber *sub)
{
	INIT_HLIST_NODE(&sub->task_link);
}

/* Ends every subscription of @e and takes it out of the table. */
static void pn_task_end(struct pn_task *e)
{
	struct pnotify_subscriber *sub;
	struct pn_task *kit = NULL;
	struct hlist_node *next;
	HLIST_HEAD(ended);
	bool unhashed = false;

	pn_entry_lock(e);
	pn_task_unlink_all(e, &ended);
	if (!test_bit(PN_DEAD, &e->flags)) {
		kit = pn_task_unhash(e);
		unhashed = true;
	}
	pn_entry_unlock(e);
	hlist_for_each_entry_safe(sub, next, &ended, task_link) {
		/* Unlinked, not yet dropped: an unregister may hold them. */
		pn_test_sleep(exit);
		pn_sub_take_ended(sub);
		pn_sub_put(sub);
	}
	if (unhashed)
		pn_task_retire(e, kit);
}

/* Any context, the exit hook included. */
static void pn_exiting_add(struct pn_task *e)
{
	struct hlist_bl_head *head = &pn_exiting[hash_ptr(e, PN_EXITING_BITS)];

	hlist_bl_lock(head);
	hlist_bl_add_head(&e->exit_node, head);
	hlist_bl_unlock(head);
}

/* Before the exit work's reference on @e goes.  Any context. */
static void pn_exiting_del(struct pn_task *e)
{
	struct hlist_bl_head *head = &pn_exiting[hash_ptr(e, PN_EXITING_BITS)];

	hlist_bl_lock(head);
	hlist_bl_del_init(&e->exit_node);
	hlist_bl_unlock(head);
}

static void pn_exit_work(struct callback_head *work)
{
	struct pn_task *e = container_of(work, struct pn_task, exit_work);

	pn_run_forks(e);
	pn_task_end(e);
	pn_kits_top_up();
	pn_spares_top_up();
	pn_exiting_del(e);
	pn_task_let_go(e);
	pn_work_done();
}

/*
 * Whether the exit hook can end @e (locked) itself: every subscriber has
 * leave() and is not unregistering, no fork callback is pending, no
 * thread of the process still exiting holds its record (letting go of
 * each would keep interrupts off the longer: the work does), and the
 * kit cache, which only a work can top up, is at least half stocked.  (A
 * fork takes a kit; the entry it became comes back after its grace
 * period, except under KASAN, where entries are not reused and the cache
 * sinks by one a fork.)  An unregister waits for an RCU grace period
 * after setting dying and raising pn_nr_leaveless, so a hook that saw
 * either as before ends, subscriptions counted off, before the unregister
 * looks for those left; one that saw dying set leaves them to the work,
 * where the unregister finds them.
 */
static bool pn_task_can_leave(struct pn_task *e)
{
	struct pnotify_subscriber *sub;

	if (!list_empty(&e->forks) || !list_empty(&e->records) ||
	    READ_ONCE(pn_nr_kits) < PN_KITS_LOW / 2)
		return false;
	if (!READ_ONCE(pn_nr_leaveless))
		return true;
	hlist_for_each_entry(sub, &e->subs, task_link)
		if (!sub->events->leave || READ_ONCE(sub->events->dying))
			return false;
	return true;
}

/*
 * What pn_sub_free() does after exit(), for a subscription leave() ended
 * in the exit hook: its block goes on @released, for pn_task_leave() to
 * keep.  The task subscribed may be reaped: its last reference may go
 * here, with interrupts off, which put_task_struct() allows (deferred on
 * PREEMPT_RT).  No unregister waits for the count (pn_task_can_leave()).
 */
static void pn_sub_release(struct pnotify_subscriber *sub,
			   struct pnotify_subscriber **released)
{
	struct pnotify_events *events = sub->events;

	pn_sub_drop_calls(sub);
	atomic_long_inc(&events->nr_exit);
	put_task_struct(sub->task);
	if (sub->holds_hooks)
		pn_hooks_put();
	sub->fork_parent = *released;
	*released = sub;
	atomic_dec(&events->nr_subs);
}

/*
 * Gives the blocks of @e's ended subscriptions, linked through
 * ->fork_parent from @b, back to @e's prepared[] as far as they fit it:
 * remade a kit after its grace period (pn_dead_recycle()), @e then takes
 * none from the block cache.  Returns the others.  Not where blocks are
 * not reused (KASAN).
 */
static struct pnotify_subscriber *
pn_entry_keep_blocks(struct pn_task *e, struct pnotify_subscriber *b)
{
	struct pnotify_subscriber *next, *others = NULL;

	/* Else pn_dead_recycle() frees @e, blocks and all. */
	if (!PN_REUSE || e->nr_slots < READ_ONCE(pn_nr_events) ||
	    e->room != READ_ONCE(pn_room))
		return b;
	for (; b; b = next) {
		next = b->fork_parent;
		if (e->nr_prepared < e->nr_slots && b->room_bytes == e->room) {
			if (IS_ENABLED(CONFIG_DEBUG_KMEMLEAK))
				pn_block_scrub(b);
			b->fork_parent = NULL;
			e->prepared[e->nr_prepared++] = b;
		} else {
			b->fork_parent = others;
			others = b;
		}
	}
	return others;
}

/*
 * Ends every subscription of @e (locked, pn_task_can_leave()) and takes it
 * out of the table, in the exit hook of @task, the process's thread that
 * ends it, interrupts off: leave() ends each subscription that
 * nothing else holds, the last holder of any other calls its exit().  One
 * whose leave() asks for exit() is linked again, to the entry now out of
 * the table, for the exit work (or an unregister first) to end as usual.
 * The kits and blocks freed go to the cache, and what it cannot take, for
 * the hook may not free it on PREEMPT_RT, waits for @e's grace period.
 * Returns whether the exit work is due, and then hands it the table's
 * reference.
 */
static bool pn_task_leave(struct pn_task *e, struct task_struct *task)
{
	struct pnotify_subscriber *sub, *released = NULL;
	struct hlist_node *next;
	struct pn_task *kit;
	bool exit_due = false, ended_now;
	HLIST_HEAD(ended);

	pn_task_unlink_all(e, &ended);
	kit = pn_task_unhash(e);
	pn_hook_unlock(e);
	/* pn_task_can_leave() left them to the work, which lets go of them. */
	WARN_ON_ONCE(!list_empty(&e->records));
	hlist_for_each_entry_safe(sub, next, &ended, task_link) {
		pn_sub_take_ended(sub);
		pn_test_spin(leave);
		if (!refcount_dec_and_test(&sub->ref))
			continue;
		ended_now = !sub->events->leave(task, sub);
		/* A leave() that turned them on would break the locks below. */
		pn_assert_irqs_off();
		if (ended_now) {
			pn_sub_release(sub, &released);
			continue;
		}
		/* No one could find it meanwhile: the link's reference again. */
		refcount_set(&sub->ref, 1);
		pn_hook_lock(e, 0);
		pn_sub_add(e, sub);
		pn_hook_unlock(e);
		exit_due = true;
	}
	/* What the caches cannot take waits for @e's grace period. */
	e->dead_kits = kit;
	e->dead_blocks = pn_entry_keep_blocks(e, released);
	if (exit_due) {
		pn_cache_keep(&e->dead_kits, &e->dead_blocks, NULL);
		return true;
	}
	atomic_long_inc(&pn_stats.exits_in_hook);
	pn_entry_let_go_atomic(e);
	return false;
}

/*
 * What wait() will report of the process @task ends, in its exit hook: the
 * code of its group exit, else its leader's, whose hook has run (see
 * pn_task_ends_process()).  The leader is @task, or a zombie its process
 * keeps from being reaped while @task is in it (delay_group_leader()),
 * and no exec can change it with every thread exiting.
 */
static int pn_process_status(struct task_struct *task)
{
	struct signal_struct *sig = task->signal;

	if (READ_ONCE(sig->flags) & SIGNAL_GROUP_EXIT)
		return READ_ONCE(sig->group_exit_code);
	return READ_ONCE(task->group_leader->exit_code);
}

/*
 * Whether @task's exit hook ends its process, @e's (locked, live).  The
 * process ends when its last thread has decremented signal->live, and
 * once the leader's own hook has run: do_exit() writes a thread's
 * exit_code after its decrement, before its hook, and wait() reports the
 * leader's (or group_exit_code, set before any decrement).  The second
 * of those two hooks ends it (one thread may be both); the leader is not
 * reaped before the others (delay_group_leader()).  An exec by another
 * thread makes that thread the leader, and its hook clears the old one's
 * bit (pn_core_exec()).  The record of a thread that forked goes with it.
 *
 * Each thread adds its I/O to the subscriptions here, until the end: then
 * the threads left, which still hold their records, add theirs, final
 * with every thread in do_exit(), and their hooks add nothing.
 */
static bool pn_task_ends_process(struct pn_task *e, struct task_struct *task)
{
	struct pnotify_io io = { 0 };
	struct pn_task *rec = NULL;
	bool ends;

	if (e->nr_records && task != e->task) {
		rec = pn_kit_holder(e, task);
		if (rec)
			pn_record_unhash(e, rec);
	}
	e->io_gen++;
	/* Counted: in the set a link reads (pn_io_add_pending()). */
	if (!pn_io_none(task) && !test_bit(PN_EXIT_QUEUED, &e->flags) &&
	    (task == e->task ? !test_bit(PN_LEADER_EXITED, &e->flags) : !!rec)) {
		pn_io_add(&io, task);
		pn_subs_add_io(e, &io);
	}
	if (!atomic_read(&task->signal->live))
		set_bit(PN_LIVE_ZERO, &e->flags);
	if (thread_group_leader(task))
		set_bit(PN_LEADER_EXITED, &e->flags);
	ends = test_bit(PN_LIVE_ZERO, &e->flags) &&
	       test_bit(PN_LEADER_EXITED, &e->flags) &&
	       !test_and_set_bit(PN_EXIT_QUEUED, &e->flags);
	if (ends) {
		e->exit_status = pn_process_status(task);
		/* Its leader's hook has run: only the records are read. */
		if (unlikely(!list_empty(&e->records))) {
			io.rchar = 0;
			io.wchar = 0;
			pn_io_add_pending(e, &io);
			pn_subs_add_io(e, &io);
			atomic_long_add(e->nr_records,
					&pn_stats.exits_left_behind);
		}
	}
	if (rec)
		pn_entry_let_go_atomic(rec);
	return ends;
}

/*
 * The exit hook's part for a thread of the process @e (locked, live),
 * interrupts off.
 */
static void pn_task_exit_locked(struct pn_task *e, struct task_struct *task)
{
	if (!pn_task_ends_process(e, task)) {
		pn_hook_unlock(e);
		return;
	}
	if (pn_task_can_leave(e)) {
		if (!pn_task_leave(e, task))
			return;
	} else {
		refcount_inc(&e->ref);
		pn_hook_unlock(e);
	}
	pn_exiting_add(e);
	/*
	 * Queued before exit_task_work(): it cannot fail here.  (If it did,
	 * subscriptions linked again by pn_task_leave() would never end.)
	 */
	if (WARN_ON_ONCE(pn_queue_work(task, &e->exit_work, pn_exit_work,
				       PN_TWA_NONE))) {
		pn_exiting_del(e);
		pn_task_put(e);
	}
}

void pn_core_exit(struct task_struct *task)
{
	unsigned long flags;
	struct pn_task *e;

	pn_test_straggle(task);
	/*
	 * Pairs with pn_sub_link(): the decrement of signal->live, a full
	 * barrier, is made; now look.  And with pn_record_add(): PF_EXITING
	 * is set.
	 */
	smp_mb();
	/*
	 * A thread that neither leads its process nor leaves it without
	 * threads ends nothing but its record, if it has one.
	 */
	if (!thread_group_leader(task) && atomic_read(&task->signal->live) &&
	    !pn_lookup(task))
		return;
	e = pn_task_lookup(task);
	if (likely(!e))
		return;
	/*
	 * Off for the whole end, leave() included (pnotify.h): its locks
	 * then need no saving.
	 */
	local_irq_save(flags);
	e = pn_entry_lock_live(e, task, true);
	if (e)
		pn_task_exit_locked(e, task);
	local_irq_restore(flags);
}

/* ---- the subscriber API ------------------------------------------------- */

int pnotify_subscribe(struct task_struct *task, struct pnotify_events *events,
		      void *data)
{
	struct pnotify_subscriber *sub;
	int err;

	might_sleep();
	if (data && events->data_size)
		return -EINVAL;
	sub = pnotify_prepare(task, events, GFP_KERNEL);
	if (IS_ERR(sub))
		return PTR_ERR(sub);
	if (data)
		sub->data = data;
	err = pnotify_establish(sub);
	if (err)
		pnotify_discard(sub);
	return err;
}
EXPORT_SYMBOL_GPL(pnotify_subscribe);

int pnotify_unsubscribe(struct task_struct *task,
			struct pnotify_events *events)
{
	struct pnotify_subscriber *sub = NULL;
	struct pn_task *e;
	bool ended;

	might_sleep();
	e = pn_task_lock(task);
	if (!e)
		return -ENOENT;
	sub = pn_task_find_live(e, events, NULL);
	/* Linked: held, and so is its entry (by the table). */
	if (sub) {
		refcount_inc(&sub->ref);
		refcount_inc(&e->ref);
	}
	pn_entry_unlock(e);
	if (!sub)
		return -ENOENT;
	ended = pn_sub_end(e, sub);
	pn_sub_put(sub);
	pn_task_put(e);
	return ended ? 0 : -ENOENT;
}
EXPORT_SYMBOL_GPL(pnotify_unsubscribe);

struct pnotify_subscriber *pnotify_get_subscriber(struct task_struct *task,
						  const char *name)
{
	struct pnotify_subscriber *sub = NULL;
	struct pn_task *e;

	e = pn_task_lock(task);
	if (e) {
		sub = pn_task_find_live(e, NULL, name);
		if (sub)
			refcount_inc(&sub->ref);
		pn_entry_unlock(e);
	}
	return sub;
}
EXPORT_SYMBOL_GPL(pnotify_get_subscriber);

void pnotify_put_subscriber(struct pnotify_subscriber *sub)
{
	pn_sub_put(sub);
}
EXPORT_SYMBOL_GPL(pnotify_put_subscriber);

/*
 * Reads of a live process's I/O that may be retried (pnotify_task_io()),
 * and the most records its last may walk under the entry lock.
 */
#define PN_IO_TRIES 4
#define PN_IO_LOCKED_RECORDS 64

/*
 * The counted threads that have not counted their I/O are read with the
 * entry unlocked, as the hooks would choose them (exiting or not): its
 * lock would keep interrupts off for a walk as long as the process's
 * threads.  The set is the one the subscription's sum left out if no
 * thread counted its own or changed place meanwhile (e->io_gen): else the
 * read is made again, a few times at most, the last under the lock if the
 * process has few threads.
 */
int pnotify_task_io(struct task_struct *task, struct pnotify_events *events,
		    const void *data, struct pnotify_io *io)
{
	struct pnotify_subscriber *sub;
	struct task_struct *leader, *t;
	unsigned int tries, gen;
	int err = -EAGAIN;
	struct pn_task *e;
	bool done;

	rcu_read_lock();
	for (tries = 0; tries < PN_IO_TRIES; tries++) {
		e = pn_task_lock_rcu(task, false);
		sub = e ? pn_task_find_live(e, events, NULL) : NULL;
		if (!sub || sub->data != data) {
			if (e)
				pn_entry_unlock(e);
			err = -ENOENT;
			break;
		}
		*io = sub->io;
		/* Once the end is claimed, the sum is whole. */
		done = test_bit(PN_EXIT_QUEUED, &e->flags);
		if (!done && tries == PN_IO_TRIES - 1 &&
		    e->nr_records <= PN_IO_LOCKED_RECORDS) {
			pn_io_add_pending(e, io);
			done = true;
		}
		leader = test_bit(PN_LEADER_EXITED, &e->flags) ? NULL : e->task;
		gen = e->io_gen;
		pn_entry_unlock(e);
		if (!done) {
			for_each_thread(task, t)
				if (t == leader || pn_lookup(t))
					pn_io_add(io, t);
			/* Freed only after a grace period: dead or not. */
			pn_entry_lock(e);
			done = e->io_gen == gen;
			pn_entry_unlock(e);
		}
		if (done) {
			err = 0;
			break;
		}
	}
	rcu_read_unlock();
	return err;
}
EXPORT_SYMBOL_GPL(pnotify_task_io);

/*
 * A call holds no reference on its subscription, so that ending it never
 * waits for a task that does not run; the subscription's end drops the
 * call instead.
 */
static void pn_call_work(struct callback_head *work)
{
	struct pn_call *call = container_of(work, struct pn_call, work);
	struct pnotify_subscriber *sub;
	int cookie;

	raw_spin_lock(&pn_calls_lock);
	sub = call->sub;
	if (sub) {
		list_del_init(&call->link);
		pn_test_spin(call);
		if (!refcount_inc_not_zero(&sub->ref))
			sub = NULL;
	}
	raw_spin_unlock(&pn_calls_lock);
	if (sub) {
		cookie = pn_read_lock();
		if (!READ_ONCE(sub->events->dying) &&
		    !(current->flags & PF_EXITING))
			call->fn(current, sub);
		pn_read_unlock(cookie);
		pn_sub_put(sub);
	}
	kfree(call);
	pn_work_done();
}

/*
 * The thread of @task's process a call runs in, referenced: @task, or if
 * it has begun to exit (a leader that called pthread_exit()), a user
 * thread that has not; NULL if none is left.
 */
static struct task_struct *pn_live_thread(struct task_struct *task)
{
	struct task_struct *t, *found = NULL;

	rcu_read_lock();
	if (!(READ_ONCE(task->flags) & PF_EXITING)) {
		found = task;
	} else {
		for_each_thread(task, t) {
			if (pn_task_is_user(t) &&
			    !(READ_ONCE(t->flags) & PF_EXITING)) {
				found = t;
				break;
			}
		}
	}
	if (found)
		get_task_struct(found);
	rcu_read_unlock();
	return found;
}

/*
 * Queues @fn in @task, or another thread of its process if it exits;
 * consumes the caller's reference on @sub.
 */
static int pn_call_queue(struct pnotify_subscriber *sub, pnotify_call_fn fn,
			 struct task_struct *task)
{
	struct pn_call *call = kmalloc(sizeof(*call), GFP_KERNEL);
	int err = -ENOMEM;

	task = pn_live_thread(task);
	if (!task) {
		kfree(call);
		pn_sub_put(sub);
		return -ESRCH;
	}
	if (call) {
		call->sub = sub;
		call->fn = fn;
		raw_spin_lock(&pn_calls_lock);
		list_add_tail(&call->link, &sub->calls);
		sub->called = true;
		raw_spin_unlock(&pn_calls_lock);
		err = pn_queue_work(task, &call->work, pn_call_work,
				    PN_TWA_SIGNAL);
		if (err) {
			raw_spin_lock(&pn_calls_lock);
			list_del(&call->link);
			raw_spin_unlock(&pn_calls_lock);
			kfree(call);
		}
	}
	put_task_struct(task);
	pn_sub_put(sub);
	return err;
}

int pnotify_call(struct task_struct *task, struct pnotify_events *events,
		 pnotify_call_fn fn)
{
	struct pnotify_subscriber *sub;

	might_sleep();
	sub = pnotify_get_subscriber(task, events->name);
	if (sub)
		return pn_call_queue(sub, fn, task);
	/* Past its end, a process's subscriptions are gone: say why. */
	return atomic_read(&task->signal->live) ? -ENOENT : -ESRCH;
}
EXPORT_SYMBOL_GPL(pnotify_call);

/*
 * References up to @cap subscriptions of @events to tasks in the table into
 * @subs; returns how many.
 */
static unsigned int pn_table_subs(struct pnotify_events *events,
				  struct pnotify_subscriber **subs,
				  unsigned int cap)
{
	struct pnotify_subscriber *sub;
	struct hlist_bl_node *pos;
	unsigned int i, n = 0;
	struct pn_task *e;

	for (i = 0; i < 1U << PN_TABLE_BITS && n < cap; i++) {
		rcu_read_lock();
		hlist_bl_for_each_entry_rcu(e, pos, &pn_table[i], node) {
			if (n == cap)
				break;
			pn_entry_lock(e);
			sub = pn_task_find_live(e, events, NULL);
			if (sub) {
				refcount_inc(&sub->ref);
				subs[n++] = sub;
			}
			pn_entry_unlock(e);
		}
		rcu_read_unlock();
		if (!(i % 256))
			cond_resched();
	}
	return n;
}

int pnotify_call_all(struct pnotify_events *events, pnotify_call_fn fn)
{
	struct pnotify_subscriber **subs;
	unsigned int cap, n, i;
	int err = 0;

	might_sleep();
	cap = atomic_read(&events->nr_subs);
	subs = kvmalloc_array(max(cap, 1U), sizeof(*subs), GFP_KERNEL);
	if (!subs)
		return -ENOMEM;
	n = pn_table_subs(events, subs, cap);
	for (i = 0; i < n; i++)
		if (pn_call_queue(subs[i], fn, subs[i]->task) == -ENOMEM)
			err = -ENOMEM;
	kvfree(subs);
	return err;
}
EXPORT_SYMBOL_GPL(pnotify_call_all);

/* ---- registration ------------------------------------------------------- */

/*
 * Counts @t into @tasks, referenced while there is room (@cap) for it, if
 * it is a user task that has not begun to exit; @process: if its process
 * has not.  Returns the count.
 */
static int pn_snapshot_add(struct task_struct *t, struct task_struct **tasks,
			   int n, int cap, bool process)
{
	if (!pn_task_is_user(t) ||
	    (process ? !atomic_read(&t->signal->live) :
		       (t->flags & PF_EXITING)))
		return n;
	if (n < cap) {
		get_task_struct(t);
		tasks[n] = t;
	}
	return n + 1;
}

/*
 * References the user threads alive now of @of's process, or without @of,
 * a thread of every user process alive now (its leader, which may have
 * exited before the others); returns the count, or < 0.
 */
static int pn_snapshot_tasks(struct task_struct *of, struct task_struct ***out)
{
	struct task_struct *t, **tasks = NULL;
	int n, cap = 0;

	for (;;) {
		n = 0;
		rcu_read_lock();
		if (of)
			for_each_thread(of, t)
				n = pn_snapshot_add(t, tasks, n, cap, false);
		else
			for_each_process(t)
				n = pn_snapshot_add(t, tasks, n, cap, true);
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

/*
 * True if @task has a subscription of @events, or a child's one awaiting
 * its fork() callback (inherited at the fork, linked in the child's prep
 * work): init must not make it a second.
 */
static bool pn_task_follows(struct task_struct *task,
			    struct pnotify_events *events)
{
	struct pn_task *e = pn_task_lock(task);
	struct pnotify_subscriber *sub;
	bool follows = false;

	if (!e)
		return false;
	if (!test_bit(PN_DEAD, &e->flags)) {
		follows = pn_task_find_sub(e, events, NULL);
		list_for_each_entry(sub, &e->forks, fork_link)
			follows |= sub->events == events;
	}
	pn_entry_unlock(e);
	return follows;
}

/*
 * One pass of init: offers every running user task that @events does not
 * follow yet to its init callback; returns how many it took.
 */
static int pn_run_init_pass(struct pnotify_events *events)
{
	struct task_struct **tasks;
	int n, i, taken = 0, arm_err = 0;

	n = pn_snapshot_tasks(NULL, &tasks);
	if (n < 0) {
		pr_warn("%s: no memory to offer running tasks to init\n",
			events->name);
		atomic_long_inc(&events->nr_failed);
		return 0;
	}
	for (i = 0; i < n; i++) {
		struct pnotify_subscriber *sub;

		if (pn_task_follows(tasks[i], events))
			goto next;
		/* The hooks could not be armed: no use offering the others. */
		if (arm_err) {
			atomic_long_inc(&events->nr_failed);
			goto next;
		}
		/* Arming the hooks only for a task init takes. */
		sub = pn_sub_alloc(tasks[i], events, GFP_KERNEL);
		if (IS_ERR(sub)) {
			atomic_long_inc(&events->nr_failed);
			goto next;
		}
		if (events->init(tasks[i], sub)) {
			pn_sub_free(sub, false);
			goto next;
		}
		arm_err = pn_hooks_get();
		if (arm_err) {
			/* init() took the task: its exit undoes that. */
			pn_sub_free(sub, true);
			atomic_long_inc(&events->nr_failed);
		} else {
			sub->holds_hooks = true;
			atomic_long_inc(&events->nr_init);
			taken++;
			/* Exited or inherited meanwhile: end it, balanced. */
			if (pn_attach(tasks[i], sub, false, NULL))
				pn_sub_free(sub, true);
			pn_test_sleep(init);
		}
next:
		put_task_struct(tasks[i]);
	}
	kvfree(tasks);
	return taken;
}

/*
 * Offers every running user task to the new subscriber's init callback.
 * A task forked during a pass by a parent init had not taken yet is in no
 * snapshot of that pass and inherited nothing: passes go on until one
 * takes no task, as the parents taken have their children inherit.  Chains
 * of processes that each fork before they are taken could keep that up:
 * the passes are bounded, and running out of them is counted as a failure.
 */
#define PN_INIT_PASSES 16

static void pn_run_init(struct pnotify_events *events)
{
	int cookie = pn_read_lock();
	int pass;

	for (pass = 0; pn_run_init_pass(events); pass++) {
		if (pass == PN_INIT_PASSES) {
			pr_warn("%s: tasks kept forking during init: some may not be followed\n",
				events->name);
			atomic_long_inc(&events->nr_failed);
			break;
		}
		cond_resched();
	}
	pn_read_unlock(cookie);
}

int pnotify_register(struct pnotify_events *events)
{
	struct pnotify_events *other;
	int err = 0;

	if (!events->name || !events->name[0] ||
	    strnlen(events->name, PNOTIFY_NAME_MAX + 1) > PNOTIFY_NAME_MAX ||
	    !(events->fork || events->inherit) || !events->exit ||
	    events->data_size > PNOTIFY_DATA_MAX)
		return -EINVAL;

	mutex_lock(&pn_register_mutex);
	list_for_each_entry(other, &pn_events_list, list) {
		if (!strcmp(other->name, events->name)) {
			err = -EBUSY;
			goto out;
		}
	}
	/* Past the check: @events may be registered already. */
	events->dying = false;
	events->leaveless = !events->leave;
	atomic_set(&events->nr_subs, 0);
	atomic_long_set(&events->nr_fork, 0);
	atomic_long_set(&events->nr_exec, 0);
	atomic_long_set(&events->nr_exit, 0);
	atomic_long_set(&events->nr_init, 0);
	atomic_long_set(&events->nr_failed, 0);
	pn_write_lock();
	list_add_tail(&events->list, &pn_events_list);
	WRITE_ONCE(pn_nr_events, pn_nr_events + 1);
	if (events->leaveless)
		WRITE_ONCE(pn_nr_leaveless, pn_nr_leaveless + 1);
	WRITE_ONCE(pn_room, max(pn_room, events->data_size));
	/* After its fields and the counts above: see pnotify_prepare(). */
	smp_store_release(&events->registered, true);
	pn_write_unlock();
	if (events->init)
		pn_run_init(events);
out:
	mutex_unlock(&pn_register_mutex);
	return err;
}
EXPORT_SYMBOL_GPL(pnotify_register);

/*
 * @e's subscription to @events, if it has one linked, referenced with @e;
 * @e is reachable under RCU (a table bucket) or a lock (pn_exiting).  A
 * linked subscription is held, and so is its entry, by the table or the
 * exit work.
 */
static struct pnotify_subscriber *pn_task_hold_sub(struct pn_task *e,
						   struct pnotify_events *events)
{
	struct pnotify_subscriber *sub;

	pn_entry_lock(e);
	sub = pn_task_find_sub(e, events, NULL);
	if (sub) {
		refcount_inc(&sub->ref);
		refcount_inc(&e->ref);
	}
	pn_entry_unlock(e);
	return sub;
}

/*
 * Ends one linked subscription of a dying subscriber found in table bucket
 * @head or, if @exiting, in that list of exit works (where a leave() left
 * entries out of the table, with subscriptions linked again for their
 * exit()); false when there is none.
 */
static bool pn_end_one(struct pnotify_events *events,
		       struct hlist_bl_head *head, struct hlist_bl_head *exiting)
{
	struct pnotify_subscriber *sub = NULL;
	struct hlist_bl_node *pos;
	struct pn_task *e, *found = NULL;

	rcu_read_lock();
	hlist_bl_for_each_entry_rcu(e, pos, head, node) {
		sub = pn_task_hold_sub(e, events);
		if (sub) {
			found = e;
			break;
		}
	}
	rcu_read_unlock();
	if (!sub && exiting) {
		hlist_bl_lock(exiting);
		hlist_bl_for_each_entry(e, pos, exiting, exit_node) {
			sub = pn_task_hold_sub(e, events);
			if (sub) {
				found = e;
				break;
			}
		}
		hlist_bl_unlock(exiting);
	}
	if (!sub)
		return false;
	pn_sub_end(found, sub);
	pn_sub_put(sub);
	pn_task_put(found);
	return true;
}

/*
 * Ends every linked subscription of a dying subscriber: none can be linked
 * any more.  A walk of the table, so that forks and exits need not keep a
 * list of each subscriber's subscriptions.
 */
static void pn_end_all(struct pnotify_events *events)
{
	unsigned int i;

	/* One walk reaches every list of both. */
	BUILD_BUG_ON(PN_EXITING_BITS > PN_TABLE_BITS);
	/* Most unregisters have none left: no need to walk on. */
	for (i = 0; i < 1U << PN_TABLE_BITS && atomic_read(&events->nr_subs);
	     i++) {
		while (pn_end_one(events, &pn_table[i],
				  i < ARRAY_SIZE(pn_exiting) ? &pn_exiting[i] :
							       NULL))
			cond_resched();
		if (!(i % 256))
			cond_resched();
	}
}

void pnotify_unregister(struct pnotify_events *events)
{
	might_sleep();
	mutex_lock(&pn_register_mutex);
	pn_write_lock();
	WRITE_ONCE(events->registered, false);
	WRITE_ONCE(events->dying, true);
	if (!events->leaveless)
		WRITE_ONCE(pn_nr_leaveless, pn_nr_leaveless + 1);
	list_del(&events->list);
	pn_write_unlock();
	/*
	 * The hooks run inherit() and leave() in RCU read sections: let them
	 * finish.  Those that begin now see dying.
	 */
	synchronize_rcu();
	pn_test_sleep(unregister);

	pn_end_all(events);
	/* Children still pending on a parent subscription end it later. */
	wait_event(pn_drain_wq, !atomic_read(&events->nr_subs));
	WRITE_ONCE(pn_nr_events, pn_nr_events - 1);
	WRITE_ONCE(pn_nr_leaveless, pn_nr_leaveless - 1);
	mutex_unlock(&pn_register_mutex);
}
EXPORT_SYMBOL_GPL(pnotify_unregister);

/* ---- module ------------------------------------------------------------- */

/* A count of pn_stats, as "name: N". */
#define pn_show_stat(m, name) \
	seq_printf(m, #name ": %ld\n", atomic_long_read(&pn_stats.name))

void pn_core_show(struct seq_file *m)
{
	struct pnotify_events *ev;

	seq_printf(m, "sync: %s\n", pn_sync_name());
	pn_show_stat(m, tasks);
	pn_show_stat(m, works_inflight);
	pn_test_show(m);
	pn_show_stat(m, forks_followed);
	pn_show_stat(m, fork_failures);
	pn_show_stat(m, exits_in_hook);
	pn_show_stat(m, exits_left_behind);
	pn_show_stat(m, exec_works);
	pn_show_stat(m, kits_made);
	pn_show_stat(m, refill_works);
	pn_show_stat(m, record_works);
	pn_show_stat(m, stock_works);
	pn_show_stat(m, records_refused);
	pn_show_stat(m, records_spared);
	pn_show_stat(m, records_missed);
	seq_printf(m, "spare_records: %u\n", READ_ONCE(pn_nr_spares));
	seq_printf(m, "kits_cached: %u\n", READ_ONCE(pn_nr_kits));
	seq_printf(m, "blocks_cached: %u\n", READ_ONCE(pn_nr_blocks));
	seq_printf(m, "entry_reuse: %s\n", PN_REUSE ? "on" : "off (KASAN)");
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
	pn_test_build_says_so();
	pn_table = kvcalloc(1U << PN_TABLE_BITS, sizeof(*pn_table),
			    GFP_KERNEL);
	if (!pn_table)
		return -ENOMEM;
	pn_caches_shrinker = pn_shrinker_register("pnotify-kits",
						  pn_caches_count,
						  pn_caches_scan);
	if (!pn_caches_shrinker) {
		kvfree(pn_table);
		return -ENOMEM;
	}
	return 0;
}

/* ---- module unload ------------------------------------------------------- */

static bool pn_work_is_ours(struct callback_head *work)
{
	return work->func == pn_prep_work || work->func == pn_exec_work ||
	       work->func == pn_call_work || work->func == pn_exit_work ||
	       work->func == pn_refill_work || work->func == pn_record_work;
}

/*
 * Drops a work taken off its task before it ran.  Every subscriber is gone:
 * a call's subscription ended (which cleared call->sub), an entry has no
 * subscription left and no fork pending (each held its subscriber's count,
 * which unregister waited for), nothing is to dispatch.  Atomic context.
 */
static void pn_work_drop(struct callback_head *work)
{
	struct pn_task *e, *kit = NULL;
	bool unhashed;

	if (work->func == pn_exit_work) {
		/* What pn_exit_work() would do, with nothing to end. */
		e = container_of(work, struct pn_task, exit_work);
		pn_entry_lock(e);
		/* A subscription still linked would be left to a freed entry. */
		if (WARN_ON_ONCE(e->nr_subs || !list_empty(&e->forks))) {
			pn_entry_unlock(e);
			goto uncount;
		}
		unhashed = !test_bit(PN_DEAD, &e->flags);
		if (unhashed)
			kit = pn_task_unhash(e);
		pn_entry_unlock(e);
		if (unhashed)
			pn_task_retire(e, kit);
		pn_exiting_del(e);
		pn_task_put(e);
	} else if (work->func == pn_call_work) {
		WARN_ON_ONCE(container_of(work, struct pn_call, work)->sub);
		kfree(container_of(work, struct pn_call, work));
	} else if (work->func == pn_exec_work) {
		e = container_of(work, struct pn_task, exec_work);
		clear_bit(PN_EXEC_QUEUED, &e->flags);
		pn_task_put(e);
	} else if (work->func == pn_refill_work) {
		/* No fork will need its kit: nothing is followed. */
		e = container_of(work, struct pn_task, refill_work);
		clear_bit(PN_REFILL_QUEUED, &e->flags);
		pn_task_put(e);
	} else if (work->func == pn_record_work) {
		e = container_of(work, struct pn_task, record_work);
		clear_bit(PN_RECORD_QUEUED, &e->flags);
		pn_task_put(e);
	} else {
		e = container_of(work, struct pn_task, prep_work);
		clear_bit(PN_PREP_QUEUED, &e->flags);
		pn_entry_lock(e);
		unhashed = pn_task_unhash_if_idle(e, &kit);
		pn_entry_unlock(e);
		if (unhashed)
			pn_task_retire(e, kit);
		pn_task_put(e);
	}
uncount:
	pn_work_uncount();
}

/*
 * Works still queued on tasks that do not run would hold the unload until
 * those tasks ran again, which their owners decide: take them off and drop
 * them.  A task stopped by SIGSTOP or a tracer holds its prep, exec and
 * call works; an exiting one its exit work, queued by the exit hook before
 * exit_files(), where the task may block without bound (a flush to a
 * stopped FUSE daemon of its user's own mount).  pn_task_work_cancel()
 * takes a work off only while task_work_run() has not taken it, so that
 * each work either runs in full (the drain waits for it) or never does.
 */
static void pn_cancel_works(void)
{
	struct task_struct *g, *t;
	struct callback_head *work;

	rcu_read_lock();
	for_each_process_thread(g, t)
		while ((work = pn_task_work_cancel(t, pn_work_is_ours)))
			pn_work_drop(work);
	rcu_read_unlock();
}

/*
 * A work returns into our text after pn_work_done() has uncounted it, and
 * on a preemptible kernel it may be preempted there for as long as the
 * scheduler likes, outside any RCU read section.  RCU Tasks waits for
 * that, as for ftrace and kprobe trampolines: its quiescent states are a
 * voluntary context switch, user mode and idle, which the task reaches
 * only after it has returned from the work.  Without TASKS_RCU it is
 * synchronize_rcu(), enough only where a kernel task is not preempted.
 */
#if IS_ENABLED(CONFIG_PREEMPTION) && !IS_ENABLED(CONFIG_TASKS_RCU)
#error "pnotify needs CONFIG_TASKS_RCU on a preemptible kernel (unload safety)"
#endif

#define PN_DRAIN_WARN_S 5
#define PN_DRAIN_WARN_TASKS 8

/*
 * The works the drain still waits for are running, or next to run in a
 * task_work_run() that took them with others before them: said every
 * PN_DRAIN_WARN_S seconds, naming the exiting tasks among them (an entry
 * on pn_exiting holds its task).
 */
static void pn_drain_warn(unsigned int waited_s)
{
	struct {
		char comm[TASK_COMM_LEN];
		pid_t pid;
	} seen[PN_DRAIN_WARN_TASKS];
	struct hlist_bl_node *pos;
	unsigned int i, n = 0, nr = 0;
	struct pn_task *e;

	for (i = 0; i < ARRAY_SIZE(pn_exiting); i++) {
		hlist_bl_lock(&pn_exiting[i]);
		hlist_bl_for_each_entry(e, pos, &pn_exiting[i], exit_node) {
			if (n < ARRAY_SIZE(seen)) {
				strscpy(seen[n].comm, e->task->comm,
					sizeof(seen[n].comm));
				seen[n].pid = task_pid_nr(e->task);
				n++;
			}
			nr++;
		}
		hlist_bl_unlock(&pn_exiting[i]);
	}
	pr_warn("unload: waiting %u s for %ld works in flight, %u of them exit works\n",
		waited_s, atomic_long_read(&pn_stats.works_inflight), nr);
	for (i = 0; i < n; i++)
		pr_warn("unload: waiting for %s (pid %d) to run its exit work\n",
			seen[i].comm, seen[i].pid);
}

/*
 * Called after the hooks are gone and every subscriber has unregistered:
 * every entry has ended or gone idle, and no new work can be queued.  The
 * works left after the cancel are running or taken to run: the drain waits
 * for them, in sleeps of PN_DRAIN_WARN_S seconds, each a warning.
 */
void pn_core_exit_module(void)
{
	unsigned int waited_s = 0;

	pn_test_unload_begins();
	pn_cancel_works();
	while (!wait_event_timeout(pn_drain_wq,
				   !atomic_long_read(&pn_stats.works_inflight),
				   PN_DRAIN_WARN_S * HZ)) {
		waited_s += PN_DRAIN_WARN_S;
		pn_drain_warn(waited_s);
	}
	pn_test_drained();
	/*
	 * The last pn_work_done() sections first: RCU Tasks alone would miss
	 * a task blocked in one (PREEMPT_RT's wait queue lock), then the
	 * returns after them.
	 */
	synchronize_rcu();
	synchronize_rcu_tasks();
	pn_test_unloadable();
	pn_dead_drain();
	WARN_ON_ONCE(atomic_long_read(&pn_stats.tasks));
	pn_shrinker_unregister(pn_caches_shrinker);
	pn_kits_free();
	kvfree(pn_table);
}
