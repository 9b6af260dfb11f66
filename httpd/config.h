/* config.h: sctphttpd's options: flags and -C FILE (config.c). */
#ifndef SCTPHTTPD_CONFIG_H
#define SCTPHTTPD_CONFIG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tp.h"

#define SERVER_MSG_SIZE 16384        /* default SCTP user message size (the draft's 16 KiB) */
#define SERVER_MSG_SIZE_MAX 65536    /* the draft's SHOULD NOT exceed */
#define SERVER_STREAMS 100           /* default stream limit L per association */

/* One -L TYPE:ADDR (or -p/-h turned into one). */
struct config_listen {
	char *type;
	char *addr;
};

struct config {
	char *dir;                    /* document root (-d) */
	int vhost;                    /* -v: files under dir/HOST/ by the Host header */
	char *host;                   /* -h: TCP bind address for -p */
	int port;                     /* -p: TCP port (0: any free one), -1 = none */
	struct config_listen *listens;
	size_t nlistens;
	char *logfile;                /* -l: access log, "-" = stdout, NULL = none */
	int log_combined;             /* --log-format combined */
	unsigned idle_timeout_s;      /* --idle-timeout */
	unsigned request_timeout_s;   /* --request-timeout: header section must be complete */
	unsigned linger_s;            /* after Connection: close on TCP, wait for the peer's FIN */
	long max_conns;               /* --max-conns, 0 = from RLIMIT_NOFILE */
	unsigned streams;             /* --sctp-streams L */
	size_t msg_size;              /* --sctp-msg-size */
	unsigned pipeline_max;        /* responses queued per stream before reading pauses */
	struct tp_opts tp;            /* --udp-port, --udp-remote-port, --sctp-udp-remote-port
	                               * (lib/tp/tp_cli.h): only those three fields are set */
	int ppid0;                    /* --accept-ppid0: PPID 0 counts as HTTP too (testing only) */
	int interleave;               /* --sctp-interleave: I-DATA, round-robin scheduler */
	int sendfile;                 /* 0 with --no-sendfile */
	int daemon;                   /* --daemon; -D keeps the default, foreground */
	char *pidfile;                /* -i */
	char *user;                   /* -u */
	int chroot;                   /* -r */
	size_t max_line, max_head;    /* request line and header section limits (414, 431) */
	char *throttles;              /* -t: thttpd throttle file */
	char *cgi_pattern;            /* -c: thttpd URL pattern of CGI programs */
	unsigned cgi_timeout_s;       /* --cgi-timeout: a script is killed after it */
	uint64_t cgi_max_body;        /* --cgi-max-body: request content for a script (413) */
	unsigned cgi_max;             /* --cgi-max: scripts running at once (503 beyond) */
	long alt_svc_ma;              /* --alt-svc MA: advertise SCTP on TCP, -1 = off */
	int listings;                 /* 0 with --no-listings */
	size_t listing_max;           /* --listing-max: entries read per listing at most */
	long max_age;                 /* -M: Cache-Control max-age of files, -1 = none */
	char *charset;                /* -T: charset of text types (thttpd's default UTF-8) */
	unsigned workers;             /* --workers */
	uint64_t mmap_max;            /* --mmap-cache: bytes mapped at most, 0 = off */
	char *tls_cert, *tls_key;     /* --tls-cert, --tls-key: https on every listener */
	unsigned tls_max;             /* --tls-max: TLS handshakes in progress at once */
};

void config_init(struct config *cf);
/* 0 run, 1 --help, 2 -V, -1 bad (err says why) */
int config_parse(struct config *cf, int argc, char **argv, char *err, size_t errlen);
void config_free(struct config *cf);
void config_usage(FILE *f);

#endif
