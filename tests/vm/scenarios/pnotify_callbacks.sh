# Every way of making a task is followed, with exact fork/exec/exit counts,
# by a subscriber whose callbacks sleep, allocate and take an rwsem.
. /lib/pn/lib.sh

for sync in srcu rwsem percpu; do
	pn_load pnotify sync="$sync"
	pn_load pnotify_testsub
	grep -q "^sync: $sync" /proc/pnotify || pn_fail "sync=$sync not in effect"
	for t in "forks $(pn_scale 200)" "vforks $(pn_scale 50)" \
		"clone3 $(pn_scale 50)" "spawns $(pn_scale 20)" \
		"threads $(pn_scale 16)" "exit-group $(pn_scale 8)" \
		"drop $(pn_scale 10)" "fail $(pn_scale 10)" "chain $(pn_scale 12)"; do
		# shellcheck disable=SC2086
		pnotify_test $t || pn_fail "sync=$sync: pnotify_test $t"
	done
	pnotify_test zombie || pn_fail "sync=$sync: zombie"
	cat /proc/pnotify
	pn_unload pnotify_testsub
	pn_unload pnotify
done
