/* tp_udp_gro.h: UDP generic receive offload (UDP_GRO, Linux 5.0) for the threadless usrsctp
 * stack's socket (tp_usrsctp_nt.c): datagrams of one flow and one size that the kernel passes
 * up as one buffer, with their size in a control message, cut back into datagrams here. */
#ifndef SCTPAPPS_TP_UDP_GRO_H
#define SCTPAPPS_TP_UDP_GRO_H

#include <stddef.h>
#include <sys/socket.h>
#include <sys/uio.h>

#define TP_UDP_GRO_CMSG 64 /* control space a received message needs for the GRO size */

int tp_udp_gro_on(int fd);                         /* 0: on; -1: this kernel has none */
size_t tp_udp_gro_size(const struct msghdr *h);    /* the segment size; 0: one datagram */
/* buf[0..len) as the datagrams it holds, segments of seg bytes (the last may be shorter; seg
 * 0: one datagram), at most max of them into out; how many there are (more than max: the rest
 * were not written). */
size_t tp_udp_gro_split(const void *buf, size_t len, size_t seg, struct iovec *out, size_t max);

#endif
