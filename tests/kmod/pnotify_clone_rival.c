// SPDX-License-Identifier: GPL-2.0
/*
 * A livepatch's stand-in (pnotify_hooks): an ftrace_ops on kernel_clone()
 * that may change where its calls go (IPMODIFY), as a livepatch of it
 * would, and changes nothing.  ftrace lets one such ops on a function;
 * pnotify takes none, so jobs run beside it.  On attach_pid()
 * (function=attach_pid) it shares the function with pnotify's direct call.
 */
#include <linux/module.h>
#include <linux/string.h>
#include "wrapper/ftrace.h"

static char function[KSYM_NAME_LEN] = "kernel_clone";
module_param_string(function, function, sizeof(function), 0444);
MODULE_PARM_DESC(function, "the function to take (default kernel_clone)");

static void notrace rival_call(unsigned long ip, unsigned long parent_ip,
			       struct ftrace_ops *ops,
			       struct pn_ftrace_regs *regs)
{
}

static struct ftrace_ops rival_ops = {
	.func = rival_call,
	.flags = PN_FTRACE_OPS_FLAGS | FTRACE_OPS_FL_IPMODIFY,
};

/* Frees the filter: 5.10 does not export ftrace_free_filter(). */
static void rival_unfilter(void)
{
	ftrace_set_filter(&rival_ops, NULL, 0, 1);
}

static int __init rival_init(void)
{
	int err = ftrace_set_filter(&rival_ops, function, strlen(function), 1);

	if (!err)
		err = register_ftrace_function(&rival_ops);
	if (err)
		rival_unfilter();
	return err;
}

static void __exit rival_exit(void)
{
	unregister_ftrace_function(&rival_ops);
	rival_unfilter();
}

module_init(rival_init);
module_exit(rival_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("test: an IPMODIFY ftrace_ops on kernel_clone(), as a livepatch would have");
