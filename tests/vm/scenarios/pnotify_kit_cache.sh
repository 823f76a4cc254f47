# The kit cache: the end of a large job is kept for the next one (up to
# 2,048 kits and blocks), and memory pressure takes it all back.
# - A job of 1,200 sleepers (scaled) killed: once their grace period has
#   ended, at least 1,000 of their entries are cached kits (where entries
#   are reused: not under KASAN, whose lane checks the rest);
# - drop_caches (its slab shrinkers, pnotify's among them) empties both
#   caches;
# - a job forks as before after that, with kits made anew; none fails.
. /lib/pn/lib.sh

cached() { awk -v k="$1:" '$1 == k { print $2 }' /proc/pnotify; }

pn_load pnotify
pn_load job
n=$(pn_scale 1200)
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
	want=$((n * 5 / 6))
	pn_wait_until "$want kits cached" sh -c '[ "$(awk '\''$1 == "kits_cached:" { print $2 }'\'' /proc/pnotify)" -ge '"$want"' ]'
fi
pn_log "after a job of $n: $(cached kits_cached) kits, $(cached blocks_cached) blocks cached"
echo 2 > /proc/sys/vm/drop_caches
kits=$(cached kits_cached) blocks=$(cached blocks_cached)
[ "$kits" = 0 ] && [ "$blocks" = 0 ] ||
	pn_fail "drop_caches left $kits kits and $blocks blocks cached"
made=$(cached kits_made)
out=$(jobctl create -- sh -c 'for i in 1 2 3 4 5 6 7 8; do ( exit 3 ); echo $?; done' 2>&1)
[ "$(echo "$out" | grep -c '^3$')" = 8 ] || pn_fail "forks in a job after drop_caches: $out"
[ "$(cached kits_made)" -gt "$made" ] || pn_fail "no kit made after drop_caches"
fails=$(cached fork_failures)
[ "$fails" = 0 ] || pn_fail "$fails forks failed"
pn_unload job
pn_unload pnotify
