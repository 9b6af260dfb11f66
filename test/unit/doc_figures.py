#!/usr/bin/env python3
"""doc_figures.py: where each figure of the front page and the guides comes from.

usage: doc_figures.py [--allow FILE] [--top DIR] [--as NAME] [--list] PAGE...

A figure is a measured-looking number in a page: a decimal (not a version, an address or
HTTP/1.1), a number with a unit of time, rate, size per second, percent or ratio (12 ms,
3.5 Mbit/s, 9 %, 1.42x), or a table cell that is a number alone (not the first column, which
names the row). Dates, clock times and versions after a name (Linux 6.1, RFC 6951 5.4) are not figures;
neither is anything in inline code (`...`), a link's target or an HTML comment. Each figure must be one of:
- inside a generated block: '<!-- GEN: NAME -->' ... '<!-- GEN: end -->', GEN being
  drafts/eval.py or scripts/readme-summary.py (their --check modes hold them to their sources);
- example output: in a code block (fenced or indented) that shows its command on a line
  starting '$ ';
- quoted: after '<!-- figures: from FILE... -->' (paths from the top of the tree) up to the
  end of the table that follows (its paragraph included), and found, as written, in one of
  those files;
- on the allow-list (--allow FILE: lines 'PAGE<TAB>FIGURE<TAB>REASON'; '#' comments), for that
  page.
Prints each other figure as 'PAGE:LINE: FIGURE: WHY' and exits 1; exit 0 when there is none,
2 on a usage error. --as NAME: the (one) page is named NAME (its path from the top) for the
allow-list and the messages, as when it is a copy. --list prints every unaccounted figure as an allow-list line instead
(a starting point: each reason must then be written).
"""
import os
import re
import sys

GENERATORS = ('drafts/eval.py', 'scripts/readme-summary.py')
UNIT = (r'(?:%|x\b|s\b|ms\b|us\b|µs\b|min\b|h\b|[kMG]?bit/s|bps\b|req/s|replies/s|conn/s|'
        r'calls/s|[kKMG]i?B/s|MB\b|kB\b|dB\b|times\b)')
NUM = r'\d+(?:[ ,]\d{3})*(?:\.\d+)?'
WITH_UNIT = re.compile(r'(?<![\w.:/-])(' + NUM + r')\s?' + UNIT)
DECIMAL = re.compile(r'(?<![\w./:-])(\d+\.\d+)(?![\w.]*\d)(?!\.\d)')
CELL_NUMBER = re.compile(r'^\(?[-+]?' + NUM + r'\)?$')
NAMED = re.compile(r'(?:Linux|kernel|version|section|nginx|GStreamer|Debian|h2load|release|'
                   r'usrsctp|libusrsctp2?|RFC \d+|TLS|HTTP/?|gcc|clang|qemu|Python|httperf|'
                   r'mini-httpd|poc-streamer|IPv)\s?\d+(?:\.\d+)+')
DATE = re.compile(r'\d{4}-\d\d-\d\d|\d\d?:\d\d(?::\d\d)?')
GEN_OPEN = re.compile(r'^<!-- (' + '|'.join(re.escape(g) for g in GENERATORS) + r'): (\S+) -->$')
GEN_END = re.compile(r'^<!-- (' + '|'.join(re.escape(g) for g in GENERATORS) + r'): end -->$')
QUOTE = re.compile(r'^<!-- figures: from (.+?) -->$')


def strip(line):
    """The line without inline code, link targets, HTML comments, URLs, dates and times."""
    line = re.sub(r'`[^`]*`', ' ', line)
    line = re.sub(r'\]\([^)]*\)', ']', line)
    line = re.sub(r'<!--.*?-->', ' ', line)
    line = re.sub(r'https?://\S+', ' ', line)
    line = NAMED.sub(' ', line)
    return DATE.sub(' ', line)


def figures(line):
    """The figures of one line of prose or table."""
    text = strip(line)
    out = []
    if text.lstrip().startswith('|'):
        cells = [c.strip() for c in text.strip().strip('|').split('|')]
        if all(re.fullmatch(r':?-+:?', c) for c in cells if c):
            return []
        for c in cells[1:]:
            if CELL_NUMBER.match(c):
                out.append(c.strip('()'))
    for m in WITH_UNIT.finditer(text):
        out.append(m.group(0).strip())
    for m in DECIMAL.finditer(text):
        if not any(m.group(1) in f for f in out):
            out.append(m.group(1))
    return out


def found_in(fig, texts):
    """FIG, as written, in one of TEXTS: its number and unit, or its number as the median
    before a spread ('1.97 (1.9-1.99, n=3)' quotes as 1.97 ms where the table's head says ms)."""
    num = re.match(NUM, fig).group(0)
    unit = fig[len(num):].strip()
    n = r'(?<![\d.:])' + re.escape(num).replace(r'\ ', r'\s?')
    pats = [n + r'\s?' + re.escape(unit) if unit else n + r'(?![\d:]|\.\d)', n + r' \(']
    return any(re.search(p, t) for p in pats for t in texts)


def check(page, rel, allow, top):
    """(line number, figure, why) of each unaccounted figure of PAGE."""
    bad = []
    with open(page, encoding='utf-8') as f:
        lines = f.read().split('\n')
    gen = None
    fence = None
    block = []  # (number, line) of the code block being read
    quote = None  # texts of the files being quoted, for the next paragraph
    quote_seen = False
    prev_blank = True

    def code_block(rows):
        if any(l.lstrip().startswith('$ ') for _, l in rows):
            return
        for n, l in rows:
            for fig in figures(l):
                if fig not in allow.get(rel, {}):
                    bad.append((n, fig, 'in a code block with no "$ command" line'))

    for i, line in enumerate(lines, 1):
        if gen:
            if GEN_END.match(line):
                gen = None
            continue
        if fence:
            if line.startswith(fence):
                code_block(block)
                fence, block = None, []
            else:
                block.append((i, line))
            continue
        if GEN_OPEN.match(line):
            gen = line
            continue
        m = re.match(r'^(```+|~~~+)', line)
        if m:
            fence, block = m.group(1), [(i, line)]
            continue
        if (line.startswith('    ') or line.startswith('\t')) and (prev_blank or block):
            if not line.lstrip().startswith(('-', '*')) or block:
                block.append((i, line))
                prev_blank = False
                continue
        if block:
            code_block(block)
            block = []
        m = QUOTE.match(line)
        if m:
            quote, quote_seen = [], False
            for name in m.group(1).split():
                try:
                    with open(os.path.join(top, name), encoding='utf-8') as f:
                        quote.append(f.read())
                except OSError:
                    bad.append((i, name, 'the quoted file does not exist'))
            continue
        if not line.strip():
            prev_blank = True
            if quote is not None and quote_seen:
                quote = None
            continue
        if line.startswith('#'):
            quote = None
        prev_blank = False
        for fig in figures(line):
            if quote is not None:
                if found_in(fig, quote):
                    continue
                if fig not in allow.get(rel, {}):
                    bad.append((i, fig, 'not found in the quoted file(s)'))
                continue
            if fig in allow.get(rel, {}):
                continue
            bad.append((i, fig, 'typed by hand: no generated block, command or quoted file'))
        if quote is not None and line.startswith('|'):
            quote_seen = True
    if block:
        code_block(block)
    return bad


def main(argv):
    allow_file = None
    top = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
    listing = False
    alias = None
    pages = []
    it = iter(argv)
    for a in it:
        if a == '--allow':
            allow_file = next(it, None)
        elif a == '--top':
            top = next(it, None)
        elif a == '--list':
            listing = True
        elif a == '--as':
            alias = next(it, None)
        elif a.startswith('-') or a is None:
            print('doc_figures.py: unknown option %s' % a, file=sys.stderr)
            return 2
        else:
            pages.append(a)
    if not pages or top is None:
        print(__doc__.strip().split('\n')[2], file=sys.stderr)
        return 2
    allow = {}
    if allow_file:
        try:
            with open(allow_file, encoding='utf-8') as f:
                for n, line in enumerate(f, 1):
                    if not line.strip() or line.startswith('#'):
                        continue
                    parts = line.rstrip('\n').split('\t')
                    if len(parts) != 3 or not parts[2].strip():
                        print('doc_figures.py: %s:%d: not PAGE<TAB>FIGURE<TAB>REASON'
                              % (allow_file, n), file=sys.stderr)
                        return 2
                    allow.setdefault(parts[0], {})[parts[1]] = parts[2]
        except OSError as e:
            print('doc_figures.py: %s' % e, file=sys.stderr)
            return 2
    rc = 0
    for page in pages:
        rel = alias or os.path.relpath(os.path.abspath(page), top)
        try:
            bad = check(page, rel, allow, top)
        except OSError as e:
            print('doc_figures.py: %s' % e, file=sys.stderr)
            return 2
        seen = set()
        for n, fig, why in bad:
            rc = 1
            if listing:
                if fig not in seen:
                    print('%s\t%s\t%s' % (rel, fig, 'REASON'))
                    seen.add(fig)
            else:
                print('%s:%d: %s: %s' % (rel, n, fig, why))
    return rc


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
