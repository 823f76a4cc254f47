# Helpers for VM scenarios (busybox sh); sourced as /lib/pn/lib.sh.
# shellcheck shell=sh

PN_MODDIR=/lib/pn/modules

pn_log() { echo "pn: $*"; }

pn_fail() {
	echo "FAIL: $*"
	exit 1
}

# pn_load MODULE [PARAM=VALUE...]
pn_load() {
	_m=$1
	shift
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
