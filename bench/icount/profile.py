#!/usr/bin/env python3
"""Where the kernel's instructions go, function by function, per operation.

    bench/icount/profile.py LOG PROFILE [TOP]

LOG is the console log of a boot of the deterministic lane, PROFILE the
block counts the QEMU plugin wrote beside it (profile=, bench/run.sh with
PN_BENCH_PROFILE=1); the kernel's text symbols come from LOG, where
bench/vm/icount.sh wrote /proc/kallsyms (the lane boots with nokaslr, so
the addresses hold).  A row of LOG with marks=K takes the next K
markers, as in bench/report.py; its instructions are those run between its
first and its last.  Prints, for each operation, the TOP functions whose
instructions per operation differ most from configuration A's, with each
configuration's count: the modules' functions by name (their symbols
dumped after each configuration is set up), and the module area (modules,
ftrace and kprobe trampolines) as a whole besides.
"""
import base64
import bisect
import gzip
import re
import sys
from collections import defaultdict

ROW = re.compile(r'bench: icount (.*)$')
MODULES_VADDR = 0xffffffffc0000000
MODULES_END = 0xffffffffff000000
# A module address further than this above its symbol is not in it.
MODULE_FUNCTION_MAX = 4096
DUMP = re.compile(r'bench-(kallsyms|modsyms) (begin|end)')


def parse_symbols(lines):
    """A dump's symbols, sorted: (addresses, names); a module's named
    "function [module]"."""
    syms = []
    for line in gzip.decompress(base64.b64decode(''.join(lines))).decode().splitlines():
        w = line.split()
        syms.append((int(w[0], 16), ' '.join(w[2:4])))
    syms.sort()
    return [a for a, _ in syms], [n for _, n in syms]


def read_log(log):
    """The kernel's symbols and the result rows in LOG, each row with the
    module symbols dumped last before it."""
    kernel, rows, modules = None, [], ([], [])
    dump, lines = None, []
    with open(log, errors='replace') as f:
        for line in f:
            line = line.strip()
            m = DUMP.fullmatch(line)
            if m and m.group(2) == 'begin':
                dump, lines = m.group(1), []
            elif m:
                if dump == 'kallsyms':
                    kernel = parse_symbols(lines)
                else:
                    modules = parse_symbols(lines)
                dump = None
            elif dump:
                lines.append(line)
            else:
                m = ROW.search(line)
                if m:
                    rows.append((dict(kv.split('=', 1) for kv in m.group(1).split()),
                                 modules))
    if kernel is None:
        sys.exit(f'{log}: no kernel symbols (run with PN_BENCH_PROFILE=1)')
    return kernel, rows


def read_sections(path):
    """The block counts written at each marker, in marker order."""
    sections = []
    with open(path) as f:
        for line in f:
            w = line.split()
            if w[0] == 'mark':
                if int(w[1]) != len(sections) + 1:
                    sys.exit(f'{path}: marker {w[1]} out of sequence')
                sections.append([])
            else:
                sections[-1].append((int(w[0], 16), int(w[1])))
    return sections


def function_of(addr, kernel, modules):
    """The function at ADDR: a kernel one, or a module's; in the module
    area without a symbol near below (ftrace trampolines), the area."""
    if MODULES_VADDR <= addr < MODULES_END:
        addrs, names = modules
        i = bisect.bisect_right(addrs, addr) - 1
        if i >= 0 and addr - addrs[i] < MODULE_FUNCTION_MAX:
            return names[i]
        return '[module area, no symbol]'
    addrs, names = kernel
    i = bisect.bisect_right(addrs, addr) - 1
    return names[i] if i >= 0 else '[unknown]'


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    log, profile = sys.argv[1:3]
    top = int(sys.argv[3]) if len(sys.argv) == 4 else 25
    kernel, rows = read_log(log)
    sections = read_sections(profile)
    # per (cfg, op): function -> instructions, and the operations counted
    per = defaultdict(lambda: defaultdict(int))
    ops = defaultdict(int)
    used = 0
    for row, modules in rows:
        k = int(row.get('marks', 0))
        if not k:
            continue
        if used + k > len(sections):
            sys.exit(f'{profile}: a row needs {k} markers, '
                     f'{len(sections) - used} are left')
        key = (row['cfg'], row['op'])
        # The section of marker N holds what ran since marker N - 1.
        for section in sections[used + 1:used + k]:
            for addr, n in section:
                fn = function_of(addr, kernel, modules)
                per[key][fn] += n
                if MODULES_VADDR <= addr < MODULES_END:
                    per[key]['[module area]'] += n
        ops[key] += int(row['ops'])
        used += k
    for op in sorted({op for _, op in per}):
        cfgs = [c for c, o in per if o == op]
        # Against A; a kill has no A, its baseline is the pids cgroup's; a
        # job's start (E, F) has neither, its baseline is E's armed hooks.
        base = next((b for b in ('A', 'pids', 'E') if b in cfgs), None)
        if not base:
            continue
        cfgs.sort(key=lambda c: (c != base, c))

        def rate(c, fn):
            return per[(c, op)].get(fn, 0) / ops[(c, op)]
        funcs = set().union(*(per[(c, op)] for c in cfgs))
        spread = {fn: max(abs(rate(c, fn) - rate(base, fn)) for c in cfgs)
                  for fn in funcs}
        print(f'## {op}: kernel instructions per operation by function, '
              f'the {top} that differ most from {base}\n')
        print('| function | ' + ' | '.join(cfgs) + ' |')
        print('| --- |' + ' ---: |' * len(cfgs))
        # '[module area]' sums rows counted already.
        totals = [sum(n for fn, n in per[(c, op)].items()
                      if fn != '[module area]') / ops[(c, op)] for c in cfgs]
        print('| (all kernel) | ' + ' | '.join(f'{t:,.0f}' for t in totals)
              + ' |')
        for fn in sorted(funcs, key=lambda f: -spread[f])[:top]:
            cells = [f'{rate(base, fn):,.0f}'] + \
                [f'{rate(c, fn) - rate(base, fn):+,.0f}' for c in cfgs[1:]]
            print(f'| {fn} | ' + ' | '.join(cells) + ' |')
        print(f'\n({base} in instructions per operation; the others as the '
              f'difference from {base})\n')


if __name__ == '__main__':
    main()
