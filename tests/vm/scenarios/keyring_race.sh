# keyring_race: no job keyring outlives its job, whatever races.  10,000
# rounds (10% on the debug kernel) of processes creating two jobs whose
# JIDs are reused at once, attaching themselves to them as they end, being
# attached by another process, and ending them with a detach while other
# members' keyrings are being installed.  Every member that joined has its
# job's live keyring as session keyring, never another job's; afterwards
# /proc/keys, /proc/key-users and /proc/keyring_bridge are as before.
. /lib/pn/lib.sh

keys_now() { grep -vc ' keyring  *_uid' /proc/keys; }
pn_load pnotify
pn_load job
keyctl show @s > /dev/null
gc_delay=$(cat /proc/sys/kernel/keys/gc_delay)
echo 1 > /proc/sys/kernel/keys/gc_delay
keys_before=$(keys_now)
users_before=$(cat /proc/key-users)
pn_load keyring_bridge

rounds=$(pn_scale 10000)
job_keyring race "$rounds" > /tmp/race.out 2>&1
rc=$?
cat /tmp/race.out
[ "$rc" = 0 ] || pn_fail "job_keyring race $rounds: exit status $rc"
pn_log "$rounds rounds raced"
[ "$(jobctl list | grep -c '^0x0000007a')" = 0 ] || pn_fail "jobs left: $(jobctl list)"
[ "$(grep -vc '^mode:' /proc/keyring_bridge)" = 0 ] ||
	pn_fail "keyrings left in /proc/keyring_bridge: $(cat /proc/keyring_bridge)"
# Revoked keys, and links to them, go at the next collections.
n=0
until [ "$(keys_now)" = "$keys_before" ] && [ "$(cat /proc/key-users)" = "$users_before" ]; do
	n=$((n + 1))
	[ "$n" -lt 15 ] || pn_fail "keys left: $(keys_now) (before: $keys_before): $(grep _job /proc/keys); users: $(cat /proc/key-users) (before: $users_before)"
	sleep 2
done
pn_log "/proc/keys and /proc/key-users as before"
echo "$gc_delay" > /proc/sys/kernel/keys/gc_delay
pn_unload keyring_bridge
pn_unload job
pn_unload pnotify
