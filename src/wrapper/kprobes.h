/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading a probed function's arguments, across architectures.
 */
#ifndef _PNOTIFY_WRAPPER_KPROBES_H
#define _PNOTIFY_WRAPPER_KPROBES_H

#include <linux/kprobes.h>
#include <linux/ptrace.h>

#ifndef CONFIG_HAVE_REGS_AND_STACK_ACCESS_API
#error "pnotify needs regs_get_kernel_argument() on this architecture"
#endif

/* Argument @n (from 0) of the probed function, at its entry. */
static inline unsigned long pn_hook_arg(struct pt_regs *regs, unsigned int n)
{
	return regs_get_kernel_argument(regs, n);
}

#endif /* _PNOTIFY_WRAPPER_KPROBES_H */
