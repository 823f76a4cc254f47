/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The proc files of the test and benchmark modules take one-line commands.
 */
#ifndef _PN_KMOD_PROC_H
#define _PN_KMOD_PROC_H

#include <linux/uaccess.h>

#define KMOD_PROC_COMMAND_MAX	64

/* A proc_write: runs the command written with @run; its error, or @len. */
static inline ssize_t kmod_proc_command(const char __user *ubuf, size_t len,
					int (*run)(char *cmd))
{
	char buf[KMOD_PROC_COMMAND_MAX];
	int err;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	err = run(buf);
	return err ? err : len;
}

#endif /* _PN_KMOD_PROC_H */
