/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Parsing and formatting for jobctl, kept free of any job call so that the
 * unit tests exercise them without the kernel module.
 */
#ifndef _JOBCTL_UTIL_H
#define _JOBCTL_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "job.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* "0x" and 16 hex digits: JIDs are always printed at full width. */
#define JID_STRING_SIZE 19

/* Every text is parsed whole: no sign, no blanks, no trailing characters. */
int parse_unsigned(const char *text, int base, uint64_t max, uint64_t *value);
int parse_jid(const char *text, jid_t *jid);		/* hex, 0x optional */
int parse_hid(const char *text, unsigned int *hid);	/* hex, 0x optional */
int parse_pid(const char *text, pid_t *pid);		/* decimal, > 0 */
void format_jid(jid_t jid, char buf[JID_STRING_SIZE]);

/*
 * A signal by number ("9", "0") or name, with or without "SIG", in any case
 * ("TERM", "sigterm", "RTMIN+2").  Returns the number, or -1.
 */
int parse_signal(const char *text);
/* "TERM" for SIGTERM; NULL for 0, realtime and unknown signals. */
const char *signal_name(int sig);

/* "exited N", "killed by SIGNAME" (or "killed by signal N"). */
void format_wait_status(int status, char *buf, size_t size);

/* Local time as "YYYY-MM-DD HH:MM:SS", or "-" for 0 (unknown). */
void format_time_ns(uint64_t realtime_ns, char *buf, size_t size);

/*
 * Writes text as a quoted JSON string.  Bytes that are not valid UTF-8 become
 * U+FFFD, since process names can hold any byte.
 */
void print_json_string(FILE *out, const char *text);

#endif /* _JOBCTL_UTIL_H */
