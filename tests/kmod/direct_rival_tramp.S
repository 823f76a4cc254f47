/* SPDX-License-Identifier: GPL-2.0 */
/* pnotify_direct_rival's direct call: it does nothing. */
#include <linux/linkage.h>
#include <asm/nospec-branch.h>

	.text
SYM_FUNC_START(direct_rival_tramp)
#if defined(CONFIG_MITIGATION_CALL_DEPTH_TRACKING) || \
	defined(CONFIG_CALL_DEPTH_TRACKING)
	CALL_DEPTH_ACCOUNT
#endif
	RET
SYM_FUNC_END(direct_rival_tramp)
