#!/usr/bin/env python3
"""abort_kernel.py: a kernel SCTP client that asks sctphttpd for PATH on STREAMS streams
(PPID 63), reads BYTES of the answers, then aborts the association (SO_LINGER 0 close).

usage: abort_kernel.py HOST PORT PATH STREAMS BYTES
"""
import socket
import struct
import sys

IPPROTO_SCTP = 132
SCTP_INITMSG = 2
SCTP_SNDINFO = 2  # cmsg type


def main():
    if len(sys.argv) != 6:
        sys.stderr.write(__doc__)
        return 2
    host, port, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    streams, want = int(sys.argv[4]), int(sys.argv[5])
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM, IPPROTO_SCTP)
    # struct sctp_initmsg: num_ostreams, max_instreams, max_attempts, max_init_timeo
    s.setsockopt(IPPROTO_SCTP, SCTP_INITMSG, struct.pack("=HHHH", streams, streams, 0, 0))
    s.settimeout(30)
    s.connect((host, port))
    req = ("GET %s HTTP/1.1\r\nHost: x\r\n\r\n" % path).encode()
    for sid in range(streams):
        # struct sctp_sndinfo: sid, flags, ppid (network order), context, assoc_id
        info = struct.pack("=HHIIi", sid, 0, socket.htonl(63), 0, 0)
        s.sendmsg([req], [(IPPROTO_SCTP, SCTP_SNDINFO, info)])
    got = 0
    while got < want:
        d = s.recv(65536)
        if not d:
            sys.stderr.write("abort_kernel: the server closed first\n")
            return 1
        got += len(d)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    s.close()
    print("aborted after %d bytes" % got)
    return 0


if __name__ == "__main__":
    sys.exit(main())
