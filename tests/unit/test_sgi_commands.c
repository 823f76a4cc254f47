// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Golden-output tests of SGI's commands (userspace/sgi_commands.c): every
 * case's exact stdout, stderr and exit status, against SGI's formats.  The
 * job library is a fake here (the jobs below), so no kernel is needed; the
 * processes the jobs list are real sleepers, for /proc.  The VM scenario
 * job_sgi_commands runs the same commands on the real module.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "job.h"
#include "job_query.h"
#include "jobctl_util.h"
#include "sgi_commands.h"
#include "unit.h"

#define HEADER "JID                OWNER        COMMAND\n" \
	"------------------ ------------ --------------------------------\n"
#define PID_HEADER "JID \t\t   OWNER \tPID    PPID   COMMAND\n" \
	"------------------ ------------ ------ ------ --------------------------------\n"
#define NO_MODULE "The job module is not loaded (modprobe job).\n"

#define JID1 0xab00000000000001ULL
#define JID2 0xab00000000000002ULL
#define JID_GONE 0xab00000000000003ULL	/* listed, but ended when asked */
#define UNKNOWN_UID 4242424	/* in no /etc/passwd */
/* argv[0] of the first job's prime process: jstat shows its 32 bytes. */
#define LONG_ARGV0 "a-command-line-longer-than-32-bytes-is-cut"
#define LONG_ARGV0_CUT "a-command-line-longer-than-32-by"

/* The fake library's world. */
struct fake_job {
	jid_t jid;
	uid_t uid;
	pid_t pid;		/* its one process, also the prime */
	int wait_status;
	bool gone;
};

static struct fake_job fake_jobs[3];
static int fake_nr_jobs;
static jid_t fake_own_jid;	/* the caller's job, 0 for none */
static int fake_errno;		/* when set, every call fails with it */
static char fake_log[256];	/* what the calls changed, in order */

static void fake_reset(void)
{
	fake_nr_jobs = 0;
	fake_own_jid = 0;
	fake_errno = 0;
	fake_log[0] = '\0';
}

static void fake_add(jid_t jid, uid_t uid, pid_t pid, int wait_status,
		     bool gone)
{
	fake_jobs[fake_nr_jobs++] = (struct fake_job){
		.jid = jid, .uid = uid, .pid = pid,
		.wait_status = wait_status, .gone = gone,
	};
}

__attribute__((format(printf, 1, 2)))
static void fake_record(const char *format, ...)
{
	size_t used = strlen(fake_log);
	va_list args;

	va_start(args, format);
	vsnprintf(fake_log + used, sizeof(fake_log) - used, format, args);
	va_end(args);
}

/* The job, or NULL with errno set (fake_errno, or ENODATA). */
static struct fake_job *fake_find(jid_t jid)
{
	int i;

	errno = fake_errno ? fake_errno : ENODATA;
	if (fake_errno)
		return NULL;
	for (i = 0; i < fake_nr_jobs; i++)
		if (fake_jobs[i].jid == jid && !fake_jobs[i].gone)
			return &fake_jobs[i];
	return NULL;
}

static bool fake_failed(void)
{
	errno = fake_errno;
	return fake_errno != 0;
}

jid_t job_getjid(pid_t pid)
{
	(void)pid;
	if (fake_failed())
		return (jid_t)-1;
	if (!fake_own_jid) {
		errno = ENODATA;
		return (jid_t)-1;
	}
	return fake_own_jid;
}

int job_getjidcnt(void)
{
	return fake_failed() ? -1 : fake_nr_jobs;
}

int job_getjidlist(jid_t *jid, int bufsize)
{
	int i;

	if (fake_failed())
		return -1;
	for (i = 0; i < fake_nr_jobs && i < bufsize / (int)sizeof(*jid); i++)
		jid[i] = fake_jobs[i].jid;
	return i;
}

int job_getpidcnt(jid_t jid)
{
	return fake_find(jid) ? 1 : -1;
}

int job_getpidlist(jid_t jid, pid_t *pid, int bufsize)
{
	struct fake_job *job = fake_find(jid);

	if (!job)
		return -1;
	if (bufsize < (int)sizeof(*pid))
		return 0;
	pid[0] = job->pid;
	return 1;
}

pid_t job_getprimepid(jid_t jid)
{
	struct fake_job *job = fake_find(jid);

	return job ? job->pid : -1;
}

uid_t job_getuid(jid_t jid)
{
	struct fake_job *job = fake_find(jid);

	return job ? job->uid : (uid_t)-1;
}

int job_killjid(jid_t jid, int sig)
{
	if (!fake_find(jid))
		return -1;
	fake_record("kill %" PRIx64 " %d;", jid, sig);
	return 0;
}

jid_t job_waitjid(jid_t jid, int *status, int options)
{
	struct fake_job *job = fake_find(jid);

	if (!job || options)
		return (jid_t)-1;
	*status = job->wait_status;
	return jid;
}

jid_t job_attachpid(pid_t pid, jid_t jid_requested)
{
	if (!fake_find(jid_requested))
		return (jid_t)-1;
	fake_record("attach %d %" PRIx64 ";", pid, jid_requested);
	return jid_requested;
}

int job_detachjid(jid_t jid)
{
	if (!fake_find(jid))
		return -1;
	fake_record("detach %" PRIx64 ";", jid);
	return 1;
}

jid_t job_detachpid(pid_t pid)
{
	int i;

	if (fake_failed())
		return (jid_t)-1;
	for (i = 0; i < fake_nr_jobs; i++) {
		if (fake_jobs[i].pid == pid) {
			fake_record("detach %d;", pid);
			return fake_jobs[i].jid;
		}
	}
	errno = ENODATA;
	return (jid_t)-1;
}

int job_sethid(unsigned int hid)
{
	if (fake_failed())
		return -1;
	fake_record("sethid %x;", hid);
	return 0;
}

struct result {
	int status;
	char out[4096];
	char err[4096];
};

static void read_back(FILE *file, char *buf, size_t size)
{
	size_t length;

	rewind(file);
	length = fread(buf, 1, size - 1, file);
	buf[length] = '\0';
	fclose(file);
}

/* Runs the command with args, capturing its exit status and output. */
static void run(struct result *result, int argc, char **argv)
{
	FILE *out = tmpfile(), *err = tmpfile();
	int saved_out, saved_err;

	if (!out || !err) {
		perror("tmpfile");
		exit(EXIT_FAILURE);
	}
	fflush(stdout);
	saved_out = dup(STDOUT_FILENO);
	saved_err = dup(STDERR_FILENO);
	dup2(fileno(out), STDOUT_FILENO);
	dup2(fileno(err), STDERR_FILENO);
	result->status = run_sgi_command(argv[0], argc, argv);
	fflush(stdout);
	dup2(saved_out, STDOUT_FILENO);
	dup2(saved_err, STDERR_FILENO);
	close(saved_out);
	close(saved_err);
	read_back(out, result->out, sizeof(result->out));
	read_back(err, result->err, sizeof(result->err));
}

/*
 * One golden case: the command (then its arguments, up to a NULL) must
 * exit with status and print exactly out and err.
 */
static void golden(const char *name, int status, const char *out,
		   const char *err, const char *command, ...)
{
	struct result result;
	char *argv[16];
	const char *arg = command;
	int argc = 0;
	va_list args;
	bool ok;

	va_start(args, command);
	for (; arg && argc < 15; arg = va_arg(args, const char *))
		argv[argc++] = strdup(arg);	/* getopt() may permute them */
	va_end(args);
	argv[argc] = NULL;
	run(&result, argc, argv);
	while (argc)
		free(argv[--argc]);

	ok = result.status == status && !strcmp(result.out, out) &&
	     !strcmp(result.err, err);
	CHECK(name, ok);
	if (!ok)
		printf("  status %d (expected %d)\n  stdout:\n%s  expected:\n%s"
		       "  stderr:\n%s  expected:\n%s", result.status, status,
		       result.out, out, result.err, err);
}

/* A sleeper with the given argv[0], once it runs sleep. */
static pid_t spawn_sleeper(const char *argv0)
{
	char comm[32];
	pid_t pid = fork();

	if (pid < 0) {
		perror("fork");
		exit(EXIT_FAILURE);
	}
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);	/* gone with the test */
		execl("/bin/sleep", argv0, "600", (char *)NULL);
		_exit(127);
	}
	do {
		usleep(1000);
		read_proc_file(pid, "comm", comm, sizeof(comm));
	} while (strcmp(comm, "sleep\n"));
	return pid;
}

static pid_t sleeper_long, sleeper_short;

/* Job 1: root's, prime LONG_ARGV0; job 2: an unknown uid's, prime "-sh". */
static void two_jobs(void)
{
	fake_reset();
	fake_add(JID1, 0, sleeper_long, 0x300, false);
	fake_add(JID2, UNKNOWN_UID, sleeper_short, SIGKILL, false);
}

static void test_jstat(void)
{
	char row1[128], row2[128], prow1[128], prow2[128], out[1024];

	snprintf(row1, sizeof(row1), "0xab00000000000001 root         %s\n",
		 LONG_ARGV0_CUT);
	snprintf(row2, sizeof(row2), "0xab00000000000002 %-12d -sh\n",
		 UNKNOWN_UID);
	snprintf(prow1, sizeof(prow1),
		 "0xab00000000000001 root         %-6d %-6d sleep\n",
		 sleeper_long, getpid());
	snprintf(prow2, sizeof(prow2),
		 "0xab00000000000002 %-12d %-6d %-6d sleep\n", UNKNOWN_UID,
		 sleeper_short, getpid());

	two_jobs();
	fake_own_jid = JID1;
	snprintf(out, sizeof(out), HEADER "%s", row1);
	golden("jstat: the caller's job", 0, out, "",
	       "jstat", NULL);
	golden("jstat: operands are ignored", 0, out, "",
	       "jstat", "extra", "operands", NULL);
	golden("jstat -j 0: the caller's job", 0, out, "",
	       "jstat", "-j", "0", NULL);
	snprintf(out, sizeof(out), PID_HEADER "%s", prow1);
	golden("jstat -p: a row a process", 0, out, "",
	       "jstat", "-p", NULL);
	golden("jstat -l: the header only", 0, HEADER, "",
	       "jstat", "-l", NULL);
	snprintf(out, sizeof(out), PID_HEADER "%s", prow1);
	golden("jstat -l -p: the processes", 0, out, "",
	       "jstat", "-l", "-p", NULL);

	fake_own_jid = 0;
	golden("jstat outside a job", 0, HEADER "Not attached to any job\n",
	       "",
	       "jstat", NULL);
	golden("jstat -p outside a job", 0,
	       PID_HEADER "Not attached to any job\n", "",
	       "jstat", "-p", NULL);

	snprintf(out, sizeof(out), HEADER "%s", row2);
	golden("jstat -j: a uid without a name", 0, out, "",
	       "jstat", "-j", "0xab00000000000002", NULL);
	golden("jstat -j: 0x is optional", 0, out, "",
	       "jstat", "-j", "ab00000000000002", NULL);
	golden("jstat -j: no such job", 1, HEADER, "No such job\n",
	       "jstat", "-j", "0xdead", NULL);
	golden("jstat -j: not a JID", 1, "",
	       "jstat: 'zz' is not a JID (hex, e.g. 0xab00000000000001)\n",
	       "jstat", "-j", "zz", NULL);

	fake_add(JID_GONE, 0, sleeper_long, 0, true);
	snprintf(out, sizeof(out), HEADER "%s%s", row1, row2);
	golden("jstat -a: an ended job is left out", 0, out, "",
	       "jstat", "-a", NULL);
	snprintf(out, sizeof(out), PID_HEADER "%s%s", prow1, prow2);
	golden("jstat -a -p", 0, out, "",
	       "jstat", "-a", "-p", NULL);
	golden("jstat -a -l", 0, HEADER, "",
	       "jstat", "-a", "-l", NULL);

	fake_reset();
	golden("jstat -a without jobs", 0, HEADER "<No JIDs found>\n", "",
	       "jstat", "-a", NULL);
	golden("jstat -a -p without jobs", 0,
	       PID_HEADER "<No JIDs found>\n", "",
	       "jstat", "-a", "-p", NULL);

	golden("jstat -h", 0, "",
	       "Usage: jstat [-a | -j job_id] [-l] [-p] [h]\n",
	       "jstat", "-h", NULL);
	golden("jstat -x", 1, "",
	       "jstat: invalid option -- 'x'\n"
	       "Usage: jstat [-a | -j job_id] [-l] [-p] [h]\n",
	       "jstat", "-x", NULL);
	golden("jstat -a -j", 1, "",
	       "Usage: jstat [-a | -j job_id] [-l] [-p] [h]\n",
	       "jstat", "-a", "-j", "1", NULL);
	golden("jstat -j -a", 1, "",
	       "Usage: jstat [-a | -j job_id] [-l] [-p] [h]\n",
	       "jstat", "-j", "1", "-a", NULL);
	golden("jstat -x -y -h: getopt runs once after an error", 1, "",
	       "jstat: invalid option -- 'x'\n"
	       "jstat: invalid option -- 'y'\n"
	       "Usage: jstat [-a | -j job_id] [-l] [-p] [h]\n",
	       "jstat", "-x", "-y", "-h", NULL);
	golden("jstat -j without a value", 1, "",
	       "jstat: option requires an argument -- 'j'\n"
	       "Usage: jstat [-a | -j job_id] [-l] [-p] [h]\n",
	       "jstat", "-j", NULL);

	fake_errno = ENOSYS;
	golden("jstat without the module", 1, HEADER, NO_MODULE,
	       "jstat", NULL);
	golden("jstat -a without the module", 1, "", NO_MODULE,
	       "jstat", "-a", NULL);
	fake_errno = EIO;
	golden("jstat: another error", 1, HEADER,
	       "job_getjid: Input/output error\n",
	       "jstat", NULL);
}

static void test_jkill(void)
{
	two_jobs();
	golden("jkill without a JID: nothing", 0, "", "",
	       "jkill", NULL);
	golden("jkill -0 without a JID: nothing", 0, "", "",
	       "jkill", "-0", NULL);
	CHECK("jkill without a JID signals nothing", !fake_log[0]);

	golden("jkill: SIGTERM, a line a job", 0,
	       "Processes in job[0xab00000000000001] sent signal 15.\n"
	       "Processes in job[0xab00000000000002] sent signal 15.\n", "",
	       "jkill", "0xab00000000000001", "ab00000000000002", NULL);
	CHECK("jkill: both jobs got SIGTERM", !strcmp(fake_log,
	      "kill ab00000000000001 15;kill ab00000000000002 15;"));

	fake_log[0] = '\0';
	golden("jkill A BAD B: stops at BAD", 1,
	       "Processes in job[0xab00000000000001] sent signal 9.\n",
	       "No such job\n",
	       "jkill", "-9", "0xab00000000000001", "0xdead",
	    "0xab00000000000002", NULL);
	CHECK("jkill A BAD B: B not signalled",
	      !strcmp(fake_log, "kill ab00000000000001 9;"));

	fake_log[0] = '\0';
	golden("jkill: the last of several names counts", 0,
	       "Processes in job[0xab00000000000001] sent signal 29.\n", "",
	       "jkill", "-SIGkill", "-hup", "-IOT", "-cld", "-POLL",
	    "0xab00000000000001", NULL);
	golden("jkill: a bad JID signals none", 1, "",
	       "jkill: 'zz' is not a JID (hex, e.g. 0xab00000000000001)\n",
	       "jkill", "-usr1", "0xab00000000000001", "zz", NULL);
	CHECK("jkill: names and a bad JID",
	      !strcmp(fake_log, "kill ab00000000000001 29;"));
	golden("jkill -9x", 1, "",
	       "jkill: '9x' is not a signal (a number or a name, see jkill -l)\n",
	       "jkill", "-9x", "0xab00000000000001", NULL);
	golden("jkill -FOO", 1, "",
	       "usage: jkill [-l | [ [-signal] jid ... ] ]\n",
	       "jkill", "-FOO", "0xab00000000000001", NULL);
	golden("jkill -l with a JID", 1, "",
	       "usage: jkill [-l | [ [-signal] jid ... ] ]\n",
	       "jkill", "-l", "0xab00000000000001", NULL);

	golden("jkill -l", 0,
	       "SIGHUP    [ 1]      SIGINT    [ 2]      SIGQUIT   [ 3]      SIGILL    [ 4]\n"
	       "SIGABRT   [ 6]      SIGFPE    [ 8]      SIGKILL   [ 9]      SIGSEGV   [11]\n"
	       "SIGPIPE   [13]      SIGALRM   [14]      SIGTERM   [15]      SIGUSR1   [10]\n"
	       "SIGUSR2   [12]      SIGCHLD   [17]      SIGCONT   [18]      SIGSTOP   [19]\n"
	       "SIGTSTP   [20]      SIGTTIN   [21]      SIGTTOU   [22]      SIGTRAP   [ 5]\n"
	       "SIGIOT    [ 6]      SIGBUS    [ 7]      SIGSYS    [31]      SIGSTKFLT [16]\n"
	       "SIGURG    [23]      SIGIO     [29]      SIGPOLL   [29]      SIGCLD    [17]\n"
	       "SIGXCPU   [24]      SIGXFSZ   [25]      SIGVTALRM [26]      SIGPROF   [27]\n"
	       "SIGPWR    [30]      SIGWINCH  [28]      \n", "",
	       "jkill", "-l", NULL);

	fake_errno = EPERM;
	golden("jkill: not the owner", 1, "",
	       "job_killjid: Operation not permitted\n",
	       "jkill", "0xab00000000000001", NULL);
}

static void test_jwait(void)
{
	two_jobs();
	fake_add(JID_GONE, 0, sleeper_long, 0, false);
	golden("jwait: exit 3", 0,
	       "job[0xab00000000000001] exit status: 0x300.\n"
	       "\tExit detected with exit status: 0x3 or 3\n", "",
	       "jwait", "0xab00000000000001", NULL);
	golden("jwait: SIGKILL", 0,
	       "job[0xab00000000000002] exit status: 0x9.\n"
	       "\tSignal detected with signal: 9\n", "",
	       "jwait", "ab00000000000002", NULL);
	golden("jwait: exit 0", 0,
	       "job[0xab00000000000003] exit status: 0.\n"
	       "\tExit detected with exit status: 0 or 0\n", "",
	       "jwait", "0xab00000000000003", NULL);
	golden("jwait: no such job", 1, "", "No such job\n",
	       "jwait", "0xdead", NULL);
	golden("jwait without a JID", 1, "",
	       "Usage: waitjid jid-hex-value\n",
	       "jwait", NULL);
	golden("jwait with two JIDs", 1, "",
	       "Usage: waitjid jid-hex-value\n",
	       "jwait", "1", "2", NULL);
	golden("jwait: not a JID", 1, "",
	       "jwait: '-1' is not a JID (hex, e.g. 0xab00000000000001)\n",
	       "jwait", "-1", NULL);
	fake_errno = EINTR;
	golden("jwait: interrupted", 1, "",
	       "job_waitjid: Interrupted system call\n",
	       "jwait", "0xab00000000000001", NULL);
}

static void test_jattach_jdetach(void)
{
	two_jobs();
	golden("jattach", 0, "", "",
	       "jattach", "42", "0xab00000000000001", NULL);
	golden("jattach: no such job", 255, "", "No such job\n",
	       "jattach", "42", "0xdead", NULL);
	golden("jattach without a JID", 1, "",
	       "Usage: jattach pid jid-hex-value\n",
	       "jattach", "42", NULL);
	golden("jattach: not a pid", 1, "",
	       "jattach: '4x2' is not a process id (a positive decimal number)\n",
	       "jattach", "4x2", "0xab00000000000001", NULL);
	fake_errno = EINVAL;
	golden("jattach: already in a job", 255, "",
	       "job_attachpid: Invalid argument\n",
	       "jattach", "42", "0xab00000000000001", NULL);
	fake_errno = 0;

	golden("jdetach -p: not in a job", 1, "", "Not part of a job\n",
	       "jdetach", "-p", "99999999", NULL);
	golden("jdetach -j: no such job", 1, "", "No such job\n",
	       "jdetach", "-j", "0xdead", NULL);
	golden("jdetach -j: only the first option counts", 0, "", "",
	       "jdetach", "-j", "ab00000000000002", "-p", "1", NULL);
	golden("jdetach -p 0", 1, "", "Invalid PID or JID value\n",
	       "jdetach", "-p", "0", NULL);
	golden("jdetach -j zz", 1, "", "Invalid PID or JID value\n",
	       "jdetach", "-j", "zz", NULL);
	golden("jdetach without an option", 1, "",
	       "Usage: jdetach -p <PID> | -j <JID>\n",
	       "jdetach", NULL);
	golden("jdetach -x", 1, "",
	       "jdetach: invalid option -- 'x'\n"
	       "Usage: jdetach -p <PID> | -j <JID>\n",
	       "jdetach", "-x", NULL);
	CHECK("jattach and jdetach did what they said", !strcmp(fake_log,
	      "attach 42 ab00000000000001;detach ab00000000000002;"));
	fake_errno = EPERM;
	golden("jdetach: not privileged", 1, "",
	       "job_detachpid: Operation not permitted\n",
	       "jdetach", "-p", "42", NULL);
}

static void test_jsethid(void)
{
	fake_reset();
	golden("jsethid", 0, "", "",
	       "jsethid", "0x2a", NULL);
	golden("jsethid: not hex", 1, "",
	       "jsethid: 'zz' is not a host id (32-bit hex, e.g. 0xab000000)\n",
	       "jsethid", "zz", NULL);
	golden("jsethid with two values", 1, "",
	       "Usage: jsethid [hex-value]\n",
	       "jsethid", "1", "2", NULL);
	CHECK("jsethid set 0x2a only", !strcmp(fake_log, "sethid 2a;"));
	fake_errno = ENOSYS;
	golden("jsethid ffffffff without the module", 0, "", "",
	       "jsethid", "ffffffff", NULL);
	golden("jsethid without the module", 1, "", NO_MODULE,
	       "jsethid", "2a", NULL);
	fake_errno = EPERM;
	golden("jsethid: not privileged", 1, "",
	       "job_sethid: Operation not permitted\n",
	       "jsethid", "2a", NULL);
}

int main(void)
{
	sleeper_long = spawn_sleeper(LONG_ARGV0);
	sleeper_short = spawn_sleeper("-sh");
	test_jstat();
	test_jkill();
	test_jwait();
	test_jattach_jdetach();
	test_jsethid();
	CHECK("is_sgi_command", is_sgi_command("jstat") &&
	      is_sgi_command("jsethid") && !is_sgi_command("jobctl"));
	kill(sleeper_long, SIGKILL);
	kill(sleeper_short, SIGKILL);
	waitpid(sleeper_long, NULL, 0);
	waitpid(sleeper_short, NULL, 0);
	return unit_summary();
}
