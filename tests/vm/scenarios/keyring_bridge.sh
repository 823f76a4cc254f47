# keyring_bridge: a keyring per job, shared by its members (children forked
# later included, every thread of theirs), closed to other jobs and to
# outsiders, revoked when the job ends, and gone without a trace after
# 1,000 jobs and after unload; the "job" key type describes a job to its
# members only.  Only a process that runs as the job's owner gets it as
# session keyring: one that replaced its session keyring (keyctl session,
# su with pam_keyinit) or runs as someone else (root in a user's job, su,
# a setuid program) keeps its own.
. /lib/pn/lib.sh

# Revoked keys stay visible (and readable as revoked) for gc_delay seconds.
gc_delay=$(cat /proc/sys/kernel/keys/gc_delay)
keys_now() { sleep 2; grep -vc ' keyring  *_uid' /proc/keys; }
pn_load pnotify
pn_load job
# The users' own keyrings come into being on first use: before the baseline.
keyctl show @s > /dev/null
pn_as_user 65534 keyctl show @s > /dev/null
pn_as_user 1001 keyctl show @s > /dev/null
keys_before=$(keys_now)
users_before=$(cat /proc/key-users)
pn_load keyring_bridge

# Job A: its first member adds a key, then forks a child that forks the
# grandchild which reads it.
printf s3cr3t > /tmp/secret
jobctl create -- sh -c '
	keyctl padd user secret @s < /tmp/secret > /tmp/kid
	( sh -c "keyctl print $(cat /tmp/kid) > /tmp/grandchild.out 2>&1" ) &
	exec sleep 600' > /tmp/jid_a &
pn_wait_file /tmp/jid_a /tmp/kid /tmp/grandchild.out
jid_a=$(cat /tmp/jid_a)
kid=$(cat /tmp/kid)
[ -n "$kid" ] || pn_fail "the member could not add a key to its session keyring"
pn_assert_eq "grandchild reads the key" s3cr3t "$(cat /tmp/grandchild.out)"
serial=$(jobctl keyring "$jid_a") || pn_fail "jobctl keyring"
jobctl show "$jid_a" | grep -q "keyring *$serial" || pn_fail "jobctl show has no keyring"
keyctl rdescribe "$serial" | grep -q "_job.$(printf %016x "$jid_a")" ||
	pn_fail "keyring $serial is not named after $jid_a"

# keyring_bridge does not subscribe the children of a member whose join is
# settled: their execs reach it through job (job_register_exec_watcher()).
# Nor the member itself once every thread of it has settled the join: here
# neither the joined shell, settled before its first instruction, nor its
# 5 sleepers and the awk are subscribed.
followers() { awk -v k="$1" '$1 == k { print $2 }' /proc/pnotify; }
# Once job A's forks have exited, its sleep is all that is followed.
pn_wait_until "job A's forks to exit" sh -c '[ "$(awk '\''$1 == "job" { print $2 }'\'' /proc/pnotify)" = 1 ]'
base_job=$(followers job)
base_kb=$(followers keyring_bridge)
jobctl create -- sh -c 'for i in 1 2 3 4 5; do sleep 600 & pids="$pids $!"; done
	awk '\''$1 == "job" || $1 == "keyring_bridge" { print $1, $2 }'\'' /proc/pnotify > /tmp/followers
	kill $pids' > /dev/null || pn_fail "jobctl create -- sh (sleepers)"
in_job=$(($(awk '$1 == "job" { print $2 }' /tmp/followers) - base_job))
in_kb=$(($(awk '$1 == "keyring_bridge" { print $2 }' /tmp/followers) - base_kb))
[ "$in_job" -ge 7 ] || pn_fail "the job had $in_job members, not 7"
pn_assert_eq "keyring_bridge subscriptions of a job of $in_job members" 0 "$in_kb"

# keyring_bridge's exec() is due only for a join not yet settled, its exec
# watcher only for a session keyring not the task's own: the owner's execs
# in its job, its join settled, queue no exec work, as with job's alone
# (job_forkexit); su's exec of a shell as nobody in root's job, which must
# give root's keyring up, queues one (and the su test below checks it
# did).
exec_works() { sed -n 's/^exec_works: //p' /proc/pnotify; }
queued=$(exec_works)
jobctl create -- sh -c '/bin/true; /bin/true; /bin/true' > /dev/null ||
	pn_fail "jobctl create -- sh (execs)"
queued=$(($(exec_works) - queued))
[ "$queued" = 0 ] ||
	pn_fail "the owner's execs in its job queued $queued exec works, not 0"
queued=$(exec_works)
jobctl create -- su -s /bin/sh nobody -c /bin/true > /dev/null ||
	pn_fail "jobctl create -- su nobody"
queued=$(($(exec_works) - queued))
[ "$queued" -ge 1 ] ||
	pn_fail "su to nobody in root's job queued no exec work: its exec kept root's keyring"

# A process attached later reads it too (installed in its own context).
mkfifo /tmp/go
sh -c 'read x < /tmp/go; keyctl print '"$kid"' > /tmp/attached.out 2>&1' &
attached=$!
jobctl attach "$attached" "$jid_a" || pn_fail "attach"
echo go > /tmp/go
wait "$attached"
pn_assert_eq "attached member reads the key" s3cr3t "$(cat /tmp/attached.out)"

# A member of another job (owned by nobody) and an unprivileged outsider:
# they can neither read the key nor find or read the keyring.
chmod 644 /tmp/kid
jobctl create --user 65534 -- sleep 600 > /tmp/jid_b &
pn_wait_file /tmp/jid_b
jid_b=$(cat /tmp/jid_b)
cat > /tmp/probe.sh <<PROBE
keyctl print $kid && echo LEAK
keyctl list $serial && echo LEAK
keyctl search @s keyring _job.$(printf %016x "$jid_a") && echo LEAK
exit 0
PROBE
pn_as_user 65534 sh -c 'sh /tmp/probe.sh & pid=$!; echo $pid > /tmp/probe.pid; wait $pid' > /tmp/outsider.out 2>&1
grep -q LEAK /tmp/outsider.out && pn_fail "an outsider read job A's keys: $(cat /tmp/outsider.out)"
grep -qE 'Permission denied|Required key not available' /tmp/outsider.out ||
	pn_fail "outsider: unexpected: $(cat /tmp/outsider.out)"
sleep 600 & other=$!
jobctl attach "$other" "$jid_b"
pn_as_user 65534 sh /tmp/probe.sh > /tmp/other_job.out 2>&1
grep -q LEAK /tmp/other_job.out && pn_fail "another job read job A's keys"
kill "$other"

# A user of group root who is not root is an outsider too: a link would
# give it possession, so the keyring grants its group nothing.
[ "$(pn_as_user 1001 id -g)" = 0 ] || pn_fail "user 1001 is not of group 0"
for ring in "$serial" "$(jobctl keyring "$jid_b")"; do
	pn_as_user 1001 sh -c "keyctl rdescribe $ring && echo LEAK view
		keyctl list $ring && echo LEAK read
		keyctl link $ring @u && echo LEAK link
		exit 0" > /tmp/group_root.out 2>&1
	[ "$(grep -c 'Permission denied' /tmp/group_root.out)" = 3 ] ||
		pn_fail "a user of group root reached job keyring $ring: $(cat /tmp/group_root.out)"
done

# Who gets the job keyring as session keyring.  ses NAME: the name of the
# session keyring a process of the job wrote to /tmp/NAME.ses.
ses() { sed 's/.*;//' "/tmp/$1.ses"; }
name_b=_job.$(printf %016x "$jid_b")

# A member that replaced its session keyring passes that on to its
# children, the job's keyring is not given back to them.
jobctl create -- keyctl session - sh -c '
	keyctl rdescribe @s > /tmp/new_session.ses
	sh -c "keyctl rdescribe @s > /tmp/new_session_child.ses"' > /dev/null
pn_assert_eq "keyctl session in a job: its session keyring" _ses "$(ses new_session)"
pn_assert_eq "keyctl session in a job: its child's session keyring" _ses "$(ses new_session_child)"

# Root creating a job for nobody is not given nobody's keyring; the
# process that runs as nobody (su, exec) is, and its children.
jobctl create --user 65534 -- sh -c '
	keyctl rdescribe @s > /tmp/root_in_e.ses
	su -s /bin/sh nobody -c "keyctl rdescribe @s > /tmp/nobody_in_e.ses
		sh -c \"keyctl rdescribe @s > /tmp/nobody_in_e_child.ses\""' > /tmp/jid_e
name_e=_job.$(printf %016x "$(cat /tmp/jid_e)")
[ "$(ses root_in_e)" != "$name_e" ] || pn_fail "root was given nobody's job keyring"
pn_assert_eq "nobody in nobody's job: its session keyring" "$name_e" "$(ses nobody_in_e)"
pn_assert_eq "nobody in nobody's job: its child's" "$name_e" "$(ses nobody_in_e_child)"

# su from root to nobody in root's job: the shell nobody runs gives up
# root's job keyring, which it would have possessed.
jobctl create -- su -s /bin/sh nobody -c 'keyctl rdescribe @s > /tmp/su_nobody.ses' > /tmp/jid_g
[ "$(ses su_nobody)" != "_job.$(printf %016x "$(cat /tmp/jid_g)")" ] ||
	pn_fail "nobody, after su in root's job, has root's job keyring"

# Root attached to nobody's job B is not given its keyring either.
mkfifo /tmp/go_b
sh -c 'read x < /tmp/go_b; keyctl rdescribe @s > /tmp/root_attached.ses' &
root_attached=$!
jobctl attach "$root_attached" "$jid_b" || pn_fail "attach to job B"
echo go > /tmp/go_b
wait "$root_attached"
[ "$(ses root_attached)" != "$name_b" ] || pn_fail "root attached to job B was given its keyring"

# Root in a job of nobody's holding root's job A keyring (joined by name)
# becomes nobody: the shell nobody runs gives that keyring up too, not only
# its own job's, and gets its own job's.  Serials, not names: keyctl session
# makes a keyring of that name if it finds none.
name_a=_job.$(printf %016x "$jid_a")
jobctl create --user 65534 -- keyctl session "$name_a" sh -c '
	keyctl id @s > /tmp/root_holds_a.id
	su -s /bin/sh nobody -c "keyctl id @s > /tmp/nobody_from_a.id
		keyctl rdescribe @s > /tmp/nobody_from_a.ses"' > /tmp/jid_from_a
pn_assert_eq "root in nobody's job, job A's keyring joined by name" "$serial" "$(cat /tmp/root_holds_a.id)"
[ "$(cat /tmp/nobody_from_a.id)" != "$serial" ] ||
	pn_fail "nobody, after su from root holding job A's keyring, still has it"
pn_assert_eq "nobody, after su from root holding job A's keyring" \
	"_job.$(printf %016x "$(cat /tmp/jid_from_a)")" "$(ses nobody_from_a)"

# Whether keyring_bridge follows as many processes as it did at kb_before.
kb_followers_back() { [ "$(followers keyring_bridge)" = "$kb_before" ]; }

# A join settled ends the subscription; a later one subscribes the process
# anew.  A member detached from its job, keeping that job's keyring, and
# attached to job A gets A's, and so do the children it forks.
mkfifo /tmp/go_m
kb_before=$(followers keyring_bridge)
jobctl create -- sh -c 'read x < /tmp/go_m; keyctl rdescribe @s > /tmp/moved.ses
	sh -c "keyctl rdescribe @s > /tmp/moved_child.ses"' > /tmp/jid_m &
moved=$!
pn_wait_file /tmp/jid_m
pn_wait_until "the moving member's join to end its subscription" kb_followers_back
jobctl detach -p "$moved" || pn_fail "detach the moving member"
jobctl attach "$moved" "$jid_a" || pn_fail "attach the moving member to job A"
echo go > /tmp/go_m
wait "$moved"
pn_assert_eq "a member moved to job A: its session keyring" "$name_a" "$(ses moved)"
pn_assert_eq "a member moved to job A: its child's" "$name_a" "$(ses moved_child)"

# Detached and attached again to the same job (kept alive by its sleep),
# a member joins with that job's keyring as its session keyring already:
# nothing is left to settle, and its subscription ends too; it and its
# children keep the job's keyring.
mkfifo /tmp/go_r
kb_before=$(followers keyring_bridge)
jobctl create -- sh -c 'sleep 600 & read x < /tmp/go_r; keyctl rdescribe @s > /tmp/again.ses
	sh -c "keyctl rdescribe @s > /tmp/again_child.ses"' > /tmp/jid_r &
again=$!
pn_wait_file /tmp/jid_r
name_r=_job.$(printf %016x "$(cat /tmp/jid_r)")
pn_wait_until "the member's first join to end its subscription" kb_followers_back
kb_exits() { awk '$1 == "keyring_bridge" { print $5 }' /proc/pnotify; }
exits=$(kb_exits)
jobctl detach -p "$again" || pn_fail "detach the member"
jobctl attach "$again" "$(cat /tmp/jid_r)" || pn_fail "attach the member to its job again"
pn_wait_until "the member's second join to end its subscription" kb_followers_back
[ "$(kb_exits)" -gt "$exits" ] ||
	pn_fail "the member attached again had no keyring_bridge subscription to end"
echo go > /tmp/go_r
wait "$again"
pn_assert_eq "a member attached again to its job: its session keyring" "$name_r" "$(ses again)"
pn_assert_eq "a member attached again to its job: its child's" "$name_r" "$(ses again_child)"
jobctl kill -KILL "$(cat /tmp/jid_r)"

# su to root in nobody's job, as su does with pam_keyinit: a setuid root
# program becomes root, joins a new session keyring and forks; the child's
# session keyring is not the job's, and nobody's processes in the job
# cannot read the key it adds there.
cp /usr/local/bin/job_keyring /tmp/su_fork
chmod 4755 /tmp/su_fork
jobctl create --user 65534 -- su -s /bin/sh nobody -c '
	keyctl rdescribe @s > /tmp/nobody_in_f.ses
	/tmp/su_fork su-fork > /tmp/su_fork.out 2>&1
	key=$(sed -n "s/.*key=//p" /tmp/su_fork.out)
	{ keyctl print "$key" && echo LEAK; keyctl list @s; } > /tmp/nobody_reads.out 2>&1
	keyctl show @s > /tmp/nobody_keyring.out 2>&1' > /tmp/jid_f
pn_assert_eq "nobody in job F: its session keyring" \
	"_job.$(printf %016x "$(cat /tmp/jid_f)")" "$(ses nobody_in_f)"
grep -q '^session=[0-9]* key=[0-9]*$' /tmp/su_fork.out || pn_fail "su-fork: $(cat /tmp/su_fork.out)"
grep -q "^ *$(sed -n 's/session=\([0-9]*\).*/\1/p' /tmp/su_fork.out) .*_job\." /tmp/nobody_keyring.out &&
	pn_fail "su to root in nobody's job: the child's session keyring is the job's: $(cat /tmp/su_fork.out /tmp/nobody_keyring.out)"
grep -q LEAK /tmp/nobody_reads.out && pn_fail "nobody read root's key: $(cat /tmp/nobody_reads.out)"
grep -q root-secret /tmp/nobody_keyring.out && pn_fail "root's key is in nobody's job keyring: $(cat /tmp/nobody_keyring.out)"

# A setuid round trip (newgrp, sg, sudo to oneself): the setuid exec gives
# the job's keyring up, the exec back as the owner gets it again, and so
# do the children forked after.
jobctl create --user 65534 -- su -s /bin/sh nobody -c '
	/tmp/su_fork drop-back sh -c "keyctl rdescribe @s > /tmp/dropped_back.ses
		sh -c \"keyctl rdescribe @s > /tmp/dropped_back_child.ses\""' > /tmp/jid_h
name_h=_job.$(printf %016x "$(cat /tmp/jid_h)")
pn_assert_eq "nobody back from a setuid exec: its session keyring" "$name_h" "$(ses dropped_back)"
pn_assert_eq "nobody back from a setuid exec: its child's" "$name_h" "$(ses dropped_back_child)"

# A setuid program of another user run by the owner: the real uid stays
# the owner's, the effective one is nobody's, and the exec gives the job's
# keyring up all the same.
cp "$(command -v keyctl)" /tmp/keyctl_nobody
chown 65534 /tmp/keyctl_nobody
chmod 4755 /tmp/keyctl_nobody
jobctl create -- sh -c '/tmp/keyctl_nobody rdescribe @s > /tmp/setuid_other.out 2>&1' > /dev/null ||
	pn_fail "jobctl create -- a setuid program of nobody's"
grep -q _job /tmp/setuid_other.out &&
	pn_fail "root's setuid-nobody program kept the job's keyring: $(cat /tmp/setuid_other.out)"

# The "job" key type: a member requests its job's description (its shell,
# a sleep and the reading keyctl are the job's 3 processes).
jobctl create -- sh -c '
	sleep 600 &
	while [ ! -s /tmp/jid_d ]; do sleep 0.1; done
	key=$(keyctl request job "$(printf %d "$(cat /tmp/jid_d)")" 2> /tmp/jobkey.out) &&
		keyctl print "$key" > /tmp/jobkey.out 2>&1
	echo "$key" > /tmp/jobkey
	exec sleep 600' > /tmp/jid_d &
pn_wait_file /tmp/jid_d /tmp/jobkey
jid_d=$(cat /tmp/jid_d)
grep -q "^jid=$(printf %#x "$jid_d") owner=0 prime_pid=[0-9]* processes=3 tasks=3 " /tmp/jobkey.out ||
	pn_fail "keyctl request job: $(cat /tmp/jobkey.out)"
pn_as_user 65534 keyctl request job "$jid_d" > /tmp/jobkey_nobody.out 2>&1 &&
	pn_fail "nobody got job $jid_d's description"
grep -q 'Required key not available' /tmp/jobkey_nobody.out ||
	pn_fail "nobody: $(cat /tmp/jobkey_nobody.out)"
pn_as_user 65534 keyctl print "$(cat /tmp/jobkey)" > /tmp/jobkey_nobody.out 2>&1 &&
	pn_fail "nobody read job $jid_d's key"
keyctl request job no-jid > /tmp/jobkey_bad.out 2>&1 && pn_fail "a job key for no-jid"
grep -q 'Invalid argument' /tmp/jobkey_bad.out || pn_fail "no-jid: $(cat /tmp/jobkey_bad.out)"
keyctl request job 0x7fffffff > /tmp/jobkey_none.out 2>&1 && pn_fail "a job key for no job"
grep -q 'Required key not available' /tmp/jobkey_none.out ||
	pn_fail "no job: $(cat /tmp/jobkey_none.out)"
jobctl kill -KILL "$jid_d"
pn_wait_job_gone "$jid_d"

# The job ends: a handle kept by an outsider (root, the owner) reads revoked,
# and the key in it, which the owner possessed through that handle (its
# user permissions are view only), no longer reads.
holder=$(keyctl newring holder @u)
keyctl link "$serial" "$holder" || pn_fail "the owner cannot keep a link to the keyring"
keyctl print "$kid" > /tmp/key.out 2>&1 ||
	pn_fail "the owner cannot read the key through its link: $(cat /tmp/key.out)"
jobctl kill -KILL "$jid_a"
pn_wait_job_gone "$jid_a"
keyctl list "$serial" > /tmp/revoked.out 2>&1 && pn_fail "the keyring still reads after the job ended"
grep -q 'revoked' /tmp/revoked.out || pn_fail "not revoked: $(cat /tmp/revoked.out)"
keyctl print "$kid" > /tmp/key.out 2>&1 &&
	pn_fail "the key still reads through the owner's link after the job ended"
keyctl unlink "$holder" @u > /dev/null
jobctl kill -KILL "$jid_b"

# From here on, revoked keys are collected at once.
echo 1 > /proc/sys/kernel/keys/gc_delay

# Credentials are per thread: a multi-threaded process that creates a job
# has the keyring installed in every thread, those created during the
# create included, and the children a thread forks once the create
# returned have it from their start.
rounds=$(pn_scale 20)
job_keyring threads "$rounds" > /tmp/threads.out 2>&1 ||
	pn_fail "job_keyring threads $rounds: $(tail -n 5 /tmp/threads.out)"
pn_log "$(tail -n 1 /tmp/threads.out), last: $(tail -n 2 /tmp/threads.out | head -n 1)"

# 1,000 jobs made and ended leave /proc/keys as it was.
jobs=$(pn_scale 1000)
i=0
while [ "$i" -lt "$jobs" ]; do
	jobctl create -- true > /dev/null || pn_fail "job $i"
	i=$((i + 1))
done
pn_log "$jobs jobs created and ended"

# Unloading while a job lives is safe; once it ends nothing is left.
jobctl create -- sleep 600 > /tmp/jid_c &
pn_wait_file /tmp/jid_c
jobctl keyring "$(cat /tmp/jid_c)" > /dev/null || pn_fail "job C has no keyring"
insmod "$PN_MODDIR/job_watcher_rival.ko" 2> /tmp/rival_busy.err &&
	pn_fail "a second exec watcher loaded beside keyring_bridge's"
grep -q busy /tmp/rival_busy.err ||
	pn_fail "job_watcher_rival's load: $(cat /tmp/rival_busy.err)"
pn_unload keyring_bridge
jobctl kill -KILL "$(cat /tmp/jid_c)"
# Revoked keys, and links to them, go at the next collection (gc_delay 1 s).
n=0
until [ "$(keys_now)" = "$keys_before" ] && [ "$(cat /proc/key-users)" = "$users_before" ]; do
	n=$((n + 1))
	[ "$n" -lt 10 ] || pn_fail "keys left: $(keys_now) (before: $keys_before); users: $(cat /proc/key-users) (before: $users_before)"
done
pn_log "/proc/keys and /proc/key-users as before"
echo "$gc_delay" > /proc/sys/kernel/keys/gc_delay

# job has one exec watcher, whose due() is its own exec_due(): another
# module's keeps keyring_bridge out, which says why, and the reverse.  A
# keyring_bridge that failed to load, or that watched no exec (mode=link),
# leaves the other's in place.
pn_load job_watcher_rival
for try in 1 2; do
	insmod "$PN_MODDIR/keyring_bridge.ko" 2> /tmp/kb_busy.err &&
		pn_fail "keyring_bridge loaded beside another exec watcher (try $try)"
	grep -q busy /tmp/kb_busy.err || pn_fail "keyring_bridge's load: $(cat /tmp/kb_busy.err)"
done
dmesg | grep -q "keyring_bridge: job's exec watcher is another module's" ||
	pn_fail "keyring_bridge did not say why it could not load"
pn_load keyring_bridge mode=link
pn_unload keyring_bridge
insmod "$PN_MODDIR/keyring_bridge.ko" 2> /tmp/kb_busy.err &&
	pn_fail "keyring_bridge in mode=link took the other exec watcher's place"
grep -q busy /tmp/kb_busy.err ||
	pn_fail "keyring_bridge's load after mode=link: $(cat /tmp/kb_busy.err)"
pn_unload job_watcher_rival

# mode=link links the job's keyring into the session keyring of the
# owner's process only if that is the owner's: root's, here held by nobody
# too, would give nobody the job's keys.  The owner's process gets a
# session keyring of its own with the job's linked in.
pn_load keyring_bridge mode=link
# In mode=link no exec is watched: job's exec watcher is free.
pn_load job_watcher_rival
pn_unload job_watcher_rival
keyctl session shared sh -c '
	jobctl create --user 1000 -- su -s /bin/sh pnuser -c "
		keyctl rdescribe @s > /tmp/link_member.ses
		j=\$(keyctl show @s | awk \"/_job\\\\./ { print \\\$1; exit }\")
		keyctl add user tok pnuser-secret \"\$j\" > /tmp/link_key.tmp
		mv /tmp/link_key.tmp /tmp/link_key
		exec sleep 600" > /tmp/link_jid &
	while [ ! -e /tmp/link_key ]; do usleep 100000; done
	su -s /bin/sh nobody -c "keyctl rdescribe @s > /tmp/link_nobody.ses
		keyctl print \$(cat /tmp/link_key) > /tmp/link_nobody.out 2>&1 && echo LEAK >> /tmp/link_nobody.out"
	jobctl kill -KILL "$(head -n 1 /tmp/link_jid)"
	wait'
pn_assert_eq "mode=link: nobody's session keyring" shared "$(ses link_nobody)"
pn_assert_eq "mode=link: the member's session keyring" _ses "$(ses link_member)"
grep -q '^[0-9][0-9]*$' /tmp/link_key || pn_fail "mode=link: the member added no key to its job keyring"
grep -q LEAK /tmp/link_nobody.out && pn_fail "mode=link: nobody read the job's key: $(cat /tmp/link_nobody.out)"

# mode=link, a process whose leader exited and whose threads hold
# different session keyrings: the join's run goes to a thread that chose
# its own, and the run it queues for the thread that kept the leader's
# (root's own, so counted as sharing the job's keyring once linked) must
# not be dropped by the subscription's end before it links it.
jobctl create -- sleep 600 > /tmp/split_jid &
pn_wait_file /tmp/split_jid
rounds=$(pn_scale 20)
job_keyring split "$(cat /tmp/split_jid)" "$rounds" > /tmp/split.out 2>&1 ||
	pn_fail "job_keyring split: $(tail -n 3 /tmp/split.out)"
pn_log "$(tail -n 1 /tmp/split.out)"
jobctl kill -KILL "$(cat /tmp/split_jid)"
pn_unload keyring_bridge
pn_unload job
pn_unload pnotify
