/* Worker processes (one per device): the parent never opens a device (CUDA must not be
 * initialised before fork), hands out one workload at a time over a pipe, and gives the in-flight
 * workload of a worker that dies to another, so a failed device loses only that attempt. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tune/tune.h"

#define MAX_WORKERS 64
#define MAX_ATTEMPTS 2
#define STOP (-1)

typedef struct worker {
	pid_t pid;
	int to_child, from_child;
	int item; /* in flight, -1 when idle */
	int alive;
} worker;

static int write_int(int fd, int value)
{
	return write(fd, &value, sizeof value) == (ssize_t)sizeof value ? 0 : -1;
}

static int read_int(int fd, int *value)
{
	ssize_t got;
	do
		got = read(fd, value, sizeof *value);
	while (got < 0 && errno == EINTR);
	return got == (ssize_t)sizeof *value ? 0 : -1;
}

static void child_loop(int index, int ordinal, int in, int out,
                       int (*open_worker)(int, int, void *), int (*work)(int, void *),
                       int (*close_worker)(int, void *), void *ctx)
{
	int code = open_worker(index, ordinal, ctx);
	int item;
	while (code == 0 && read_int(in, &item) == 0 && item != STOP) {
		int result = work(item, ctx);
		fflush(NULL);
		if (result != 0 || write_int(out, item) != 0) {
			code = 3;
			break;
		}
	}
	if (code == 0)
		code = close_worker(index, ctx);
	fflush(NULL);
	_exit(code);
}

static int start(worker *w, int index, int ordinal, int (*open_worker)(int, int, void *),
                 int (*work)(int, void *), int (*close_worker)(int, void *), void *ctx)
{
	int down[2], up[2];
	if (pipe(down) != 0)
		return -1;
	if (pipe(up) != 0) {
		close(down[0]);
		close(down[1]);
		return -1;
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		close(down[1]);
		close(up[0]);
		child_loop(index, ordinal, down[0], up[1], open_worker, work, close_worker, ctx);
	}
	close(down[0]);
	close(up[1]);
	*w = (worker){.pid = pid, .to_child = down[1], .from_child = up[0], .item = -1, .alive = 1};
	return 0;
}

typedef struct queue {
	int *items, head, tail; /* a ring of n_items + retries */
	int *attempts;
	int n_items, done, lost;
} queue;

static void give(worker *w, queue *q)
{
	if (!w->alive || w->item >= 0 || q->head == q->tail)
		return;
	w->item = q->items[q->head++];
	q->attempts[w->item]++;
	(void)write_int(w->to_child, w->item); /* a failure shows as the worker's death */
}

static void reap(worker *w, queue *q, int index)
{
	int status = 0;
	waitpid(w->pid, &status, 0);
	w->alive = 0;
	close(w->to_child);
	close(w->from_child);
	if (w->item < 0)
		return;
	fprintf(stderr, "rowreduce: worker %d stopped (%s %d) with workload %d in flight; %s\n",
	        index, WIFSIGNALED(status) ? "signal" : "exit status",
	        WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status), w->item,
	        q->attempts[w->item] < MAX_ATTEMPTS ? "it goes to another worker" : "given up");
	if (q->attempts[w->item] < MAX_ATTEMPTS)
		q->items[q->tail++] = w->item;
	else
		q->lost++;
	w->item = -1;
}

static void serve(worker *workers, int n, queue *q)
{
	for (;;) {
		int alive = 0, busy = 0;
		struct pollfd fds[MAX_WORKERS];
		for (int k = 0; k < n; k++) {
			give(&workers[k], q);
			alive += workers[k].alive;
			busy += workers[k].alive && workers[k].item >= 0;
			fds[k] = (struct pollfd){
			    .fd = workers[k].alive ? workers[k].from_child : -1, .events = POLLIN};
		}
		if (!alive || (!busy && q->head == q->tail))
			break;
		if (poll(fds, (nfds_t)n, -1) < 0 && errno != EINTR)
			break;
		for (int k = 0; k < n; k++) {
			if (!workers[k].alive || !(fds[k].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			int item;
			if (read_int(workers[k].from_child, &item) == 0 &&
			    item == workers[k].item) {
				workers[k].item = -1;
				q->done++;
			} else {
				reap(&workers[k], q, k);
			}
		}
	}
	q->lost += q->tail - q->head; /* no worker was left to take them */
}

rr_status rr__tune_workers_run(int n_workers, const int *device_ordinals, int n_items,
                               int (*open_worker)(int worker, int ordinal, void *ctx),
                               int (*work)(int item, void *ctx),
                               int (*close_worker)(int worker, void *ctx), void *ctx, int *lost)
{
	if (n_workers < 1 || n_workers > MAX_WORKERS)
		return rr__fail(RR_ERR_INVALID_ARG, "%d workers: allowed are 1 to %d", n_workers,
		                MAX_WORKERS);
	queue q = {.n_items = n_items};
	q.items = calloc((size_t)(n_items * MAX_ATTEMPTS + 1), sizeof *q.items);
	q.attempts = calloc((size_t)(n_items + 1), sizeof *q.attempts);
	worker workers[MAX_WORKERS];
	if (!q.items || !q.attempts) {
		free(q.items);
		free(q.attempts);
		return rr__fail(RR_ERR_NOMEM, "out of memory for %d workloads", n_items);
	}
	for (int i = 0; i < n_items; i++)
		q.items[q.tail++] = i;
	signal(SIGPIPE, SIG_IGN); /* a dead worker's pipe reports EPIPE instead of killing us */
	int started = 0;
	for (int k = 0; k < n_workers; k++) {
		if (start(&workers[k], k, device_ordinals[k], open_worker, work, close_worker,
		          ctx) != 0)
			workers[k] = (worker){.alive = 0, .item = -1};
		else
			started++;
	}
	if (started)
		serve(workers, n_workers, &q);
	int failed_exit = 0;
	for (int k = 0; k < n_workers; k++) {
		if (!workers[k].alive)
			continue;
		write_int(workers[k].to_child, STOP);
		close(workers[k].to_child);
		int status = 0;
		waitpid(workers[k].pid, &status, 0);
		close(workers[k].from_child);
		failed_exit |= !WIFEXITED(status) || WEXITSTATUS(status) != 0;
	}
	*lost = started ? q.lost : n_items;
	free(q.items);
	free(q.attempts);
	if (!started)
		return rr__fail(RR_ERR_IO, "no worker process could be started: %s",
		                strerror(errno));
	if (failed_exit)
		return rr__fail(RR_ERR_IO, "a worker could not write its results (see above)");
	return RR_OK;
}
