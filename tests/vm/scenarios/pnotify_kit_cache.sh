# The kit cache: the end of a large job is kept for the next one (up to
# 2,048 kits and blocks), and memory pressure takes it back.
# - A job of 1,200 sleepers killed: once their grace period has ended, at
#   least 1,000 of their entries are cached kits (where entries are reused:
#   not under KASAN, whose lane runs the rest, scaled down);
# - drop_caches (its slab shrinkers, pnotify's among them) leaves 16 kits
#   (what exits in the hook and forks without a restart need) and no block;
# - a job forks and exits 2,000 times while drop_caches runs in a loop: no
#   fork fails.
. /lib/pn/lib.sh

stat() { awk -v k="$1:" '$1 == k { print $2 }' /proc/pnotify; }

pn_load pnotify
pn_load job
n=1200
grep -q '^entry_reuse: on' /proc/pnotify || n=$(pn_scale 1200)
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
if grep -q '^entry_reuse: on' /proc/pnotify; then
	pn_wait_until "1000 kits cached" sh -c '[ "$(awk '\''$1 == "kits_cached:" { print $2 }'\'' /proc/pnotify)" -ge 1000 ]'
fi
pn_log "after a job of $n: $(stat kits_cached) kits, $(stat blocks_cached) blocks cached"
echo 2 > /proc/sys/vm/drop_caches
kits=$(stat kits_cached) blocks=$(stat blocks_cached)
[ "$kits" -le 16 ] && [ "$blocks" = 0 ] ||
	pn_fail "drop_caches left $kits kits and $blocks blocks cached"

rm -f /tmp/stop
# 6: as 2, and the kernel logs no line for each (4), which would flood the
# console.
( while [ ! -e /tmp/stop ]; do echo 6 > /proc/sys/vm/drop_caches; done ) &
dropper=$!
forks=$(pn_scale 2000)
out=$(jobctl create -- forkexit -q "$forks" 2>&1) || pn_fail "forkexit in a job: $out"
touch /tmp/stop
wait "$dropper"
case $(echo "$out" | tail -n 1) in
"forks=$forks errors=0 "*) ;;
*) pn_fail "forkexit in a job, drop_caches looping: $out" ;;
esac
fails=$(stat fork_failures)
[ "$fails" = 0 ] || pn_fail "$fails forks failed"
pn_log "$forks forks beside drop_caches: $(stat clone_restarts) restarts, $(stat kits_made) kits made"
pn_unload job
pn_unload pnotify
