# Sourced by pnotify-install-check (guest-check.sh) after
# guest-integrations.sh, with its functions and Slurm configuration: pam_job
# and spank_job with several users on one node.  No plugin may put a
# process into, take keys from, or signal a job of another user.
#
#   pjuser  (A)  login sessions, with a key in their job keyring
#   pjslurm (B)  Slurm jobs whose ids cover the lower halves of A's JIDs
#   pjsquat      pre-creates keyrings named as the next jobs' keyrings
# shellcheck disable=SC2154 # $user comes from guest-integrations.sh

user_b=pjslurm
squatter=pjsquat
for u in "$user_b" "$squatter"; do
	id "$u" > /dev/null 2>&1 || useradd -m -s /bin/sh "$u"
done
xdir=/tmp/pnotify-xuser
rm -rf "$xdir"
mkdir -p "$xdir"
chmod 1777 "$xdir"
# The lower 32 bits of a JID.
jid_low() { echo $(( $1 & 0xffffffff )); }

# (a) su - from a root-owned job: the session gets a job of its own, and
# the user never reads root's job keys.
echo "cross-user: su from a root-owned job"
cat > "$xdir/root-job.sh" <<EOF
#!/bin/sh
keyctl add user pnotify_root_secret r00t-s3cret @s > /dev/null
echo "outer=\$(jstat | awk 'NR == 3 { print \$1 }')"
su - $user -c $xdir/su-probe.sh
EOF
cat > "$xdir/su-probe.sh" <<'EOF'
#!/bin/sh
echo "inner=$JOB_JID"
echo "owner=$(jobctl list | awk -v j="$JOB_JID" '$1 == j { print $2 }')"
echo "rootkey=$(keyctl print %user:pnotify_root_secret 2>&1)"
EOF
chmod 755 "$xdir/root-job.sh" "$xdir/su-probe.sh"
echo "session optional pam_job.so keyring" >> /etc/pam.d/common-session
jobctl create -- "$xdir/root-job.sh" > "$xdir/su.out" 2>&1
sed -i '/^session optional pam_job.so keyring$/d' /etc/pam.d/common-session
cat "$xdir/su.out"
su_outer=$(sed -n 's/^outer=//p' "$xdir/su.out")
su_inner=$(sed -n 's/^inner=//p' "$xdir/su.out")
check "cross-user: su - $user from root's job $su_outer: a job of the user's own ($su_inner)" \
	test -n "$su_outer" -a -n "$su_inner" -a "$su_outer" != "$su_inner"
check "cross-user: su - $user: the session's job is owned by $user" \
	grep -qx "owner=$user" "$xdir/su.out"
check "cross-user: su - $user: root's job key is out of reach" \
	sh -c "grep -q '^rootkey=' '$xdir/su.out' && ! grep -q 'r00t-s3cret' '$xdir/su.out'"

# (b) Keyrings named as the next kernel-chosen JIDs' (_job.<JID>), made by
# another user with search granted to all: the session possesses its real
# job keyring, never the squatter's.  keyring_bridge mode=link, where the
# plugin has to find the job's keyring itself.
echo "cross-user: squatted job keyring names"
modprobe -r keyring_bridge && modprobe keyring_bridge mode=link
last=$(jobctl create -- true)
names=
for k in $(seq 1 10); do
	names="$names $(printf '_job.%016x' $(( last + k )))"
done
cat > "$xdir/squat.sh" <<EOF
#!/bin/sh
for n in $names; do
	k=\$(keyctl newring "\$n" @s) && keyctl setperm "\$k" 0x3f0b0b0b
done
echo ready
exec sleep 600
EOF
chmod 755 "$xdir/squat.sh"
su "$squatter" -c "keyctl session - $xdir/squat.sh" > "$xdir/squat.out" 2>&1 &
squat_pid=$!
check "cross-user: $squatter made keyrings _job.<JID> for the 10 JIDs after $last" \
	wait_for 120 grep -qx ready "$xdir/squat.out"
# The session's first program as the user is what gets the job's keyring
# (job(7)): the probe looks as the user.
cat > /usr/local/sbin/pam-job-keyring-probe <<'EOF'
#!/bin/sh
{
	echo "jid=$JOB_JID"
	echo "job_keyring=$(jobctl keyring "$JOB_JID")"
	setpriv --reuid="$PAM_USER" --regid="$(id -g "$PAM_USER")" --init-groups \
		sh -c 'echo "session_keyring=$(keyctl rdescribe @s)"
			echo "held_keyring=$(keyctl search @s keyring "_job.${JOB_JID#0x}" 2>&1)"'
} > /tmp/pam-job-keyring-probe.out 2>&1
EOF
chmod 755 /usr/local/sbin/pam-job-keyring-probe
squat_uid=$(id -u "$squatter")
for opts in keyring "keyring fatal"; do
	cat > /etc/pam.d/pnotify-job-xuser <<EOF
auth	required	pam_permit.so
account	required	pam_permit.so
session	required	pam_job.so $opts
session	required	pam_exec.so /usr/local/sbin/pam-job-keyring-probe
EOF
	rm -f /tmp/pam-job-keyring-probe.out
	check "cross-user: squatted names, pam_job $opts: the session opens" \
		pamtester pnotify-job-xuser "$user" open_session
	cat /tmp/pam-job-keyring-probe.out
	sq_jid=$(sed -n 's/^jid=//p' /tmp/pam-job-keyring-probe.out 2>/dev/null)
	check "cross-user: squatted names, pam_job $opts: $squatter had squatted _job.${sq_jid#0x}" \
		sh -c "[ -n '$sq_jid' ] && echo '$names' | grep -qw '_job.${sq_jid#0x}'"
	check "cross-user: squatted names, pam_job $opts: the session keyring is not $squatter's" \
		sh -c "grep -q '^session_keyring=keyring;' /tmp/pam-job-keyring-probe.out &&
			! grep -q '^session_keyring=keyring;$squat_uid;' /tmp/pam-job-keyring-probe.out"
	job_ring=$(sed -n 's/^job_keyring=//p' /tmp/pam-job-keyring-probe.out 2>/dev/null)
	check "cross-user: squatted names, pam_job $opts: the session holds job $sq_jid's own keyring ($job_ring)" \
		sh -c "[ -n '$job_ring' ] && grep -qx 'held_keyring=$job_ring' /tmp/pam-job-keyring-probe.out"
done
kill "$squat_pid" 2>/dev/null
rm -f /etc/pam.d/pnotify-job-xuser
modprobe -r keyring_bridge && modprobe keyring_bridge

# (c) User A's login sessions, one with a kernel-chosen JID and one with
# pam_job's hid= equal to the node's host id, open while user B's Slurm
# jobs run with every id around each session's lower half.
echo "cross-user: Slurm jobs of $user_b around $user's login JIDs"
jsethid 2a
cat > "$xdir/a-session.sh" <<'EOF'
#!/bin/sh
# A's login: a key, its JID, and the key read again on request.
keyctl add user pnotify_a_secret a-s3cret @s > /dev/null
echo "$JOB_JID" > "$1.jid"
while :; do
	[ -e "$1.ask" ] && keyctl print %user:pnotify_a_secret > "$1.key" 2>&1
	sleep 1
done
EOF
chmod 755 "$xdir/a-session.sh"
a_sessions=
for opts in "" hid=2a; do
	sess=a${opts:+-hid}
	echo "session optional pam_job.so keyring $opts" > /etc/pam.d/pnotify-xuser-common
	sed -i '1i @include pnotify-xuser-common' /etc/pam.d/su
	su "$user" -c "$xdir/a-session.sh $xdir/$sess" > /dev/null 2>&1 &
	wait_for 30 test -s "$xdir/$sess.jid"
	sed -i '/^@include pnotify-xuser-common$/d' /etc/pam.d/su
	a_sessions="$a_sessions $sess"
done
rm -f /etc/pam.d/pnotify-xuser-common
for sess in $a_sessions; do
	printf '%s: JID %s, processes %s\n' "$sess" "$(cat "$xdir/$sess.jid")" \
		"$(job_pids "$(cat "$xdir/$sess.jid")" | tr '\n' ' ')"
done
check "cross-user: $user's two sessions in jobs" sh -c \
	"for n in $a_sessions; do [ -n \"\$(jobctl pids \$(cat $xdir/\$n.jid))\" ] || exit 1; done"
check "cross-user: the hid=2a session's JID has the node's host id 0x2a" \
	grep -qx '0x0000002a[0-9a-f]\{8\}' "$xdir/a-hid.jid"

# Restarts slurmctld with a clean state whose next job id is $1; jobs
# share the node (select/linear gives each a whole node otherwise).
slurm_first_id() {
	systemctl stop slurmctld
	systemctl start munge
	rm -rf /var/lib/slurm/slurmctld/*
	sed -i -e '/^FirstJobId=/d' -e '/^PartitionName=/s/ OverSubscribe=[^ ]*//' \
		-e '/^PartitionName=/s/$/ OverSubscribe=FORCE:20/' /etc/slurm/slurm.conf
	echo "FirstJobId=$1" >> /etc/slurm/slurm.conf
	systemctl start slurmctld
	systemctl restart slurmd
	wait_for 90 sh -c "sinfo -h -o %T 2>/dev/null | grep -qx idle"
}
cat > "$xdir/b-job.sh" <<'EOF'
#!/bin/sh
echo "jid=$(jstat | awk 'NR == 3 { print $1 }')"
echo "akey=$(keyctl print %user:pnotify_a_secret 2>&1)"
sleep 600
EOF
chmod 755 "$xdir/b-job.sh"
for sess in $a_sessions; do
	a_jid=$(cat "$xdir/$sess.jid")
	low=$(jid_low "$a_jid")
	first=$(( low > 2 ? low - 2 : 1 ))
	check "cross-user: slurmctld restarted, next Slurm job id $first" \
		slurm_first_id "$first"
	b_ids=
	for k in 1 2 3 4 5; do
		b_ids="$b_ids $(su "$user_b" -c "sbatch --parsable -o $xdir/b-%j.out $xdir/b-job.sh")"
	done
	echo "Slurm jobs of $user_b:$b_ids"
	squeue
	check "cross-user: Slurm job ids$b_ids cover $low, the lower half of $user's JID $a_jid" \
		sh -c "echo '$b_ids' | grep -qw '$low'"
	for id in $b_ids; do
		b_jid=$(printf '0x%08x00000000' "$id")
		check "cross-user: Slurm job $id of $user_b runs" \
			wait_for 120 grep -q '^akey=' "$xdir/b-$id.out"
		cat "$xdir/b-$id.out"
		check "cross-user: Slurm job $id's task is in its own JID $b_jid" \
			grep -qx "jid=$b_jid" "$xdir/b-$id.out"
		check "cross-user: Slurm job $id cannot read $user's key" \
			sh -c "! grep -q 'a-s3cret' '$xdir/b-$id.out'"
	done
	check "cross-user: $user's job $a_jid holds no process of $user_b" sh -c \
		"for p in \$(jobctl pids $a_jid); do [ \"\$(ps -o user= -p \$p)\" != $user_b ] || exit 1; done"
	for id in $b_ids; do scancel "$id"; done
	check "cross-user: scancel: $user_b's Slurm jobs$b_ids gone" wait_for 120 sh -c \
		"[ -z \"\$(squeue -h -u $user_b 2>/dev/null)\" ]"
	# The epilogs run as the jobs leave the queue.
	sleep 5
	check "cross-user: scancel: $user's session $a_jid is alive" \
		test -n "$(job_pids "$a_jid")"
	touch "$xdir/$sess.ask"
	check "cross-user: $user's session $a_jid still reads its key" \
		wait_for 30 grep -qx a-s3cret "$xdir/$sess.key"
	cat "$xdir/$sess.key"
	jkill -KILL "$a_jid"
done
grep 'spank_job' /var/log/slurm/slurmd.log | tail -n 20

# (d) keys=: a token given in the environment of sbatch (not in its argv)
# and, the way users also do, in --export=ALL,VAR=value, which Slurm copies
# into SLURM_EXPORT_ENV; a second step reads the key; jsethid while the job
# runs changes neither its later steps' JID nor what its epilog kills.
echo "cross-user: keys= and jsethid"
cat > "$xdir/t-job.sh" <<'EOF'
#!/bin/sh
echo "env token: ${PNOTIFY_TEST_TOKEN:-none}"
echo "export list: ${SLURM_EXPORT_ENV:-unset}"
setsid sleep 700 &
echo "escaped=$!"
sleep 600
EOF
cat > "$xdir/t-step.sh" <<'EOF'
#!/bin/sh
echo "step jid=$(jstat | awk 'NR == 3 { print $1 }')"
echo "step key=$(keyctl print %user:PNOTIFY_TEST_TOKEN 2>&1)"
echo "step env=${PNOTIFY_TEST_TOKEN:-none} ${SLURM_EXPORT_ENV:-unset}"
EOF
chmod 755 "$xdir/t-job.sh" "$xdir/t-step.sh"
jsethid 2a
t_env=$(su "$user_b" -c "PNOTIFY_TEST_TOKEN=env-t0ken sbatch --parsable -o $xdir/t-%j.out $xdir/t-job.sh")
t_exp=$(su "$user_b" -c "sbatch --parsable --export=ALL,PNOTIFY_TEST_TOKEN=exp-t0ken -o $xdir/t-%j.out $xdir/t-job.sh")
for id in $t_env $t_exp; do
	check "cross-user: keys=: Slurm job $id runs" \
		wait_for 120 grep -q '^escaped=' "$xdir/t-$id.out"
done
jsethid 2b
for id in $t_env $t_exp; do
	su "$user_b" -c "srun --jobid=$id --overlap -n 2 $xdir/t-step.sh" > "$xdir/t-$id.step" 2>&1
	cat "$xdir/t-$id.out" "$xdir/t-$id.step"
	tjid=$(printf '0x%08x00000000' "$id")
	check "cross-user: keys=: Slurm job $id: the token left the batch step's environment" \
		grep -qx "env token: none" "$xdir/t-$id.out"
	check "cross-user: keys=: Slurm job $id: not in SLURM_EXPORT_ENV" \
		sh -c "grep -q '^export list: ' '$xdir/t-$id.out' && ! grep -q 't0ken' '$xdir/t-$id.out'"
	check "cross-user: keys=: Slurm job $id: both tasks of a second step read the key" \
		test "$(grep -c '^step key=[a-z]*-t0ken$' "$xdir/t-$id.step")" = 2
	check "cross-user: keys=: Slurm job $id: nor is it in the second step's environment" \
		test "$(grep -c '^step env=none ' "$xdir/t-$id.step")" = 2
	check "cross-user: jsethid 2b while Slurm job $id runs: its second step is in $tjid" \
		test "$(grep -cx "step jid=$tjid" "$xdir/t-$id.step")" = 2
done
# Steps share the job's keyring: one that brings another value for the key
# fails and leaves the key alone, one with the same value runs.
t_step() {
	su "$user_b" -c "$1 srun --jobid=$t_env --overlap -n 1 $xdir/t-step.sh" > "$xdir/t-$2.step" 2>&1
	echo "step $2: exit status $?" >> "$xdir/t-$2.step"
	cat "$xdir/t-$2.step"
}
t_step PNOTIFY_TEST_TOKEN=oth3r-t0ken other
t_step PNOTIFY_TEST_TOKEN=env-t0ken same
t_step "" after
check "cross-user: keys=: a step of Slurm job $t_env with another value fails" \
	sh -c "! grep -q '^step key=' '$xdir/t-other.step' && ! grep -q 'exit status 0$' '$xdir/t-other.step'"
check "cross-user: keys=: slurmd's log says why" grep -q \
	'spank_job: keys=: the job keyring holds PNOTIFY_TEST_TOKEN already, with another value' \
	/var/log/slurm/slurmd.log
check "cross-user: keys=: a step with the same value runs and reads it" \
	grep -qx 'step key=env-t0ken' "$xdir/t-same.step"
check "cross-user: keys=: the key keeps its value for the next step" \
	grep -qx 'step key=env-t0ken' "$xdir/t-after.step"
check "cross-user: keys=: no process's environment holds a token" \
	sh -c "! grep -l -a 't0ken' /proc/[0-9]*/environ 2>/dev/null"
escaped_t=$(sed -n 's/^escaped=//p' "$xdir/t-$t_env.out")
scancel "$t_env" "$t_exp"
check "cross-user: scancel: Slurm jobs $t_env and $t_exp gone" wait_for 120 sh -c \
	"[ -z \"\$(squeue -h -u $user_b 2>/dev/null)\" ]"
check "cross-user: the epilog killed Slurm job $t_env's escaped process $escaped_t (JID fixed at its start)" \
	wait_for 20 sh -c "[ -n '$escaped_t' ] && ! kill -0 '$escaped_t' 2>/dev/null"
check "cross-user: keys=: no token in slurmd's and slurmctld's logs" \
	sh -c "! grep -q 't0ken' /var/log/slurm/slurmd.log /var/log/slurm/slurmctld.log"

# (e) An epilog that cannot clean up fails, and Slurm drains the node: a
# process of the job that left Slurm's process group is stuck in a write to
# a frozen file system, where SIGKILL waits for the thaw.
echo "cross-user: an epilog that cannot clean up drains the node"
frozen=/mnt/pnotify-frozen
mkdir -p "$frozen"
modprobe loop 2> /dev/null
truncate -s 64M "$xdir/frozen.img"
mkfs.ext4 -q -F "$xdir/frozen.img"
check "cross-user: a scratch ext4 file system on $frozen" \
	mount -o loop "$xdir/frozen.img" "$frozen"
chmod 1777 "$frozen"
cat > "$xdir/f-job.sh" <<EOF
#!/bin/sh
setsid sh -c 'echo \$\$ > $xdir/f.pid; exec dd if=/dev/zero of=$frozen/f bs=1M count=8 conv=fsync' &
sleep 600
EOF
chmod 755 "$xdir/f-job.sh"
fsfreeze -f "$frozen"
f_id=$(su "$user_b" -c "sbatch --parsable -o $xdir/f-%j.out $xdir/f-job.sh")
check "cross-user: Slurm job $f_id's escaped writer is stuck on the frozen file system" \
	wait_for 120 sh -c "[ -s $xdir/f.pid ] && [ \"\$(awk '{ print \$3 }' /proc/\$(cat $xdir/f.pid)/stat)\" = D ]"
f_pid=$(cat "$xdir/f.pid" 2>/dev/null)
scancel "$f_id"
check "cross-user: the epilog of Slurm job $f_id fails and the node drains" \
	wait_for 120 sh -c "sinfo -h -N -o '%T' | grep -q drain"
sinfo -N -o '%N %T %E'
check "cross-user: the epilog of Slurm job $f_id says why in slurmd's log" \
	grep -q "spank_job: Slurm job $f_id: 1 processes of job .* still alive 10 s after SIGKILL" \
	/var/log/slurm/slurmd.log
fsfreeze -u "$frozen"
check "cross-user: thawed, the writer $f_pid dies of the epilog's SIGKILL" \
	wait_for 30 sh -c "[ -n '$f_pid' ] && ! kill -0 '$f_pid' 2>/dev/null"
umount "$frozen"
scontrol update nodename="$host" state=resume
systemctl stop slurmd slurmctld munge
sed -i -e '/^FirstJobId=/d' -e '/^PartitionName=/s/ OverSubscribe=[^ ]*//' /etc/slurm/slurm.conf
jsethid 0

# (f) Root's processes in a user's login session, made by the real login
# (on a pty), sudo and su: the owner's jkill signals only what kill(2) lets
# the owner signal, and fails with EPERM once nothing else is left; root's
# jkill ends the job.  pam_job in common-session, as README.md says; sudo's
# stack has only common-session-noninteractive, so its command stays in the
# session's job, while su to root gets a job of root's own.  Both are
# started with setsid, out of the terminal's hangup when the session ends.
echo "cross-user: the owner's kill and root's processes of a login session"
login_user=pjlogin
login_shell=/usr/local/sbin/pnotify-login-shell
cat > "$login_shell" <<EOF
#!/bin/sh
echo "\$JOB_JID" > $xdir/login.jid
setsid sudo -n sleep 6001 < /dev/null > $xdir/sudo.out 2>&1 &
setsid su -c 'exec sleep 6002' < /dev/null > $xdir/su-root.out 2>&1 &
sleep 6003 &
exec sleep 6004
EOF
chmod 755 "$login_shell"
id "$login_user" > /dev/null 2>&1 || useradd -m -s "$login_shell" "$login_user"
echo "$login_user ALL=(root) NOPASSWD: ALL" > /etc/sudoers.d/pnotify-test
chmod 440 /etc/sudoers.d/pnotify-test
cp /etc/pam.d/su "$xdir/pam-su"
# su to root from the user without a terminal: the test's only shortcut.
sed -i '1i auth sufficient pam_permit.so' /etc/pam.d/su
echo "session optional pam_job.so" >> /etc/pam.d/common-session
mkfifo "$xdir/login.in"
# exec: login must lead the pty's session.  Under a unit, script runs the
# command with /bin/sh (dash), which forks for it: util-linux's login
# (Debian 13) then stops on SIGTTOU setting up the tty.
script -qfc "exec login -f $login_user" /dev/null < "$xdir/login.in" > "$xdir/login.out" 2>&1 &
exec 3> "$xdir/login.in"
as_owner() {
	setpriv --reuid="$login_user" --regid="$(id -g "$login_user")" --init-groups "$@"
}
# The pid of the process running "sleep $1" (or nothing).
sleeper() { pgrep -f -x "sleep $1"; }
# The JID of the job process $1 is in (or nothing).
job_of() {
	for j in $(jobctl list | awk '$1 ~ /^0x/ { print $1 }'); do
		jobctl pids "$j" 2> /dev/null | grep -qx "$1" && echo "$j"
	done
}
stopped() { [ "$(awk '{ print $3 }' "/proc/$1/stat" 2> /dev/null)" = T ]; }
all_stopped() { for p; do stopped "$p" || return 1; done; }
none_stopped() { for p; do [ -e "/proc/$p/stat" ] && ! stopped "$p" || return 1; done; }
show_pids() { ps -o pid,ruser,euser,suser,stat,args -p "$(echo "$1" | paste -sd, -)"; }
check "cross-user: login -f $login_user on a pty: its session runs sudo, su and its own processes" \
	wait_for 120 sh -c "[ -s $xdir/login.jid ] && pgrep -f -x 'sleep 600[1-4]' | wc -l | grep -qx 4"
cat "$xdir/login.out" "$xdir/sudo.out" "$xdir/su-root.out"
l_jid=$(cat "$xdir/login.jid" 2>/dev/null)
l_pids=$(job_pids "$l_jid")
show_pids "$l_pids"
login_pid=$(pgrep -x login)
check "cross-user: login's own process (root) is in the session's job $l_jid" \
	has_line "$login_pid" "$l_pids"
check "cross-user: sudo's command (root) is in the session's job $l_jid" \
	has_line "$(sleeper 6001)" "$l_pids"
su_jid=$(job_of "$(sleeper 6002)")
check "cross-user: su to root in the session gets a job of root's own ($su_jid)" \
	test -n "$su_jid" -a "$(jobctl list | awk -v j="$su_jid" '$1 == j { print $2 }')" = root
# kill(2)'s verdict for each process, asked as the owner before the kill.
killable=
for p in $l_pids; do
	as_owner kill -0 "$p" 2> /dev/null && killable="$killable $p"
done
check "cross-user: the owner's jkill -STOP $l_jid succeeds" as_owner jkill -STOP "$l_jid"
sleep 1
show_pids "$l_pids"
wrong=
for p in $l_pids; do
	case " $killable " in
	*" $p "*) stopped "$p" || wrong="$wrong $p" ;;
	*) ! stopped "$p" || wrong="$wrong $p" ;;
	esac
done
check "cross-user: the owner's jkill stopped just what kill(2) lets the owner signal ($killable)" \
	test -z "$wrong"
check "cross-user: the owner's jkill stopped neither login nor sudo's command" \
	none_stopped "$login_pid" "$(sleeper 6001)"
check "cross-user: the owner's jkill stopped the owner's processes" \
	all_stopped "$(sleeper 6003)" "$(sleeper 6004)"
as_owner jkill -CONT "$l_jid"
check "cross-user: the owner's jkill -KILL $l_jid succeeds" as_owner jkill -KILL "$l_jid"
check "cross-user: the owner's processes are gone, login ends with its shell" \
	wait_for 30 sh -c "[ -z \"\$(pgrep -f -x 'sleep 600[34]')\" ] && ! kill -0 $login_pid 2> /dev/null"
check "cross-user: sudo's command outlives the owner's kill" test -n "$(sleeper 6001)"
as_owner jkill -KILL "$l_jid" > "$xdir/owner-kill.out" 2>&1
echo "owner's jkill, exit status $?" >> "$xdir/owner-kill.out"
show_pids "$(job_pids "$l_jid")"
cat "$xdir/owner-kill.out"
check "cross-user: with only root's processes left, the owner's jkill fails with EPERM" \
	sh -c "grep -q 'Operation not permitted' '$xdir/owner-kill.out' && grep -qx 'owner.s jkill, exit status 1' '$xdir/owner-kill.out'"
check "cross-user: root's jkill -KILL $l_jid succeeds" jkill -KILL "$l_jid"
check "cross-user: root's jkill ends the job" \
	wait_for 30 sh -c "[ -z \"\$(jobctl pids $l_jid 2> /dev/null)\" ]"
exec 3>&-
kill "$(sleeper 6002)" 2> /dev/null
cp "$xdir/pam-su" /etc/pam.d/su
sed -i '/^session optional pam_job.so$/d' /etc/pam.d/common-session
rm -f /etc/sudoers.d/pnotify-test
