/* SPDX-License-Identifier: GPL-2.0 */
/*
 * attach_pid(task, type)'s direct call (x86-64, see pn_hooks_arm()):
 * called at the function's ftrace site, with its arguments in %rdi and
 * %esi.  Three of a new process's four calls attach other pid types and
 * return at once; the PIDTYPE_PID one (0, asserted in pnotify_kprobe.c)
 * calls pn_fork_direct_call(task), keeping the arguments for attach_pid().
 * The other registers a call may change are dead at a function's entry.
 */
#include <linux/linkage.h>
#include <asm/nospec-branch.h>

	.text
SYM_FUNC_START(pn_fork_tramp)
	/* Called from the site with no call thunk: the return counts. */
#if defined(CONFIG_MITIGATION_CALL_DEPTH_TRACKING) || \
	defined(CONFIG_CALL_DEPTH_TRACKING)
	CALL_DEPTH_ACCOUNT
#endif
	testl	%esi, %esi
	jnz	.Lpn_fork_tramp_ret
	pushq	%rbp
	movq	%rsp, %rbp
	pushq	%rdi
	pushq	%rsi
	call	pn_fork_direct_call
	popq	%rsi
	popq	%rdi
	leave
.Lpn_fork_tramp_ret:
	RET
SYM_FUNC_END(pn_fork_tramp)
