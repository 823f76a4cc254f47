# Helpers for the benchmark scenarios (busybox sh); sourced as
# /lib/pn/bench.sh.  Results leave the VM as console lines
#   bench: TABLE key=value...
# which bench/report.py turns into tables and plots.
# shellcheck shell=sh
. /lib/pn/lib.sh

# shellcheck disable=SC2034 # the scenarios' round count
BENCH_RUNS=${PN_BENCH_RUNS:-5}

# The configurations of the seed's reports:
#   A  no module loaded
#   B  pnotify, job and keyring_bridge loaded, the process outside any job
#   C  inside a job, one subscriber (job)
#   D  inside a job, two subscribers (job and keyring_bridge)
# A label CFG/SYNC loads pnotify with sync=SYNC (default: pnotify's own).

# The modules loaded now, in load order: "pnotify:SYNC job ...".
bench_loaded=''

# bench_modules_for CFG/SYNC: the module list a configuration needs.
bench_modules_for() {
	_sync=${1#*/}
	[ "$_sync" = "$1" ] && _sync=default
	case ${1%%/*} in
	A) echo '' ;;
	B|D) echo "pnotify:$_sync job keyring_bridge" ;;
	C) echo "pnotify:$_sync job" ;;
	*) pn_fail "unknown configuration $1" ;;
	esac
}

# bench_config CFG/SYNC: unloads and loads modules, as few as it can, until
# exactly the configuration's are loaded.
bench_config() {
	_want=$(bench_modules_for "$1")
	# The common prefix of what is loaded and what is wanted stays.
	# shellcheck disable=SC2086 # a list of words
	set -- $_want
	_nkeep=0
	for _m in $bench_loaded; do
		[ "$_m" = "${1:-}" ] || break
		_nkeep=$((_nkeep + 1))
		shift
	done
	_i=0 _drop=''
	for _m in $bench_loaded; do
		_i=$((_i + 1))
		[ "$_i" -gt "$_nkeep" ] && _drop="${_m%%:*} $_drop"
	done
	for _m in $_drop; do
		rmmod "$_m" || pn_fail "rmmod $_m"
	done
	for _m in "$@"; do
		case $_m in
		pnotify:default) insmod "$PN_MODDIR/pnotify.ko" ;;
		pnotify:*) insmod "$PN_MODDIR/pnotify.ko" "sync=${_m#*:}" ;;
		*) insmod "$PN_MODDIR/$_m.ko" ;;
		esac || pn_fail "insmod $_m"
	done
	bench_loaded=$_want
	# Patching kernel text (kprobes, module load) makes TCG drop its
	# translations: a burst of forks retranslates the hot paths before
	# anything is measured.
	bench_in "$1" forkexit -q "${PN_BENCH_WARMUP_FORKS:-300}" > /dev/null ||
		pn_fail "warm-up in $1"
}

# bench_in CFG CMD...: runs CMD where the configuration puts the process
# (C and D: in a new job); prints CMD's output only.
bench_in() {
	case ${1%%/*} in
	C|D)
		shift
		jobctl create -- "$@" | tail -n +2 ;;
	*)
		shift
		"$@" ;;
	esac
}

# bench_emit TABLE KEY=VALUE...: one result row for the host.
bench_emit() {
	echo "bench: $*"
}

# bench_field NAME: the value of NAME=VALUE among the words on stdin.
bench_field() {
	tr ' ' '\n' | sed -n "s/^$1=//p" | tail -n 1
}

# bench_uptime: seconds since boot, to 10 ms.
bench_uptime() {
	cut -d' ' -f1 /proc/uptime
}

# bench_module_run CMD: runs a pnotify_bench.ko command; prints its result.
bench_module_run() {
	echo "$1" > /proc/pnotify_bench || pn_fail "pnotify_bench: $1"
	cat /proc/pnotify_bench
}
