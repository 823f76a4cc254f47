#!/usr/bin/env python3
"""Where the kernel's instructions go, function by function, per operation.

    bench/icount/profile.py LOG PROFILE [TOP]
    bench/icount/profile.py LOG PROFILE --rows [ROW ROW...]
    bench/icount/profile.py LOG PROFILE --inline ROW MODULE.ko FUNCTION...

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

With --rows, the rows one by one instead (a configuration and operation
in one round: its number, and its kernel instructions per operation); with
row numbers, the 25 functions that differ most between those rows, against
the first: what one round or configuration ran that another did not.

With --inline, where each FUNCTION of MODULE.ko (the build the row ran)
spends its instructions in row ROW: each block's count spread over its
instructions (a translation block ends at the first jump, call, return or
rep), each instruction given to the innermost function inlined there
(addr2line -i on the module's debug information).  For a hook built of
inline helpers, which the by-function tables count as one.
"""
import base64
import bisect
import gzip
import re
import subprocess
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


def row_blocks(rows, sections, profile):
    """Each marked row of the log with the module symbols dumped before it
    and its block counts: (row, modules, address -> instructions)."""
    used = 0
    for row, modules in rows:
        k = int(row.get('marks', 0))
        if not k:
            continue
        if used + k > len(sections):
            sys.exit(f'{profile}: a row needs {k} markers, '
                     f'{len(sections) - used} are left')
        blocks = defaultdict(int)
        # The section of marker N holds what ran since marker N - 1.
        for section in sections[used + 1:used + k]:
            for addr, n in section:
                blocks[addr] += n
        yield row, modules, blocks
        used += k


def count_rows(rows, sections, kernel, profile):
    """Each marked row of the log with its kernel instructions by function
    (the module area, '[module area]', besides): (row, function ->
    instructions)."""
    counted = []
    for row, modules, blocks in row_blocks(rows, sections, profile):
        per = defaultdict(int)
        for addr, n in blocks.items():
            per[function_of(addr, kernel, modules)] += n
            if MODULES_VADDR <= addr < MODULES_END:
                per['[module area]'] += n
        counted.append((row, per))
    return counted


def kernel_total(counts):
    """All of the kernel's count: '[module area]' sums functions counted
    already."""
    return sum(n for fn, n in counts.items() if fn != '[module area]')


def print_table(title, names, rates, top):
    """A table of the TOP functions whose rate differs most from the first
    column's: RATES[c][fn] per operation, for each column C of NAMES."""
    base = names[0]
    funcs = set().union(*(rates[c] for c in names))
    spread = {fn: max(abs(rates[c].get(fn, 0) - rates[base].get(fn, 0))
                      for c in names) for fn in funcs}
    print(f'## {title}, the {top} that differ most from {base}\n')
    print('| function | ' + ' | '.join(names) + ' |')
    print('| --- |' + ' ---: |' * len(names))
    totals = [kernel_total(rates[c]) for c in names]
    print('| (all kernel) | ' + ' | '.join(f'{t:,.0f}' for t in totals)
          + ' |')
    for fn in sorted(funcs, key=lambda f: (-spread[f], f))[:top]:
        cells = [f'{rates[base].get(fn, 0):,.0f}'] + \
            [f'{rates[c].get(fn, 0) - rates[base].get(fn, 0):+,.0f}'
             for c in names[1:]]
        print(f'| {fn} | ' + ' | '.join(cells) + ' |')
    print(f'\n({base} in instructions per operation; the others as the '
          f'difference from {base})\n')


def by_operation(counted, top):
    """Per operation, the configurations' rounds summed, against A."""
    per = defaultdict(lambda: defaultdict(int))
    ops = defaultdict(int)
    for row, counts in counted:
        key = (row['cfg'], row['op'])
        for fn, n in counts.items():
            per[key][fn] += n
        ops[key] += int(row['ops'])
    for op in sorted({op for _, op in per}):
        cfgs = [c for c, o in per if o == op]
        # Against A; a kill has no A, its baseline is the pids cgroup's; a
        # job's start (E, F) has neither, its baseline is E's armed hooks.
        base = next((b for b in ('A', 'pids', 'E') if b in cfgs), None)
        if not base:
            continue
        cfgs.sort(key=lambda c: (c != base, c))
        rates = {c: {fn: n / ops[(c, op)] for fn, n in per[(c, op)].items()}
                 for c in cfgs}
        print_table(f'{op}: kernel instructions per operation by function',
                    cfgs, rates, top)


def by_row(counted, picked, top):
    """The rows one by one (a configuration counted in one round), or the
    functions of the PICKED rows against the first of them."""
    if not picked:
        for i, (row, counts) in enumerate(counted):
            print(f'{i}: run={row.get("run", "?")} cfg={row["cfg"]} '
                  f'op={row["op"]} '
                  f'{kernel_total(counts) / int(row["ops"]):,.0f}')
        return
    if any(i >= len(counted) for i in picked):
        sys.exit(f'the log has rows 0 to {len(counted) - 1}')
    names = [f'{i}: {counted[i][0]["cfg"]} {counted[i][0]["op"]} '
             f'run {counted[i][0].get("run", "?")}' for i in picked]
    rates = {name: {fn: n / int(counted[i][0]['ops'])
                     for fn, n in counted[i][1].items()}
             for name, i in zip(names, picked)}
    print_table('kernel instructions per operation by function, row by row',
                names, rates, top)


def module_code(ko, funcs):
    """FUNCTION -> (its section, its offset there, its instructions as
    (offset in the function, mnemonic)), from MODULE.ko's disassembly."""
    out = subprocess.run(['objdump', '-d', '--no-show-raw-insn', ko],
                         check=True, capture_output=True, text=True).stdout
    code, section, cur = {}, None, None
    for line in out.splitlines():
        m = re.match(r'Disassembly of section (\S+):', line)
        if m:
            section, cur = m.group(1), None
            continue
        m = re.match(r'([0-9a-f]+) <(.+)>:$', line)
        if m:
            cur = m.group(2) if m.group(2) in funcs else None
            if cur:
                code[cur] = (section, int(m.group(1), 16), [])
            continue
        m = re.match(r'\s+([0-9a-f]+):\s+(\S+)', line)
        if m and cur:
            code[cur][2].append((int(m.group(1), 16) - code[cur][1],
                                 m.group(2)))
    return code


def block_length(insns, i):
    """How many instructions the translation block at INSNS[i] runs."""
    for j in range(i, len(insns)):
        op = insns[j][1]
        if op.startswith(('j', 'call', 'ret', 'rep')):
            return j - i + 1
    return len(insns) - i


def innermost(ko, section, addrs):
    """The innermost function inlined at each of ADDRS in SECTION."""
    out = subprocess.run(['addr2line', '-a', '-i', '-f', '-j', section,
                          '-e', ko] + [hex(a) for a in addrs],
                         check=True, capture_output=True, text=True).stdout
    names = []
    expect_name = False
    for line in out.splitlines():
        if re.fullmatch(r'0x[0-9a-f]+', line):
            expect_name = True
        elif expect_name:
            names.append(line)
            expect_name = False
    return names


def by_inline(rows, sections, profile, picked, ko, funcs):
    """FUNCS of KO in row PICKED, instruction by instruction, by the
    innermost function inlined there."""
    found = list(row_blocks(rows, sections, profile))
    if picked >= len(found):
        sys.exit(f'the log has rows 0 to {len(found) - 1}')
    row, (addrs, names), blocks = found[picked]
    ops = int(row['ops'])
    code = module_code(ko, funcs)
    for func in funcs:
        sym = next((a for a, n in zip(addrs, names)
                    if n.split(' ')[0] == func), None)
        if sym is None or func not in code:
            sys.exit(f'{func}: not in the row\'s modules or in {ko}')
        section, start, insns = code[func]
        offsets = [off for off, _ in insns]
        per_insn = defaultdict(float)
        for addr, n in blocks.items():
            off = addr - sym
            if not 0 <= off < MODULE_FUNCTION_MAX or off not in offsets:
                continue
            i = offsets.index(off)
            length = block_length(insns, i)
            for off_run, _ in insns[i:i + length]:
                per_insn[off_run] += n / length
        places = sorted(per_insn)
        per = defaultdict(float)
        for off, name in zip(places, innermost(
                ko, section, [start + off for off in places])):
            per[name] += per_insn[off]
        print(f'## {func}: {sum(per.values()) / ops:,.1f} instructions per '
              f'operation in row {picked} ({row["cfg"]} {row["op"]})\n')
        print('| inlined function | instructions per operation |')
        print('| --- | ---: |')
        for name in sorted(per, key=lambda k: (-per[k], k)):
            print(f'| {name} | {per[name] / ops:,.1f} |')
        print()


def main():
    args = sys.argv[1:]
    if len(args) >= 6 and args[2] == '--inline':
        log, profile = args[:2]
        _, rows = read_log(log)
        by_inline(rows, read_sections(profile), profile, int(args[3]),
                  args[4], args[5:])
        return
    rows_mode = '--rows' in args
    if rows_mode:
        args.remove('--rows')
    if len(args) < 2 or (not rows_mode and len(args) > 3):
        sys.exit(__doc__)
    log, profile = args[:2]
    kernel, rows = read_log(log)
    counted = count_rows(rows, read_sections(profile), kernel, profile)
    if rows_mode:
        picked = [int(a) for a in args[2:]]
        by_row(counted, picked, 25)
    else:
        by_operation(counted, int(args[2]) if len(args) == 3 else 25)


if __name__ == '__main__':
    main()
