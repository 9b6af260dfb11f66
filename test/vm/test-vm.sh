#!/bin/bash
# test/vm/test-vm.sh: host-side test of test/vm/run (TAP output). Boots the VM a few times:
# the in-VM selftest (SCTP, netem, veth/netns, nftables, $VM_OUT), exit statuses, arguments and
# stderr, the timeout. Prints the measured boot times. Skips (77) without qemu or root.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
run=$here/run
: "${top_srcdir:=$(cd "$here/../.." && pwd)}"
. "$here/../lib.sh" # ok, diag, scratch, done_testing: the one TAP writer

if ! command -v qemu-system-x86_64 >/dev/null 2>&1; then
	ok 1 "qemu-system-x86_64 not found (apt-get install qemu-system-x86)"
	done_testing
	exit 1
fi
if [ "$(id -u)" != 0 ]; then
	ok 1 "test/vm/run needs root (kernel SCTP is tested in the VM)"
	done_testing
	exit 1
fi

scratch test-vm

# 0. fetch the kernel / build the initramfs once, outside the timings
t=$EPOCHREALTIME
rc=0
"$run" --prepare >"$tmp/prepare.log" 2>&1 || rc=$?
ok $rc "prepare (kernel download + initramfs, cached)"
[ $rc -eq 0 ] || { sed 's/^/# /' "$tmp/prepare.log"; echo "1..$tap_n"; exit 1; }
diag "prepare took $(awk -v a="$t" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }')s"

timing() { # timing LOG: the runner's -v timing line
	grep -a 'boot to script start' "$1" | sed 's|^test/vm/run: ||' || true
}

# 1. the selftest, with a VM_OUT share
mkdir "$tmp/out"
rc=0
"$run" -v --out "$tmp/out" "$here/selftest.sh" >"$tmp/selftest.out" 2>"$tmp/selftest.err" || rc=$?
sed 's/^/# /' "$tmp/selftest.out"
[ $rc -eq 0 ] || sed 's/^/# stderr: /' "$tmp/selftest.err"
ok $rc "selftest.sh in the VM exits 0"
grep -q '^selftest ok$' "$tmp/selftest.out"
ok $? "selftest prints 'selftest ok'"
[ "$(cat "$tmp/out/selftest.txt" 2>/dev/null)" = "written in the VM" ]
ok $? "a file written to \$VM_OUT in the VM is on the host"
diag "selftest: $(timing "$tmp/selftest.err")"

# 2. exit status, arguments, stderr, cwd, environment
cat >"$tmp/fail.sh" <<'EOF'
echo "out: $# [$1] [$2]"
echo "err: $SCTPAPPS_TEST_VAR" >&2
echo "pwd: $PWD"
exit 3
EOF
rc=0
(cd "$tmp" && SCTPAPPS_TEST_VAR='a "quoted" value' "$run" -v fail.sh "two words" "") \
	>"$tmp/fail.out" 2>"$tmp/fail.err" || rc=$?
[ $rc -eq 3 ]
ok $? "a script's 'exit 3' comes back as 3 (got $rc)"
grep -qxF 'out: 2 [two words] []' "$tmp/fail.out"
ok $? "arguments reach the script unchanged"
grep -qxF 'err: a "quoted" value' "$tmp/fail.out"
ok $? "the script's stderr and the caller's environment come through on stdout"
grep -qxF "pwd: $(cd "$tmp" && pwd -P)" "$tmp/fail.out"
ok $? "the script runs in the caller's directory"
diag "exit 3: $(timing "$tmp/fail.err")"

# 3. a command from PATH, exit 0
rc=0
out=$("$run" true 2>&1) || rc=$?
[ $rc -eq 0 ] && [ -z "$out" ]
ok $? "a command from PATH (true) exits 0 silently"

# 4. the timeout kills the VM
t=$EPOCHREALTIME
rc=0
"$run" --timeout 3 sleep 600 >"$tmp/to.out" 2>&1 || rc=$?
el=$(awk -v a="$t" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
[ $rc -eq 124 ] && grep -q 'timed out' "$tmp/to.out"
ok $? "--timeout 3 stops the VM with status 124 (got $rc after ${el}s)"

done_testing
