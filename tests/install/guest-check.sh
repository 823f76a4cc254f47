#!/bin/sh
# Runs in the installed Debian system at boot (pnotify-install-check.service):
# checks that the modules were loaded by systemd-modules-load from the DKMS
# build, runs jobtest, then the PAM and Slurm integrations
# (guest-integrations.sh), prints one "@@PNI PASS|FAIL name" line per check
# on the console, then powers the machine off.
exec > /dev/ttyS0 2>&1

# pnotify.checks=LIST on the kernel command line (run.sh --checks LIST)
# runs only those of jobtest, integrations, cross-user and keyrings.
checks=$(sed -n 's/.*pnotify\.checks=\([^ ]*\).*/\1/p' /proc/cmdline)
wants() {
	case ",${checks:-jobtest,integrations,cross-user,keyrings}," in
	*",$1,"*) return 0 ;;
	*) return 1 ;;
	esac
}

pass() { echo "@@PNI PASS $*"; }
fail() { echo "@@PNI FAIL $*"; }
check() {
	name=$1
	shift
	if "$@"; then pass "$name"; else fail "$name"; fi
}

echo "@@PNI BEGIN $(uname -r)"
kver=$(uname -r)
for m in pnotify job; do
	check "boot: module $m loaded (/proc/modules)" grep -q "^$m " /proc/modules
	path=$(modinfo -n "$m" 2>/dev/null)
	echo "$m: $path"
	case $path in
	/lib/modules/"$kver"/updates/dkms/"$m".ko*) pass "boot: $m is the DKMS build" ;;
	*) fail "boot: $m is the DKMS build ($path)" ;;
	esac
done
check "boot: systemd-modules-load.service succeeded" \
	systemctl is-active --quiet systemd-modules-load.service
check "boot: /proc/job and /proc/pnotify exist" test -e /proc/job -a -e /proc/pnotify
lsmod | grep -E '^(pnotify|job|keyring_bridge) '

jid=$(jobctl create -- true 2>&1)
check "boot: jobctl create runs a job ($jid)" test -n "$jid"

if wants jobtest; then
	# jobtest lowers pid_max to 1000 for its pid wrap test: let udev finish
	# loading the modules of the boot (kvm, ...) first, as a booted machine
	# would have (a run during the coldplug saw the system shut down).
	udevadm settle --timeout=180
	echo "jobtest: starting"
	timeout 600 stdbuf -oL -eL jobtest > /tmp/jobtest.out 2>&1 &
	pid=$!
	tail -n +1 -f /tmp/jobtest.out --pid=$pid | sed -u 's/^/jobtest: /'
	wait $pid
	rc=$?
	cp /tmp/jobtest.out /tmp/jobtest.log
	if grep -qx 'Great.  All tests completed, no errors' /tmp/jobtest.log && [ "$rc" = 0 ]; then
		pass "boot: jobtest: Great.  All tests completed, no errors"
	else
		fail "boot: jobtest (exit status $rc)"
	fi
fi
wants integrations && . /usr/local/sbin/pnotify-integration-check
wants cross-user && . /usr/local/sbin/pnotify-cross-user-check
wants keyrings && . /usr/local/sbin/pnotify-keyring-check

if dmesg | grep -E 'BUG:|WARNING:|Oops|Call Trace|general protection fault' > /tmp/splats; then
	sed 's/^/splat: /' /tmp/splats
	fail "boot: no kernel splat"
else
	pass "boot: no kernel splat"
fi
echo "@@PNI END"
systemctl poweroff --no-block
