// SPDX-License-Identifier: GPL-2.0
/*
 * job: the ABI of SGI's Linux Job on /proc/job (include/uapi/job.h), the
 * handler of each request and the layout of 32-bit callers' requests
 * (compat_ioctl).  Kill and wait are in job_signal.c, accounting in
 * job_acct.c.
 */
#include <linux/compat.h>
#include <linux/cred.h>
#include <linux/mm.h>
#include <linux/pid_namespace.h>
#include <linux/proc_fs.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <job_kernel.h>
#include <uapi/job.h>
#include "job_internal.h"
#include "wrapper/compat.h"

#define JOB_HID_DISABLED 0xffffffffU

/* ---- requests ------------------------------------------------------------ */

/* Copies a list of @n entries to the user, frees it, reports @n in r_val. */
static long job_copy_list(void __user *dst, void *list, unsigned int n,
			  size_t size, int *r_val)
{
	long err = copy_to_user(dst, list, n * size) ? -EFAULT : 0;

	kvfree(list);
	*r_val = n;
	return err;
}

static long job_ioc_create(void *arg)
{
	struct job_create *req = arg;
	struct job *job;
	kuid_t owner;
	int err;

	if (!job_privileged())
		return -EPERM;
	if (req->options)
		return -EINVAL;
	owner = make_kuid(current_user_ns(), req->user);
	if (!uid_valid(owner))
		return -EINVAL;
	if (READ_ONCE(job_hid) == JOB_HID_DISABLED) {
		req->r_jid = 0;
		return 0;
	}
	job = kzalloc(sizeof(*job), GFP_KERNEL);
	if (!job)
		return -ENOMEM;
	refcount_set(&job->ref, 1);
	raw_spin_lock_init(&job->lock);
	INIT_HLIST_HEAD(&job->processes);
	INIT_LIST_HEAD(&job->kills);
	mutex_init(&job->kill_lock);
	init_waitqueue_head(&job->ended_wq);
	job->owner = owner;
	job->prime = get_task_pid(current, PIDTYPE_TGID);
	job->start_time_ns = ktime_get_real_ns();
	/*
	 * Nobody attaches to or detaches the new job before its creator.
	 * Killable, as every wait for job_move_lock: its holder may wait for
	 * pnotify's hooks to be armed, which may wait for a dying pid
	 * namespace's init, which waits for its tasks, this one among them.
	 */
	err = mutex_lock_killable(&job_move_lock);
	if (!err) {
		err = job_insert(job, req->jid);
		if (!err) {
			req->r_jid = job->jid;
			err = job_attach_process(job, current->group_leader);
		}
		mutex_unlock(&job_move_lock);
	}
	job_put(job);
	return err;
}

static long job_ioc_getjid(void *arg)
{
	struct job_getjid *req = arg;
	struct task_struct *task = job_find_process(req->pid);
	struct job *job;

	if (IS_ERR(task))
		return PTR_ERR(task);
	job = job_of_process(task);
	put_task_struct(task);
	if (!job)
		return -ENODATA;
	req->r_jid = job->jid;
	job_put(job);
	return 0;
}

static long job_ioc_getjidcnt(void *arg)
{
	struct job_jidcnt *req = arg;

	mutex_lock(&job_table_lock);
	req->r_val = job_count;
	mutex_unlock(&job_table_lock);
	return 0;
}

static long job_ioc_getjidlst(void *arg)
{
	struct job_jidlst *req = arg;
	unsigned int bkt, n = 0, cap;
	struct job *job;
	u64 *jids;

	if (req->r_val < 0)
		return -EINVAL;
	mutex_lock(&job_table_lock);
	cap = min_t(unsigned int, req->r_val, job_count);
	jids = kvmalloc_array(max(cap, 1U), sizeof(*jids), GFP_KERNEL);
	if (jids) {
		hash_for_each(job_table, bkt, job, table_node) {
			if (n == cap)
				break;
			jids[n++] = job->jid;
		}
	}
	mutex_unlock(&job_table_lock);
	if (!jids)
		return -ENOMEM;
	return job_copy_list((void __user *)req->jid, jids, n, sizeof(*jids),
			     &req->r_val);
}

static long job_ioc_getpidcnt(void *arg)
{
	struct job_pidcnt *req = arg;
	struct job *job = job_get(req->jid);

	if (!job)
		return -ENODATA;
	req->r_val = READ_ONCE(job->nr_processes);
	job_put(job);
	return 0;
}

/*
 * Stores the pids in @ns of @job's processes (none outside it) into @pids,
 * a ring of @cap: the list holds the newest first, so the ring ends with
 * the oldest @cap.  Returns how many there were.  job->lock held: one pass
 * over the list, as short as listing can be with interrupts off.
 */
static unsigned int job_ring_pids(struct job *job, struct pid_namespace *ns,
				  pid_t *pids, unsigned int cap)
{
	unsigned int seen = 0, i = 0;
	struct job_member *m;
	pid_t pid;

	lockdep_assert_held(&job->lock);
	if (!cap)
		return 0;
	hlist_for_each_entry(m, &job->processes, link) {
		pid = pid_nr_ns(m->tgid, ns);
		if (!pid)
			continue;
		pids[i] = pid;
		if (++i == cap)
			i = 0;
		seen++;
	}
	return seen;
}

static void job_pids_reverse(pid_t *pids, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n / 2; i++)
		swap(pids[i], pids[n - 1 - i]);
}

/*
 * Turns job_ring_pids()'s ring of @seen into the oldest @cap at most,
 * oldest first: the ring read backwards from its last store.  Returns
 * their number.
 */
static unsigned int job_ring_to_list(pid_t *pids, unsigned int seen,
				     unsigned int cap)
{
	unsigned int n = min(seen, cap);
	unsigned int last = seen > cap ? seen % cap : n;

	job_pids_reverse(pids, last);
	job_pids_reverse(pids + last, n - last);
	return n;
}

static long job_ioc_getpidlst(void *arg)
{
	struct job_pidlst *req = arg;
	struct pid_namespace *ns = task_active_pid_ns(current);
	unsigned int n, seen, cap;
	struct job *job;
	pid_t *pids;

	if (req->r_val < 0)
		return -EINVAL;
	job = job_get(req->jid);
	if (!job)
		return -ENODATA;
	pids = job_lock_with_room(job, &job->nr_processes, req->r_val,
				  sizeof(*pids), &cap);
	if (!pids) {
		job_put(job);
		return -ENOMEM;
	}
	seen = job_ring_pids(job, ns, pids, cap);
	raw_spin_unlock_irq(&job->lock);
	job_put(job);
	n = job_ring_to_list(pids, seen, cap);
	return job_copy_list((void __user *)req->pid, pids, n, sizeof(*pids),
			     &req->r_val);
}

static long job_ioc_getuser(void *arg)
{
	struct job_user *req = arg;
	struct job *job = job_get(req->jid);

	if (!job)
		return -ENODATA;
	req->r_user = from_kuid_munged(current_user_ns(), job->owner);
	job_put(job);
	return 0;
}

static long job_ioc_getprimepid(void *arg)
{
	struct job_primepid *req = arg;
	struct job *job = job_get(req->jid);
	long err = 0;

	if (!job)
		return -ENODATA;
	raw_spin_lock_irq(&job->lock);
	if (job->nr_processes)
		req->r_pid = pid_vnr(job->prime);
	else
		err = -ESRCH;
	raw_spin_unlock_irq(&job->lock);
	job_put(job);
	return err;
}

static long job_ioc_sethid(void *arg)
{
	struct job_sethid *req = arg;

	if (!job_privileged())
		return -EPERM;
	if (req->hid > U32_MAX)
		return -EINVAL;
	mutex_lock(&job_table_lock);
	req->r_hid = job_hid;
	WRITE_ONCE(job_hid, req->hid);
	mutex_unlock(&job_table_lock);
	return 0;
}

static long job_ioc_detachjid(void *arg)
{
	struct job_detachjid *req = arg;
	struct task_struct **tasks;
	unsigned int n, cap, i;
	struct job *job;
	int processes;

	if (!job_privileged())
		return -EPERM;
	job = job_get(req->jid);
	if (!job)
		return -ENODATA;
	/* No attach may slip in while the members are taken out. */
	if (mutex_lock_killable(&job_move_lock)) {
		job_put(job);
		return -EINTR;
	}
	tasks = job_lock_with_room(job, &job->nr_processes, UINT_MAX,
				   sizeof(*tasks), &cap);
	if (!tasks) {
		mutex_unlock(&job_move_lock);
		job_put(job);
		return -ENOMEM;
	}
	/* From here on no fork joins; detaching stays set for good. */
	job->detaching = true;
	/* Those that exit meanwhile leave by themselves. */
	processes = job->nr_processes;
	n = job_hold_members(job, tasks);
	raw_spin_unlock_irq(&job->lock);
	for (i = 0; i < n; i++)
		job_detach_member(job, tasks[i]);
	mutex_unlock(&job_move_lock);
	job_put_tasks(tasks, n);
	job_put(job);
	req->r_val = processes;
	return 0;
}

static long job_ioc_detachpid(void *arg)
{
	struct job_detachpid *req = arg;
	struct task_struct *task;
	struct job *job;
	int err;

	if (!job_privileged())
		return -EPERM;
	task = job_find_process(req->pid);
	if (IS_ERR(task))
		return PTR_ERR(task);
	job = job_of_process(task);
	if (!job) {
		put_task_struct(task);
		return -ENODATA;
	}
	req->r_jid = job->jid;
	job_put(job);
	err = mutex_lock_killable(&job_move_lock);
	if (!err) {
		job_detach_process(task);
		mutex_unlock(&job_move_lock);
	}
	put_task_struct(task);
	return err;
}

static long job_ioc_attachpid(void *arg)
{
	struct job_attachpid *req = arg;
	struct task_struct *task;
	struct job *job, *current_job;
	int err;

	if (!job_privileged())
		return -EPERM;
	task = job_find_process(req->pid);
	if (IS_ERR(task))
		return PTR_ERR(task);
	if (mutex_lock_killable(&job_move_lock)) {
		put_task_struct(task);
		return -EINTR;
	}
	current_job = job_of_process(task);
	job = current_job ? NULL : job_get(req->r_jid);
	if (current_job)
		err = -EINVAL;
	else if (!job)
		err = -ENODATA;
	else
		err = job_attach_process(job, task);
	mutex_unlock(&job_move_lock);
	if (current_job)
		job_put(current_job);
	if (job)
		job_put(job);
	put_task_struct(task);
	return err;
}

static long job_ioc_getinfo(void *arg)
{
	struct job_info *req = arg;
	struct job *job = job_get(req->jid);
	unsigned int tasks;

	if (!job)
		return -ENODATA;
	tasks = job_live_tasks(job);
	raw_spin_lock_irq(&job->lock);
	req->start_time_ns = job->start_time_ns;
	req->uid = from_kuid_munged(current_user_ns(), job->owner);
	req->prime_pid = job->nr_processes ? pid_vnr(job->prime) : 0;
	req->nr_processes = job->nr_processes;
	req->nr_tasks = tasks;
	raw_spin_unlock_irq(&job->lock);
	job_put(job);
	return 0;
}

int job_get_info(struct job_info *info)
{
	return job_ioc_getinfo(info);
}
EXPORT_SYMBOL_GPL(job_get_info);

/* ---- the ioctl entry ------------------------------------------------------ */

/*
 * One field of a request.  A 32-bit caller lays the same fields out with
 * 4-byte pointers and longs ("word" fields) and, on x86, 4-byte aligned u64:
 * job_convert() derives that layout from this list.
 */
struct job_field {
	unsigned short offset, size;
	bool word;
};

struct job_op {
	long (*handler)(void *arg);
	size_t size;
	const struct job_field *fields;	/* NULL: same layout for 32 bits */
	unsigned int nr_fields;
};

#define JOB_F(s, f) { offsetof(struct s, f), sizeof_field(struct s, f), false }
#define JOB_W(s, f) { offsetof(struct s, f), sizeof_field(struct s, f), true }
#define JOB_FIELDS(s, ...) \
	static const struct job_field s##_fields[] = { __VA_ARGS__ }

JOB_FIELDS(job_create, JOB_F(job_create, r_jid), JOB_F(job_create, jid),
	   JOB_F(job_create, user), JOB_F(job_create, options));
JOB_FIELDS(job_getjid, JOB_F(job_getjid, r_jid), JOB_F(job_getjid, pid));
JOB_FIELDS(job_waitjid, JOB_F(job_waitjid, r_jid), JOB_F(job_waitjid, jid),
	   JOB_F(job_waitjid, stat), JOB_F(job_waitjid, options));
JOB_FIELDS(job_killjid, JOB_F(job_killjid, r_val), JOB_F(job_killjid, jid),
	   JOB_F(job_killjid, sig));
JOB_FIELDS(job_jidcnt, JOB_F(job_jidcnt, r_val));
JOB_FIELDS(job_jidlst, JOB_F(job_jidlst, r_val), JOB_W(job_jidlst, jid));
JOB_FIELDS(job_pidcnt, JOB_F(job_pidcnt, r_val), JOB_F(job_pidcnt, jid));
JOB_FIELDS(job_pidlst, JOB_F(job_pidlst, r_val), JOB_W(job_pidlst, pid),
	   JOB_F(job_pidlst, jid));
JOB_FIELDS(job_user, JOB_F(job_user, r_user), JOB_F(job_user, jid));
JOB_FIELDS(job_primepid, JOB_F(job_primepid, r_pid),
	   JOB_F(job_primepid, jid));
JOB_FIELDS(job_sethid, JOB_W(job_sethid, r_hid), JOB_W(job_sethid, hid));
JOB_FIELDS(job_detachjid, JOB_F(job_detachjid, r_val),
	   JOB_F(job_detachjid, jid));
JOB_FIELDS(job_detachpid, JOB_F(job_detachpid, r_jid),
	   JOB_F(job_detachpid, pid));
JOB_FIELDS(job_attachpid, JOB_F(job_attachpid, r_jid),
	   JOB_F(job_attachpid, pid));

#define JOB_OP(nr, fn, s) \
	[nr] = { fn, sizeof(struct s), s##_fields, ARRAY_SIZE(s##_fields) }
#define JOB_OP_FIXED(nr, fn, s) \
	[nr] = { fn, sizeof(struct s) }

static const struct job_op job_ops[] = {
	JOB_OP(JOB_CREATE, job_ioc_create, job_create),
	JOB_OP(JOB_GETJID, job_ioc_getjid, job_getjid),
	JOB_OP(JOB_WAITJID, job_ioc_waitjid, job_waitjid),
	JOB_OP(JOB_KILLJID, job_ioc_killjid, job_killjid),
	JOB_OP(JOB_GETJIDCNT, job_ioc_getjidcnt, job_jidcnt),
	JOB_OP(JOB_GETJIDLST, job_ioc_getjidlst, job_jidlst),
	JOB_OP(JOB_GETPIDCNT, job_ioc_getpidcnt, job_pidcnt),
	JOB_OP(JOB_GETPIDLST, job_ioc_getpidlst, job_pidlst),
	JOB_OP(JOB_GETUSER, job_ioc_getuser, job_user),
	JOB_OP(JOB_GETPRIMEPID, job_ioc_getprimepid, job_primepid),
	JOB_OP(JOB_SETHID, job_ioc_sethid, job_sethid),
	JOB_OP(JOB_DETACHJID, job_ioc_detachjid, job_detachjid),
	JOB_OP(JOB_DETACHPID, job_ioc_detachpid, job_detachpid),
	JOB_OP(JOB_ATTACHPID, job_ioc_attachpid, job_attachpid),
	JOB_OP_FIXED(JOB_GETINFO, job_ioc_getinfo, job_info),
	JOB_OP_FIXED(JOB_GETACCT, job_ioc_getacct, job_acct),
	JOB_OP_FIXED(JOB_READACCT, job_ioc_readacct, job_acct),
};

union job_args {
	struct job_create create;
	struct job_getjid getjid;
	struct job_waitjid waitjid;
	struct job_killjid killjid;
	struct job_jidlst jidlst;
	struct job_pidlst pidlst;
	struct job_sethid sethid;
	struct job_info info;
	struct job_acct acct;
};

/*
 * Moves a request between its 32-bit layout in @compat and the native one;
 * returns the 32-bit size.  Words are widened with zero extension (a
 * compat_uptr_t is a zero-extended address) and narrowed by truncation.
 */
static size_t job_convert(const struct job_op *op, void *native, void *compat,
			  bool to_native)
{
	size_t off = 0, size, u64_align = pn_compat_u64_align();
	unsigned int i;

	for (i = 0; i < op->nr_fields; i++) {
		const struct job_field *f = &op->fields[i];
		void *n = native + f->offset;

		size = f->word ? 4 : f->size;
		off = ALIGN(off, min(size, u64_align));
		if (native && to_native) {
			memset(n, 0, f->size);
			memcpy(n, compat + off, size);
		} else if (native) {
			memcpy(compat + off, n, size);
		}
		off += size;
	}
	return ALIGN(off, 4);
}

static long job_ioctl_common(unsigned int cmd, void __user *uarg, bool compat)
{
	u8 compat_buf[sizeof(union job_args)];
	union job_args args;
	const struct job_op *op;
	unsigned int nr = _IOC_NR(cmd);
	void *ubuf;
	size_t usize;
	long err;

	if (_IOC_TYPE(cmd) != JOB_IOCTL_TYPE || nr >= ARRAY_SIZE(job_ops) ||
	    !job_ops[nr].handler || _IOC_SIZE(cmd) != (compat ? 4 : sizeof(void *)))
		return -EBADRQC;
	if (!uarg)
		return -EINVAL;
	op = &job_ops[nr];
	compat = compat && op->fields;
	usize = compat ? job_convert(op, NULL, NULL, false) : op->size;
	ubuf = compat ? (void *)compat_buf : (void *)&args;
	memset(&args, 0, sizeof(args));
	if (copy_from_user(ubuf, uarg, usize))
		return -EFAULT;
	/*
	 * A request whose answer cannot be written back fails before it
	 * moves, detaches or signals anything: what was read is written
	 * back first.
	 */
	if (copy_to_user(uarg, ubuf, usize))
		return -EFAULT;
	if (compat)
		job_convert(op, &args, compat_buf, true);
	err = op->handler(&args);
	if (err)
		return err;
	if (compat)
		job_convert(op, &args, compat_buf, false);
	if (copy_to_user(uarg, ubuf, usize))
		return -EFAULT;
	return 0;
}

static long job_proc_ioctl(struct file *file, unsigned int cmd,
			   unsigned long arg)
{
	return job_ioctl_common(cmd, (void __user *)arg, false);
}

#ifdef CONFIG_COMPAT
static long job_proc_compat_ioctl(struct file *file, unsigned int cmd,
				  unsigned long arg)
{
	return job_ioctl_common(cmd, compat_ptr(arg), true);
}
#endif

const struct proc_ops job_proc_ops = {
	.proc_ioctl = job_proc_ioctl,
#ifdef CONFIG_COMPAT
	.proc_compat_ioctl = job_proc_compat_ioctl,
#endif
};
