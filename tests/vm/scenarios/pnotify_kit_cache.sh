# The kit cache: the end of a large job is kept for the next one (up to
# 2,048 kits and blocks), and memory pressure takes it back.
# - A job of 1,200 sleepers killed: once their grace period has ended, at
#   least 1,000 of their entries are cached kits (where entries are reused:
#   not under KASAN, whose lane runs the rest, scaled down);
# - drop_caches (its slab shrinkers, pnotify's among them) leaves 16 kits
#   (what exits in the hook and forks without a restart need; exactly 16
#   where the cache held more) and no block.  Tried again until it does:
#   entries still in their grace period come back to the cache after a
#   drop, and 6.1's shrinkers are skipped while one registers;
# - a job forks and exits 2,000 times while drop_caches runs in a loop: no
#   fork fails, and three exits in four still end in the hook, which a
#   cache emptied would not let them.
. /lib/pn/lib.sh

counter() { awk -v k="$1:" '$1 == k { print $2 }' /proc/pnotify; }

pn_load pnotify
pn_load job
n=1200
reuse=0
grep -q '^entry_reuse: on' /proc/pnotify && reuse=1
[ "$reuse" = 1 ] || n=$(pn_scale 1200)
jobctl create -- sh -c "i=0
	while [ \$i -lt $n ]; do sleep 600 & i=\$((i + 1)); done
	echo ready > /tmp/ready
	wait" > /tmp/jid &
pn_wait_file /tmp/jid /tmp/ready
jid=$(head -n 1 /tmp/jid)
jobctl kill -KILL "$jid" > /dev/null || pn_fail "jobctl kill $jid"
pn_wait_job_gone "$jid"
pn_wait_until "the killed members' entries to be let go of" \
	sh -c '[ "$(awk '\''$1 == "tasks:" { print $2 }'\'' /proc/pnotify)" = 0 ]'
if [ "$reuse" = 1 ]; then
	pn_wait_until "1000 kits cached" sh -c '[ "$(awk '\''$1 == "kits_cached:" { print $2 }'\'' /proc/pnotify)" -ge 1000 ]'
fi
pn_log "after a job of $n: $(counter kits_cached) kits, $(counter blocks_cached) blocks cached"
# 4: the kernel logs no line for the writes after this one, which the loop
# of drop_caches below would put by the thousand in the scenario's dmesg.
echo 4 > /proc/sys/vm/drop_caches
shrunk() {
	echo 2 > /proc/sys/vm/drop_caches
	_kits=$(counter kits_cached)
	[ "$(counter blocks_cached)" = 0 ] || return 1
	if [ "$reuse" = 1 ]; then
		[ "$_kits" = 16 ]
	else
		[ "$_kits" -le 16 ]
	fi
}
pn_wait_until "drop_caches to leave 16 kits and no block" shrunk

rm -f /tmp/stop
( while [ ! -e /tmp/stop ]; do echo 2 > /proc/sys/vm/drop_caches; done ) &
dropper=$!
forks=$(pn_scale 2000)
hooked=$(counter exits_in_hook)
out=$(jobctl create -- forkexit -q "$forks" 2>&1) || pn_fail "forkexit in a job: $out"
touch /tmp/stop
wait "$dropper"
hooked=$(($(counter exits_in_hook) - hooked))
case $(echo "$out" | tail -n 1) in
"forks=$forks errors=0 "*) ;;
*) pn_fail "forkexit in a job, drop_caches looping: $out" ;;
esac
fails=$(counter fork_failures)
[ "$fails" = 0 ] || pn_fail "$fails forks failed"
pn_log "$forks forks beside drop_caches: $hooked exits ended in the hook"
[ "$hooked" -ge $((forks * 3 / 4)) ] ||
	pn_fail "$hooked of $forks exits ended in the hook beside drop_caches: the cache was emptied"
pn_unload job
pn_unload pnotify
