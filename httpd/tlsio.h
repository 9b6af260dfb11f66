/* tlsio.h: https (tlsio.c): the server's TLS credentials, and per connection one TLS session
 * per stream (RFC 3436: each stream of an association its own TLS connection; TCP's one
 * stream): ciphertext from the peer in, plaintext out, responses in, records out. */
#ifndef SCTPHTTPD_TLSIO_H
#define SCTPHTTPD_TLSIO_H

#include <stddef.h>
#include <stdint.h>

struct tlsio;

#define TLSIO_OK     0
#define TLSIO_FAIL  (-1) /* this stream's TLS connection failed (tlsio_err says why) */
#define TLSIO_FULL  (-2) /* --tls-max handshakes are in progress: none starts on this stream */

/* The credentials of --tls-cert/--tls-key, when given: -1 (err says why). */
int tlsio_init(char *err, size_t errlen);
void tlsio_fini(void);
int tlsio_on(void);                       /* https is served */
unsigned tlsio_in_handshake(const struct tlsio *io); /* in progress on this connection */

/* msg: the streams of an association (ALPN token of the draft), else TCP (http/1.1). */
struct tlsio *tlsio_new(uint16_t nstreams, int msg);
void tlsio_free(struct tlsio *io);
/* Ciphertext from the peer on stream sid: each piece of plaintext goes to plain(). */
typedef void tlsio_plain_cb(void *arg, uint16_t sid, char *p, size_t n);
int tlsio_input(struct tlsio *io, uint16_t sid, const char *p, size_t n, tlsio_plain_cb *plain,
    void *arg);
int tlsio_write(struct tlsio *io, uint16_t sid, const char *p, size_t n);
/* Records waiting to be sent: the next stream with some (1) and its bytes, or 0. */
int tlsio_next(struct tlsio *io, uint16_t *sid, const void **p, size_t *n);
void tlsio_sent(struct tlsio *io, uint16_t sid, size_t n);
int tlsio_pending(const struct tlsio *io);
/* Stream sid starts afresh (after its reset): its next bytes begin a new TLS connection. */
void tlsio_forget(struct tlsio *io, uint16_t sid);
const char *tlsio_err(const struct tlsio *io, uint16_t sid);
/* The handshake in progress that began first: when (us), and its stream; 0 = none. */
uint64_t tlsio_oldest(const struct tlsio *io, uint16_t *sid);

#endif
