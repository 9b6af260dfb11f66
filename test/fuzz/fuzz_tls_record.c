/* fuzz_tls_record.c: libFuzzer harness for lib/tls/tls.c's record path, as sctphttpd and httpget
 * drive it: the first byte picks the side (even: a server session, as one stream of an
 * association gets a peer's records; odd: a client session after its ClientHello), then
 * records (fuzz.h), each handed to tls_input, each followed by tls_read until it stops. The
 * server's certificate is made in memory at start (a throwaway ECDSA key, self-signed). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <gnutls/gnutls.h>
#include <gnutls/x509.h>

#include "tls.h"
#include "fuzz.h"

static struct tls_ctx *srv, *cli;

static void
pem_file(char *path, const gnutls_datum_t *d)
{
	FILE *f;
	int fd = mkstemp(path);

	FUZZ_CHECK(fd != -1);
	FUZZ_CHECK((f = fdopen(fd, "w")) != NULL);
	FUZZ_CHECK(fwrite(d->data, 1, d->size, f) == d->size);
	fclose(f);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char kpath[] = "/tmp/fuzz-tls-key.XXXXXX", cpath[] = "/tmp/fuzz-tls-crt.XXXXXX", err[512];
	gnutls_x509_privkey_t key;
	gnutls_x509_crt_t crt;
	gnutls_datum_t d;
	unsigned char serial = 1;

	(void)argc;
	(void)argv;
	FUZZ_CHECK(gnutls_x509_privkey_init(&key) == 0);
	FUZZ_CHECK(gnutls_x509_privkey_generate(key, GNUTLS_PK_ECDSA,
	    GNUTLS_CURVE_TO_BITS(GNUTLS_ECC_CURVE_SECP256R1), 0) == 0);
	FUZZ_CHECK(gnutls_x509_crt_init(&crt) == 0);
	gnutls_x509_crt_set_version(crt, 3);
	gnutls_x509_crt_set_serial(crt, &serial, 1);
	gnutls_x509_crt_set_activation_time(crt, time(NULL) - 60);
	gnutls_x509_crt_set_expiration_time(crt, time(NULL) + 86400);
	gnutls_x509_crt_set_dn_by_oid(crt, GNUTLS_OID_X520_COMMON_NAME, 0, "localhost", 9);
	gnutls_x509_crt_set_key(crt, key);
	FUZZ_CHECK(gnutls_x509_crt_sign2(crt, crt, key, GNUTLS_DIG_SHA256, 0) == 0);
	FUZZ_CHECK(gnutls_x509_privkey_export2(key, GNUTLS_X509_FMT_PEM, &d) == 0);
	pem_file(kpath, &d);
	gnutls_free(d.data);
	FUZZ_CHECK(gnutls_x509_crt_export2(crt, GNUTLS_X509_FMT_PEM, &d) == 0);
	pem_file(cpath, &d);
	gnutls_free(d.data);
	srv = tls_ctx_server(cpath, kpath, err, sizeof(err));
	cli = tls_ctx_client(NULL, 1, "localhost", err, sizeof(err));
	unlink(kpath);
	unlink(cpath);
	gnutls_x509_crt_deinit(crt);
	gnutls_x509_privkey_deinit(key);
	FUZZ_CHECK(srv != NULL && cli != NULL);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char buf[16384];
	struct fuzz_rec r = { data, data + size };
	const uint8_t *rec;
	struct tls_sess *t;
	size_t len, got, n;
	char err[512];
	int server, rc, failed = 0;

	if (size < 1)
		return 0;
	server = (data[0] & 1) == 0;
	r.p++;
	t = tls_sess_new(server ? srv : cli, TLS_ALPN_SCTP, err, sizeof(err));
	FUZZ_CHECK(t != NULL);
	if (!server)
		FUZZ_CHECK(tls_start(t) == TLS_OK);
	tls_write(t, "GET / HTTP/1.1\r\n\r\n", 18); /* queued until a handshake would end */
	while (fuzz_next(&r, &rec, &len)) {
		rc = tls_input(t, rec, len);
		FUZZ_CHECK(rc == TLS_OK || rc == TLS_AGAIN || rc == TLS_ERROR);
		if (failed)
			FUZZ_CHECK(rc == TLS_ERROR); /* a failed session stays failed */
		do {
			rc = tls_read(t, buf, sizeof(buf), &got);
			FUZZ_CHECK(got <= sizeof(buf));
			FUZZ_CHECK(rc == TLS_OK || got == 0);
			(void)fuzz_touch((const uint8_t *)buf, got);
		} while (rc == TLS_OK);
		if (rc == TLS_ERROR) {
			failed = 1;
			FUZZ_CHECK(tls_failed(t) && tls_err(t)[0] != '\0');
		}
		(void)fuzz_touch(tls_out(t, &n), n); /* the records to send (an alert, say) */
		tls_out_done(t, n);
	}
	tls_sess_free(t);
	return 0;
}
