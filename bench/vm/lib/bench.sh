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
#   B  pnotify, job and keyring_bridge loaded, the process outside any job,
#      no job since they were loaded (pnotify is loaded anew: its hooks are
#      not armed yet)
#   F  as B, after a job came and went: the hooks disarmed (pnotify's
#      idle_ms set to 0 for that job alone)
#   E  as B, while another job is alive (the hooks armed)
#   C  inside a job, one subscriber (job)
#   D  inside a job, two subscribers (job and keyring_bridge)
# and the kernel's own grouping:
#   pids  no module loaded, the process in a child cgroup v2 with the pids
#         controller
# A label CFG/SYNC loads pnotify with sync=SYNC (default: pnotify's own);
# CFG@REV loads the modules of /lib/pn/modules-REV (bench-compare's other
# build) instead of /lib/pn/modules.

# The modules loaded now, in load order: "pnotify:SYNC@REV job@REV ...".
bench_loaded=''
BENCH_CGROUP=/sys/fs/cgroup/bench-pids

# bench_modules_for CFG[/SYNC][@REV]: the module list a configuration needs.
bench_modules_for() {
	_rev=${1#*@}
	[ "$_rev" = "$1" ] && _rev=''
	_cfg=${1%@*}
	_sync=${_cfg#*/}
	[ "$_sync" = "$_cfg" ] && _sync=default
	case ${_cfg%%/*} in
	A|pids) echo '' ;;
	B|D|E|F) echo "pnotify:$_sync@$_rev job@$_rev keyring_bridge@$_rev" ;;
	C) echo "pnotify:$_sync@$_rev job@$_rev" ;;
	*) pn_fail "unknown configuration $1" ;;
	esac
}

# E's other job: its JID, and the jobctl that waits for it.
bench_other_jid=''
bench_other_pid=''

# Ends E's other job, if there is one.
bench_end_other_job() {
	[ -n "$bench_other_pid" ] || return 0
	jobctl kill -KILL "$bench_other_jid" > /dev/null
	wait "$bench_other_pid"
	bench_other_jid='' bench_other_pid=''
}

# bench_config CFG[/SYNC][@REV]: unloads and loads modules, as few as it
# can, until exactly the configuration's are loaded (B: all of them anew).
bench_config() {
	_cfg=$1
	_want=$(bench_modules_for "$_cfg")
	bench_end_other_job
	# The common prefix of what is loaded and what is wanted stays.
	# shellcheck disable=SC2086 # a list of words
	set -- $_want
	_nkeep=0
	for _m in $bench_loaded; do
		[ "${_cfg%%[/@]*}" != B ] && [ "$_m" = "${1:-}" ] || break
		_nkeep=$((_nkeep + 1))
		shift
	done
	_i=0 _drop=''
	for _m in $bench_loaded; do
		_i=$((_i + 1))
		[ "$_i" -gt "$_nkeep" ] && _drop="${_m%%[:@]*} $_drop"
	done
	for _m in $_drop; do
		rmmod "$_m" || pn_fail "rmmod $_m"
	done
	for _m in "$@"; do
		_dir=$PN_MODDIR
		[ -n "${_m#*@}" ] && _dir=$PN_MODDIR-${_m#*@}
		_m=${_m%@*}
		case $_m in
		pnotify:default) insmod "$_dir/pnotify.ko" ;;
		pnotify:*) insmod "$_dir/pnotify.ko" "sync=${_m#*:}" ;;
		*) insmod "$_dir/$_m.ko" ;;
		esac || pn_fail "insmod $_dir/$_m"
	done
	bench_loaded=$_want
	case ${_cfg%%[/@]*} in
	pids)
		if ! echo +pids > /sys/fs/cgroup/cgroup.subtree_control ||
			! mkdir -p "$BENCH_CGROUP"; then
			pn_fail "a pids cgroup"
		fi ;;
	F)
		grep -q '^hook_disarm: when idle' /proc/pnotify ||
			pn_fail "F: the hooks never disarm on this kernel"
		_idle_ms=$(cat /sys/module/pnotify/parameters/idle_ms)
		echo 0 > /sys/module/pnotify/parameters/idle_ms
		jobctl create -- true > /dev/null || pn_fail "F's job"
		pn_wait_until "F: the hooks disarmed" pn_hooks_disarmed
		echo "$_idle_ms" > /sys/module/pnotify/parameters/idle_ms ;;
	E)
		rm -f /tmp/bench-other-job
		jobctl create -- sleep 1000000 > /tmp/bench-other-job &
		bench_other_pid=$!
		pn_wait_until "E's other job" grep -q . /tmp/bench-other-job
		bench_other_jid=$(head -n 1 /tmp/bench-other-job) ;;
	esac
	# Patching kernel text (kprobes, module load) makes TCG drop its
	# translations: a burst of forks retranslates the hot paths before
	# anything is measured.
	bench_in "$_cfg" forkexit -q "${PN_BENCH_WARMUP_FORKS:-300}" > /dev/null ||
		pn_fail "warm-up in $_cfg"
}

# bench_in CFG CMD...: runs CMD where the configuration puts the process
# (C and D: in a new job; pids: in the pids cgroup); prints CMD's output
# only.
bench_in() {
	case ${1%%[/@]*} in
	C|D)
		shift
		jobctl create -- "$@" | tail -n +2 ;;
	pids)
		shift
		# shellcheck disable=SC2016 # the inner shell's
		sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$BENCH_CGROUP" "$@" ;;
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
