/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ftrace callbacks across kernel versions: their last argument, how a
 * hooked function's arguments are read from it, and the flags that make
 * the trampoline save them and call the callback directly.
 *
 * 5.11 replaced the callback's pt_regs (saved only on request, the costly
 * FTRACE_OPS_FL_SAVE_REGS) by ftrace_regs, which holds the argument
 * registers on an architecture with DYNAMIC_FTRACE_WITH_ARGS, x86 among
 * them; 6.12 made it opaque behind ftrace_regs_get_argument().  5.11 also
 * turned the recursion flag around: before, an ops without
 * FTRACE_OPS_FL_RECURSION_SAFE was called through a recursion-checking
 * wrapper; since, only one with FTRACE_OPS_FL_RECURSION is.  A hook needs
 * no such check: its callback never calls the function it hooks.
 *
 * PN_FTRACE_CAN_UNREGISTER: whether a module's ftrace_ops may be
 * unregistered whenever jobs come and go.  Its unregister waits for RCU
 * Tasks under ftrace_lock, and before 6.9 RCU Tasks waits for exiting
 * tasks too: a pid namespace's init among them waits for its children,
 * one of which may wait for ftrace_lock (loading a module, adding a
 * kprobe), and tracing and module loading would hang.
 *
 * PN_FTRACE_CAN_MUTE: whether the ops' functions can be muted by its
 * notrace list while it is registered.  Not with SAVE_REGS: 5.10 then
 * leaves FTRACE_FL_REGS on a record whose last user the notrace list took
 * away, and the ops' unregister finds it and shuts ftrace down (a WARNING
 * in ftrace_shutdown(), every ftrace call -ENODEV after).
 */
#ifndef _PNOTIFY_WRAPPER_FTRACE_H
#define _PNOTIFY_WRAPPER_FTRACE_H

#include <linux/ftrace.h>
#include <linux/kprobes.h>
#include <linux/ptrace.h>
#include <linux/version.h>

#if !defined(CONFIG_DYNAMIC_FTRACE_WITH_REGS) && \
	!defined(CONFIG_DYNAMIC_FTRACE_WITH_ARGS)
#error "pnotify hooks functions with ftrace: it needs DYNAMIC_FTRACE_WITH_REGS or _WITH_ARGS"
#endif
#ifndef CONFIG_HAVE_REGS_AND_STACK_ACCESS_API
#error "pnotify needs regs_get_kernel_argument() on this architecture"
#endif

/* FTRACE_OPS_FL_PERMANENT: sysctl kernel.ftrace_enabled=0 cannot unhook. */
#if LINUX_VERSION_CODE < KERNEL_VERSION(5, 11, 0)

#define pn_ftrace_regs pt_regs
#define PN_FTRACE_OPS_FLAGS (FTRACE_OPS_FL_SAVE_REGS | \
			     FTRACE_OPS_FL_RECURSION_SAFE | \
			     FTRACE_OPS_FL_PERMANENT)
#define PN_FTRACE_CAN_MUTE false

static __always_inline unsigned long
pn_ftrace_arg(struct pt_regs *regs, unsigned int n)
{
	return regs_get_kernel_argument(regs, n);
}

#elif defined(CONFIG_DYNAMIC_FTRACE_WITH_ARGS)

#define pn_ftrace_regs ftrace_regs
#define PN_FTRACE_OPS_FLAGS FTRACE_OPS_FL_PERMANENT
#define PN_FTRACE_CAN_MUTE true

static __always_inline unsigned long
pn_ftrace_arg(struct ftrace_regs *fregs, unsigned int n)
{
#ifdef ftrace_regs_get_argument
	return ftrace_regs_get_argument(fregs, n);
#else
	return regs_get_kernel_argument(&fregs->regs, n);
#endif
}

#else

#define pn_ftrace_regs ftrace_regs
#define PN_FTRACE_OPS_FLAGS (FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_PERMANENT)
#define PN_FTRACE_CAN_MUTE false

static __always_inline unsigned long
pn_ftrace_arg(struct ftrace_regs *fregs, unsigned int n)
{
	return regs_get_kernel_argument(ftrace_get_regs(fregs), n);
}

#endif

/*
 * The ftrace site of vmlinux's @function, found as a kprobe on it would be
 * placed (past an IBT landing pad); 0 if there is none.
 */
static inline unsigned long pn_ftrace_site(const char *function)
{
	struct kprobe kp = {
		.symbol_name = function,
		.flags = KPROBE_FLAG_DISABLED,
	};
	unsigned long site = 0;

	if (register_kprobe(&kp))
		return 0;
	if (kprobe_ftrace(&kp))
		site = (unsigned long)kp.addr;
	unregister_kprobe(&kp);
	return site;
}

/*
 * Direct calls (x86-64): a function's ftrace site calls a trampoline of
 * the caller's own, which saves what it needs, instead of ftrace's, which
 * saves every argument register and calls an ops' callback.  Registered by
 * an ops whose filter holds the site: register_ftrace_direct_multi() before
 * 6.5, register_ftrace_direct() since.  ftrace allows one direct call on a
 * function: another there (a BPF trampoline) makes registering fail with
 * EBUSY.  An ops that may send calls elsewhere (IPMODIFY: a livepatch, a
 * kprobe with a post handler) shares the function with a direct call
 * whose ops_func agrees, since 6.0: the trampoline then returns to where
 * that ops sent the call, which is all a trampoline that only calls a hook
 * needs.  Before 6.0 direct calls go through one ops of ftrace's, with
 * IPMODIFY, that would keep livepatches off the function: not used.
 * Unregistering waits for RCU Tasks (see PN_FTRACE_CAN_UNREGISTER).
 */
#if defined(CONFIG_X86_64) && \
	defined(CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS) && \
	LINUX_VERSION_CODE >= KERNEL_VERSION(6, 0, 0)
#define PN_FTRACE_DIRECT 1

static inline int pn_ftrace_direct_share(struct ftrace_ops *ops,
					 enum ftrace_ops_cmd cmd)
{
	return 0;
}

#define PN_FTRACE_DIRECT_OPS { .ops_func = pn_ftrace_direct_share }

static inline int pn_ftrace_direct_filter(struct ftrace_ops *ops,
					  unsigned long site)
{
	return ftrace_set_filter_ip(ops, site, 0, 0);
}

/* Fails only without memory, and then leaks the filter. */
static inline void pn_ftrace_direct_unfilter(struct ftrace_ops *ops)
{
	ftrace_set_filter(ops, NULL, 0, 1);
}

/* The filter stays, for the next register. */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 5, 0)
#define pn_ftrace_direct_register register_ftrace_direct_multi
#define pn_ftrace_direct_unregister unregister_ftrace_direct_multi
#else
#define pn_ftrace_direct_register register_ftrace_direct
#define pn_ftrace_direct_unregister(ops, tramp) \
	unregister_ftrace_direct(ops, tramp, false)
#endif

#else

/* Elsewhere the hooks go through an ops. */
#define PN_FTRACE_DIRECT 0
#define PN_FTRACE_DIRECT_OPS {}

static inline int pn_ftrace_direct_filter(struct ftrace_ops *ops,
					  unsigned long site)
{
	return 0;
}

static inline void pn_ftrace_direct_unfilter(struct ftrace_ops *ops)
{
}

static inline int pn_ftrace_direct_register(struct ftrace_ops *ops,
					    unsigned long tramp)
{
	return -EOPNOTSUPP;
}

static inline int pn_ftrace_direct_unregister(struct ftrace_ops *ops,
					      unsigned long tramp)
{
	return 0;
}

#endif

#define PN_FTRACE_CAN_UNREGISTER \
	(LINUX_VERSION_CODE >= KERNEL_VERSION(6, 9, 0))

#endif /* _PNOTIFY_WRAPPER_FTRACE_H */
