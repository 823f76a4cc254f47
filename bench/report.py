#!/usr/bin/env python3
"""Turns the benchmark VM logs (RESULTS/logs/*.log, rows "bench: TABLE
key=value...") into RESULTS/README.md, one CSV per table and PNG plots.

A row with marks=K takes the next K lines of the QEMU plugin's counters
(RESULTS/logs/NAME.marks beside NAME.log, bench/icount/plugin.c): its
instructions are the difference between the first and the last, per
operation (ops=N) and split into user, core kernel and module area.

Every ratio is taken within one round (the configurations of a round run
back to back in the same boot) and the rounds' ratios are summarised by
their median and their range: absolute times under emulation on a shared
host mean little.
"""
import csv
import os
import re
import statistics
import subprocess
import sys
from collections import defaultdict

ROW = re.compile(r'bench: (\w[\w-]*) (.*)$')
CONFIGS = {
    'A': 'no module',
    'B': 'loaded, outside any job, no job since load',
    'F': 'loaded, outside any job, a job came and went: the hooks disarmed',
    'E': 'loaded, outside any job, another job alive',
    'C': 'in a job, 1 subscriber (job)',
    'D': 'in a job, 2 subscribers (job, keyring_bridge)',
    'pids': 'no module, in a child cgroup v2 with the pids controller',
}


AREAS = ('user', 'kernel', 'module')


def read_marks(path):
    """The plugin's counter lines: "mark SEQ user=U kernel=K module=M"."""
    marks = []
    with open(path) as f:
        for line in f:
            w = line.split()
            if w and w[0] == 'mark':
                if int(w[1]) != len(marks) + 1:
                    sys.exit(f'{path}: mark {w[1]} out of sequence')
                marks.append(dict(kv.split('=') for kv in w[2:]))
    return marks


def add_counts(row, marks, where):
    """Fills row's per-operation instruction counts from its marks."""
    k = int(row['marks'])
    if k < 2 or len(marks) < k:
        sys.exit(f'{where}: a row needs {k} marks, {len(marks)} are left')
    first, last = marks[0], marks[k - 1]
    del marks[:k]
    ops = int(row['ops'])
    for a in AREAS:
        row[a] = (int(last[a]) - int(first[a])) / ops
    row['instructions'] = sum(row[a] for a in AREAS)
    row['ns'] = float(row['seconds']) * 1e9 / ops


def read_rows(logdir):
    tables = defaultdict(list)
    for name in sorted(os.listdir(logdir)):
        if not name.endswith('.log'):
            continue
        path = os.path.join(logdir, name)
        marks_path = path[:-len('.log')] + '.marks'
        marks = read_marks(marks_path) if os.path.exists(marks_path) else None
        with open(path, errors='replace') as f:
            for line in f:
                m = ROW.search(line.rstrip('\r\n'))
                if m:
                    row = dict(kv.split('=', 1) for kv in m.group(2).split()
                               if '=' in kv)
                    if marks is not None and 'marks' in row:
                        add_counts(row, marks, marks_path)
                        # Runs pair only within their boot.
                        row['run'] = f"{name[:-len('.log')]}:{row['run']}"
                    tables[m.group(1)].append(row)
        if marks:
            sys.exit(f'{marks_path}: {len(marks)} marks without a row')
    return tables


def write_csv(path, rows):
    keys = []
    for row in rows:
        keys += [k for k in row if k not in keys]
    with open(path, 'w', newline='') as f:
        w = csv.DictWriter(f, fieldnames=keys)
        w.writeheader()
        w.writerows(rows)


def fmt(v):
    if v >= 100:
        return f'{v:.0f}'
    return f'{v:.3g}'


def pct(v):
    return f'{v:+.1f}%'


def overhead(row, base):
    """Cost of row's configuration against base, in percent (+ = slower)."""
    v, b = float(row['value']), float(base['value'])
    if row['better'] == 'higher':
        return (b / v - 1) * 100
    return (v / b - 1) * 100


def summarise(rows, cfg_order):
    """Per benchmark (test, tasks): medians per configuration and, per
    configuration, the median and range of its per-round overheads against
    the base: the first configuration of cfg_order measured."""
    groups = defaultdict(lambda: defaultdict(dict))
    for r in rows:
        bench = (r['test'], int(r.get('tasks', 0)))
        groups[bench][r['cfg']][r['run']] = r
    out = []
    for bench in sorted(groups, key=lambda b: (b[0], b[1])):
        by_cfg = groups[bench]
        cfgs = [c for c in cfg_order if c in by_cfg]
        base = cfgs[0]
        entry = {'test': bench[0], 'tasks': bench[1], 'base': base,
                 'unit': next(iter(by_cfg[base].values()))['unit'],
                 'cfgs': {}}
        for c in cfgs:
            runs = by_cfg[c]
            med = statistics.median(float(r['value']) for r in runs.values())
            ovh = [overhead(runs[k], by_cfg[base][k]) for k in runs
                   if k in by_cfg[base]]
            entry['cfgs'][c] = (med, ovh)
        out.append(entry)
    return out


def bench_name(e):
    return e['test'] + (f" ({e['tasks']} tasks)" if e['tasks'] else '')


def markdown_overheads(summary, cfg_order):
    cfgs = [c for c in cfg_order if any(c in e['cfgs'] for e in summary)]
    lines = ['| benchmark | unit | ' + ' | '.join(cfgs) + ' |',
             '| --- | --- |' + ' --- |' * len(cfgs)]
    for e in summary:
        cells = []
        for c in cfgs:
            if c not in e['cfgs']:
                cells.append('n/a')
                continue
            med, ovh = e['cfgs'][c]
            if c == e['base']:
                cells.append(f'{fmt(med)} (base)')
            else:
                cells.append(f'{fmt(med)} **{pct(statistics.median(ovh))}** '
                             f'[{pct(min(ovh))}, {pct(max(ovh))}]')
        lines.append(f"| {bench_name(e)} | {e['unit']} | " +
                     ' | '.join(cells) + ' |')
    return '\n'.join(lines)


def summary_csv(path, summary):
    rows = []
    for e in summary:
        for c, (med, ovh) in e['cfgs'].items():
            rows.append({'test': e['test'], 'tasks': e['tasks'], 'cfg': c,
                         'unit': e['unit'], 'median': med, 'base': e['base'],
                         'overhead_pct_median': statistics.median(ovh),
                         'overhead_pct_min': min(ovh),
                         'overhead_pct_max': max(ovh)})
    write_csv(path, rows)


def plot_stress(summary, cfgs, out, title):
    """The AIM7 shape: operations per minute against tasks, per stressor."""
    stressors = sorted({e['test'] for e in summary
                        if e['test'].startswith('stress-ng')})
    if not stressors:
        return False
    datadir = os.path.dirname(out)
    plots = []
    for s in stressors:
        data = os.path.join(datadir, f'.{s}.dat')
        with open(data, 'w') as f:
            for e in sorted((e for e in summary if e['test'] == s),
                            key=lambda e: e['tasks']):
                f.write(f"{e['tasks']} " + ' '.join(
                    f"{e['cfgs'][c][0] if c in e['cfgs'] else 'NaN'}"
                    for c in cfgs) + '\n')
        curves = ', '.join(
            f"'{data}' using 1:{i + 2} with linespoints title '{c}: "
            f"{CONFIGS.get(c.split('/')[0], c)}'"
            for i, c in enumerate(cfgs))
        plots.append(f"set title '{s}'\nplot {curves}")
    script = f"""set terminal pngcairo noenhanced size {520 * len(stressors)},460 font ',9'
set output '{out}'
set multiplot layout 1,{len(stressors)} title '{title}'
set logscale x 2
set xlabel 'tasks'
set ylabel 'operations per minute (median)'
set key bottom right font ',8'
set grid
{chr(10).join(plots)}
unset multiplot
"""
    subprocess.run(['gnuplot'], input=script, text=True, check=True)
    for s in stressors:
        os.remove(os.path.join(datadir, f'.{s}.dat'))
    return True


def rw_section(rows):
    groups = defaultdict(list)
    for r in rows:
        groups[(r['sync'], int(r['readers']), int(r['writers']))].append(r)
    seed_names = {(4, 2): 'rws-rw', (4, 0): 'rws-ro', (0, 4): 'rws-wo',
                  (1, 0): 'rws-r1', (0, 1): 'rws-w1', (2, 0): 'rws-r2'}
    first = rows[0]
    lines = [f"{first['msecs']} ms per test, {first['vcpus']} vCPUs; medians "
             f"of {len({r['run'] for r in rows})} rounds, writer operations "
             "also as the smallest of any round (0 would be starvation).", '',
             '| sync | test | readers | writers | reader ops | writer ops | '
             'min writer ops |', '| --- | --- | ---: | ---: | ---: | ---: | ---: |']
    summary = []
    order = ['rwsem', 'percpu', 'srcu']
    for key in sorted(groups, key=lambda k: (order.index(k[0])
                                             if k[0] in order else 9,
                                             list(seed_names).index(k[1:])
                                             if k[1:] in seed_names else 9)):
        rs = groups[key]
        rd = statistics.median(int(r['reader_ops']) for r in rs)
        wr = statistics.median(int(r['writer_ops']) for r in rs)
        wmin = min(int(r['writer_ops']) for r in rs)
        name = seed_names.get(key[1:], '')
        lines.append(f'| {key[0]} | {name} | {key[1]} | {key[2]} | {rd:.0f} '
                     f'| {wr:.0f} | {wmin if key[2] else "-"} |')
        summary.append({'sync': key[0], 'test': name, 'readers': key[1],
                        'writers': key[2], 'reader_ops_median': rd,
                        'writer_ops_median': wr, 'writer_ops_min': wmin})
    return '\n'.join(lines), summary


def cost_section(rows):
    groups = defaultdict(list)
    for r in rows:
        groups[(r['sync'], r['cfg'])].append(r)
    lines = ['| sync | configuration | dispatch (ns, median) | '
             'fork+exit+wait (µs, median) | dispatch / fork |',
             '| --- | --- | ---: | ---: | ---: |']
    summary = []
    order = ['rwsem', 'percpu', 'srcu']
    for (sync, cfg), rs in sorted(groups.items(), key=lambda kv: (
            order.index(kv[0][0]) if kv[0][0] in order else 9, kv[0][1])):
        ns = statistics.median(float(r['ns_per_dispatch']) for r in rs)
        fork_us = statistics.median(1e6 / float(r['forks_per_second'])
                                    for r in rs)
        what = 'lookup only' if rs[0]['followed'] == '0' else 'full dispatch'
        lines.append(f'| {sync} | {cfg}: {CONFIGS[cfg]} ({what}) | {ns:.0f} '
                     f'| {fork_us:.0f} | {ns / (fork_us * 1e3) * 100:.3f}% |')
        summary.append({'sync': sync, 'cfg': cfg, 'followed': rs[0]['followed'],
                        'ns_per_dispatch_median': ns,
                        'fork_exit_wait_us_median': fork_us})
    return '\n'.join(lines), summary


def profile_section(rows):
    groups = defaultdict(list)
    for r in rows:
        groups[r['cfg']].append(float(r['hooks_pct_of_busy']))
    lines = ['| configuration | share of busy CPU in the hooks (median) | '
             'range |', '| --- | ---: | ---: |']
    summary = []
    for cfg, v in sorted(groups.items()):
        med = statistics.median(v)
        lines.append(f'| {cfg}: {CONFIGS[cfg]} | {med:.2f}% | '
                     f'{min(v):.2f}% to {max(v):.2f}% |')
        summary.append({'cfg': cfg, 'hooks_pct_of_busy_median': med,
                        'min': min(v), 'max': max(v)})
    return '\n'.join(lines), summary


def icount_stats(rows, op, cfgs, base):
    """Per configuration of cfgs measured for op: medians of the
    instructions per operation, of their split and of the guest time, the
    spread of the instructions ((largest - smallest) / median) and the
    per-round ratios against base."""
    # Only the boots that measured the base: each table compares within a
    # boot.  A run without the base (a comparison of two builds, which
    # measures no pids cgroup for a kill) still lists its counts.
    boots = {r['run'].split(':')[0] for r in rows
             if r['op'] == op and r['cfg'] == base} or \
        {r['run'].split(':')[0] for r in rows if r['op'] == op}
    by_cfg = defaultdict(dict)
    for r in rows:
        if r['op'] == op and r['run'].split(':')[0] in boots:
            by_cfg[r['cfg']][r['run']] = r
    out = []
    for c in cfgs:
        runs = by_cfg.get(c)
        if not runs:
            continue
        ins = [r['instructions'] for r in runs.values()]
        med = statistics.median(ins)
        e = {'op': op, 'cfg': c, 'base': base, 'rounds': len(runs),
             'instructions': med, 'spread_pct': (max(ins) - min(ins)) / med * 100,
             'ns': statistics.median(r['ns'] for r in runs.values())}
        for a in AREAS:
            e[a] = statistics.median(r[a] for r in runs.values())
        for key in ('instructions', 'ns'):
            ratios = [(runs[k][key] / by_cfg[base][k][key] - 1) * 100
                      for k in runs if c != base and k in by_cfg.get(base, {})]
            if ratios:
                e[f'{key}_vs_base_pct'] = statistics.median(ratios)
                e[f'{key}_vs_base_min'] = min(ratios)
                e[f'{key}_vs_base_max'] = max(ratios)
        out.append(e)
    return out


def icount_table(stats, unit):
    lines = [f'| configuration | instructions {unit} (median) | spread | '
             'against the base: median [range] | user | core kernel | '
             f'module area | guest time {unit} | guest time against the base |',
             '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |']
    for e in stats:
        name = f"{e['cfg']}: {CONFIGS[e['cfg']]}" if e['cfg'] in CONFIGS else e['cfg']

        def vs(key):
            if e['cfg'] == e['base']:
                return 'base'
            if f'{key}_vs_base_pct' not in e:
                return 'n/a'
            return (f"**{e[f'{key}_vs_base_pct']:+.2f}%** "
                    f"[{e[f'{key}_vs_base_min']:+.2f}, {e[f'{key}_vs_base_max']:+.2f}]")
        lines.append(f"| {name} | {e['instructions']:,.0f} | "
                     f"{e['spread_pct']:.2f}% | {vs('instructions')} | "
                     f"{e['user']:,.0f} | {e['kernel']:,.0f} | {e['module']:,.0f} | "
                     f"{e['ns'] / 1e3:.1f} µs | {vs('ns')} |")
    return '\n'.join(lines)


def order_of(cfgs, first):
    return [c for c in first if c in cfgs] + sorted(set(cfgs) - set(first))


def icount_section(rows):
    """The deterministic lane: one table per operation, and the comparison
    of two builds (configurations CFG@base) when there is one."""
    ops = []
    for r in rows:
        if r['op'] not in ops:
            ops.append(r['op'])
    cfgs = {r['cfg'] for r in rows}
    plain = order_of({c for c in cfgs if '@' not in c and '-' not in c},
                     ['A', 'B', 'F', 'E', 'C', 'D', 'pids'])
    boots = defaultdict(set)
    for r in rows:
        if not r['op'].startswith('kill-') and r['op'] != 'job':
            boots[(r['run'].split(':')[0], r['ops'])].add(r['run'])
    text = ['Boots (logs/NAME.log): ' + '; '.join(
                f'{b}: {len(runs)} rounds of {n} operations per run'
                for (b, n), runs in sorted(boots.items())) +
            ' (kill: one kill of the whole group per run; a job\'s start: '
            'one per run).  Spread: (largest '
            '- smallest) / median of the configuration\'s runs.  User, core '
            'kernel and module area (0xffffffffc0000000-0xffffffffff000000: '
            'modules, ftrace and kprobe trampolines) are medians.', '']
    summary = []
    for op in ops:
        if op.startswith('kill-'):
            base = 'pids'
            title = (f'### {op}: kill {op[5:]} sleeping processes and wait for '
                     'the end (pids: cgroup.kill + `populated 0`; C, D: '
                     'killjid + waitjid)')
            unit = 'per kill'
        elif op == 'job':
            base = 'E'
            title = ('### a job\'s start and end: fork, the child creates a '
                     'job and exits, wait (E: the hooks armed; F: the first '
                     'job since they disarmed, which arms them)')
            unit = 'per op'
        else:
            base = 'A'
            title = {'fork': '### fork + exit + wait',
                     'exec': '### fork + exec of a static binary + exit + wait',
                     'thread': '### pthread_create + exit + pthread_join',
                     }.get(op, f'### {op}')
            unit = 'per op'
        st = icount_stats(rows, op, plain, base)
        summary += st
        text += [title, '', icount_table(st, unit), '']
    scale = order_of({c for c in cfgs if c.startswith('D-')}, [])
    if scale:
        st = icount_stats(rows, 'fork', ['D'] + scale, 'D')
        summary += st
        text += ['### Flatness: fork + exit + wait in a job (D) while other '
                 'jobs (D-jobs-N: N jobs alive in all) or other processes in '
                 'its job (D-procs-N) are alive', '',
                 icount_table(st, 'per op'), '']
    return '\n'.join(text), summary


def compare_section(rows):
    """Each configuration of this build against the same of the base build
    (CFG@base), per operation, paired within each round."""
    lines = ['| operation | configuration | base build | this build | '
             'delta per op: median [range] | delta | '
             'module area: base build | this build | delta |',
             '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |']
    summary = []
    ops = []
    for r in rows:
        if r['op'] not in ops:
            ops.append(r['op'])
    for op in ops:
        by_cfg = defaultdict(dict)
        for r in rows:
            if r['op'] == op:
                by_cfg[r['cfg']][r['run']] = r
        for c in order_of({c for c in by_cfg if f'{c}@base' in by_cfg},
                          ['A', 'B', 'F', 'E', 'C', 'D', 'pids']):
            this, base = by_cfg[c], by_cfg[f'{c}@base']
            deltas = [this[k]['instructions'] - base[k]['instructions']
                      for k in this if k in base]
            b, t = (statistics.median(r['instructions'] for r in runs.values())
                    for runs in (base, this))
            # The module area is exact: its delta is the change's own.
            mb, mt = (statistics.median(r['module'] for r in runs.values())
                      for runs in (base, this))
            d = statistics.median(deltas)
            lines.append(f'| {op} | {c} | {b:,.0f} | {t:,.0f} | **{d:+,.0f}** '
                         f'[{min(deltas):+,.0f}, {max(deltas):+,.0f}] | '
                         f'{d / b * 100:+.2f}% | {mb:,.0f} | {mt:,.0f} | '
                         f'**{mt - mb:+,.0f}** |')
            summary.append({'op': op, 'cfg': c, 'base_build': b,
                            'this_build': t, 'delta_median': d,
                            'delta_min': min(deltas), 'delta_max': max(deltas),
                            'module_base_build': mb, 'module_this_build': mt})
    return '\n'.join(lines), summary


# Tables of configurations against a base: name, configuration order (the
# first measured is the base), title, introduction.
OVERHEAD_SECTIONS = [
    ('workloads', ['A', 'B', 'C', 'D'],
     'forkexit, jobtest, stress-ng, hackbench (default sync=)',
     'jobtest needs job.ko: its base is B.'),
    ('smp', ['A', 'D', 'pids'],
     'stress-ng on 2 vCPUs, in guest time (icount)',
     'stress-ng fork and exec at 2 and 8 tasks on 2 vCPUs under '
     '`-icount shift=0,sleep=off`, with the kernel parameters of the '
     'deterministic lane: the guest clock that times them follows the '
     'instruction count, not the load of the host.  Debian 12\'s QEMU 7.2 '
     'hangs booting 2 vCPUs under -icount; this boot runs Debian 13\'s '
     'QEMU 10 from the project\'s trixie chroot (`scripts/qemu-trixie.sh`).'),
    ('sync', ['A', 'D/rwsem', 'D/percpu', 'D/srcu'],
     'The sync= modes on the workloads (configuration D)',
     'Configuration D with pnotify loaded with each sync= mode.'),
    ('cgroup', ['none', 'cgroup', 'job'], 'Jobs against cgroup v2',
     'forkexit: no module in the root cgroup (none), in a child cgroup with '
     'the pids controller (no module), in a job (pnotify and job loaded).  '
     'kill-N: N sleeping processes killed and waited for, cgroup.kill + '
     'inotify until `populated 0` (base) against killjid + waitjid.'),
    ('scale', ['jobs-1', 'jobs-100', 'jobs-10000', 'procs-100', 'procs-10000'],
     'Cost of a fork against jobs and processes alive',
     'forkexit in a job (configuration D) while other jobs (jobs-N: N jobs '
     'alive in all) or sleeping processes in its own job (procs-N) are '
     'alive.'),
]

# Tables of the in-kernel measurements: name, section writer, title, intro.
KERNEL_SECTIONS = [
    ('rw', rw_section,
     'Reader/writer table (after the 2001 rwsem benchmarks)',
     "Readers: kernel threads dispatching a followed task's exec callbacks "
     '(lookup, guard read side, snapshot, callbacks).  Writers: kernel '
     'threads registering and unregistering a subscriber (guard write '
     'side).  QEMU runs the vCPUs round-robin on one host thread (TCG '
     'thread=single): the threads interleave, they do not run in parallel.'),
    ('cost', cost_section, 'Direct cost of a dispatch, measured in the kernel',
     'pnotify_bench.ko times the exec dispatch of the calling task in a loop '
     '(ktime); the fork+exit+wait beside it is forkexit in the same '
     'configuration and boot.'),
    ('profile', profile_section,
     'Share of the CPU spent in the hooks (perf, in the guest)',
     'perf record -a (cpu-clock) while forkexit runs in the configuration; '
     'samples in pnotify, job and keyring_bridge (pn_*, job_*, kb_*) and in '
     'the kprobe and ftrace glue (kprobe_ftrace_handler, get_kprobe, '
     'ftrace_trampoline), as a share of the samples that are not idle.  '
     'Unlike the whole-process timings it does not move with the load of '
     'the host.'),
]


def main():
    results = sys.argv[1]
    logdir = os.path.join(results, 'logs')
    tables = read_rows(logdir)
    with open(os.path.join(logdir, 'meta.txt')) as f:
        meta = f.read().strip()
    for name, rows in tables.items():
        write_csv(os.path.join(results, f'{name}-runs.csv'), rows)

    md = ['# pnotify benchmarks', '',
          'Written by `make bench` (`bench/run.sh`, `bench/report.py`).', '',
          'Configurations: ' + '; '.join(f'**{k}** {v}' for k, v in
                                          CONFIGS.items()) + '.', '']
    if 'icount' in tables:
        rows = tables['icount']
        if any('@' in r['cfg'] for r in rows):
            text, s = compare_section(rows)
            write_csv(os.path.join(results, 'compare.csv'), s)
            md += ['## Instructions per operation: this build against the '
                   'base build', '', 'Both builds in one boot, interleaved '
                   '(`make bench-compare`); deltas paired within each round.',
                   '', text, '']
        text, s = icount_section(rows)
        write_csv(os.path.join(results, 'icount.csv'), s)
        md += ['## Guest instructions per operation (deterministic)', '',
               'Counted by the QEMU plugin `bench/icount/plugin.c` between '
               'the markers of `opcount` and `procfarm`: 1 vCPU, TCG single '
               'thread, `-icount shift=0,sleep=off`, `nokaslr norandmaps '
               'randomize_kstack_offset=off`, no transparent hugepages, the '
               'last pid reset before each run, a warm-up, the configurations '
               'interleaved in one boot.  Host load cannot move these counts; '
               'the guest time beside them follows the instruction count.',
               '', text, '']
    others = [t for t, *_ in OVERHEAD_SECTIONS + KERNEL_SECTIONS if t in tables]
    timed = ('timed in host time, which moves with the load of the host '
             'by 10 to 50% from round to round')
    if 'smp' in tables:
        timed += (' (but "stress-ng on 2 vCPUs, in guest time", under '
                  '-icount)')
    md += [] if not others else ['The other tables: each comparison is one boot of the stock '
           f'kernel under QEMU TCG with 2 vCPUs, {timed}.  '
           'The configurations run interleaved, round after round.  A cell '
           'reads: median value, **median overhead** against the base '
           'configuration [smallest, largest overhead of a round]; + is '
           'slower.', '']

    for table, order, title, intro in OVERHEAD_SECTIONS:
        if table not in tables:
            continue
        order = order + sorted({r['cfg'] for r in tables[table]} - set(order))
        s = summarise(tables[table], order)
        summary_csv(os.path.join(results, f'{table}.csv'), s)
        md += [f'## {title}', '', intro, '', markdown_overheads(s, order), '']
        if table == 'workloads' and plot_stress(
                s, order, os.path.join(results, 'stress-ng.png'),
                'stress-ng (AIM7-shaped), pnotify configurations'):
            md += ['![stress-ng](stress-ng.png)', '']
    for table, section, title, intro in KERNEL_SECTIONS:
        if table in tables:
            text, s = section(tables[table])
            write_csv(os.path.join(results, f'{table}.csv'), s)
            md += [f'## {title}', '', intro, '', text, '']
    md += ['## How this was run', '', '```', meta, '```', '',
           'The exact QEMU command line of each boot is the first line of '
           'its log in `logs/`.', '']
    with open(os.path.join(results, 'README.md'), 'w') as f:
        f.write('\n'.join(md))


if __name__ == '__main__':
    main()
