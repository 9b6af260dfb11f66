/* tls.h: TLS 1.3 on one byte stream (a TCP connection, or one SCTP stream as RFC 3436 maps it),
 * as a memory engine: ciphertext in from the peer (tls_input), plaintext out (tls_read),
 * plaintext in (tls_write, queued until the handshake is done), ciphertext out (tls_out). It
 * never touches a socket, so each transport's messages drive it inside the caller's event loop.
 * GnuTLS does the cryptography (tls.c); a build without it has tls_none.c: every call fails
 * with "built without GnuTLS". lib/ code: errors are text in err, never printed. */
#ifndef SCTPAPPS_TLS_H
#define SCTPAPPS_TLS_H

#include <stddef.h>
#include <stdint.h>

#define TLS_OK     0
#define TLS_AGAIN  1    /* more input from the peer is needed */
#define TLS_EOF    2    /* the peer sent close_notify */
#define TLS_ERROR (-1)  /* fatal for this TLS connection (this stream); tls_err says why */

/* The draft's ALPN token for HTTP/1.1 on the streams of an SCTP association. */
#define TLS_ALPN_SCTP "http/1.1+sctp"
#define TLS_ALPN_TCP  "http/1.1"

/* Exit status of a client whose peer's certificate was refused (curl's 60). */
#define TLS_EXIT_CERT 60

struct tls_ctx;
struct tls_sess;

/* Built with a TLS library: 1, else 0 (and the ctx calls fail saying so). */
int tls_available(void);
/* A server: certificate chain and key (PEM files). */
struct tls_ctx *tls_ctx_server(const char *cert, const char *key, char *err, size_t errlen);
/* A client: cafile NULL = the system's trust store; insecure: no verification at all;
 * host: the name (or address) the certificate must carry. */
struct tls_ctx *tls_ctx_client(const char *cafile, int insecure, const char *host,
    char *err, size_t errlen);
void tls_ctx_free(struct tls_ctx *x);

/* alpn: the token a client offers (and requires), or the one a server selects if offered. */
struct tls_sess *tls_sess_new(struct tls_ctx *x, const char *alpn, char *err, size_t errlen);
void tls_sess_free(struct tls_sess *t);
/* A client that already finished a handshake on another stream of the association: its
 * session ticket, so this one resumes (no certificate exchange). Call before tls_start. */
int tls_sess_resume_from(struct tls_sess *t, const struct tls_sess *done);
int tls_start(struct tls_sess *t);                 /* client: the ClientHello goes to tls_out */
int tls_input(struct tls_sess *t, const void *p, size_t n); /* ciphertext from the peer */
int tls_read(struct tls_sess *t, void *buf, size_t cap, size_t *got);
int tls_write(struct tls_sess *t, const void *p, size_t n);
int tls_close(struct tls_sess *t);                 /* close_notify to tls_out */
const void *tls_out(const struct tls_sess *t, size_t *n); /* ciphertext to send */
void tls_out_done(struct tls_sess *t, size_t n);
int tls_done(const struct tls_sess *t);            /* handshake complete */
int tls_failed(const struct tls_sess *t);          /* a fatal error happened */
int tls_resumed(const struct tls_sess *t);
int tls_has_ticket(const struct tls_sess *t);      /* client: a ticket to resume from came */
int tls_cert_error(const struct tls_sess *t);      /* the failure was the peer's certificate */
size_t tls_pending_plain(const struct tls_sess *t); /* written, not yet encrypted */
const char *tls_err(const struct tls_sess *t);
const char *tls_alpn(const struct tls_sess *t);     /* negotiated token, "" = none */

#endif
