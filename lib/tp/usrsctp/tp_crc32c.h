/* tp_crc32c.h: CRC32c for SCTP packets the threadless usrsctp stack sends and receives (it
 * leaves the checksum to us, as to a NIC that offloads it: tp_usrsctp_nt.c). */
#ifndef SCTPAPPS_TP_CRC32C_H
#define SCTPAPPS_TP_CRC32C_H

#include <stddef.h>
#include <stdint.h>

uint32_t tp_crc32c(const void *buf, size_t len);      /* CRC32c of buf, as RFC 3720 defines it */
void tp_crc32c_sctp_set(void *pkt, size_t len);       /* fill in an SCTP packet's checksum */
int tp_crc32c_sctp_ok(const void *pkt, size_t len);   /* 1: an SCTP packet's checksum is right */

/* tp_crc32c_x86.c or tp_crc32c_none.c: *c (the running register, not inverted) updated over
 * p with the CPU's instruction; 0 where there is none (the table code then). */
int tp_crc32c_hw(uint32_t *c, const void *p, size_t n);

#endif
