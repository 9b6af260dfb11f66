/* workers.c: --workers N: N processes serve one port each with a socket of its own
 * (SO_REUSEPORT: the kernel spreads the peers; TCP, kernel SCTP one-to-one); the master
 * forwards signals and restarts nothing: a worker that dies stops the others, and the exit
 * status says so. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "workers.h"

#define WORKERS_MAX 64

/*
 * Fork n workers. In each worker this returns -2 (serve on) with its index; in the master it
 * returns the exit status once every worker has ended: 0 when all ended with 0 after a
 * signal, else 1.
 */
int
workers_run(unsigned n, const sigset_t *sigs, unsigned *index)
{
	pid_t pids[WORKERS_MAX];
	int st[WORKERS_MAX];
	unsigned i, alive = 0;
	int status = 0, stopping = 0;
	pid_t master = getpid();

	for (i = 0; i < n && i < WORKERS_MAX; i++) {
		pid_t pid = fork();
		if (pid == -1) {
			fprintf(stderr, "sctphttpd: fork: %s\n", strerror(errno));
			status = 1;
			break;
		}
		if (pid == 0) {
			/* The master's death (kill -9) must not leave orphans serving on. */
			prctl(PR_SET_PDEATHSIG, SIGTERM);
			if (getppid() != master)
				_exit(1);
			*index = i;
			return -2;
		}
		pids[i] = pid;
		st[i] = -1;
		alive++;
	}
	n = i;
	if (status != 0) {
		for (i = 0; i < n; i++)
			kill(pids[i], SIGTERM);
		stopping = 1;
	}
	fprintf(stderr, "sctphttpd: %u workers\n", n);
	while (alive > 0) {
		siginfo_t si;
		int sig = sigwaitinfo(sigs, &si), ws;
		pid_t pid;

		if (sig == -1)
			continue;
		if (sig != SIGCHLD) {
			if (sig == SIGTERM || sig == SIGINT || sig == SIGUSR1)
				stopping = 1;
			for (i = 0; i < n; i++)
				if (st[i] == -1)
					kill(pids[i], sig);
			continue;
		}
		while ((pid = waitpid(-1, &ws, WNOHANG)) > 0) {
			for (i = 0; i < n && pids[i] != pid; i++)
				;
			if (i == n)
				continue;
			st[i] = ws;
			alive--;
			if (WIFEXITED(ws) && WEXITSTATUS(ws) == 0 && stopping)
				continue;
			if (WIFSIGNALED(ws))
				fprintf(stderr, "sctphttpd: worker %u (pid %ld) killed by signal %d; "
				    "stopping the others, nothing is restarted\n", i, (long)pid,
				    WTERMSIG(ws));
			else
				fprintf(stderr, "sctphttpd: worker %u (pid %ld) exited with status %d%s\n",
				    i, (long)pid, WEXITSTATUS(ws),
				    stopping ? "" : "; stopping the others, nothing is restarted");
			status = 1;
			if (!stopping) {
				stopping = 1;
				for (i = 0; i < n; i++)
					if (st[i] == -1)
						kill(pids[i], SIGTERM);
			}
		}
	}
	return status;
}
