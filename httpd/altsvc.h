/* altsvc.h: --alt-svc, the SCTP listeners advertised on TCP responses (altsvc.c). */
#ifndef SCTPHTTPD_ALTSVC_H
#define SCTPHTTPD_ALTSVC_H

#include <stddef.h>

void altsvc_listener(const char *type, const char *local);
/* the Alt-Svc line put into a TCP response's head (msg: an SCTP stream, left alone) */
int altsvc_head(int msg, char *head, int hl, size_t cap);

#endif
