/* abort_peer.c: a usrsctp client that asks sctphttpd for a file on several streams, reads
 * part of the answers, then aborts the association: an ABORT chunk sent with SCTP_ABORT, and the
 * socket closed once the association is gone (a close with SO_LINGER 0 sends the ABORT itself,
 * and races there with the receive thread: usrsctp issues 676 and 709). */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <usrsctp.h>

static void
die(const char *what)
{
	fprintf(stderr, "abort_peer: %s: %s\n", what, strerror(errno));
	exit(1);
}

int
main(int argc, char **argv)
{
	struct sctp_udpencaps enc;
	struct sctp_initmsg im;
	struct sockaddr_in sin;
	struct sctp_sndinfo si;
	struct socket *so;
	char req[512], buf[65536];
	long want, got = 0;
	ssize_t n;
	int i, streams;

	if (argc != 8) {
		fprintf(stderr, "usage: abort_peer LOCAL_UDP REMOTE_UDP ADDR PORT PATH STREAMS BYTES\n"
		    "  requests PATH on STREAMS streams, reads BYTES of the answers, then aborts\n");
		return 2;
	}
	streams = atoi(argv[6]);
	want = atol(argv[7]);
	usrsctp_init((uint16_t)atoi(argv[1]), NULL, NULL);
	usrsctp_sysctl_set_sctp_blackhole(0);
	if ((so = usrsctp_socket(AF_INET, SOCK_STREAM, IPPROTO_SCTP, NULL, NULL, 0, NULL)) == NULL)
		die("socket");
	memset(&enc, 0, sizeof(enc));
	enc.sue_address.ss_family = AF_INET;
	enc.sue_port = htons((uint16_t)atoi(argv[2]));
	if (usrsctp_setsockopt(so, IPPROTO_SCTP, SCTP_REMOTE_UDP_ENCAPS_PORT, &enc, sizeof(enc)) < 0)
		die("SCTP_REMOTE_UDP_ENCAPS_PORT");
	memset(&im, 0, sizeof(im));
	im.sinit_num_ostreams = im.sinit_max_instreams = (uint16_t)streams;
	if (usrsctp_setsockopt(so, IPPROTO_SCTP, SCTP_INITMSG, &im, sizeof(im)) < 0)
		die("SCTP_INITMSG");
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons((uint16_t)atoi(argv[4]));
	if (inet_pton(AF_INET, argv[3], &sin.sin_addr) != 1) {
		fprintf(stderr, "abort_peer: bad address %s\n", argv[3]);
		return 2;
	}
	if (usrsctp_connect(so, (struct sockaddr *)&sin, sizeof(sin)) < 0)
		die("connect");
	snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: x\r\n\r\n", argv[5]);
	for (i = 0; i < streams; i++) {
		memset(&si, 0, sizeof(si));
		si.snd_sid = (uint16_t)i;
		si.snd_ppid = htonl(63);
		if (usrsctp_sendv(so, req, strlen(req), NULL, 0, &si, sizeof(si), SCTP_SENDV_SNDINFO,
		    0) < 0)
			die("send");
	}
	while (got < want) {
		struct sockaddr_in from;
		socklen_t fromlen = sizeof(from), infolen = 0;
		unsigned int type = 0;
		int flags = 0;
		n = usrsctp_recvv(so, buf, sizeof(buf), (struct sockaddr *)&from, &fromlen, NULL,
		    &infolen, &type, &flags);
		if (n <= 0)
			die("recv (the server closed first)");
		got += n;
	}
	memset(&si, 0, sizeof(si));
	si.snd_flags = SCTP_ABORT;
	if (usrsctp_sendv(so, "", 0, NULL, 0, &si, sizeof(si), SCTP_SENDV_SNDINFO, 0) < 0)
		die("send SCTP_ABORT");
	printf("aborted after %ld bytes\n", got);
	fflush(stdout);
	/* the receive thread done with what it had of the association, and the ABORT gone */
	usleep(200000);
	usrsctp_close(so);
	while (usrsctp_finish() != 0)
		usleep(100000);
	return 0;
}
