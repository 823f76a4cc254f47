// SPDX-License-Identifier: GPL-2.0
/*
 * Another exec watcher of job's, for tests (keyring_bridge): job has one
 * at a time, so this loads only while keyring_bridge is not loaded, and
 * keyring_bridge does not load while this is.
 */
#include <linux/module.h>

#include "job_kernel.h"

static bool jwr_due(struct task_struct *task, struct pnotify_subscriber *sub)
{
	return false;
}

static void jwr_exec(struct task_struct *task)
{
}

static struct job_exec_watcher jwr_watcher = {
	.due = jwr_due,
	.exec = jwr_exec,
};

static int __init jwr_init(void)
{
	return job_register_exec_watcher(&jwr_watcher);
}

static void __exit jwr_exit(void)
{
	job_unregister_exec_watcher(&jwr_watcher);
}

module_init(jwr_init);
module_exit(jwr_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("job exec watcher taking keyring_bridge's place, for tests");
