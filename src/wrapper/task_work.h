/* SPDX-License-Identifier: GPL-2.0 */
/*
 * task_work_add() notification modes across kernel versions: before 5.11 the
 * third argument was a bool (true: notify on resume), and there was no
 * TWA_SIGNAL to interrupt a sleep for the work.
 */
#ifndef _PNOTIFY_WRAPPER_TASK_WORK_H
#define _PNOTIFY_WRAPPER_TASK_WORK_H

#include <linux/version.h>
#include <linux/task_work.h>

#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 11, 0)
#define PN_TWA_RESUME TWA_RESUME
#define PN_TWA_NONE TWA_NONE
#define PN_TWA_SIGNAL TWA_SIGNAL
#else
#define PN_TWA_RESUME true
#define PN_TWA_NONE false
#define PN_TWA_SIGNAL true
#endif

#endif /* _PNOTIFY_WRAPPER_TASK_WORK_H */
