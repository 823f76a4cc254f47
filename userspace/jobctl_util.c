// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Parsing and formatting for jobctl: JIDs, pids, signals, wait statuses,
 * times and JSON strings.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <time.h>

#include "jobctl_util.h"

static int digit_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return 99;
}

/*
 * Not strtoull(): it accepts blanks, a sign and, in base 16, a second "0x",
 * and silently wraps negative numbers.
 */
int parse_unsigned(const char *text, int base, uint64_t max, uint64_t *value)
{
	uint64_t result = 0;
	int digit;

	if (base == 16 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X'))
		text += 2;
	if (!*text)
		return -1;
	for (; *text; text++) {
		digit = digit_value(*text);
		if (digit >= base || (uint64_t)digit > max ||
		    result > (max - digit) / base)
			return -1;
		result = result * base + digit;
	}
	*value = result;
	return 0;
}

int parse_jid(const char *text, jid_t *jid)
{
	uint64_t value;

	if (parse_unsigned(text, 16, UINT64_MAX, &value) < 0)
		return -1;
	*jid = value;
	return 0;
}

int parse_hid(const char *text, unsigned int *hid)
{
	uint64_t value;

	if (parse_unsigned(text, 16, UINT32_MAX, &value) < 0)
		return -1;
	*hid = (unsigned int)value;
	return 0;
}

int parse_pid(const char *text, pid_t *pid)
{
	uint64_t value;

	if (parse_unsigned(text, 10, INT32_MAX, &value) < 0 || value == 0)
		return -1;
	*pid = (pid_t)value;
	return 0;
}

void format_jid(jid_t jid, char buf[JID_STRING_SIZE])
{
	snprintf(buf, JID_STRING_SIZE, "0x%016" PRIx64, jid);
}

#define SIGNAL(name) { SIG##name, #name }

/* The standard signals, in the order of kill -l. */
static const struct {
	int number;
	const char *name;
} signal_names[] = {
	SIGNAL(HUP), SIGNAL(INT), SIGNAL(QUIT), SIGNAL(ILL), SIGNAL(TRAP),
	SIGNAL(ABRT), SIGNAL(BUS), SIGNAL(FPE), SIGNAL(KILL), SIGNAL(USR1),
	SIGNAL(SEGV), SIGNAL(USR2), SIGNAL(PIPE), SIGNAL(ALRM), SIGNAL(TERM),
	SIGNAL(STKFLT), SIGNAL(CHLD), SIGNAL(CONT), SIGNAL(STOP), SIGNAL(TSTP),
	SIGNAL(TTIN), SIGNAL(TTOU), SIGNAL(URG), SIGNAL(XCPU), SIGNAL(XFSZ),
	SIGNAL(VTALRM), SIGNAL(PROF), SIGNAL(WINCH), SIGNAL(IO), SIGNAL(PWR),
	SIGNAL(SYS),
};

/* "RTMIN", "RTMIN+n", "RTMAX", "RTMAX-n": realtime signals have no names. */
static int parse_realtime_signal(const char *name)
{
	uint64_t offset = 0;
	int base, sign;

	if (!strncasecmp(name, "RTMIN", 5)) {
		base = SIGRTMIN;
		sign = '+';
	} else if (!strncasecmp(name, "RTMAX", 5)) {
		base = SIGRTMAX;
		sign = '-';
	} else {
		return -1;
	}
	name += 5;
	if (*name && (*name != sign ||
		      parse_unsigned(name + 1, 10, SIGRTMAX - SIGRTMIN,
				     &offset) < 0))
		return -1;
	return sign == '+' ? base + (int)offset : base - (int)offset;
}

int parse_signal(const char *text)
{
	uint64_t number;
	size_t i;

	if (isdigit((unsigned char)text[0]))
		return parse_unsigned(text, 10, SIGRTMAX, &number) < 0 ?
			-1 : (int)number;
	if (!strncasecmp(text, "SIG", 3))
		text += 3;
	for (i = 0; i < ARRAY_SIZE(signal_names); i++)
		if (!strcasecmp(text, signal_names[i].name))
			return signal_names[i].number;
	return parse_realtime_signal(text);
}

const char *signal_name(int sig)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(signal_names); i++)
		if (signal_names[i].number == sig)
			return signal_names[i].name;
	return NULL;
}

void format_wait_status(int status, char *buf, size_t size)
{
	const char *name;

	if (WIFEXITED(status)) {
		snprintf(buf, size, "exited %d", WEXITSTATUS(status));
	} else if (WIFSIGNALED(status)) {
		name = signal_name(WTERMSIG(status));
		if (name)
			snprintf(buf, size, "killed by SIG%s", name);
		else
			snprintf(buf, size, "killed by signal %d",
				 WTERMSIG(status));
	} else {
		/* Only exits and deaths end a job; say what came anyway. */
		snprintf(buf, size, "wait status 0x%x", (unsigned int)status);
	}
}

void format_time_ns(uint64_t realtime_ns, char *buf, size_t size)
{
	time_t seconds = (time_t)(realtime_ns / 1000000000);
	struct tm local;

	if (!realtime_ns || !localtime_r(&seconds, &local) ||
	    !strftime(buf, size, "%Y-%m-%d %H:%M:%S", &local))
		snprintf(buf, size, "-");
}

/*
 * Length of the well-formed UTF-8 sequence at text (RFC 3629: no overlong
 * forms, no surrogates, nothing above U+10FFFF), or 0 if it is malformed.
 */
static size_t utf8_sequence_length(const unsigned char *text)
{
	unsigned char lead = text[0], min = 0x80, max = 0xbf;
	size_t length, i;

	if (lead < 0x80)
		return 1;
	if (lead >= 0xc2 && lead <= 0xdf)
		length = 2;
	else if (lead >= 0xe0 && lead <= 0xef)
		length = 3;
	else if (lead >= 0xf0 && lead <= 0xf4)
		length = 4;
	else
		return 0;
	if (lead == 0xe0)
		min = 0xa0;
	else if (lead == 0xed)
		max = 0x9f;
	else if (lead == 0xf0)
		min = 0x90;
	else if (lead == 0xf4)
		max = 0x8f;
	if (text[1] < min || text[1] > max)
		return 0;
	for (i = 2; i < length; i++)
		if (text[i] < 0x80 || text[i] > 0xbf)
			return 0;
	return length;
}

void print_json_string(FILE *out, const char *text)
{
	const unsigned char *p = (const unsigned char *)text;
	size_t length;

	putc('"', out);
	for (; *p; p += length ? length : 1) {
		length = utf8_sequence_length(p);
		if (*p == '"' || *p == '\\')
			fprintf(out, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", out);
		else if (*p == '\t')
			fputs("\\t", out);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(out, "\\u%04x", *p);
		else if (length)
			fwrite(p, 1, length, out);
		else
			fputs("\\ufffd", out);
	}
	putc('"', out);
}
