# keyring_bridge: a keyring per job, shared by its members (children forked
# later included), closed to other jobs and to outsiders, revoked when the
# job ends, and gone without a trace after 1,000 jobs and after unload; the
# "job" key type describes a job to its members only.
. /lib/pn/lib.sh

# Revoked keys stay visible (and readable as revoked) for gc_delay seconds.
gc_delay=$(cat /proc/sys/kernel/keys/gc_delay)
keys_now() { sleep 2; grep -vc ' keyring  *_uid' /proc/keys; }
pn_load pnotify
pn_load job
# The users' own keyrings come into being on first use: before the baseline.
keyctl show @s > /dev/null
pn_as_user 65534 keyctl show @s > /dev/null
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

# The job ends: a handle kept by an outsider (root, the owner) reads revoked.
holder=$(keyctl newring holder @u)
keyctl link "$serial" "$holder" || pn_fail "the owner cannot keep a link to the keyring"
jobctl kill -KILL "$jid_a"
pn_wait_job_gone "$jid_a"
keyctl list "$serial" > /tmp/revoked.out 2>&1 && pn_fail "the keyring still reads after the job ended"
grep -q 'revoked' /tmp/revoked.out || pn_fail "not revoked: $(cat /tmp/revoked.out)"
keyctl unlink "$holder" @u > /dev/null
sleep 2
keyctl print "$kid" > /tmp/key.out 2>&1 && pn_fail "the key still reads after the job ended"
jobctl kill -KILL "$jid_b"

# From here on, revoked keys are collected at once.
echo 1 > /proc/sys/kernel/keys/gc_delay

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
pn_unload job
pn_unload pnotify
