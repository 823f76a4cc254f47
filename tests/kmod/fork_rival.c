// SPDX-License-Identifier: GPL-2.0
/*
 * A rival for pnotify's fork hook (pnotify_hooks): a direct call on
 * attach_pid() that does nothing, as a BPF trampoline there would be.
 * ftrace allows one direct call on a function: loaded first, it makes
 * pnotify hook attach_pid() through its ftrace_ops; loaded while pnotify's
 * direct call is there, it fails with EBUSY.
 */
#include <linux/module.h>
#include "wrapper/ftrace.h"

void fork_rival_tramp(void);

static struct ftrace_ops rival_ops = PN_FTRACE_DIRECT_OPS;

static int __init rival_init(void)
{
	unsigned long rival_site = pn_ftrace_site("attach_pid");
	int err;

	if (!rival_site)
		return -ENOENT;
	err = pn_ftrace_direct_filter(&rival_ops, rival_site);
	if (!err)
		err = pn_ftrace_direct_register(&rival_ops,
						(unsigned long)fork_rival_tramp);
	if (err)
		pn_ftrace_direct_unfilter(&rival_ops);
	return err;
}

static void __exit rival_exit(void)
{
	pn_ftrace_direct_unregister(&rival_ops,
				    (unsigned long)fork_rival_tramp);
	pn_ftrace_direct_unfilter(&rival_ops);
}

module_init(rival_init);
module_exit(rival_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("test: a direct call on attach_pid(), pnotify's fork hook's rival");
