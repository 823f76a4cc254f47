// SPDX-License-Identifier: GPL-2.0
/*
 * A rival for pnotify's direct calls (pnotify_hooks): a direct call on
 * each of @functions (default attach_pid() and setup_new_exec(), the ones
 * pnotify calls directly) that does nothing, as a BPF trampoline there
 * would be.  ftrace allows one direct call on a function: loaded first, it
 * makes pnotify hook them through its ftrace_ops; loaded while one of
 * pnotify's direct calls is there, it fails with EBUSY.
 */
#include <linux/module.h>
#include "wrapper/ftrace.h"

static char *functions[2] = { "attach_pid", "setup_new_exec" };
static int nr_functions = ARRAY_SIZE(functions);
module_param_array(functions, charp, &nr_functions, 0444);
MODULE_PARM_DESC(functions, "the functions to take (default attach_pid,setup_new_exec)");

void direct_rival_tramp(void);

static struct ftrace_ops rival_ops = PN_FTRACE_DIRECT_OPS;

static int __init rival_init(void)
{
	unsigned long site;
	int i, err = 0;

	for (i = 0; i < nr_functions && !err; i++) {
		site = pn_ftrace_site(functions[i]);
		err = site ? pn_ftrace_direct_filter(&rival_ops, site) :
			     -ENOENT;
	}
	if (!err)
		err = pn_ftrace_direct_register(&rival_ops,
						(unsigned long)direct_rival_tramp);
	if (err)
		pn_ftrace_direct_unfilter(&rival_ops);
	return err;
}

static void __exit rival_exit(void)
{
	pn_ftrace_direct_unregister(&rival_ops,
				    (unsigned long)direct_rival_tramp);
	pn_ftrace_direct_unfilter(&rival_ops);
}

module_init(rival_init);
module_exit(rival_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("test: direct calls on the functions pnotify calls directly");
