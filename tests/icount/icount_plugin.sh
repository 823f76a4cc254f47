#!/bin/sh
# Guest side of tests/check-icount-plugin.sh: opcount's operations with no module
# and in a job, each between two markers, for the host to check the
# plugin's counts.  Rows: "icount: cfg=CFG op=OP ops=N marks=2".
. /lib/pn/lib.sh

run() {
	cfg=$1
	shift
	out=$("$@") || pn_fail "$*: $out"
	# (jobctl create prints the new job's id first)
	echo "icount: cfg=$cfg $(echo "$out" | tail -n 1)"
}

run none opcount -w 20 fork 200
run none opcount -w 20 exec 50
run none opcount -w 20 thread 200
pn_load pnotify
pn_load job
run job jobctl create -- opcount -w 20 fork 200
pn_unload job
pn_unload pnotify
