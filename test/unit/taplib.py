"""taplib.py: TAP for the Python unit tests (test/unit/test_*.py): ok(COND, TEXT) prints
"ok N - TEXT" or "not ok N - TEXT"; done() prints the plan and exits 1 when any failed."""
import sys

_n = 0
_failed = 0


def ok(cond, text):
    global _n, _failed
    _n += 1
    print("%s %d - %s" % ("ok" if cond else "not ok", _n, text))
    if not cond:
        _failed += 1
    return bool(cond)


def done():
    print("1..%d" % _n)
    sys.exit(1 if _failed else 0)
