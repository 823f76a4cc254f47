// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * jobctl: manage job containers.  Also SGI's commands jstat, jkill, jwait,
 * jattach, jdetach and jsethid when called by those names (symlinks), with
 * SGI's own output, messages and exit codes (sgi_commands.c).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "job.h"
#include "../include/uapi/job.h"
#include "job_keyring.h"
#include "job_query.h"
#include "sgi_commands.h"
#include "jobctl_util.h"

#define EXIT_USAGE 2
/* As env(1) and nohup(1) do, so that callers can tell the cases apart. */
#define EXIT_CANNOT_RUN 126
#define EXIT_NOT_FOUND 127

#define CMDLINE_MAX 4096

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *synopsis;
	const char *description;
};

/* What errors start with: "jobctl" or the SGI command's name. */
static const char *program_name;
/* How the running command was invoked, for "see 'jobctl kill --help'". */
static char invocation[64];

static void vreport(const char *format, va_list args)
{
	fprintf(stderr, "%s: ", program_name);
	vfprintf(stderr, format, args);
	fputc('\n', stderr);
}

__attribute__((format(printf, 1, 2)))
static void report(const char *format, ...)
{
	va_list args;

	va_start(args, format);
	vreport(format, args);
	va_end(args);
}

__attribute__((noreturn, format(printf, 1, 2)))
static void die(const char *format, ...)
{
	va_list args;

	va_start(args, format);
	vreport(format, args);
	va_end(args);
	exit(EXIT_FAILURE);
}

__attribute__((noreturn, format(printf, 1, 2)))
static void usage_error(const char *format, ...)
{
	va_list args;

	fprintf(stderr, "%s: ", program_name);
	va_start(args, format);
	vfprintf(stderr, format, args);
	va_end(args);
	fprintf(stderr, " (see '%s --help')\n", invocation);
	exit(EXIT_USAGE);
}

/*
 * Explains a failed libjob call from errno.  action says what was tried, for
 * the privilege and the unexpected errors ("attaching a process"); jid and
 * pid, when not 0, are what it was tried on.
 */
static void report_job_error(const char *action, jid_t jid, pid_t pid)
{
	char jid_text[JID_STRING_SIZE];

	format_jid(jid, jid_text);
	if (errno == ENOSYS)
		report("the job module is not loaded (modprobe job)");
	else if (errno == EPERM)
		report("%s needs CAP_SYS_RESOURCE", action);
	else if (errno == ENODATA && jid)
		report("no job %s", jid_text);
	else if (errno == ENODATA && pid)
		report("process %d is not in a job", pid);
	else if (errno == ESRCH && pid)
		report("no process %d", pid);
	else if (errno == ESRCH && jid)
		report("job %s has no processes left", jid_text);
	else if (errno == EOPNOTSUPP)
		report("%s failed: pnotify cannot hook fork, exec and exit (its kernel message says why)",
		       action);
	else
		report("%s failed: %s", action, strerror(errno));
}

__attribute__((noreturn))
static void die_job_error(const char *action, jid_t jid, pid_t pid)
{
	report_job_error(action, jid, pid);
	exit(EXIT_FAILURE);
}

/* A malformed value: the message says what is expected, so no hint. */
__attribute__((noreturn, format(printf, 1, 2)))
static void bad_value(const char *format, ...)
{
	va_list args;

	va_start(args, format);
	vreport(format, args);
	va_end(args);
	exit(EXIT_USAGE);
}

static jid_t jid_argument(const char *text)
{
	jid_t jid;

	if (parse_jid(text, &jid) < 0)
		bad_value("'%s' is not a JID (hex, e.g. 0xab00000000000001)",
			  text);
	return jid;
}

static pid_t pid_argument(const char *text)
{
	pid_t pid;

	if (parse_pid(text, &pid) < 0)
		bad_value("'%s' is not a process id (a positive decimal number)",
			  text);
	return pid;
}

/* Exactly count operands must follow the options. */
static void expect_operands(int argc, int count, const char *what)
{
	if (argc < count)
		usage_error("missing %s", what);
	if (argc > count)
		usage_error("too many arguments");
}

__attribute__((noreturn))
static void option_error(char **argv, int option)
{
	if (option == ':')
		usage_error("option '%s' needs a value", argv[optind - 1]);
	if (optopt)
		usage_error("unknown option '-%c'", optopt);
	usage_error("unknown option '%s'", argv[optind - 1]);
}

/* The process name, "-" if the process is gone. */
static void read_comm(pid_t pid, char *buf, size_t size)
{
	size_t length = pid > 0 ? read_proc_file(pid, "comm", buf, size) : 0;

	if (length && buf[length - 1] == '\n')
		buf[length - 1] = '\0';
	if (!buf[0])
		snprintf(buf, size, "-");
}

/* The command line with spaces between arguments, else "[comm]". */
static void read_cmdline(pid_t pid, char *buf, size_t size)
{
	size_t length = read_proc_file(pid, "cmdline", buf, size);
	char comm[64];
	size_t i;

	while (length && buf[length - 1] == '\0')
		length--;
	for (i = 0; i < length; i++)
		if (buf[i] == '\0')
			buf[i] = ' ';
	if (!length) {
		read_comm(pid, comm, sizeof(comm));
		snprintf(buf, size, "[%s]", comm);
	}
}

static jid_t *fetch_jobs(int *length)
{
	jid_t *jids = list_all_jobs(length);

	if (!jids)
		die_job_error("listing jobs", 0, 0);
	return jids;
}

static pid_t *fetch_pids(jid_t jid, int *length)
{
	pid_t *pids = list_job_pids(jid, length);

	if (!pids)
		die_job_error("listing a job's processes", jid, 0);
	return pids;
}

/* False, quietly, if the job ended since it was listed. */
static bool get_info(jid_t jid, struct job_info *info)
{
	if (job_getinfo(jid, info) == 0)
		return true;
	if (errno != ENODATA)
		die_job_error("reading a job's details", jid, 0);
	return false;
}

static void print_job_header(void)
{
	printf("%-18s %-12s %5s %7s  %-19s  %s\n",
	       "JID", "OWNER", "PROCS", "PRIME", "STARTED", "COMMAND");
}

static void print_job_row(const struct job_info *info)
{
	char jid[JID_STRING_SIZE], owner[64], started[32], comm[64];

	format_jid(info->jid, jid);
	format_user(info->uid, owner, sizeof(owner));
	format_time_ns(info->start_time_ns, started, sizeof(started));
	read_comm(info->prime_pid, comm, sizeof(comm));
	printf("%-18s %-12s %5u %7d  %-19s  %s\n", jid, owner,
	       info->nr_processes, info->prime_pid, started, comm);
}

static void print_job_json(const struct job_info *info)
{
	char jid[JID_STRING_SIZE], owner[64], started[32], comm[64];

	format_jid(info->jid, jid);
	format_user(info->uid, owner, sizeof(owner));
	format_time_ns(info->start_time_ns, started, sizeof(started));
	read_comm(info->prime_pid, comm, sizeof(comm));
	printf("{\"jid\": \"%s\", \"uid\": %u, \"owner\": ", jid, info->uid);
	print_json_string(stdout, owner);
	printf(", \"processes\": %u", info->nr_processes);
	printf(", \"tasks\": %u", info->nr_tasks);
	printf(", \"prime_pid\": %d", info->prime_pid);
	printf(", \"start_time_ns\": %" PRIu64, (uint64_t)info->start_time_ns);
	printf(", \"started\": \"%s\"", started);
	printf(", \"command\": ");
	print_json_string(stdout, comm);
	putchar('}');
}

static void print_pid_list(jid_t jid)
{
	pid_t *pids;
	int length, i;

	pids = fetch_pids(jid, &length);
	for (i = 0; i < length; i++)
		printf("%d\n", pids[i]);
	free(pids);
}

static void print_seconds(const char *label, uint64_t ns)
{
	printf("  %-14s %" PRIu64 ".%03" PRIu64 " s\n", label,
	       ns / 1000000000, ns / 1000000 % 1000);
}

/* What a job's processes used: the part of a record that grows. */
static void print_usage(const struct job_acct *acct)
{
	print_seconds("user CPU", acct->utime_ns);
	print_seconds("system CPU", acct->stime_ns);
	printf("  %-14s %" PRIu64 " KiB\n", "peak RSS",
	       (uint64_t)acct->maxrss_kb);
	printf("  %-14s %" PRIu64 " bytes\n", "read",
	       (uint64_t)acct->read_bytes);
	printf("  %-14s %" PRIu64 " bytes\n", "written",
	       (uint64_t)acct->write_bytes);
	printf("  %-14s %" PRIu64 "\n", "processes ran",
	       (uint64_t)acct->nr_processes);
	printf("  %-14s %" PRIu64 "\n", "tasks ran",
	       (uint64_t)acct->nr_tasks);
}

static void print_acct_record(const struct job_acct *acct)
{
	char jid[JID_STRING_SIZE], owner[64], time[32], status[48];

	format_jid(acct->jid, jid);
	format_user(acct->uid, owner, sizeof(owner));
	printf("job %s\n", jid);
	printf("  %-14s %s (uid %u)\n", "owner", owner, acct->uid);
	format_time_ns(acct->start_time_ns, time, sizeof(time));
	printf("  %-14s %s\n", "started", time);
	if (acct->ended) {
		format_time_ns(acct->end_time_ns, time, sizeof(time));
		format_wait_status(acct->exit_status, status, sizeof(status));
		printf("  %-14s %s\n", "ended", time);
		printf("  %-14s %s\n", "status", status);
	} else {
		printf("  %-14s %s\n", "ended", "no, still running");
	}
	print_usage(acct);
}

/* False, with nothing printed, if there is no such job (any more). */
static bool show_job(jid_t jid)
{
	char jid_text[JID_STRING_SIZE], owner[64], started[32];
	char cmdline[CMDLINE_MAX];
	struct job_info info;
	struct job_acct acct;
	pid_t *pids;
	int length, i;
	long serial;

	if (!get_info(jid, &info))
		return false;
	format_jid(jid, jid_text);
	format_user(info.uid, owner, sizeof(owner));
	format_time_ns(info.start_time_ns, started, sizeof(started));
	printf("job %s\n", jid_text);
	printf("  %-14s %s (uid %u)\n", "owner", owner, info.uid);
	printf("  %-14s %d\n", "prime pid", info.prime_pid);
	printf("  %-14s %s\n", "started", started);
	printf("  %-14s %u (%u tasks)\n", "processes", info.nr_processes,
	       info.nr_tasks);
	serial = job_keyring_serial(jid);
	if (serial)
		printf("  %-14s %ld\n", "keyring", serial);

	pids = fetch_pids(jid, &length);
	printf("members:\n");
	for (i = 0; i < length; i++) {
		read_cmdline(pids[i], cmdline, sizeof(cmdline));
		printf("  %7d  %s\n", pids[i], cmdline);
	}
	free(pids);

	if (job_getacct(jid, &acct) < 0)
		die_job_error("reading a job's accounting", jid, 0);
	printf("accounting so far:\n");
	print_usage(&acct);
	return true;
}

enum list_style {
	LIST_TABLE,
	LIST_JSON,
};

/* Lists the given jobs, skipping those that ended meanwhile. */
static void list_jobs_as(const jid_t *jids, int length, enum list_style style)
{
	struct job_info info;
	bool first = true;
	int i;

	if (style == LIST_TABLE)
		print_job_header();
	else if (style == LIST_JSON)
		putchar('[');
	for (i = 0; i < length; i++) {
		if (!get_info(jids[i], &info))
			continue;
		if (style == LIST_JSON) {
			printf(first ? "\n  " : ",\n  ");
			print_job_json(&info);
		} else {
			print_job_row(&info);
		}
		first = false;
	}
	if (style == LIST_JSON)
		printf(first ? "]\n" : "\n]\n");
}

static int run_list(int argc, char **argv)
{
	static const struct option options[] = {
		{ "json", no_argument, NULL, 'J' },
		{ NULL, 0, NULL, 0 },
	};
	enum list_style style = LIST_TABLE;
	jid_t *jids;
	int option, length;

	while ((option = getopt_long(argc, argv, "+:", options, NULL)) != -1) {
		if (option != 'J')
			option_error(argv, option);
		style = LIST_JSON;
	}
	expect_operands(argc - optind, 0, "");
	jids = fetch_jobs(&length);
	list_jobs_as(jids, length, style);
	free(jids);
	return EXIT_SUCCESS;
}

static int run_show(int argc, char **argv)
{
	jid_t jid;

	expect_operands(argc - 1, 1, "JID");
	jid = jid_argument(argv[1]);
	if (show_job(jid))
		return EXIT_SUCCESS;
	errno = ENODATA;
	die_job_error("reading a job's details", jid, 0);
}

static int run_keyring(int argc, char **argv)
{
	struct job_info info;
	jid_t jid;
	long serial;

	expect_operands(argc - 1, 1, "JID");
	jid = jid_argument(argv[1]);
	if (!get_info(jid, &info)) {
		errno = ENODATA;
		die_job_error("finding a job's keyring", jid, 0);
	}
	serial = job_keyring_serial(jid);
	if (!serial)
		die("job %#018llx has no keyring you can see (is keyring_bridge loaded?)",
		    (unsigned long long)jid);
	printf("%ld\n", serial);
	return EXIT_SUCCESS;
}

static int run_pids(int argc, char **argv)
{
	expect_operands(argc - 1, 1, "JID");
	print_pid_list(jid_argument(argv[1]));
	return EXIT_SUCCESS;
}

static void print_signal_names(void)
{
	const char *name;
	int sig, column = 0;

	for (sig = 1; sig < SIGRTMIN; sig++) {
		name = signal_name(sig);
		if (name)
			printf("%s%s", column++ % 8 ? " " : "", name);
		if (name && column % 8 == 0)
			putchar('\n');
	}
	if (column % 8)
		putchar('\n');
}

/* [-SIG] JID...: every job is signalled even if one fails. */
static int run_kill(int argc, char **argv)
{
	char jid_text[JID_STRING_SIZE];
	int sig = SIGTERM, status = EXIT_SUCCESS, first, i = 1;
	jid_t jid;

	if (argc == 2 && !strcmp(argv[1], "-l")) {
		print_signal_names();
		return EXIT_SUCCESS;
	}
	if (i < argc && argv[i][0] == '-' && strcmp(argv[i], "--")) {
		sig = parse_signal(argv[i] + 1);
		if (sig < 0)
			bad_value("'%s' is not a signal (a number or a name like TERM; -l lists them)",
				  argv[i] + 1);
		i++;
	}
	if (i < argc && !strcmp(argv[i], "--"))
		i++;
	if (i == argc)
		usage_error("missing JID");
	for (first = i; i < argc; i++)
		jid_argument(argv[i]);	/* all valid before signalling any */
	for (i = first; i < argc; i++) {
		jid = jid_argument(argv[i]);
		if (job_killjid(jid, sig) == 0)
			continue;
		/* Without the module every job would fail alike: say it once. */
		if (errno == ENOSYS)
			die_job_error("signalling a job", jid, 0);
		format_jid(jid, jid_text);
		if (errno == EPERM)
			report("signalling job %s needs to own it or CAP_SYS_RESOURCE",
			       jid_text);
		else
			report_job_error("signalling a job", jid, 0);
		status = EXIT_FAILURE;
	}
	return status;
}

static int run_wait(int argc, char **argv)
{
	char text[48];
	int status;
	jid_t jid;

	expect_operands(argc - 1, 1, "JID");
	jid = jid_argument(argv[1]);
	if (job_waitjid(jid, &status, 0) == (jid_t)-1)
		die_job_error("waiting for a job", jid, 0);
	format_wait_status(status, text, sizeof(text));
	printf("%s\n", text);
	return EXIT_SUCCESS;
}

static int run_attach(int argc, char **argv)
{
	jid_t jid;
	pid_t pid;

	expect_operands(argc - 1, 2, "PID and JID");
	pid = pid_argument(argv[1]);
	jid = jid_argument(argv[2]);
	if (job_attachpid(pid, jid) != (jid_t)-1)
		return EXIT_SUCCESS;
	if (errno == EINVAL)
		die("process %d is already in a job (detach it first)", pid);
	die_job_error("attaching a process", jid, pid);
}

static int run_detach(int argc, char **argv)
{
	jid_t jid = 0;
	pid_t pid = 0;
	int option;

	while ((option = getopt(argc, argv, "+:p:j:")) != -1) {
		if (option == 'p')
			pid = pid_argument(optarg);
		else if (option == 'j')
			jid = jid_argument(optarg);
		else
			option_error(argv, option);
	}
	expect_operands(argc - optind, 0, "");
	if (!pid == !jid)
		usage_error("give either -p PID or -j JID");
	if (pid && job_detachpid(pid) == (jid_t)-1)
		die_job_error("detaching a process", 0, pid);
	if (jid && job_detachjid(jid) < 0)
		die_job_error("detaching a job", jid, 0);
	return EXIT_SUCCESS;
}

/* Without an argument, the host id of gethostid(), as SGI's jsethid. */
static int run_sethid(int argc, char **argv)
{
	unsigned int hid = (unsigned int)gethostid();

	if (argc > 2)
		usage_error("too many arguments");
	if (argc == 2 && parse_hid(argv[1], &hid) < 0)
		bad_value("'%s' is not a host id (32-bit hex, e.g. 0xab000000)",
			  argv[1]);
	if (job_sethid(hid) < 0)
		die_job_error("setting the host id", 0, 0);
	return EXIT_SUCCESS;
}

/* With a JID that job's record; without, consume every pending one. */
static int run_acct(int argc, char **argv)
{
	struct job_acct acct;
	bool first = true;
	jid_t jid;

	if (argc > 2)
		usage_error("too many arguments");
	if (argc == 2) {
		jid = jid_argument(argv[1]);
		if (job_getacct(jid, &acct) < 0)
			die_job_error("reading a job's accounting", jid, 0);
		print_acct_record(&acct);
		return EXIT_SUCCESS;
	}
	while (job_readacct(&acct) == 0) {
		if (!first)
			putchar('\n');
		print_acct_record(&acct);
		first = false;
	}
	if (errno != ENODATA)
		die_job_error("reading ended jobs' accounting", 0, 0);
	return EXIT_SUCCESS;
}

static uid_t user_argument(const char *text)
{
	uint64_t number;
	uid_t uid;

	if (find_user(text, &uid, NULL, 0))
		return uid;
	if (parse_unsigned(text, 10, UINT32_MAX - 1, &number) < 0)
		bad_value("'%s' is not a user (a name or a uid)", text);
	return (uid_t)number;
}

static int run_create(int argc, char **argv)
{
	static const struct option options[] = {
		{ "jid", required_argument, NULL, 'j' },
		{ "user", required_argument, NULL, 'u' },
		{ NULL, 0, NULL, 0 },
	};
	char jid_text[JID_STRING_SIZE];
	jid_t jid, requested = 0;
	uid_t uid = getuid();
	int option;

	/* "+": options end at COMMAND, whose own options are its business. */
	while ((option = getopt_long(argc, argv, "+:", options, NULL)) != -1) {
		if (option == 'j')
			requested = jid_argument(optarg);
		else if (option == 'u')
			uid = user_argument(optarg);
		else
			option_error(argv, option);
	}
	if (optind == argc)
		usage_error("missing the COMMAND to run in the new job");

	jid = job_create(requested, uid, 0);
	format_jid(requested, jid_text);
	if (jid == (jid_t)-1 && errno == EBUSY && requested)
		die("JID %s is in use (omit --jid to get a free one)", jid_text);
	if (jid == (jid_t)-1 && errno == EBUSY)
		die("no free JID is left (end some jobs first)");
	if (jid == (jid_t)-1)
		die_job_error("creating a job", 0, 0);
	if (jid == 0)
		die("job creation is disabled by host id 0xffffffff (jobctl sethid to enable it)");

	format_jid(jid, jid_text);
	printf("%s\n", jid_text);
	if (fflush(stdout) == EOF)
		die("writing the JID failed: %s", strerror(errno));
	execvp(argv[optind], argv + optind);
	report("cannot run %s: %s", argv[optind], strerror(errno));
	return errno == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_RUN;
}

static const struct command commands[] = {
	{ "create", run_create,
	  "[--jid JID] [--user USER] -- COMMAND [ARG...]",
	  "Creates a job, prints its JID and runs COMMAND in it: COMMAND and\n"
	  "all of its descendants are the job.  --jid asks for a given JID,\n"
	  "--user sets the owner (a name or a uid; default: you).\n"
	  "Needs CAP_SYS_RESOURCE.\n" },
	{ "list", run_list, "[--json]",
	  "Lists the jobs: JID, owner, processes, prime (first) process,\n"
	  "start time and the prime process's command.  --json prints an\n"
	  "array of objects instead.\n" },
	{ "show", run_show, "JID",
	  "Shows a job: owner, prime process, start time, each member process\n"
	  "with its command line, and the resources used so far.\n" },
	{ "pids", run_pids, "JID",
	  "Prints the processes of a job, one pid a line.\n" },
	{ "keyring", run_keyring, "JID",
	  "Prints the serial of the job's kernel keyring (keyring_bridge):\n"
	  "root sees every job's, a member its own job's.\n" },
	{ "kill", run_kill, "[-SIGNAL] JID... | -l",
	  "Sends SIGNAL (a number or a name such as TERM, KILL or 0; default\n"
	  "TERM) to every process of each job.  Needs to own the jobs or\n"
	  "CAP_SYS_RESOURCE.  -l lists the signal names.\n" },
	{ "wait", run_wait, "JID",
	  "Waits for a job to end and prints how its last process ended:\n"
	  "\"exited N\" or \"killed by SIGNAME\".\n" },
	{ "attach", run_attach, "PID JID",
	  "Moves a process that is in no job into job JID; its future\n"
	  "children follow.  Needs CAP_SYS_RESOURCE.\n" },
	{ "detach", run_detach, "-p PID | -j JID",
	  "Takes one process (-p) or every process of a job (-j) out of its\n"
	  "job.  Needs CAP_SYS_RESOURCE.\n" },
	{ "sethid", run_sethid, "[HEX]",
	  "Sets the host id, the upper 32 bits of new JIDs (default: the\n"
	  "gethostid() of this machine).  0xffffffff disables job creation.\n"
	  "Needs CAP_SYS_RESOURCE.\n" },
	{ "acct", run_acct, "[JID]",
	  "Prints a job's accounting record.  Without JID, prints and takes\n"
	  "out every pending record of an ended job (needs CAP_SYS_RESOURCE).\n" },
};

static const struct command *find_command(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

static void print_overview(void)
{
	size_t i;

	printf("usage: %s COMMAND [ARG...]\n\n"
	       "Manages job containers: a job is a process and all of its\n"
	       "descendants, named by a 64-bit hex JID.\n\ncommands:\n",
	       program_name);
	for (i = 0; i < ARRAY_SIZE(commands); i++)
		printf("  %-7s %s\n", commands[i].name, commands[i].synopsis);
	printf("\n'%s COMMAND --help' explains each.  Also runs as jstat,\n"
	       "jkill, jwait, jattach, jdetach and jsethid.\n", program_name);
}

static int run_command(const struct command *command, int argc, char **argv)
{
	if (argc > 1 && (!strcmp(argv[1], "--help") ||
			 !strcmp(argv[1], "-h"))) {
		printf("usage: %s %s\n\n%s", invocation, command->synopsis,
		       command->description);
		return EXIT_SUCCESS;
	}
	opterr = 0;	/* usage_error() says it in one line */
	return command->run(argc, argv);
}

int main(int argc, char **argv)
{
	const struct command *command;
	const char *slash;

	program_name = argv[0] ? argv[0] : "jobctl";
	slash = strrchr(program_name, '/');
	if (slash)
		program_name = slash + 1;
	snprintf(invocation, sizeof(invocation), "%s", program_name);

	if (is_sgi_command(program_name))
		return run_sgi_command(program_name, argc, argv);
	if (argc < 2)
		usage_error("missing COMMAND");
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		print_overview();
		return EXIT_SUCCESS;
	}
	command = find_command(argv[1]);
	if (!command)
		usage_error("'%s' is not a command", argv[1]);
	snprintf(invocation, sizeof(invocation), "%s %s", program_name,
		 command->name);
	return run_command(command, argc - 1, argv + 1);
}
