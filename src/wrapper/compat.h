/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The layout of 32-bit callers' structures: how a u64 is aligned.
 */
#ifndef _PNOTIFY_WRAPPER_COMPAT_H
#define _PNOTIFY_WRAPPER_COMPAT_H

#include <linux/compat.h>

#ifdef CONFIG_COMPAT
/* x32 aligns u64 to 8 bytes like x86_64; ia32 (compat_u64) to 4. */
static inline size_t pn_compat_u64_align(void)
{
#ifdef CONFIG_X86_X32_ABI
	if (in_x32_syscall())
		return 8;
#endif
	return __alignof__(compat_u64);
}
#else
static inline size_t pn_compat_u64_align(void)
{
	return 8;
}
#endif

#endif /* _PNOTIFY_WRAPPER_COMPAT_H */
