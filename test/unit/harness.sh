#!/bin/bash
# harness.sh: test/lib.sh's own helpers (TAP): daemon_start's readiness, failure and COUNT,
# scratch's cleanup at exit, httpd_start's listener count and $port (with a stand-in server).
. "$(dirname "$0")/../lib.sh"
scratch harness

daemon_start ready '^up$' sh -c 'sleep 0.3; echo up; exec sleep 60'
rc=$?
[ $rc = 0 ] && kill -0 "$daemon_pid" 2>/dev/null && [ "$last" = "$daemon_pid" ] &&
    case " $pids " in *" $daemon_pid "*) true ;; *) false ;; esac
ok $? "daemon_start: ready on its stdout line, running, its pid in \$daemon_pid, \$last, \$pids"

daemon_start onerr 'listening on' sh -c 'echo "x: listening on y" >&2; exec sleep 60'
ok $? "daemon_start: ready on a line of its stderr"

t0=$SECONDS
daemon_start dies '^up$' sh -c 'echo "cannot bind: in use" >&2; exit 3' >"$tmp/dies.tap"
rc=$?
[ $rc = 1 ] && [ $((SECONDS - t0)) -lt 5 ] && grep -q '^# dies (sh): exited' "$tmp/dies.tap" &&
    grep -q '^# dies.err: cannot bind: in use$' "$tmp/dies.tap"
ok $? "daemon_start: one that exits fails at once (1), its stderr as diagnostics (rc $rc)"
sed 's/^/#   /' "$tmp/dies.tap"

t0=$SECONDS
daemon_start -t 1 mute '^up$' sh -c 'echo starting; exec sleep 60' >"$tmp/mute.tap"
rc=$?
[ $rc = 1 ] && [ $((SECONDS - t0)) -lt 5 ] && grep -q '^# mute (sh): not ready after 1 s' "$tmp/mute.tap" &&
    grep -q '^# mute.out: starting$' "$tmp/mute.tap"
ok $? "daemon_start -t 1: one never ready fails after 1 s (1), with its output (rc $rc)"

daemon_start -n 3 three '^line' sh -c 'for i in 1 2 3; do sleep 0.3; echo line $i; done; exec sleep 60'
rc=$?
[ $rc = 0 ] && [ "$(grep -c '^line' "$tmp/three.out")" = 3 ]
ok $? "daemon_start -n 3: ready when the third line came (rc $rc, $(grep -c '^line' "$tmp/three.out") lines)"
daemon_start -n 4 -t 1 four '^line' sh -c 'for i in 1 2 3; do echo line $i; done; exec sleep 60' >/dev/null
ok $((! $?)) "daemon_start -n 4: three lines are not enough"

# todo: a failure printed as TAP's TODO, failing nothing; run_tap keeps it a TODO
out=$(bash -c '. "$top_srcdir/test/lib.sh"; todo 1 "a known fault" "fixed elsewhere"; todo 0 "fine" x
	done_testing'; echo "rc=$?")
printf '%s\n' "$out" | grep -qx '# wall [0-9]* s bash'
ok $? "done_testing says the script's wall time (# wall N s, for CI's budget)"
out=$(printf '%s\n' "$out" | grep -v '^# wall ')
[ "$out" = "$(printf 'not ok 1 - a known fault # TODO fixed elsewhere\nok 2 - fine\n1..2\nrc=0')" ]
ok $? "todo: a failure is 'not ok', then the TODO directive and its reason, failing nothing; a pass a plain ok"
out=$(bash -c '. "$top_srcdir/test/lib.sh"; run_tap sh -c "echo \"not ok 1 - k # TODO r\"; echo \"ok 2 - p\""
	done_testing'; echo "rc=$?")
out=$(printf '%s\n' "$out" | grep -v '^# wall ')
[ "$out" = "$(printf 'not ok 1 - k # TODO r\nok 2 - p\n1..2\nrc=0')" ]
ok $? "run_tap: a TODO of the producer stays a TODO ($(echo "$out" | sed 's/#/(hash)/g' | tr '\n' ' '))"

# A script using the harness exits: its daemon is killed and its directory removed.
t0=$SECONDS
bash -c '. "$top_srcdir/test/lib.sh"; scratch harness-inner
	daemon_start d "^up$" sh -c "echo up; exec sleep 60" || exit 1
	echo "$daemon_pid $tmp" >"$1"' - "$tmp/inner" >/dev/null
read -r ipid itmp <"$tmp/inner"
[ -n "$ipid" ] && ! kill -0 "$ipid" 2>/dev/null && [ -n "$itmp" ] && [ ! -e "$itmp" ] &&
    [ $((SECONDS - t0)) -lt 30 ]
ok $? "scratch_cleanup at exit: the daemon (pid ${ipid:-none}) is killed, its directory removed ($((SECONDS - t0)) s)"

# httpd_start with a stand-in for sctphttpd: its lines one after the other, workers if asked.
cat >"$tmp/fake" <<'EOF'
#!/bin/sh
case " $* " in *" -p "*) echo "sctphttpd: listening on tcp 127.0.0.1:4242" >&2; sleep 0.5 ;; esac
echo "sctphttpd: listening on usrsctp 127.0.0.1:8080" >&2
case " $* " in *" --workers "*) sleep 0.5; echo "sctphttpd: 2 workers" >&2 ;; esac
exec sleep 60
EOF
chmod 755 "$tmp/fake"
H=$tmp/fake httpd_start two -p 0 -h 127.0.0.1 -L usrsctp:127.0.0.1:8080
rc=$?
[ $rc = 0 ] && [ "$port" = 4242 ] && grep -q 'listening on usrsctp' "$tmp/two.err"
ok $? "httpd_start: waits for both listeners (-p, -L), \$port from the TCP one (rc $rc, port $port)"
H=$tmp/fake httpd_start wk -p 0 -L usrsctp:127.0.0.1:8080 --workers 2
rc=$?
[ $rc = 0 ] && grep -q 'workers$' "$tmp/wk.err"
ok $? "httpd_start --workers: waits for the workers line too (rc $rc)"
H=$tmp/fake httpd_start -n 3 -t 1 three -p 0 >/dev/null
ok $((! $?)) "httpd_start -n 3: two listening lines are not enough"
port=1234
H=$tmp/fake httpd_start notcp -L usrsctp:127.0.0.1:8080
rc=$?
[ $rc = 0 ] && [ "$port" = 1234 ]
ok $? "httpd_start without a TCP listener leaves \$port alone (rc $rc, port $port)"

# ok returns its verdict, so that `ok $? "..." || sed ...` shows its diagnostics only on a failure
r=$( (ok 1 x >/dev/null; printf '%s ' $?; ok 0 y >/dev/null; printf '%s ' $?
	ok 1 z >/dev/null || printf diag) )
[ "$r" = "1 0 diag" ]
ok $? "ok returns 1 on a failure and 0 on a pass, so || runs on a failure only (got '$r')"

done_testing
