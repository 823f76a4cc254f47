// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests of libjob without the job module: every call must fail with
 * ENOSYS (how OpenPBS recognises a host without jobs), and bad buffers with
 * EINVAL before the kernel is even asked.
 */
#include <errno.h>
#include <unistd.h>

#include "job.h"
#include "../../include/uapi/job.h"
#include "unit.h"

#define CHECK_ERROR(name, call, failure, error)				\
	do {								\
		errno = 0;						\
		CHECK(name, (call) == (failure) && errno == (error));	\
	} while (0)

static void test_enosys(void)
{
	struct job_info info;
	struct job_acct acct;
	jid_t jids[4];
	pid_t pids[4];
	int status = 0;

	CHECK_ERROR("create", job_create(0, getuid(), 0), (jid_t)-1, ENOSYS);
	CHECK_ERROR("getjid", job_getjid(getpid()), (jid_t)-1, ENOSYS);
	CHECK_ERROR("waitjid", job_waitjid(1, &status, 0), (jid_t)-1, ENOSYS);
	CHECK_ERROR("killjid", job_killjid(1, 0), -1, ENOSYS);
	CHECK_ERROR("getjidcnt", job_getjidcnt(), -1, ENOSYS);
	CHECK_ERROR("getjidlist", job_getjidlist(jids, sizeof(jids)), -1,
		    ENOSYS);
	CHECK_ERROR("getjidlist empty", job_getjidlist(NULL, 0), -1, ENOSYS);
	CHECK_ERROR("getpidcnt", job_getpidcnt(1), -1, ENOSYS);
	CHECK_ERROR("getpidlist", job_getpidlist(1, pids, sizeof(pids)), -1,
		    ENOSYS);
	CHECK_ERROR("getuid", job_getuid(1), (uid_t)-1, ENOSYS);
	CHECK_ERROR("getprimepid", job_getprimepid(1), -1, ENOSYS);
	CHECK_ERROR("sethid", job_sethid(0xab), -1, ENOSYS);
	CHECK_ERROR("detachjid", job_detachjid(1), -1, ENOSYS);
	CHECK_ERROR("detachpid", job_detachpid(getpid()), (jid_t)-1, ENOSYS);
	CHECK_ERROR("attachpid", job_attachpid(getpid(), 1), (jid_t)-1,
		    ENOSYS);
	CHECK_ERROR("getinfo", job_getinfo(1, &info), -1, ENOSYS);
	CHECK_ERROR("getacct", job_getacct(1, &acct), -1, ENOSYS);
	CHECK_ERROR("readacct", job_readacct(&acct), -1, ENOSYS);
	CHECK_ERROR("runcsa start", job_runcsa(1), -1, ENOSYS);
	CHECK_ERROR("runcsa stop", job_runcsa(0), -1, ENOSYS);
}

static void test_einval(void)
{
	jid_t jids[4];
	pid_t pids[4];

	CHECK_ERROR("getjidlist negative size", job_getjidlist(jids, -1), -1,
		    EINVAL);
	CHECK_ERROR("getjidlist NULL buffer", job_getjidlist(NULL, 8), -1,
		    EINVAL);
	CHECK_ERROR("getpidlist negative size", job_getpidlist(1, pids, -4),
		    -1, EINVAL);
	CHECK_ERROR("getpidlist NULL buffer", job_getpidlist(1, NULL, 4), -1,
		    EINVAL);
	CHECK_ERROR("getinfo NULL", job_getinfo(1, NULL), -1, EINVAL);
	CHECK_ERROR("getacct NULL", job_getacct(1, NULL), -1, EINVAL);
	CHECK_ERROR("readacct NULL", job_readacct(NULL), -1, EINVAL);
	CHECK_ERROR("runcsa 2", job_runcsa(2), -1, EINVAL);
	CHECK_ERROR("runcsa -1", job_runcsa(-1), -1, EINVAL);
}

int main(void)
{
	/* With the module loaded the ENOSYS paths cannot be reached. */
	if (access(JOB_PROC_PATH, F_OK) == 0)
		printf("SKIP ENOSYS tests: %s exists\n", JOB_PROC_PATH);
	else
		test_enosys();
	test_einval();
	return unit_summary();
}
