#!/bin/sh
# Guest side of tests/check-icount-smp.sh: the boot got both vCPUs online
# under -icount, and two jobs fork on them at once.
. /lib/pn/lib.sh

online=$(cat /sys/devices/system/cpu/online)
[ "$online" = 0-1 ] || pn_fail "CPUs online: $online, want 0-1"
pn_load pnotify
pn_load job
pn_load keyring_bridge
for i in 1 2; do
	jobctl create -- forkexit -q 500 > "/tmp/forkexit.$i" 2>&1 &
done
wait
for i in 1 2; do
	grep -q 'errors=0' "/tmp/forkexit.$i" ||
		pn_fail "forkexit in job $i: $(cat "/tmp/forkexit.$i")"
done
pn_unload keyring_bridge
pn_unload job
pn_unload pnotify
pn_log "2 CPUs online under -icount, 2 jobs of 500 forks each"
