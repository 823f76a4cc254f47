/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The hooks' direct calls (x86-64, see pn_hooks_arm()), called at a hooked
 * function's ftrace site with its arguments in registers, which they keep
 * for it: the other registers a call may change are dead at a function's
 * entry.  Both hooked functions take at most two arguments.
 */
#include <linux/linkage.h>
#include <asm/nospec-branch.h>

/* Called from the site with no call thunk: the return counts. */
.macro PN_TRAMP_ENTER
#if defined(CONFIG_MITIGATION_CALL_DEPTH_TRACKING) || \
	defined(CONFIG_CALL_DEPTH_TRACKING)
	CALL_DEPTH_ACCOUNT
#endif
.endm

/* Calls \handler, the arguments in place, and keeps the first two. */
.macro PN_TRAMP_CALL handler
	pushq	%rbp
	movq	%rsp, %rbp
	pushq	%rdi
	pushq	%rsi
	call	\handler
	popq	%rsi
	popq	%rdi
	leave
.endm

	.text
/*
 * attach_pid(task, type): three of a new process's four calls attach
 * other pid types and return at once; the PIDTYPE_PID one (0, asserted in
 * pnotify_kprobe.c) calls pn_fork_direct_call(task).
 */
SYM_FUNC_START(pn_fork_tramp)
	PN_TRAMP_ENTER
	testl	%esi, %esi
	jnz	.Lpn_fork_tramp_ret
	PN_TRAMP_CALL pn_fork_direct_call
.Lpn_fork_tramp_ret:
	RET
SYM_FUNC_END(pn_fork_tramp)

/* setup_new_exec(bprm): calls pn_exec_direct_call(). */
SYM_FUNC_START(pn_exec_tramp)
	PN_TRAMP_ENTER
	PN_TRAMP_CALL pn_exec_direct_call
	RET
SYM_FUNC_END(pn_exec_tramp)
