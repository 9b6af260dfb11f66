/* tls_none.c: tls.h in a build without GnuTLS (configure found no libgnutls28-dev): the
 * feature is absent and every call says so. */
#include <stdio.h>

#include "tls.h"

#define TLS_NONE "built without GnuTLS (apt-get install libgnutls28-dev, then configure again)"

int tls_available(void) { return 0; }

struct tls_ctx *
tls_ctx_server(const char *cert, const char *key, char *err, size_t errlen)
{
	(void)cert;
	(void)key;
	snprintf(err, errlen, "TLS: %s", TLS_NONE);
	return NULL;
}

struct tls_ctx *
tls_ctx_client(const char *cafile, int insecure, const char *host, char *err, size_t errlen)
{
	(void)cafile;
	(void)insecure;
	(void)host;
	snprintf(err, errlen, "TLS: %s", TLS_NONE);
	return NULL;
}

/* Without a ctx nothing below is ever reached: these only satisfy the linker. */
void tls_ctx_free(struct tls_ctx *x) { (void)x; }
struct tls_sess *
tls_sess_new(struct tls_ctx *x, const char *alpn, char *err, size_t errlen)
{
	(void)x;
	(void)alpn;
	snprintf(err, errlen, "TLS: %s", TLS_NONE);
	return NULL;
}
void tls_sess_free(struct tls_sess *t) { (void)t; }
int tls_sess_resume_from(struct tls_sess *t, const struct tls_sess *d) { (void)t; (void)d; return TLS_ERROR; }
int tls_start(struct tls_sess *t) { (void)t; return TLS_ERROR; }
int tls_input(struct tls_sess *t, const void *p, size_t n) { (void)t; (void)p; (void)n; return TLS_ERROR; }
int tls_read(struct tls_sess *t, void *b, size_t c, size_t *g) { (void)t; (void)b; (void)c; *g = 0; return TLS_ERROR; }
int tls_write(struct tls_sess *t, const void *p, size_t n) { (void)t; (void)p; (void)n; return TLS_ERROR; }
int tls_close(struct tls_sess *t) { (void)t; return TLS_ERROR; }
const void *tls_out(const struct tls_sess *t, size_t *n) { (void)t; *n = 0; return NULL; }
void tls_out_done(struct tls_sess *t, size_t n) { (void)t; (void)n; }
int tls_done(const struct tls_sess *t) { (void)t; return 0; }
int tls_failed(const struct tls_sess *t) { (void)t; return 1; }
int tls_has_ticket(const struct tls_sess *t) { (void)t; return 0; }
int tls_resumed(const struct tls_sess *t) { (void)t; return 0; }
int tls_cert_error(const struct tls_sess *t) { (void)t; return 0; }
size_t tls_pending_plain(const struct tls_sess *t) { (void)t; return 0; }
const char *tls_err(const struct tls_sess *t) { (void)t; return "TLS: " TLS_NONE; }
const char *tls_alpn(const struct tls_sess *t) { (void)t; return ""; }
