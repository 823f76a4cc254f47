// SPDX-License-Identifier: GPL-2.0
/*
 * The reader/writer guard of pnotify, chosen at load time:
 *
 *  rwsem   one rw_semaphore, as the 2005 patch had.
 *  percpu  a percpu_rw_semaphore: readers touch only a per-CPU counter,
 *          writers pay an RCU grace period.
 *  srcu    sleepable RCU: readers never block and are never blocked;
 *          writers serialise on a mutex and wait for a grace period.
 *
 * Readers may sleep in all three (subscriber callbacks run inside).
 */
#include <linux/errno.h>
#include <linux/mutex.h>
#include <linux/percpu-rwsem.h>
#include <linux/rwsem.h>
#include <linux/srcu.h>
#include <linux/string.h>
#include "pnotify_internal.h"

enum pn_sync_mode { PN_SYNC_RWSEM, PN_SYNC_PERCPU, PN_SYNC_SRCU };

static const char * const pn_sync_names[] = {
	[PN_SYNC_RWSEM] = "rwsem",
	[PN_SYNC_PERCPU] = "percpu",
	[PN_SYNC_SRCU] = "srcu",
};

static enum pn_sync_mode pn_sync_mode;
static DECLARE_RWSEM(pn_sync_rwsem);
static struct percpu_rw_semaphore pn_sync_percpu;
static struct srcu_struct pn_sync_srcu;
static DEFINE_MUTEX(pn_sync_writer);

int pn_sync_init(const char *mode)
{
	int i = sysfs_match_string(pn_sync_names, mode);

	if (i < 0)
		return -EINVAL;
	pn_sync_mode = i;
	switch (pn_sync_mode) {
	case PN_SYNC_PERCPU:
		return percpu_init_rwsem(&pn_sync_percpu);
	case PN_SYNC_SRCU:
		return init_srcu_struct(&pn_sync_srcu);
	default:
		return 0;
	}
}

void pn_sync_exit(void)
{
	if (pn_sync_mode == PN_SYNC_PERCPU)
		percpu_free_rwsem(&pn_sync_percpu);
	else if (pn_sync_mode == PN_SYNC_SRCU)
		cleanup_srcu_struct(&pn_sync_srcu);
}

const char *pn_sync_name(void)
{
	return pn_sync_names[pn_sync_mode];
}

int pn_read_lock(void)
{
	switch (pn_sync_mode) {
	case PN_SYNC_PERCPU:
		percpu_down_read(&pn_sync_percpu);
		return 0;
	case PN_SYNC_SRCU:
		return srcu_read_lock(&pn_sync_srcu);
	default:
		down_read(&pn_sync_rwsem);
		return 0;
	}
}

void pn_read_unlock(int cookie)
{
	switch (pn_sync_mode) {
	case PN_SYNC_PERCPU:
		percpu_up_read(&pn_sync_percpu);
		break;
	case PN_SYNC_SRCU:
		srcu_read_unlock(&pn_sync_srcu, cookie);
		break;
	default:
		up_read(&pn_sync_rwsem);
	}
}

void pn_write_lock(void)
{
	switch (pn_sync_mode) {
	case PN_SYNC_PERCPU:
		percpu_down_write(&pn_sync_percpu);
		break;
	case PN_SYNC_SRCU:
		mutex_lock(&pn_sync_writer);
		break;
	default:
		down_write(&pn_sync_rwsem);
	}
}

/* For srcu, the grace period is what makes the writer's change final. */
void pn_write_unlock(void)
{
	switch (pn_sync_mode) {
	case PN_SYNC_PERCPU:
		percpu_up_write(&pn_sync_percpu);
		break;
	case PN_SYNC_SRCU:
		synchronize_srcu(&pn_sync_srcu);
		mutex_unlock(&pn_sync_writer);
		break;
	default:
		up_write(&pn_sync_rwsem);
	}
}
