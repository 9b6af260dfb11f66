#!/bin/sh
# mutants-lint.sh: every mutant of test/mutants/mutants.txt still applies: its file exists, its
# "from" fragment is found there exactly once (test/mutants/run's own rule), its tests exist.
# A refactoring that moves or rewrites a fragment otherwise leaves the mutant silently dead
# until someone runs the whole set (five were, after the merges of 2026-12-07: code moved to
# play_sched.c, a line rewritten for GRO, https, a hosts fix). Read with run's own parser. A
# planted stale mutant is found first, so that the check can fail.
. "$(dirname "$0")/../lib.sh"
scratch mutants-lint
lint() { # lint MUTANTS.TXT ROOT: a line per mutant that does not apply; exit 1 if any
	python3 - "$1" "$2" "$top_srcdir/test/mutants/run" <<'PY'
import importlib.machinery, importlib.util, os, sys
txt, root, run = sys.argv[1:4]
loader = importlib.machinery.SourceFileLoader("mutants_run", run)
spec = importlib.util.spec_from_loader("mutants_run", loader)
mod = importlib.util.module_from_spec(spec)
loader.exec_module(mod)
bad = 0
muts = mod.parse(txt)
for m in muts:
    path = os.path.join(root, m["file"])
    if not os.path.isfile(path):
        print("%s: %s: no such file" % (m["name"], m["file"])); bad += 1; continue
    with open(path, encoding="utf-8") as f:
        n = f.read().count(m["from"])
    if n != 1:
        print("%s: fragment found %d times in %s" % (m["name"], n, m["file"])); bad += 1
    for t in (m["tests"] if isinstance(m["tests"], list) else m["tests"].split()):
        if not os.path.isfile(os.path.join(root, t)):
            print("%s: test %s: no such file" % (m["name"], t)); bad += 1
print("mutants: %d" % len(muts), file=sys.stderr)
sys.exit(1 if bad else 0)
PY
}
mkdir -p "$tmp/r/src" "$tmp/r/t"
printf 'int a = 1;\nint b = 1;\n' >"$tmp/r/src/x.c"
printf '#!/bin/sh\n' >"$tmp/r/t/x.sh"
cat >"$tmp/m.txt" <<'M'
[good]
file: src/x.c
from: int a = 1;
to: int a = 2;
tests: t/x.sh
why: applies
[twice]
file: src/x.c
from: = 1;
to: = 2;
tests: t/x.sh
why: found twice
[moved]
file: src/y.c
from: int a = 1;
to: int a = 2;
tests: t/x.sh
why: its file is gone
M
lint "$tmp/m.txt" "$tmp/r" >"$tmp/planted" 2>/dev/null
[ "$(cut -d: -f1 "$tmp/planted" | tr '\n' ' ')" = "twice moved " ]
ok $? "planted: a fragment found twice and a file that is gone are found, the good one passes"
lint "$top_srcdir/test/mutants/mutants.txt" "$top_srcdir" >"$tmp/real" 2>"$tmp/n"
ok $? "every mutant applies: its file there, its fragment once, its tests there ($(cat "$tmp/n"))" ||
	sed 's/^/# /' "$tmp/real"
done_testing
