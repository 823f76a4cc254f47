#!/bin/bash
# Checks the QEMU plugin of the deterministic benchmark lane
# (bench/icount/plugin.c): one boot with it loaded, opcount's operations in
# the guest (tests/icount/icount_plugin.sh), and for each run, that the plugin wrote its
# two marks and that the counts per operation are of the right order in each
# area: user, core kernel, and the module area, which must be empty with no
# module loaded and not in a job.  Ends with "N passed, N failed".
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
plugin=$repo/build/icount/pn_icount.so
[ -r "$plugin" ] || { echo "check.sh: $plugin missing (make icount-plugin)" >&2; exit 2; }
marks=$(mktemp)
trap 'rm -f "$marks"' EXIT

out=$(PN_VM_SMP=1 PN_VM_QEMU_ARGS="-plugin $plugin,out=$marks" \
	"$repo/tests/vm/run.sh" --scenarios "$repo/tests/icount" icount_plugin) || {
	echo "$out"
	exit 1
}
echo "$out" | head -n -1
log=$(echo "$out" | sed -n 's/^booting .*(log: \(.*\))$/\1/p')

# Per row: the marks' differences per operation against the ranges of
# its operation and configuration: op cfg user-min user-max kernel-min
# kernel-max module-min module-max.
python3 - "$log" "$marks" <<'PY'
import re
import sys

RANGES = {
    ('fork', 'none'): (50, 5000, 100e3, 1e6, 0, 0),
    ('exec', 'none'): (5e3, 100e3, 300e3, 3e6, 0, 0),
    ('thread', 'none'): (200, 10e3, 20e3, 500e3, 0, 0),
    ('fork', 'job'): (50, 5000, 100e3, 1e6, 300, 20e3),
}
rows = [dict(kv.split('=', 1) for kv in m.group(1).split())
        for m in (re.search(r'^icount: (.*)$', l.rstrip('\r\n'))
                  for l in open(sys.argv[1], errors='replace')) if m]
marks = [dict(kv.split('=') for kv in l.split()[2:])
         for l in open(sys.argv[2]) if l.startswith('mark ')]
passed, failed = 1, 0  # the scenario itself passed
if len(rows) != len(RANGES) or len(marks) != 2 * len(rows):
    print(f'FAIL plugin output: {len(rows)} runs, {len(marks)} marks')
    failed += 1
else:
    for i, r in enumerate(rows):
        a, b = marks[2 * i], marks[2 * i + 1]
        n = int(r['ops'])
        per = [(int(b[k]) - int(a[k])) / n for k in ('user', 'kernel', 'module')]
        lim = RANGES[(r['op'], r['cfg'])]
        ok = all(lim[2 * j] <= per[j] <= lim[2 * j + 1] for j in range(3))
        name = f"icount {r['op']} ({r['cfg']}): user {per[0]:.0f}, kernel {per[1]:.0f}, module {per[2]:.0f} per op"
        print(('PASS ' if ok else 'FAIL ') + name)
        passed += ok
        failed += not ok
print(f'{passed} passed, {failed} failed')
sys.exit(failed > 0)
PY
