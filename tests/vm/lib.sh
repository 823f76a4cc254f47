# Helpers for VM scenarios (busybox sh); sourced as /lib/pn/lib.sh.
# shellcheck shell=sh

PN_MODDIR=/lib/pn/modules

pn_log() { echo "pn: $*"; }

pn_fail() {
	echo "FAIL: $*"
	exit 1
}

# pn_load MODULE [PARAM=VALUE...]; pnotify also gets PN_PNOTIFY_PARAMS
# (run.sh --env, e.g. idle_ms=0 to disarm its hooks after every job).
pn_load() {
	_m=$1
	shift
	# shellcheck disable=SC2086 # a list of parameters
	[ "$_m" != pnotify ] || set -- "$@" ${PN_PNOTIFY_PARAMS:-}
	insmod "$PN_MODDIR/$_m.ko" "$@" || pn_fail "insmod $_m $*"
	pn_log "loaded $_m $*"
}

# pn_unload MODULE
pn_unload() {
	rmmod "$1" || pn_fail "rmmod $1"
	pn_log "unloaded $1"
}

# pn_skip REASON: this kernel cannot run the scenario (exit status 77).
pn_skip() {
	echo "SKIP: $*"
	exit 77
}

# pn_assert_eq NAME EXPECTED ACTUAL
pn_assert_eq() {
	[ "$2" = "$3" ] || pn_fail "$1: expected '$2', got '$3'"
	pn_log "ok $1 = '$3'"
}

# pn_as_user UID CMD [ARGS...]: run CMD as the /etc/passwd user with UID
# (busybox setpriv cannot change uids, so this uses su, which needs no
# password when run by root). Returns CMD's exit status.
pn_as_user() {
	_user=$(awk -F: -v uid="$1" '$3 == uid { print $1; exit }' /etc/passwd)
	[ -n "$_user" ] || pn_fail "pn_as_user: no user with uid $1 in /etc/passwd"
	shift
	# "--" keeps su from taking options of CMD (e.g. sh -c) as its own
	su -s /bin/sh -c 'exec "$@"' -- "$_user" pn_as_user "$@"
}

# pn_wait_until WHAT CMD...: wait until CMD succeeds (up to 60 s, or 600 s
# on a slow kernel); fail naming WHAT otherwise.
# True when pnotify's hooks are all disarmed (/proc/pnotify).
pn_hooks_disarmed() {
	! grep -q '^hook: .* armed$' /proc/pnotify
}

pn_wait_until() {
	_what=$1
	shift
	_limit=600
	pn_slow && _limit=6000
	_n=0
	until "$@" > /dev/null 2>&1; do
		_n=$((_n + 1))
		[ "$_n" -lt "$_limit" ] || pn_fail "$_what: not after $((_limit / 10)) s"
		usleep 100000
	done
}

# pn_wait_file FILE...: wait until each FILE has content.
pn_wait_file() {
	for _f in "$@"; do
		pn_wait_until "content in $_f" test -s "$_f"
	done
}

# pn_in_waitjid PID: true if PID sleeps in the job module's waitjid.  Where
# wchan reads 0 (5.10 with the ORC unwinder), an interruptible sleep in
# ioctl(2) (64-bit 16, 32-bit 54) on a descriptor that is /proc/job.
pn_in_waitjid() {
	grep -q waitjid "/proc/$1/wchan" 2>/dev/null && return 0
	read -r _nr _fd _ < "/proc/$1/syscall" 2>/dev/null || return 1
	read -r _ _ _state _ < "/proc/$1/stat" 2>/dev/null || return 1
	[ "$_state" = S ] && { [ "$_nr" = 16 ] || [ "$_nr" = 54 ]; } &&
		[ "$(readlink "/proc/$1/fd/$((_fd))")" = /proc/job ]
}

# pn_wait_blocked PID: wait until PID sleeps in the job module's waitjid.
pn_wait_blocked() {
	pn_wait_until "process $1 waiting for its job" pn_in_waitjid "$1"
}

# pn_wait_job_gone JID: wait until the job has ended.
pn_wait_job_gone() {
	pn_wait_until "the end of job $1" sh -c "! jobctl pids $1"
}

# pn_slow: true on a slow (debug) kernel, where PN_SCALE_PCT < 100.
pn_slow() {
	[ "${PN_SCALE_PCT:-100}" -lt 100 ]
}

# pn_scale N: N scaled by PN_SCALE_PCT percent (default 100), at least 1.
pn_scale() {
	_n=$(($1 * ${PN_SCALE_PCT:-100} / 100))
	[ "$_n" -ge 1 ] || _n=1
	echo "$_n"
}

# pn_test_build KNOB: true if pnotify (loaded) is the test build, which has
# the parameter KNOB and said so at load; false if it is not, which fails
# the scenario where the lane requires the test build (PN_EXPECT_TEST_BUILD=1,
# tests/run-all.sh's debug-unload lane).
pn_test_build() {
	if [ ! -e "/sys/module/pnotify/parameters/$1" ]; then
		[ "${PN_EXPECT_TEST_BUILD:-0}" != 1 ] ||
			pn_fail "PN_EXPECT_TEST_BUILD=1, but pnotify is not the test build (no parameter $1)"
		return 1
	fi
	dmesg | grep -q 'pnotify: test build' ||
		pn_fail "the test build did not say so at load"
	return 0
}
