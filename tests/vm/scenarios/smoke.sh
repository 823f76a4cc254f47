#!/bin/sh
# Proves the VM harness works; loads no module.
# shellcheck source=tests/vm/lib.sh
. /lib/pn/lib.sh

[ -r /proc/self/status ] || pn_fail "/proc is not mounted"
pn_log "kernel $(uname -r)"
pn_assert_eq "pid of init" 1 "$(cut -d' ' -f1 /proc/1/stat)"
pn_assert_eq "uid as pnuser" 1000 "$(pn_as_user 1000 id -u)"
keyctl show @s >/dev/null || pn_fail "keyctl does not run"
exit 0
