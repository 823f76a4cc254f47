// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests of jobctl's parsing and formatting (no kernel needed). */
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "jobctl_util.h"
#include "unit.h"

static void test_jid(void)
{
	char text[JID_STRING_SIZE];
	jid_t jid = 0;

	CHECK("jid parse with 0x", parse_jid("0xab00000000000001", &jid) == 0 &&
	      jid == 0xab00000000000001ULL);
	CHECK("jid parse without 0x", parse_jid("AB00000000000002", &jid) == 0 &&
	      jid == 0xab00000000000002ULL);
	CHECK("jid parse max", parse_jid("ffffffffffffffff", &jid) == 0 &&
	      jid == UINT64_MAX);
	CHECK("jid parse overflow", parse_jid("10000000000000000", &jid) < 0);
	CHECK("jid parse garbage", parse_jid("xyz", &jid) < 0);
	CHECK("jid parse empty", parse_jid("", &jid) < 0);
	CHECK("jid parse bare 0x", parse_jid("0x", &jid) < 0);
	CHECK("jid parse double 0x", parse_jid("0x0x1", &jid) < 0);
	CHECK("jid parse sign", parse_jid("-1", &jid) < 0);
	CHECK("jid parse blank", parse_jid(" 1", &jid) < 0);
	CHECK("jid parse trailing", parse_jid("1g", &jid) < 0);

	format_jid(0xab00000000000001ULL, text);
	CHECK("jid format", !strcmp(text, "0xab00000000000001"));
	format_jid(1, text);
	CHECK("jid format pads", !strcmp(text, "0x0000000000000001"));
	format_jid(UINT64_MAX, text);
	CHECK("jid format max", !strcmp(text, "0xffffffffffffffff"));
	CHECK("jid round trip", parse_jid(text, &jid) == 0 && jid == UINT64_MAX);
}

static void test_numbers(void)
{
	unsigned int hid = 0;
	pid_t pid = 0;

	CHECK("pid parse", parse_pid("1234", &pid) == 0 && pid == 1234);
	CHECK("pid parse zero", parse_pid("0", &pid) < 0);
	CHECK("pid parse negative", parse_pid("-5", &pid) < 0);
	CHECK("pid parse hex", parse_pid("0x10", &pid) < 0);
	CHECK("pid parse too big", parse_pid("2147483648", &pid) < 0);
	CHECK("pid parse max", parse_pid("2147483647", &pid) == 0 &&
	      pid == 2147483647);
	CHECK("hid parse", parse_hid("0xab000000", &hid) == 0 &&
	      hid == 0xab000000U);
	CHECK("hid parse max", parse_hid("ffffffff", &hid) == 0 &&
	      hid == 0xffffffffU);
	CHECK("hid parse too big", parse_hid("100000000", &hid) < 0);
}

static void test_signals(void)
{
	CHECK("signal TERM", parse_signal("TERM") == SIGTERM);
	CHECK("signal SIGKILL", parse_signal("SIGKILL") == SIGKILL);
	CHECK("signal lower case", parse_signal("hup") == SIGHUP);
	CHECK("signal number", parse_signal("9") == 9);
	CHECK("signal 0", parse_signal("0") == 0);
	CHECK("signal RTMIN", parse_signal("RTMIN") == SIGRTMIN);
	CHECK("signal RTMIN+2", parse_signal("RTMIN+2") == SIGRTMIN + 2);
	CHECK("signal RTMAX-1", parse_signal("SIGRTMAX-1") == SIGRTMAX - 1);
	CHECK("signal RTMIN-1 rejected", parse_signal("RTMIN-1") < 0);
	CHECK("signal unknown", parse_signal("FOO") < 0);
	CHECK("signal empty", parse_signal("") < 0);
	CHECK("signal bare SIG", parse_signal("SIG") < 0);
	CHECK("signal too big", parse_signal("100000") < 0);
	CHECK("signal name TERM", !strcmp(signal_name(SIGTERM), "TERM"));
	CHECK("signal name 0", signal_name(0) == NULL);
	CHECK("signal name realtime", signal_name(SIGRTMIN) == NULL);
}

static void test_wait_status(void)
{
	char text[48];

	format_wait_status(0, text, sizeof(text));
	CHECK("status exited 0", !strcmp(text, "exited 0"));
	format_wait_status(3 << 8, text, sizeof(text));
	CHECK("status exited 3", !strcmp(text, "exited 3"));
	format_wait_status(SIGKILL, text, sizeof(text));
	CHECK("status killed", !strcmp(text, "killed by SIGKILL"));
	format_wait_status(SIGSEGV | 0x80, text, sizeof(text));
	CHECK("status killed with core", !strcmp(text, "killed by SIGSEGV"));
	format_wait_status(SIGRTMIN, text, sizeof(text));
	CHECK("status killed by realtime signal",
	      !strncmp(text, "killed by signal ", 17));
}

static void test_time(void)
{
	char text[32];

	setenv("TZ", "UTC", 1);
	tzset();
	format_time_ns(1700000000ULL * 1000000000 + 999, text, sizeof(text));
	CHECK("time format", !strcmp(text, "2023-11-14 22:13:20"));
	format_time_ns(0, text, sizeof(text));
	CHECK("time unknown", !strcmp(text, "-"));
}

/* What print_json_string() makes of text; the caller frees it. */
static char *json(const char *text)
{
	char *result = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&result, &size);

	if (!out)
		abort();
	print_json_string(out, text);
	fclose(out);
	return result;
}

static void check_json(const char *name, const char *text,
		       const char *expected)
{
	char *result = json(text);

	CHECK(name, !strcmp(result, expected));
	free(result);
}

static void test_json(void)
{
	check_json("json plain", "bash", "\"bash\"");
	check_json("json empty", "", "\"\"");
	check_json("json quote and backslash", "a\"b\\c", "\"a\\\"b\\\\c\"");
	check_json("json newline and tab", "a\nb\tc", "\"a\\nb\\tc\"");
	check_json("json control", "\x01\x1f\x7f", "\"\\u0001\\u001f\\u007f\"");
	check_json("json utf-8 kept", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
		   "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"");
	check_json("json invalid byte", "a\xff" "b", "\"a\\ufffdb\"");
	check_json("json truncated sequence", "\xe2\x82", "\"\\ufffd\\ufffd\"");
	check_json("json overlong", "\xc0\xaf", "\"\\ufffd\\ufffd\"");
	check_json("json surrogate", "\xed\xa0\x80",
		   "\"\\ufffd\\ufffd\\ufffd\"");
}

int main(void)
{
	test_jid();
	test_numbers();
	test_signals();
	test_wait_status();
	test_time();
	test_json();
	return unit_summary();
}
