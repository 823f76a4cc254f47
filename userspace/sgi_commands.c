// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * SGI's job commands.  Sites have scripts that parse their output and test
 * their exit codes, so formats, messages and exit codes follow SGI's job
 * package (LinuxCSA, job/cmd) line by line.  What differs on purpose is in
 * the COMPATIBILITY section of jstat(1): an argument that SGI's sscanf()
 * read as a random value is an error here, an owner missing from
 * /etc/passwd shows as a number, a job that ends while jstat -a lists it is
 * left out, and a missing job module is named as such.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>

#include "job.h"
#include "job_query.h"
#include "jobctl_util.h"
#include "sgi_commands.h"

/* SGI's "%0#18llx": "0x" and 16 hex digits. */
#define SGI_JID "%#018" PRIx64
/* Bytes of a command line or name that jstat shows (%32 below too). */
#define COMMAND_WIDTH 32
#define HID_DISABLED 0xffffffffu	/* job creation disabled */
/* jattach exits with job_attachpid()'s -1, as a status: 255. */
#define JATTACH_FAILED 255

#define NOT_A_JID "a JID (hex, e.g. 0xab00000000000001)"

static const char *command_name;

/*
 * Reports a failed library call as SGI's commands do: the command's own
 * words for ENODATA (no_data, or NULL for none), else perror() with the
 * call's name.  Returns SGI's exit status for every such failure.
 */
static int job_call_failed(const char *call, const char *no_data)
{
	if (errno == ENOSYS)
		fputs("The job module is not loaded (modprobe job).\n", stderr);
	else if (errno == ENODATA && no_data)
		fprintf(stderr, "%s\n", no_data);
	else
		perror(call);
	return EXIT_FAILURE;
}

static int bad_value(const char *text, const char *what)
{
	fprintf(stderr, "%s: '%s' is not %s\n", command_name, text, what);
	return EXIT_FAILURE;
}

static void jstat_usage(void)
{
	fputs("Usage: jstat [-a | -j job_id] [-l] [-p] [h]\n", stderr);
}

static void print_jstat_header(bool with_pids)
{
	/* The tabs are SGI's: scripts count the header's lines and fields. */
	if (with_pids) {
		puts("JID \t\t   OWNER \tPID    PPID   COMMAND");
		puts("------------------ ------------ ------ ------ --------------------------------");
	} else {
		puts("JID                OWNER        COMMAND");
		puts("------------------ ------------ --------------------------------");
	}
}

/* The command: the prime process's argv[0], at most COMMAND_WIDTH bytes. */
static void print_job_row(jid_t jid, const char *owner, pid_t prime)
{
	char command[COMMAND_WIDTH + 1];

	read_proc_file(prime, "cmdline", command, sizeof(command));
	printf(SGI_JID " %-12s %s\n", jid, owner, command);
}

/* Pid, parent and name of each process; those gone are left out. */
static void print_process_rows(jid_t jid, const char *owner,
			       const pid_t *pids, int length)
{
	char stat[256], name[COMMAND_WIDTH + 1];
	int i, ppid;

	for (i = 0; i < length; i++) {
		if (!read_proc_file(pids[i], "stat", stat, sizeof(stat)) ||
		    sscanf(stat, "%*d (%32[^)]) %*c %d", name, &ppid) != 2)
			continue;
		printf(SGI_JID " %-12s %-6d %-6d %s\n", jid, owner, pids[i],
		       ppid, name);
	}
}

/* A job of jstat -a's list that ended since is left out quietly. */
static int jstat_call_failed(bool listed, const char *call)
{
	if (listed && errno == ENODATA)
		return EXIT_SUCCESS;
	return job_call_failed(call, "No such job");
}

/*
 * One job (jid 0: the caller's): its row; with -p its processes' rows
 * instead; with -l alone nothing, since SGI never implemented -l.  listed:
 * the job comes from jstat -a's list.
 */
static int jstat_job(jid_t jid, bool long_form, bool with_pids, bool listed)
{
	char owner[64];
	pid_t prime, *pids;
	int length;
	uid_t uid;

	if (!jid) {
		jid = job_getjid(getpid());
		if (!jid || (jid == (jid_t)-1 && errno == ENODATA)) {
			puts("Not attached to any job");
			return EXIT_SUCCESS;
		}
		if (jid == (jid_t)-1)
			return job_call_failed("job_getjid", NULL);
	}
	prime = job_getprimepid(jid);
	if (prime == -1)
		return jstat_call_failed(listed, "job_getprimepid");
	uid = job_getuid(jid);
	if (uid == (uid_t)-1)
		return jstat_call_failed(listed, "job_getuid");
	format_user(uid, owner, sizeof(owner));
	if (!with_pids) {
		if (!long_form)
			print_job_row(jid, owner, prime);
		return EXIT_SUCCESS;
	}
	pids = list_job_pids(jid, &length);
	if (!pids)
		return jstat_call_failed(listed, "job_getpidlist");
	print_process_rows(jid, owner, pids, length);
	free(pids);
	return EXIT_SUCCESS;
}

static int jstat_all(bool long_form, bool with_pids)
{
	int status = EXIT_SUCCESS, length, i;
	jid_t *jids;

	if (job_getjidcnt() < 0)
		return job_call_failed("job_getjidcnt", NULL);
	jids = list_all_jobs(&length);
	if (!jids)
		return job_call_failed("job_getjidlist", NULL);
	print_jstat_header(with_pids);
	if (!length)
		puts("<No JIDs found>");
	for (i = 0; i < length && status == EXIT_SUCCESS; i++)
		status = jstat_job(jids[i], long_form, with_pids, true);
	free(jids);
	return status;
}

/* jstat [-a | -j jid] [-l] [-p] [-h]; operands are ignored, as SGI's. */
static int run_jstat(int argc, char **argv)
{
	bool all = false, one = false, long_form = false, with_pids = false;
	int option, errors = 0;
	jid_t jid = 0;

	/* As SGI's: after an error, getopt() runs once more, then it stops. */
	while ((option = getopt(argc, argv, "ahj:lp")) != -1 && !errors) {
		switch (option) {
		case 'a':
			errors += one;
			all = true;
			break;
		case 'j':
			errors += all;
			one = true;
			if (parse_jid(optarg, &jid) < 0)
				return bad_value(optarg, NOT_A_JID);
			break;
		case 'l':
			long_form = true;
			break;
		case 'p':
			with_pids = true;
			break;
		case 'h':
			jstat_usage();
			return EXIT_SUCCESS;
		default:
			errors++;
		}
	}
	if (errors) {
		jstat_usage();
		return EXIT_FAILURE;
	}
	if (all)
		return jstat_all(long_form, with_pids);
	print_jstat_header(with_pids);
	return jstat_job(jid, long_form, with_pids, false);
}

#define SGI_SIGNAL(name) { #name, SIG##name }

/* SGI's table: what jkill -l lists, in this order, and the names it takes. */
static const struct {
	const char *name;
	int number;
} sgi_signals[] = {
	SGI_SIGNAL(HUP), SGI_SIGNAL(INT), SGI_SIGNAL(QUIT), SGI_SIGNAL(ILL),
	SGI_SIGNAL(ABRT), SGI_SIGNAL(FPE), SGI_SIGNAL(KILL), SGI_SIGNAL(SEGV),
	SGI_SIGNAL(PIPE), SGI_SIGNAL(ALRM), SGI_SIGNAL(TERM), SGI_SIGNAL(USR1),
	SGI_SIGNAL(USR2), SGI_SIGNAL(CHLD), SGI_SIGNAL(CONT), SGI_SIGNAL(STOP),
	SGI_SIGNAL(TSTP), SGI_SIGNAL(TTIN), SGI_SIGNAL(TTOU),
	/* Those that not every architecture has, and aliases. */
#ifdef SIGTRAP
	SGI_SIGNAL(TRAP),
#endif
#ifdef SIGIOT
	SGI_SIGNAL(IOT),
#endif
#ifdef SIGEMT
	SGI_SIGNAL(EMT),
#endif
#ifdef SIGBUS
	SGI_SIGNAL(BUS),
#endif
#ifdef SIGSYS
	SGI_SIGNAL(SYS),
#endif
#ifdef SIGSTKFLT
	SGI_SIGNAL(STKFLT),
#endif
#ifdef SIGURG
	SGI_SIGNAL(URG),
#endif
#ifdef SIGIO
	SGI_SIGNAL(IO),
#endif
#ifdef SIGPOLL
	SGI_SIGNAL(POLL),
#endif
#ifdef SIGCLD
	SGI_SIGNAL(CLD),
#endif
#ifdef SIGXCPU
	SGI_SIGNAL(XCPU),
#endif
#ifdef SIGXFSZ
	SGI_SIGNAL(XFSZ),
#endif
#ifdef SIGVTALRM
	SGI_SIGNAL(VTALRM),
#endif
#ifdef SIGPROF
	SGI_SIGNAL(PROF),
#endif
#ifdef SIGPWR
	SGI_SIGNAL(PWR),
#endif
#ifdef SIGINFO
	SGI_SIGNAL(INFO),
#endif
#ifdef SIGLOST
	SGI_SIGNAL(LOST),
#endif
#ifdef SIGWINCH
	SGI_SIGNAL(WINCH),
#endif
#ifdef SIGUNUSED
	SGI_SIGNAL(UNUSED),
#endif
};

/* A name of the table, with or without "SIG", in any case; else -1. */
static int sgi_signal_number(const char *name)
{
	size_t i;

	if (!strncasecmp(name, "SIG", 3))
		name += 3;
	for (i = 0; i < ARRAY_SIZE(sgi_signals); i++)
		if (!strcasecmp(sgi_signals[i].name, name))
			return sgi_signals[i].number;
	return -1;
}

/* Four a line, and always a newline at the end (an empty line if full). */
static void list_sgi_signals(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(sgi_signals); i++)
		printf("SIG%-7s[%2d]%s", sgi_signals[i].name,
		       sgi_signals[i].number, (i + 1) % 4 ? "      " : "\n");
	putchar('\n');
}

static int jkill_usage(void)
{
	fputs("usage: jkill [-l | [ [-signal] jid ... ] ]\n", stderr);
	return EXIT_FAILURE;
}

/*
 * jkill [-signal]... [jid...] | -l: the last signal given counts; no jid is
 * no error.  The jobs are signalled in order up to the first failure.
 */
static int run_jkill(int argc, char **argv)
{
	int sig = SIGTERM, first, i;
	const char *spec;
	uint64_t number;
	jid_t jid;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		spec = argv[i] + 1;
		sig = sgi_signal_number(spec);
		if (sig >= 0)
			continue;
		if (isdigit((unsigned char)spec[0])) {
			if (parse_unsigned(spec, 10, INT_MAX, &number) < 0)
				return bad_value(spec, "a signal (a number or a name, see jkill -l)");
			sig = (int)number;
			continue;
		}
		if (strcmp(spec, "l") || argc != 2)
			return jkill_usage();
		list_sgi_signals();
		return EXIT_SUCCESS;
	}
	for (first = i; i < argc; i++)
		if (parse_jid(argv[i], &jid) < 0)
			return bad_value(argv[i], NOT_A_JID);
	for (i = first; i < argc; i++) {
		parse_jid(argv[i], &jid);
		if (job_killjid(jid, sig) < 0)
			return job_call_failed("job_killjid", "No such job");
		printf("Processes in job[" SGI_JID "] sent signal %d.\n", jid,
		       sig);
	}
	return EXIT_SUCCESS;
}

static int run_jwait(int argc, char **argv)
{
	jid_t jid, waited;
	int status = 0;

	if (argc != 2) {
		/* Sic: SGI's message names the library call. */
		fputs("Usage: waitjid jid-hex-value\n", stderr);
		return EXIT_FAILURE;
	}
	if (parse_jid(argv[1], &jid) < 0)
		return bad_value(argv[1], NOT_A_JID);
	waited = job_waitjid(jid, &status, 0);
	if (waited == (jid_t)-1)
		return job_call_failed("job_waitjid", "No such job");
	if (waited != jid) {
		fputs("Waiting on jid failed\n", stderr);
		return EXIT_FAILURE;
	}
	printf("job[" SGI_JID "] exit status: %#x.\n", jid,
	       (unsigned int)status);
	if (WIFEXITED(status))
		printf("\tExit detected with exit status: %#x or %d\n",
		       (unsigned int)WEXITSTATUS(status), WEXITSTATUS(status));
	if (WIFSIGNALED(status))
		printf("\tSignal detected with signal: %d\n",
		       WTERMSIG(status));
	return EXIT_SUCCESS;
}

static int run_jattach(int argc, char **argv)
{
	pid_t pid;
	jid_t jid;

	if (argc != 3) {
		fputs("Usage: jattach pid jid-hex-value\n", stderr);
		return EXIT_FAILURE;
	}
	if (parse_pid(argv[1], &pid) < 0)
		return bad_value(argv[1], "a process id (a positive decimal number)");
	if (parse_jid(argv[2], &jid) < 0)
		return bad_value(argv[2], NOT_A_JID);
	if (job_attachpid(pid, jid) != (jid_t)-1)
		return EXIT_SUCCESS;
	job_call_failed("job_attachpid", "No such job");
	return JATTACH_FAILED;
}

/*
 * jdetach -p pid | -j jid: only the first option counts, as in SGI's, and
 * a value that is no pid or JID is SGI's "Invalid PID or JID value".
 */
static int run_jdetach(int argc, char **argv)
{
	pid_t pid = 0;
	jid_t jid = 0;

	switch (getopt(argc, argv, "j:p:")) {
	case 'j':
		parse_jid(optarg, &jid);
		break;
	case 'p':
		parse_pid(optarg, &pid);
		break;
	default:
		fputs("Usage: jdetach -p <PID> | -j <JID>\n", stderr);
		return EXIT_FAILURE;
	}
	if (jid && job_detachjid(jid) < 0)
		return job_call_failed("job_detachjid", "No such job");
	if (pid && job_detachpid(pid) == (jid_t)-1)
		return job_call_failed("job_detachpid", "Not part of a job");
	if (!jid && !pid) {
		fputs("Invalid PID or JID value\n", stderr);
		return EXIT_FAILURE;
	}
	return EXIT_SUCCESS;
}

/* jsethid [hex]: without a value, the host id of gethostid(). */
static int run_jsethid(int argc, char **argv)
{
	unsigned int hid;

	if (argc > 2) {
		fputs("Usage: jsethid [hex-value]\n", stderr);
		return EXIT_FAILURE;
	}
	if (argc == 1)
		hid = (unsigned int)gethostid();
	else if (parse_hid(argv[1], &hid) < 0)
		return bad_value(argv[1], "a host id (32-bit hex, e.g. 0xab000000)");
	if (job_sethid(hid) == 0)
		return EXIT_SUCCESS;
	/* Disabling jobs where there are none is done, as for SGI. */
	if (errno == ENOSYS && hid == HID_DISABLED)
		return EXIT_SUCCESS;
	return job_call_failed("job_sethid", NULL);
}

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
} sgi_commands[] = {
	{ "jstat", run_jstat },
	{ "jkill", run_jkill },
	{ "jwait", run_jwait },
	{ "jattach", run_jattach },
	{ "jdetach", run_jdetach },
	{ "jsethid", run_jsethid },
};

bool is_sgi_command(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(sgi_commands); i++)
		if (!strcmp(sgi_commands[i].name, name))
			return true;
	return false;
}

int run_sgi_command(const char *name, int argc, char **argv)
{
	size_t i;

	command_name = name;
	/* getopt() starts afresh and reports errors itself, as for SGI's. */
	optind = 0;
	opterr = 1;
	for (i = 0; i < ARRAY_SIZE(sgi_commands); i++)
		if (!strcmp(sgi_commands[i].name, name))
			return sgi_commands[i].run(argc, argv);
	fprintf(stderr, "%s: not one of SGI's job commands\n", name);
	return EXIT_FAILURE;
}
