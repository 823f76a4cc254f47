# Sourced by pnotify-install-check (guest-check.sh) in the booted test
# system, after jobtest, with its pass, fail and check functions: pam_job
# under the real PAM stack (pamtester, su) and spank_job under the real Slurm
# daemons (munge, slurmctld, slurmd).  Each check prints one @@PNI line.

user=pjuser
probe_out=/tmp/pam-job-probe.out

# Waits up to $1 seconds for the command that follows to succeed.
wait_for() {
	deadline=$(( $(date +%s) + $1 ))
	shift
	until "$@"; do
		[ "$(date +%s)" -lt "$deadline" ] || return 1
		sleep 0.5
	done
}

# The PAM service "pnotify-job-test", with pam_job's options $*, then
# pam_exec running the probe in the session (with the PAM environment).
pam_service() {
	cat > /etc/pam.d/pnotify-job-test <<EOF
auth	required	pam_permit.so
account	required	pam_permit.so
session	required	pam_job.so $*
session	required	pam_exec.so stdout /usr/local/sbin/pam-job-probe
EOF
}

# A job's processes, one pid a line ("" when there is no such job).
job_pids() { jobctl pids "$1" 2>/dev/null; }
# Is the word $1 (not empty) one of the lines of $2?
has_line() { [ -n "$1" ] && printf '%s\n' "$2" | grep -qx -- "$1"; }

modprobe keyring_bridge
id "$user" > /dev/null 2>&1 || useradd -m -s /bin/sh "$user"
uid=$(id -u "$user")

# What a process of the session sees: its JOB_JID, whether it is one of
# that job's processes, the job's owner and its session keyring.
cat > /usr/local/sbin/pam-job-probe <<'EOF'
#!/bin/sh
{
	echo "jid=$JOB_JID"
	jobctl pids "$JOB_JID" | grep -qx "$$" && echo "member=yes"
	echo "owner=$(jobctl list | awk -v j="$JOB_JID" '$1 == j { print $2 }')"
	echo "session_keyring=$(keyctl rdescribe @s)"
} > /tmp/pam-job-probe.out 2>&1
EOF
chmod 755 /usr/local/sbin/pam-job-probe

# (a) pamtester: a session in a job of its own, the job's keyring as
# session keyring.
echo "pam_job: pamtester"
pam_service keyring debug
rm -f "$probe_out"
check "pam_job: pamtester open_session with keyring succeeds" \
	pamtester pnotify-job-test "$user" open_session
cat "$probe_out"
jid=$(sed -n 's/^jid=//p' "$probe_out" 2>/dev/null)
check "pam_job: JOB_JID in the session's environment ($jid)" \
	test -n "$jid"
check "pam_job: the session's process is in job $jid" \
	grep -qx member=yes "$probe_out"
check "pam_job: job $jid is owned by $user" grep -qx "owner=$user" "$probe_out"
keyring_name=$(printf '_job.%s' "${jid#0x}")
# The probe runs as root (pam_exec): it gave the user's keyring up at its
# exec (job(7)); guest-keyrings.sh checks the user's processes have it.
check "pam_job: keyring: root's probe in $user's session has not $keyring_name" \
	sh -c "grep -q '^session_keyring=' '$probe_out' && ! grep -q ';$keyring_name\$' '$probe_out'"

# A session opened by a process already in a job of the session's user
# stays in that job.
rm -f "$probe_out"
outer=$(jobctl create --user "$user" -- pamtester pnotify-job-test "$user" open_session | head -n 1)
inner=$(sed -n 's/^jid=//p' "$probe_out" 2>/dev/null)
check "pam_job: a session opened in job $outer stays in it ($inner)" \
	test -n "$outer" -a "$outer" = "$inner"

# hid=: the upper half of the JID is the option's, the node's is left alone.
pam_service hid=2b
node_hid=$(cat /sys/module/job/parameters/hid)
rm -f "$probe_out"
pamtester pnotify-job-test "$user" open_session
hid_jid=$(sed -n 's/^jid=//p' "$probe_out" 2>/dev/null)
check "pam_job: hid=2b: JID $hid_jid has host id 0x2b in its upper half" \
	sh -c "printf '%s\n' '$hid_jid' | grep -qx '0x0000002b[0-9a-f]\{8\}'"
check "pam_job: hid=2b: the node's host id is still $node_hid" \
	grep -qx "$node_hid" /sys/module/job/parameters/hid

# (b) su: pam_job in common-session, as README.md says to enable it.
echo "pam_job: su"
echo "session optional pam_job.so" >> /etc/pam.d/common-session
su_out=$(su "$user" -c 'echo "$JOB_JID $$"; jobctl pids "$JOB_JID"' 2>&1)
sed -i '/^session optional pam_job.so$/d' /etc/pam.d/common-session
echo "$su_out"
su_jid=${su_out%% *}
su_shell=$(echo "$su_out" | head -n 1 | cut -d' ' -f2)
check "pam_job: su: the session's shell $su_shell is in job $su_jid" \
	has_line "$su_shell" "$(echo "$su_out" | tail -n +2)"

# fatal, and SGI's default: no job module.
echo "pam_job: without job.ko"
modprobe -r keyring_bridge job
pam_service fatal
check "pam_job: fatal: no job.ko, the session is refused" \
	sh -c "! pamtester pnotify-job-test $user open_session"
pam_service
check "pam_job: default: no job.ko, the session opens" \
	pamtester pnotify-job-test "$user" open_session
check "pam_job: default: the failure is logged" wait_for 10 sh -c \
	"journalctl -q -o cat | grep -q 'pam_job(pnotify-job-test:session): no job for the session of $user: the kernel has no job support'"
rm -f /etc/pam.d/pnotify-job-test
modprobe job && modprobe keyring_bridge
check "pam_job: job.ko and keyring_bridge loaded again" test -e /proc/job -a -e /proc/keyring_bridge

# (c) Slurm: one node, this one.  proctrack/pgid, Slurm's process tracking
# by process group, which a setsid leaves: the escaped process is then
# spank_job's to kill.
echo "spank_job: Slurm"
host=$(hostname -s)
# What debootstrap leaves out and an installed host has: its name in
# /etc/hosts, and an address besides loopback (the guest has no network
# card; without one, getaddrinfo(AI_ADDRCONFIG) finds no address for
# slurmctld to listen on).
grep -q "[[:space:]]$host\$" /etc/hosts 2>/dev/null ||
	printf '127.0.0.1\tlocalhost\n127.0.1.1\t%s\n' "$host" >> /etc/hosts
mkdir -p /etc/systemd/network
printf '[NetDev]\nName=dummy0\nKind=dummy\n' > /etc/systemd/network/pnotify-test.netdev
printf '[Match]\nName=dummy0\n[Network]\nAddress=192.0.2.1/24\n' \
	> /etc/systemd/network/pnotify-test.network
systemctl start systemd-networkd
check "spank_job: an address besides loopback (dummy0 192.0.2.1)" \
	wait_for 30 grep -q '192\.0\.2\.1' /proc/net/fib_trie
# SlurmUser: the user Debian's slurmctld.service runs the daemon as (slurm
# from 24.11 on, Debian 13: it cannot switch to root; root before).
slurm_user=$(systemctl show -P User slurmctld.service)
slurm_user=${slurm_user:-root}
mkdir -p /var/lib/slurm/slurmctld /var/lib/slurm/slurmd /var/log/slurm
chown "$slurm_user:" /var/lib/slurm/slurmctld /var/log/slurm
cat > /etc/slurm/slurm.conf <<EOF
ClusterName=pnotify
SlurmctldHost=$host(127.0.0.1)
SlurmUser=$slurm_user
AuthType=auth/munge
ProctrackType=proctrack/pgid
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/linear
MpiDefault=none
KillWait=5
StateSaveLocation=/var/lib/slurm/slurmctld
SlurmdSpoolDir=/var/lib/slurm/slurmd
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
SlurmdDebug=info
ReturnToService=2
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
# slurmd 22.05 always sets up its cgroup plugin, and cgroup/v2 asks
# systemd over D-Bus for a scope: this minimal system has no D-Bus daemon,
# so the plugin makes the scope's cgroup itself.
printf 'CgroupPlugin=cgroup/v2\nIgnoreSystemd=yes\n' > /etc/slurm/cgroup.conf
echo "required spank_job.so keys=PNOTIFY_TEST_TOKEN" > /etc/slurm/plugstack.conf.d/spank_job.conf
# The node's host id, in the upper half of kernel-chosen JIDs (a Slurm job's
# JID does not depend on it).
jsethid 2a
systemctl start munge slurmctld slurmd
if wait_for 90 sh -c "sinfo -h -o %T 2>/dev/null | grep -qx idle"; then
	pass "spank_job: slurmctld and slurmd up, node idle"
else
	fail "spank_job: slurmctld and slurmd up, node idle"
	tail -n 15 /var/log/slurm/slurmctld.log /var/log/slurm/slurmd.log
fi
sinfo

# The job's script leaves its process group: a double fork with setsid,
# which proctrack/pgid does not follow.
cat > /tmp/escape.sh <<'EOF'
#!/bin/sh
echo "env token: ${PNOTIFY_TEST_TOKEN:-none}"
echo "key token: $(keyctl print %user:PNOTIFY_TEST_TOKEN 2>&1)"
setsid sh -c 'sleep 10000 & echo $! > /tmp/escaped.pid' &
sleep 10000
EOF
chmod 755 /tmp/escape.sh
rm -f /tmp/escaped.pid
slurm_id=$(su "$user" -c 'PNOTIFY_TEST_TOKEN=s3cret sbatch --parsable -o /tmp/slurm-%j.out /tmp/escape.sh')
slurm_jid=$(printf '0x%08x00000000' "${slurm_id:-0}")
check "spank_job: sbatch: Slurm job $slurm_id running, escaped process started" \
	wait_for 90 test -s /tmp/escaped.pid
escaped=$(cat /tmp/escaped.pid 2>/dev/null)
jobctl list
check "spank_job: jobctl list shows JID $slurm_jid (Slurm job $slurm_id << 32)" \
	sh -c "jobctl list | grep -q '^$slurm_jid $user '"
script_pid=$(jobctl list | awk -v j="$slurm_jid" '$1 == j { print $4 }')
script_session=$(ps -o sid= -p "$script_pid" 2>/dev/null | tr -d ' ')
escaped_session=$(ps -o sid= -p "$escaped" 2>/dev/null | tr -d ' ')
check "spank_job: the escaped process $escaped left the script's session ($escaped_session, not $script_session)" \
	test -n "$escaped_session" -a -n "$script_session" -a "$escaped_session" != "$script_session"
check "spank_job: the escaped process $escaped is in job $slurm_jid" \
	has_line "$escaped" "$(job_pids "$slurm_jid")"

# An srun step beside the batch step: its two tasks join the Slurm job's
# JID (the first one that comes creates it if the batch step has not).
cat > /tmp/own-jid.sh <<'EOF'
#!/bin/sh
jstat | awk 'NR == 3 { print $1 }'
EOF
chmod 755 /tmp/own-jid.sh
srun_out=$(su "$user" -c "srun --jobid=$slurm_id --overlap -n 2 /tmp/own-jid.sh" 2>&1)
echo "$srun_out"
check "spank_job: srun: both tasks of a step of Slurm job $slurm_id in job $slurm_jid" \
	test "$(printf '%s\n' "$srun_out" | grep -cx "$slurm_jid")" = 2
scancel "$slurm_id"
check "spank_job: scancel: Slurm job $slurm_id gone" wait_for 90 sh -c \
	"[ -n '$slurm_id' ] && [ -z \"\$(squeue -h -j '$slurm_id' 2>/dev/null)\" ]"
check "spank_job: scancel: the escaped process $escaped is dead" \
	wait_for 15 sh -c "[ -n '$escaped' ] && ! kill -0 '$escaped' 2>/dev/null"
check "spank_job: scancel: job $slurm_jid is gone" \
	sh -c "[ -n '$slurm_id' ] && ! jobctl list | grep -q '^$slurm_jid '"
cat "/tmp/slurm-$slurm_id.out"
check "spank_job: keys=: the token left the environment" \
	grep -qx "env token: none" "/tmp/slurm-$slurm_id.out"
check "spank_job: keys=: the token is in the job's keyring" \
	grep -qx "key token: s3cret" "/tmp/slurm-$slurm_id.out"
grep 'spank_job' /var/log/slurm/slurmd.log
check "spank_job: accounting of the batch step in slurmd's log" grep -q \
	"spank_job: batch step end: job $slurm_jid (Slurm job $slurm_id): user .* s, system .* s, peak RSS [0-9]* kB, read [0-9]* B, written [0-9]* B" \
	/var/log/slurm/slurmd.log
check "spank_job: the Slurm job's end killed what was left of job $slurm_jid" grep -q \
	"spank_job: Slurm job $slurm_id ended: SIGKILL to what was left of job $slurm_jid" \
	/var/log/slurm/slurmd.log
check "spank_job: final accounting at the Slurm job's end" wait_for 15 grep -q \
	"spank_job: Slurm job end: job $slurm_jid (Slurm job $slurm_id): .*, ended" \
	/var/log/slurm/slurmd.log
systemctl stop slurmd slurmctld munge
jsethid 0
