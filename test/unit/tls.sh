#!/bin/bash
# tls.sh: lib/tls/tls.h's engine in memory (test_tls.c) with test certificates made now.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
. "$here/../integration/https-common.sh"
need "$top_builddir/test/unit/test_tls" openssl
scratch tls
https_pki
ok $? "test certificates made" || sed 's/^/# /' "$tmp/pki/log"
TLS_PKI=$tmp/pki run_tap "$top_builddir/test/unit/test_tls"
done_testing
