#!/usr/bin/env python3
"""scripts/readme-summary.py: README.md's summary table, generated from the generated files.

usage: scripts/readme-summary.py [--results FILE] [--benchmarks FILE] [--readme FILE] [--check]

Fills the block of README.md (--readme FILE: another) between the lines
'<!-- scripts/readme-summary.py: summary -->' and '<!-- scripts/readme-summary.py: end -->'
with a short table of what the project found: each experiment's mode, date and checks from the
head of docs/results.md, the ratios drafts/eval.py words from its sections 04 and 06, and a few
ratios from docs/benchmarks.md's tables, each row naming its file and section and each file its
date and commit (a ratio a quick run of the experiments lacks is said to be missing). No figure
in it is typed by hand. test/experiments/run and `make bench` run it after they write. --check writes nothing: exit 1 (and a diff)
when the block is not what the files give. Exit 2 when a file lacks what the table needs.
"""
import difflib
import importlib.util
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.join(HERE, '..')
BEGIN = '<!-- scripts/readme-summary.py: summary -->'
END = '<!-- scripts/readme-summary.py: end -->'
BLOCK = re.compile('^(' + re.escape(BEGIN) + '\n)(.*?)^(' + re.escape(END) + ')$', re.M | re.S)


class Missing(Exception):
    pass


def load_eval():
    spec = importlib.util.spec_from_file_location('eval', os.path.join(TOP, 'drafts', 'eval.py'))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def find(pattern, text, what, flags=re.M):
    m = re.search(pattern, text, flags)
    if m is None:
        raise Missing('no %s' % what)
    return m


def table_after(text, heading, what, nth=0):
    """The data rows (lists of cells) of table NTH (from 0) from the line starting HEADING
    (the line itself may be the table's header) to the next '## ' section."""
    i = text.find('\n' + heading)
    if i < 0:
        raise Missing('no "%s" (%s)' % (heading, what))
    tables, rows = [], []
    for k, line in enumerate(text[i + 1:].splitlines()):
        if k > 0 and line.startswith('## '):
            break
        if line.startswith('|'):
            rows.append([c.strip() for c in line.strip().strip('|').split('|')])
        elif rows:
            tables.append(rows)
            rows = []
    if rows:
        tables.append(rows)
    if len(tables) <= nth or len(tables[nth]) < 3:
        raise Missing('no table %d at "%s" (%s)' % (nth + 1, heading, what))
    return tables[nth][2:]


def row(rows, first, what, second=None):
    for r in rows:
        if r[0] == first and (second is None or r[1] == second):
            return r
    raise Missing('no row "%s" (%s)' % (first if second is None else first + ', ' + second, what))


def summary(results, bench, ev):
    out = []
    rdate = find(r'^on (\d{4}-\d\d-\d\d \d\d:\d\d UTC)', results, 'date in results.md').group(1)
    rcommit = find(r'^git (\w+)\.', results, 'commit in results.md').group(1)
    bdate = find(r'^- date: (.*)$', bench, 'date in benchmarks.md').group(1)
    bcommit = find(r'^- commit: (\w+)', bench, 'commit in benchmarks.md').group(1)
    out.append('From [docs/results.md](docs/results.md) (written %s, git %s) and'
               % (rdate, rcommit))
    out.append('[docs/benchmarks.md](docs/benchmarks.md) (%s, commit %s); each row names its'
               % (bdate, bcommit))
    out.append('section there, where the method, the spread and the host are.')
    out.append('')
    out.append('| what | result | from |')
    out.append('|---|---|---|')
    exps = table_after(results, '| experiment | mode |', 'results.md\'s runs')
    titles = dict(re.findall(r'^## (\d\d)\. (.*)$', results, re.M))
    if not exps:
        raise Missing('no experiment in results.md')
    for r in exps:
        num = r[0][:2]
        title = titles.get(num, r[0])
        out.append('| %s: %s | %s checks passed, %s failed (%s, %s, %s) | results.md %s |'
                   % (r[0], title, r[5], r[6], r[1].split(',')[0], r[2], r[3], num))
    # the two ratios drafts/eval.py words: a quick run may lack their cells (then said so)
    try:
        e04 = ev.eval04(results).strip().splitlines()[-1]
        m = re.search(r'On the 1 Mbit/s link, as a ratio to TCP.s throughput: SCTP with 100 '
                      r'streams ([0-9.]+x) for 1 KiB files', e04)
        r04 = m.group(1) if m else 'no 1 KiB cell on the 1 Mbit/s link in this run'
    except ev.Missing as e:
        r04 = 'not in this run (%s)' % e
    out.append('| HTTP, 1 KiB files on a 1 Mbit/s link: SCTP with 100 streams against '
               'TCP (throughput) | %s | results.md 04 (drafts/eval.py) |' % r04)
    try:
        e06 = ev.eval06(results)
        m = re.search(r'^Without loss, SCTP with 100 streams( \(usrsctp-nt, lab v2\))? took (.*) the time of '
                      r'HTTP/2 in clear', e06, re.M)
        r06 = (m.group(2) + (' (usrsctp-nt, lab v2)' if m.group(1) else '')) if m else \
            'no cell without loss with both in this run'
    except ev.Missing as e:
        r06 = 'not in this run (%s)' % e
    out.append('| a 100-object page without loss: SCTP with 100 streams\' time / HTTP/2 h2c\'s '
               '| %s | results.md 06 (drafts/eval.py) |' % r06)
    u = table_after(bench, '## usrsctp', 'benchmarks.md usrsctp')
    r = row(u, '1000', 'benchmarks.md usrsctp')
    out.append('| usrsctp-nt / usrsctp (threads), raw one way, 1000-byte messages | %s '
               '| benchmarks.md "usrsctp" |' % r[3])
    h = table_after(bench, '## usrsctp', 'benchmarks.md HTTP over usrsctp', 1)
    for t in ('usrsctp', 'usrsctp-nt'):
        r = row(h, t, 'benchmarks.md HTTP over usrsctp')
        out.append('| a 10 MiB GET over %s / raw %s one way (goal >= 0.8) | %s '
                   '| benchmarks.md "usrsctp" |' % (t, t, r[3]))
    n = table_after(bench, '## sctphttpd and nginx over TCP', 'benchmarks.md nginx')
    r = row(n, '1k.bin', 'benchmarks.md nginx')
    out.append('| sctphttpd / nginx over TCP, 1 KiB, wrk keep-alive | %s '
               '| benchmarks.md "sctphttpd and nginx" |' % r[3])
    for title, t in (('## Scaling: sctphttpd over usrsctp beside TCP', 'usrsctp'),
                     ('## Scaling: sctphttpd over usrsctp-nt beside TCP', 'usrsctp-nt')):
        s = table_after(bench, title, 'benchmarks.md scaling')
        r = row(s, '1000', 'benchmarks.md scaling', 'keep-alive')
        out.append('| sctphttpd over %s / over TCP, 1000 associations keep-alive (req/s) | %s '
                   '| benchmarks.md "Scaling ... %s" |' % (t, r[4], t))
    return '\n'.join(out) + '\n'


def main(argv):
    results = os.path.join(TOP, 'docs', 'results.md')
    bench = os.path.join(TOP, 'docs', 'benchmarks.md')
    readme = os.path.join(TOP, 'README.md')
    check = False
    it = iter(argv)
    for a in it:
        if a in ('--results', '--benchmarks', '--readme'):
            v = next(it, None)
            if v is None:
                print('readme-summary.py: %s needs a file' % a, file=sys.stderr)
                return 2
            if a == '--results':
                results = v
            elif a == '--benchmarks':
                bench = v
            else:
                readme = v
        elif a == '--check':
            check = True
        elif a in ('-h', '--help'):
            print(__doc__.strip())
            return 0
        else:
            print('readme-summary.py: unknown argument %s' % a, file=sys.stderr)
            return 2
    try:
        texts = []
        for p in (results, bench, readme):
            with open(p, encoding='utf-8') as f:
                texts.append(f.read())
    except OSError as e:
        print('readme-summary.py: %s' % e, file=sys.stderr)
        return 2
    try:
        table = summary(texts[0], texts[1], load_eval())
    except Exception as e:  # Missing, or the eval.py fragments' own Missing
        print('readme-summary.py: %s' % e, file=sys.stderr)
        return 2
    doc = texts[2]
    if not BLOCK.search(doc):
        print('readme-summary.py: %s: no block %s ... %s' % (readme, BEGIN, END), file=sys.stderr)
        return 2
    new = BLOCK.sub(lambda m: m.group(1) + table + m.group(3), doc)
    if check:
        if new != doc:
            sys.stdout.writelines(difflib.unified_diff(
                doc.splitlines(True), new.splitlines(True), readme,
                'from %s and %s' % (results, bench)))
            return 1
        return 0
    with open(readme, 'w', encoding='utf-8') as f:
        f.write(new)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
