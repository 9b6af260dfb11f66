#!/bin/bash
# patches-apply.sh: patches/apply builds the three programs, a second run reuses all of it,
# and a copy of it fails loudly (non-zero, the patch or source named) when a hunk does not
# apply or a source version is not in the archive.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
A=$top_srcdir/patches/apply
PB=${SCTPAPPS_PATCHES:-$top_srcdir/build/patches}

out=$("$A" -q 2>&1)
ok $? "patches/apply builds httperf, mini-httpd and poc: $(echo "$out" | tail -n 1)"
missing=
for p in httperf mini_httpd poc-2250 poc-3119 poc-fec pob-2250 pob-3119 pob-fec; do
	[ -x "$PB/bin/$p" ] || missing="$missing $p"
done
[ -z "$missing" ]
ok $? "bin/ has the eight programs${missing:+ (missing:$missing)}"
t0=$(date +%s)
out=$("$A" 2>&1)
rc=$?
[ $rc -eq 0 ] && [ "$(echo "$out" | grep -c 'patched tree up to date')" = 4 ] &&
    ! echo "$out" | grep -q 'apt-get source' && [ $(($(date +%s) - t0)) -le 20 ]
ok $? "a second run reuses the downloads and the patched trees ($(echo "$out" | tail -n 1))"

scratch patches-apply
mkdir -p "$tmp/p/patches" "$tmp/p/scripts" "$tmp/b/dl"
cp "$top_srcdir"/patches/apply "$top_srcdir"/patches/*.patch "$tmp/p/patches/"
cp "$top_srcdir"/scripts/debsrc.sh "$tmp/p/scripts/"
# the downloads are reused from the cache: no network for these
cp "$PB"/dl/mini-httpd_* "$tmp/b/dl/" 2>/dev/null
sed -i 's/^-    listen_fd = socket( usaP->sa.sa_family, SOCK_STREAM, 0 );/-    listen_fd = socket( usaP->sa.sa_family, SOCK_DGRAM, 0 );/' \
    "$tmp/p/patches/mini-httpd-1.30-sctp.patch"
out=$("$tmp/p/patches/apply" -q -d "$tmp/b" mini-httpd 2>&1)
rc=$?
[ $rc -ne 0 ] && echo "$out" | grep -q 'mini-httpd-1.30-sctp.patch does not apply' &&
    echo "$out" | grep -q 'FAILED'
ok $? "a hunk that fails: exit $rc, named ($(echo "$out" | tail -n 1))"
[ ! -e "$tmp/b/mini-httpd" ]
ok $? "and no half-patched tree is left"

sed -i 's/^src_mini_httpd="mini-httpd 1.30-3 /src_mini_httpd="mini-httpd 9.99-1 /' "$tmp/p/patches/apply"
out=$("$tmp/p/patches/apply" -q -d "$tmp/b" mini-httpd 2>&1)
rc=$?
[ $rc -ne 0 ] && echo "$out" | grep -q 'source mini-httpd 9.99'
ok $? "a source not in the archive: exit $rc, named ($(echo "$out" | tail -n 1))"
"$A" -q nosuch >/dev/null 2>&1
[ $? -ne 0 ]
ok $? "an unknown program is refused"
done_testing
