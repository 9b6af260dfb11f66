/* main.c: sctphttpd's process: options, --daemon, the listeners (bound before privileges go,
 * again per worker with --workers), chroot and user, signals, the tick, and the exit. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "altsvc.h"
#include "cgi.h"
#include "config.h"
#include "conn.h"
#include "ev.h"
#include "httpd.h"
#include "log.h"
#include "mmc.h"
#include "server_file.h"
#include "throttle.h"
#include "tp.h"
#include "tlsio.h"
#include "workers.h"

#define SERVER_MMC_AGE_US 60000000      /* an unused file mapping is kept this long */

static struct {
	struct tp_listener **ls;
	char **lspec;               /* what each was asked for, "TYPE ADDR", for --workers */
	size_t nls, nlspec;
	int watched;                /* the listeners went to conn.c */
	int sigfd;
	struct ev_timer tick;
	int chrooted;
	int is_master;              /* --workers: the process that only forwards signals */
} srv = { .sigfd = -1 };

/* SIGUSR2, as thttpd's: a line of statistics (and one of the transports' counters, where a
 * type keeps any: usrsctp's retransmission timeouts); unused mappings go at once. */
static void
server_stats(void)
{
	uint64_t bytes;
	unsigned files;
	char tps[2048];

	mmc_expire(0);
	mmc_stats(&bytes, &files);
	fprintf(stderr, "sctphttpd: %ld connections and associations, mmap cache %u files "
	    "%llu bytes\n", conn_count(), files, (unsigned long long)bytes);
	if (tp_stats(tps, sizeof(tps)) > 0)
		fprintf(stderr, "sctphttpd: transport counters: %s\n", tps);
}

static void
server_signal(struct ev_loop *loop, int fd, unsigned events, void *arg)
{
	struct signalfd_siginfo si;

	(void)events;
	(void)arg;
	while (read(fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		switch (si.ssi_signo) {
		case SIGTERM:
		case SIGINT:
			ev_stop(loop);
			return;
		case SIGUSR1:
			conn_graceful();
			break;
		case SIGCHLD:
			cgi_reap();
			break;
		case SIGUSR2:
			server_stats();
			break;
		case SIGHUP:
			if (log_reopen() == -1)
				fprintf(stderr, "sctphttpd: reopening the log failed: %s\n",
				    strerror(errno));
			break;
		}
	}
}

static void
server_tick(struct ev_loop *loop, void *arg)
{
	(void)arg;
	log_flush();
	mmc_expire(SERVER_MMC_AGE_US);
	conn_accept_resume();
	ev_timer_start(loop, &srv.tick, 1000000, server_tick, NULL);
}

/* The transport options every listener gets, from the configuration. */
static void
server_listen_opts(struct tp_opts *o)
{
	const struct config *cf = httpd_config();

	tp_opts_init(o);
	o->streams = (uint16_t)cf->streams; /* the draft's limit L, as MIS and OS */
	o->nodelay = 1;
	o->backlog = 4096;
	o->udp_port = cf->tp.udp_port;
	o->udp_remote_port = cf->tp.udp_remote_port;
	o->encap_port = cf->tp.encap_port;
	o->sctp_interleave = cf->interleave;
	o->rto_min_ms = cf->tp.rto_min_ms;
	o->sack_delay_ms = cf->tp.sack_delay_ms;
	o->init_cwnd_mtus = cf->tp.init_cwnd_mtus;
}

static int
server_listen_one(const char *type, const char *addr, char *err, size_t errlen)
{
	struct tp_listener **nl, *l;
	struct tp_opts o;
	char **ns;

	server_listen_opts(&o);
	o.reuseport = httpd_config()->workers > 1;
	if ((l = tp_listen(type, addr, &o, err, errlen)) == NULL)
		return -1;
	if ((nl = realloc(srv.ls, (srv.nls + 1) * sizeof(*nl))) != NULL)
		srv.ls = nl;
	if ((ns = realloc(srv.lspec, (srv.nlspec + 1) * sizeof(*ns))) != NULL)
		srv.lspec = ns;
	if (nl == NULL || ns == NULL || asprintf(&srv.lspec[srv.nlspec], "%s %s", type, addr) == -1) {
		tp_listener_free(l);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	srv.nlspec++;
	srv.ls[srv.nls++] = l;
	fprintf(stderr, "sctphttpd: listening on %s %s\n", type, l->local);
	altsvc_listener(type, l->local);
	return 0;
}

/*
 * --workers: worker 0 serves on the sockets it inherited; every other worker binds its own
 * on the same addresses and (now known) ports, SO_REUSEPORT joining them into one group.
 * The inherited copies go: only the master and worker 0 keep the first sockets open.
 */
static int
server_listen_again(char *err, size_t errlen)
{
	struct tp_listener *l;
	struct tp_opts o;
	size_t i;

	server_listen_opts(&o);
	o.reuseport = 1;
	for (i = 0; i < srv.nls; i++) {
		char spec[400], *sp = strchr(srv.lspec[i], ' '), *colon;
		const char *port = strrchr(srv.ls[i]->local, ':');
		if (sp == NULL || port == NULL)
			continue;
		*sp = '\0';
		snprintf(spec, sizeof(spec), "%s", sp + 1);
		if ((colon = strrchr(spec, ':')) != NULL)
			snprintf(colon, sizeof(spec) - (size_t)(colon - spec), "%s", port);
		l = tp_listen(srv.lspec[i], spec, &o, err, errlen);
		*sp = ' ';
		if (l == NULL)
			return -1;
		tp_listener_free(srv.ls[i]);
		srv.ls[i] = l;
	}
	return 0;
}

/* Each worker serves on a listening socket of its own, bound to the same port (SO_REUSEPORT):
 * the transport must say it can (TP_CAP_FORK). A usrsctp stack (threads) does not survive a
 * fork, and one one-to-many socket has one receive queue for all associations. */
static int
server_workers_check(char *err, size_t errlen)
{
	const struct tp_type *t;
	size_t i;

	if (httpd_config()->workers <= 1)
		return 0;
	for (i = 0; i < httpd_config()->nlistens; i++)
		if ((t = tp_type_find(httpd_config()->listens[i].type)) != NULL && !(tp_type_caps(t) & TP_CAP_FORK)) {
			snprintf(err, errlen, "--workers %u: %s listens in one process only (its "
			    "listener cannot be shared by processes)", httpd_config()->workers, tp_type_name(t));
			return -1;
		}
	return 0;
}

static int
server_listen_all(char *err, size_t errlen)
{
	char addr[300];
	size_t i;

	if (httpd_config()->port >= 0) {
		const char *h = httpd_config()->host;
		if (h == NULL) {
			/* [::] takes IPv4 too (mapped) where the host allows it; else IPv4 only. */
			snprintf(addr, sizeof(addr), "[::]:%d", httpd_config()->port);
			if (server_listen_one("tcp", addr, err, errlen) == -1) {
				snprintf(addr, sizeof(addr), "0.0.0.0:%d", httpd_config()->port);
				if (server_listen_one("tcp", addr, err, errlen) == -1)
					return -1;
			}
		} else {
			if (strchr(h, ':') != NULL && h[0] != '[')
				snprintf(addr, sizeof(addr), "[%s]:%d", h, httpd_config()->port);
			else
				snprintf(addr, sizeof(addr), "%s:%d", h, httpd_config()->port);
			if (server_listen_one("tcp", addr, err, errlen) == -1)
				return -1;
		}
	}
	for (i = 0; i < httpd_config()->nlistens; i++)
		if (server_listen_one(httpd_config()->listens[i].type, httpd_config()->listens[i].addr, err,
		    errlen) == -1)
			return -1;
	return 0;
}

/* After binding (ports below 1024) and opening the root and the log: chroot, then the user. */
static int
server_drop_privileges(char *err, size_t errlen)
{
	struct passwd *pw = NULL;
	uid_t uid;
	gid_t gid;

	if (httpd_config()->user != NULL) {
		if ((pw = getpwnam(httpd_config()->user)) == NULL) {
			snprintf(err, errlen, "unknown user %s", httpd_config()->user);
			return -1;
		}
	}
	if (httpd_config()->chroot) {
		if (chroot(httpd_config()->dir) == -1 || chdir("/") == -1) {
			snprintf(err, errlen, "chroot %s: %s", httpd_config()->dir, strerror(errno));
			return -1;
		}
		srv.chrooted = 1;
		file_root_chrooted();
	}
	if (pw == NULL)
		return 0;
	uid = pw->pw_uid;
	gid = pw->pw_gid;
	if (setgroups(1, &gid) == -1 || setgid(gid) == -1 || setuid(uid) == -1) {
		snprintf(err, errlen, "dropping privileges to %s: %s", httpd_config()->user, strerror(errno));
		return -1;
	}
	/* Verify: a process that can become root again has dropped nothing. */
	if (uid != 0 && (setuid(0) != -1 || getuid() != uid || geteuid() != uid ||
	    getgid() != gid || getegid() != gid)) {
		snprintf(err, errlen, "privileges to %s not dropped", httpd_config()->user);
		return -1;
	}
	return 0;
}

static void
server_sigset(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGUSR1);
	sigaddset(set, SIGHUP);
	sigaddset(set, SIGCHLD);
	sigaddset(set, SIGUSR2);
}

static int
server_signals(char *err, size_t errlen)
{
	sigset_t set;

	signal(SIGPIPE, SIG_IGN); /* sendfile(2) to a reset peer would raise it */
	server_sigset(&set);
	if (sigprocmask(SIG_BLOCK, &set, NULL) == -1 ||
	    (srv.sigfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC)) == -1 ||
	    ev_fd_set(httpd_loop(), srv.sigfd, EV_READ, server_signal, NULL) == -1) {
		snprintf(err, errlen, "signals: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* Idle connections are cheap, descriptors are the limit: take all the hard limit allows. */
static void
server_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	if (httpd_config()->max_conns > 0)
		conn_set_max(httpd_config()->max_conns);
	else if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur > 256)
		conn_set_max((long)rl.rlim_cur - 128); /* room for files being sent, the log */
	else
		conn_set_max(128);
}

/* --daemon: fork before any listener (usrsctp's threads do not survive a fork); the parent
 * waits for the child's verdict on its set-up, so that errors still reach the terminal. */
static int
server_daemon(int *ready_fd)
{
	int p[2];
	char msg[512];
	ssize_t n;
	pid_t pid;

	if (pipe(p) == -1)
		return -1;
	if ((pid = fork()) == -1)
		return -1;
	if (pid > 0) {
		close(p[1]);
		n = read(p[0], msg, sizeof(msg) - 1);
		if (n > 0) {
			msg[n] = '\0';
			fprintf(stderr, "sctphttpd: %s\n", msg);
			_exit(1);
		}
		_exit(0);
	}
	close(p[0]);
	setsid();
	*ready_fd = p[1];
	return 0;
}

static int
server_pidfile(char *err, size_t errlen)
{
	FILE *f;

	if (httpd_config()->pidfile == NULL)
		return 0;
	if ((f = fopen(httpd_config()->pidfile, "we")) == NULL) {
		snprintf(err, errlen, "%s: %s", httpd_config()->pidfile, strerror(errno));
		return -1;
	}
	fprintf(f, "%ld\n", (long)getpid());
	fclose(f);
	return 0;
}

int
main(int argc, char **argv)
{
	char err[512] = "";
	int rc, ready_fd = -1, status = 1;
	unsigned worker = 0;
	struct ev_loop *loop;
	struct config *cf = httpd_config();
	sigset_t sigs;

	config_init(cf);
	rc = config_parse(cf, argc, argv, err, sizeof(err));
	if (rc == 1) {
		config_usage(stdout);
		config_free(cf);
		return 0;
	}
	if (rc == 2) {
		printf("%s\n", SERVER_SOFTWARE);
		config_free(cf);
		return 0;
	}
	if (rc == -1) {
		fprintf(stderr, "sctphttpd: %s (see --help)\n", err);
		config_free(cf);
		return 2;
	}
	server_nofile();
	/* Blocked before any thread exists (usrsctp's start with the first listener): a
	 * thread with them unblocked would take TERM or USR1 with the default action. */
	server_sigset(&sigs);
	sigprocmask(SIG_BLOCK, &sigs, NULL);
	if (cf->daemon && server_daemon(&ready_fd) == -1) {
		snprintf(err, sizeof(err), "fork: %s", strerror(errno));
		goto bad;
	}
	mmc_init(cf->mmap_max);
	if (server_workers_check(err, sizeof(err)) == -1 ||
	    (cf->throttles != NULL && throttle_load(cf->throttles, err, sizeof(err)) == -1) ||
	    file_root_open(cf->dir, err, sizeof(err)) == -1 ||
	    log_open(cf->logfile, cf->log_combined, err, sizeof(err)) == -1 ||
	    tlsio_init(err, sizeof(err)) == -1 ||
	    server_listen_all(err, sizeof(err)) == -1 ||
	    server_pidfile(err, sizeof(err)) == -1 ||
	    server_drop_privileges(err, sizeof(err)) == -1)
		goto bad;
	if (cf->workers > 1) {
		/* The master: set up is done (errors above still reach the terminal); it only
		 * forwards signals. Its copies of the listeners go, the workers hold theirs. */
		log_shared(); /* several writers: whole lines per write */
		if ((rc = workers_run(cf->workers, &sigs, &worker)) != -2) {
			if (ready_fd != -1)
				close(ready_fd);
			ready_fd = -1;
			srv.is_master = 1;
			status = rc;
			goto out;
		}
		/* A worker keeps them blocked: its signalfd takes what is pending already. */
		if (ready_fd != -1)
			close(ready_fd);
		ready_fd = -1;
		if (worker > 0 && server_listen_again(err, sizeof(err)) == -1)
			goto bad;
	}
	if ((loop = ev_new(err, sizeof(err))) == NULL)
		goto bad;
	httpd_set_loop(loop);
	srv.watched = 1; /* the listeners are conn.c's from here on */
	if (server_signals(err, sizeof(err)) == -1 ||
	    conn_listen(srv.ls, srv.nls, err, sizeof(err)) == -1)
		goto bad;
	ev_timer_start(httpd_loop(), &srv.tick, 1000000, server_tick, NULL);
	if (ready_fd != -1) {
		int dn = open("/dev/null", O_RDWR);
		if (dn != -1) {
			dup2(dn, 0);
			if (cf->logfile == NULL || strcmp(cf->logfile, "-") != 0)
				dup2(dn, 1);
			dup2(dn, 2);
			if (dn > 2)
				close(dn);
		}
		close(ready_fd);
		ready_fd = -1;
	}
	if (ev_run(httpd_loop()) == -1) {
		snprintf(err, sizeof(err), "event loop: %s", strerror(errno));
		goto bad;
	}
	status = 0;
bad:
	if (status != 0) {
		if (ready_fd != -1) {
			if (write(ready_fd, err, strlen(err)) < 0)
				status = 1;
		} else {
			fprintf(stderr, "sctphttpd: %s\n", err);
		}
	}
out:
	if (ready_fd != -1)
		close(ready_fd);
	httpd_set_stopping(); /* no listener comes back while the connections go */
	conn_close_all();
	tlsio_fini();
	if (srv.watched)
		conn_stop_accepting();
	else
		while (srv.nls > 0)
			tp_listener_free(srv.ls[--srv.nls]);
	free(srv.ls);
	while (srv.nlspec > 0)
		free(srv.lspec[--srv.nlspec]);
	free(srv.lspec);
	if (httpd_loop() != NULL)
		ev_timer_stop(httpd_loop(), &srv.tick);
	if (srv.sigfd != -1) {
		ev_fd_del(httpd_loop(), srv.sigfd);
		close(srv.sigfd);
	}
	log_close();
	throttle_free_all();
	mmc_free_all();
	file_root_close();
	if (cf->pidfile != NULL && !srv.chrooted && (status == 0 || srv.is_master) &&
	    (srv.is_master || cf->workers <= 1))
		unlink(cf->pidfile);
	if (httpd_loop() != NULL)
		ev_free(httpd_loop());
	config_free(cf);
	return status;
}
