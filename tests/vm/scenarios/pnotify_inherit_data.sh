#!/bin/sh
# The data pnotify provides a subscriber (data_size) reaches each child's
# inherit() zeroed, whatever the block it comes from held before: the test
# subscriber's inherit() counts the children that find a byte of it set,
# then sets every byte, and its leave() ends each exit in the hook, whose
# blocks the next forks use again (where entries are reused: checked by
# the kits made).  44 bytes, not a whole number of words: the zeroing goes
# by words, and must not stop one short.
# shellcheck source=tests/vm/lib.sh
. /lib/pn/lib.sh

forks=$(pn_scale 2000)
counter() { sed -n "s/^$1: //p" "$2"; }
pn_load pnotify
pn_load pnotify_testsub data_bytes=44 sleep_ms=0
made=$(counter kits_made /proc/pnotify)
out=$(sh -c "echo subscribe-data > /proc/pnotify_testsub && exec forkexit -q $forks") ||
	pn_fail "forkexit under testsub_data: $out"
case $(echo "$out" | tail -n 1) in
"forks=$forks errors=0 "*) ;;
*) pn_fail "forkexit under testsub_data: $out" ;;
esac
made=$(($(counter kits_made /proc/pnotify) - made))
inherited=$(counter 'data inherit' /proc/pnotify_testsub)
dirty=$(counter 'data dirty' /proc/pnotify_testsub)
pn_log "$forks forks: $inherited inherit() calls, $dirty found data set, $made kits made"
[ "$inherited" -ge "$forks" ] ||
	pn_fail "$inherited inherit() calls for $forks forks"
[ "$dirty" = 0 ] ||
	pn_fail "$dirty of $inherited children found their data not zeroed"
if grep -q '^entry_reuse: on$' /proc/pnotify; then
	[ "$made" -le $((forks / 4 + 64)) ] ||
		pn_fail "$made kits made for $forks forks: blocks not used again, the check proves nothing"
fi
pn_unload pnotify_testsub
pn_unload pnotify
