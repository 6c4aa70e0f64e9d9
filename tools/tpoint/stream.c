/* SPDX-License-Identifier: MIT */
/*
 * tpoint stream -p PID -e GLOB[,GLOB...] [-f EXPR] [-e GLOB... [-f EXPR]]...
 *
 * The events of a running process as they happen, one line each, as the kernel's
 * trace_pipe gives them and as 'trace-cmd report' lays them out. The process spools its
 * records into a file of ours, partly filled pages included every 50 ms (live mode); we
 * read the file's new whole chunks every 20 ms and render them with libtraceevent. Lines
 * go out in time order across threads: a record waits until the process has said that
 * every record before its time is spooled (SPOOL_SYNCED, after each 50 ms pass), or at
 * most HOLD_MAX_NS, so that a line follows its event within about 100 ms when the rate is
 * low. Only the selection's events are shown, filtered here (select.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <event-parse.h>
#include <tpoint/tpoint.h>

#include "attach.h"
#include "fmt/control_msg.h"
#include "escape.h"
#include "filter.h"
#include "fmt/merge.h"
#include "fmt/tracing_windows.h"
#include "select.h"
#include "render.h"
#include "spool_read.h"
#include "options.h"
#include "tool.h"

#define VERB "stream"
/* How often the spool is read: the process adds to it every 50 ms in live mode. */
#define POLL_NS 20000000L
/* The own clock samples kept; old ones are only needed for records that came very late. */
#define MAX_SAMPLES 8192
/*
 * The longest a line waits for the records of other threads that may come before it, when
 * the process says nothing (it is stopped, or its drain thread is starved): after that it
 * goes out, and a record older than it that comes later goes out late.
 */
#define HOLD_MAX_NS 1000000000ull

static const struct opts_spec stream_opts = {
	.verb = VERB,
	.usage = (const char *const[]){ "tpoint stream -p PID [-e GLOB[,GLOB...] [-f EXPR]]...", NULL },
	.about = "Print the events of the running process PID as they happen, one line each,\n"
		 "laid out as 'trace-cmd report' prints them (times are CLOCK_MONOTONIC\n"
		 "seconds), until Ctrl-C or the end of the process. Events the process could\n"
		 "not keep are announced as \"CPU:N [COUNT EVENTS DROPPED]\". Lines come in\n"
		 "time order, held until the records of other threads before them are in\n"
		 "(about 100 ms, at most 1 s). What the process records for itself or for\n"
		 "others is not shown, and its own filters stay as they are.\n",
	.opts = (const struct opt[]){
		OPT_PID("the process"),
		OPT_EVENTS("events to show: sys:name, sys:*, sys or name, comma-separated;\n"
			   "may be given more than once; without -e, the events\n"
			   "the process has enabled, as trace_pipe shows them"),
		OPT_FILTER("show only records for which EXPR holds (the kernel's\n"
			   "filter syntax), of the events of the -e before it; on\n"
			   "those that lack its fields it does not apply (said)"),
		OPT_END,
	},
	.after = "Exit status: 0 stopped by Ctrl-C or SIGTERM, or the process ended; 1 the process\n"
		 "cannot be streamed; 2 usage error.\n",
	.stop_at_operand = 1,
};
/* A record waiting to be printed, with what its chunk said. */
struct pending {
	/*
	 * First (the merge hands back its address). key.ns: the time; key.tie: the arrival,
	 * so that on equal times a thread's records stay in their order (lib/fmt/merge.h)
	 */
	struct tp_merge_src key;
	uint32_t cpu;
	uint64_t lost;	     /* events lost before it: the drop line goes first */
	const char *data;    /* payload (in the read buffer, or our copy once held); NULL: only
			      * a drop line */
	uint32_t size;
	uint64_t raw;        /* its raw clock, for the off windows */
};

/* What the selection says of an event id; how it renders is the renderer's (render.h). */
struct ev_note {
	bool known;   /* its format came: `shown` and `filter` are set */
	bool shown;   /* the selection has it */
	struct filter *filter; /* what its records must pass to be shown, or NULL */
};

struct streamer {
	struct attach a;
	const struct selection *sel;
	int fd;
	char *buf; /* the file's bytes read but not yet consumed: a chunk still being written */
	size_t len, cap;
	uint64_t read_off; /* bytes of the file read so far */
	bool have_header;
	bool own_samples;    /* the process's clock is ours too: sample it ourselves */
	struct spool_clock clock; /* the records' raw clock to CLOCK_MONOTONIC ns */
	struct renderer rd;    /* libtraceevent, shared with report */
	struct ev_note *notes; /* by event id */
	struct pending *pend;
	size_t npend, pend_cap;
	uint64_t arrivals;     /* records taken so far: the order of the next */
	struct tp_merge held;  /* records waiting for their turn (struct pending, each its own) */
	uint64_t synced;       /* the process's latest SPOOL_SYNCED (raw clock), or 0 */
	struct tracing_windows tracing; /* its tracing_on off windows (SPOOL_TRACING) */
	bool flush_all;        /* the last read: print everything held */
	uint64_t since;        /* CLOCK_MONOTONIC ns of the start: older records are not ours */
	/* Packed chunks' records, unpacked: SPOOL_UNPACKED_MAX bytes each, reused by batches. */
	char **unpacked;
	size_t nunpacked, unpacked_cap;
	bool ended;    /* the spool says the recording ended */
	bool damaged;  /* the spool is, from where it was said: not read further */
	bool write_failed;
	int write_errno;
};

static volatile sig_atomic_t stop_requested;

static void on_stop(int sig)
{
	(void)sig;
	stop_requested = 1;
}

/* ---- time: the records' raw clock to CLOCK_MONOTONIC ns (spool_read.h) ---- */

static void add_sample(struct streamer *st, struct clock_sample cs)
{
	if (tp_spool_clock_add(&st->clock, cs) < 0)
		tool_error(VERB, "out of memory: a clock sample is left out");
}

static uint64_t clock_to_ns(struct streamer *st, uint64_t c)
{
	return tp_spool_clock_ns(&st->clock, c);
}

/* ---- the spool's chunks ---- */

/* An event the spool names (checked by the reader). */
static void add_event(struct streamer *st, const struct spool_event_def *d)
{
	const char *sys = d->system, *name = d->name, *fmt = d->format, *body;
	uint16_t id = d->id;
	char *text;
	int len;

	if (!st->notes[id].known) {
		st->notes[id].known = true;
		st->notes[id].shown = sel_event(st->sel, sys, name, fmt, &st->notes[id].filter);
	}
	if (!(body = strstr(fmt, "format:")) || st->rd.events[id].label)
		return;
	/*
	 * The text trace.dat gives libtraceevent: the id is the one the records carry. The
	 * renderer checks and parses it as report does; what is wrong with it is said with
	 * the first record of the event that is shown.
	 */
	len = asprintf(&text, "name: %s\nID: %u\n%s", name, id, body);
	if (len < 0 || render_add_format(&st->rd, id, sys, name, text, (size_t)len) < 0)
		tool_error(VERB, "out of memory: the format of %s:%s is left out", sys, name);
	if (len >= 0)
		free(text);
}

static struct pending *new_pending(struct streamer *st)
{
	if (st->npend == st->pend_cap) {
		size_t cap = st->pend_cap ? 2 * st->pend_cap : 256;
		struct pending *n = realloc(st->pend, cap * sizeof(*n));

		if (!n)
			return NULL;
		st->pend = n;
		st->pend_cap = cap;
	}
	memset(&st->pend[st->npend], 0, sizeof(st->pend[0]));
	st->pend[st->npend].key.tie = st->arrivals++;
	return &st->pend[st->npend++];
}

/* Room to unpack one more chunk of the batch into, kept until the batch is printed. */
static char *batch_unpacked(struct streamer *st)
{
	if (st->nunpacked == st->unpacked_cap) {
		size_t cap = st->unpacked_cap ? 2 * st->unpacked_cap : 16;
		char **n = realloc(st->unpacked, cap * sizeof(*n));

		if (!n)
			return NULL;
		memset(n + st->unpacked_cap, 0, (cap - st->unpacked_cap) * sizeof(*n));
		st->unpacked = n;
		st->unpacked_cap = cap;
	}
	if (!st->unpacked[st->nunpacked])
		st->unpacked[st->nunpacked] = malloc(SPOOL_UNPACKED_MAX);
	return st->unpacked[st->nunpacked] ? st->unpacked[st->nunpacked++] : NULL;
}

/* The records of one chunk join the batch; their times are worked out once it is read. */
static void add_records(struct streamer *st, uint32_t type, const char *body, uint32_t size)
{
	const struct spool_records *h = (const void *)body;
	uint64_t lost = h->lost_before, clock;
	struct spool_iter it;
	const char *data;
	uint32_t len;
	struct pending *pd;
	char *unpacked = NULL;

	if (type == SPOOL_PAGE_PACKED && !(unpacked = batch_unpacked(st))) {
		tool_error(VERB, "out of memory: the records of a page are left out");
		return;
	}
	tp_spool_iter_init(&it, type, body, size, unpacked);
	while (tp_spool_iter_next(&it, &clock, &data, &len)) {
		uint16_t id;

		memcpy(&id, data, 2);
		/* Not ours, or not passing our filter: its loss mark goes with the next one. */
		if (st->notes[id].known && (!st->notes[id].shown ||
					    (st->notes[id].filter &&
					     !filter_match(st->notes[id].filter, data, len))))
			continue;
		pd = new_pending(st);
		if (!pd)
			return;
		pd->key.ns = clock; /* raw, for now */
		pd->raw = clock;
		pd->cpu = h->cpu;
		pd->lost = lost;
		pd->data = data;
		pd->size = len;
		lost = 0;
	}
	if (lost && (pd = new_pending(st))) {
		/* Nothing came after the loss: say it at once. */
		pd->cpu = h->cpu;
		pd->lost = lost;
	}
}

/* One line, or only the lost-events line, as trace-cmd report lays them out. */
static void print_pending(struct streamer *st, const struct pending *pd)
{
	struct tep_record rec;

	if (!pd->data) {
		if (pd->lost)
			render_dropped((int)pd->cpu, (unsigned long long)pd->lost);
		return;
	}
	memset(&rec, 0, sizeof(rec));
	rec.ts = pd->key.ns;
	rec.size = (int)pd->size;
	rec.data = (void *)pd->data;
	rec.cpu = (int)pd->cpu;
	rec.missed_events = (long long)pd->lost;
	render_record(&st->rd, &rec, NULL, 0);
}

/*
 * A record of the batch joins those held, with a copy of its bytes: the batch's go. Each
 * held record is a source of one record to the merge (lib/fmt/merge.h), its arrival its
 * tie number.
 */
static int hold(struct streamer *st, const struct pending *pd)
{
	struct pending *h = malloc(sizeof(*h));

	if (!h)
		return -1;
	*h = *pd;
	if (pd->data && !(h->data = malloc(pd->size ? pd->size : 1))) {
		free(h);
		return -1;
	}
	if (pd->data)
		memcpy((char *)h->data, pd->data, pd->size);
	if (tp_merge_add(&st->held, &h->key)) {
		free((char *)h->data);
		free(h);
		return -1;
	}
	return 0;
}

/* The oldest record held goes out of the merge into *out; its bytes are the caller's. */
static void unhold(struct streamer *st, struct pending *out)
{
	struct pending *h = (struct pending *)(void *)tp_merge_top(&st->held);

	*out = *h;
	tp_merge_advanced(&st->held, false);
	free(h);
}

/*
 * Up to where lines may go out: every record older is in, as the process said
 * (SPOOL_SYNCED), or waited for long enough; everything at the end.
 */
static uint64_t print_horizon(struct streamer *st)
{
	struct timespec now;
	uint64_t horizon = 0, mono;

	if (st->flush_all)
		return UINT64_MAX;
	if (st->synced)
		horizon = clock_to_ns(st, st->synced);
	clock_gettime(CLOCK_MONOTONIC, &now);
	mono = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
	if (mono > HOLD_MAX_NS && mono - HOLD_MAX_NS > horizon)
		horizon = mono - HOLD_MAX_NS;
	return horizon;
}

/*
 * Read what the process added, print the records of its whole chunks in time order, and
 * keep a chunk still being written for the next time. 0, or -1 if the spool is unusable.
 */
static int pump_window(struct streamer *st, bool *more)
{
	struct spool_walk walk;
	size_t at = 0;
	char why[256];
	struct stat fst;

	for (;;) {
		ssize_t n;

		/*
		 * A window at a time: the process chooses the file's size (a truncate() makes a
		 * gigabyte of zeros), and a whole chunk of the largest size is all a step needs.
		 */
		if (st->len >= SPOOL_CHUNK_MAX + sizeof(struct spool_chunk)) {
			*more = true;
			break;
		}

		if (st->cap - st->len < 65536) {
			size_t cap = st->cap ? 2 * st->cap : 1 << 20;
			char *b = realloc(st->buf, cap);

			if (!b) {
				tool_error(VERB, "out of memory");
				return -1;
			}
			st->buf = b;
			st->cap = cap;
		}
		n = pread(st->fd, st->buf + st->len, st->cap - st->len, (off_t)st->read_off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			tool_error(VERB, "%s: %s", st->a.spool, strerror(errno));
			return -1;
		}
		if (n == 0)
			break;
		st->len += (size_t)n;
		st->read_off += (uint64_t)n;
	}
	/* Taken after the read: every record read is older, so its time is interpolated. */
	if (st->own_samples)
		add_sample(st, tp_clock_sample_now());
	if (!st->have_header) {
		const struct spool_file_header *h = (const void *)st->buf;

		if (st->len < sizeof(*h))
			return 0;
		if (tp_spool_header_check(h, st->len, &at, why, sizeof(why))) {
			tool_error(VERB, "%s: offset %zu: %s", st->a.spool, at, why);
			return -1;
		}
		tp_spool_clock_init(&st->clock, h, MAX_SAMPLES);
		/* The same hardware clock as ours (the TSC is the machine's, not the process's). */
		st->own_samples = !st->clock.identity &&
				  !strncmp(h->clock_name, TPOINT_ARCH_CLOCK_NAME,
					   sizeof(h->clock_name));
		st->have_header = true;
		at = sizeof(*h);
		if (st->own_samples)
			add_sample(st, tp_clock_sample_now());
	}
	st->npend = 0;
	/*
	 * The whole chunks; a chunk still being written stays for the next time. What the
	 * process wrote wrong is passed over, as the file writer does (it says so there).
	 */
	walk = (struct spool_walk){ st->buf, st->len, at, 0 };
	if (fstat(st->fd, &fst) == 0 && (uint64_t)fst.st_size > st->read_off - st->len)
		walk.file_len = (uint64_t)fst.st_size - (st->read_off - st->len);
	for (;;) {
		struct spool_item c;
		enum spool_step step = tp_spool_next(&walk, &c, why, sizeof(why));

		if (step == SPOOL_STEP_END || step == SPOOL_STEP_CUT)
			break;
		if (step == SPOOL_STEP_DAMAGED) { /* nothing after it can be found */
			tool_error(VERB, "%s: offset %llu: %s", st->a.spool,
				   (unsigned long long)(st->read_off - st->len + c.off), why);
			st->damaged = true;
			*more = false;
			break;
		}
		if (step == SPOOL_STEP_BAD)
			continue;
		switch (c.type) {
		case SPOOL_EVENT:
			add_event(st, &c.event);
			break;
		case SPOOL_COMM:
			/* A thread renamed since: the newer name wins, as in record. */
			tep_override_comm(st->rd.tep, c.comm.name, (int)c.comm.tid);
			break;
		case SPOOL_CLOCK:
			add_sample(st, c.clock);
			break;
		case SPOOL_RECORDS:
		case SPOOL_PAGE:
		case SPOOL_PAGE_PACKED:
			add_records(st, c.type, c.body, c.size);
			break;
		case SPOOL_END:
			st->ended = true;
			break;
		case SPOOL_TRACING:
			if (tp_tracing_windows_add(&st->tracing, c.body, c.count) < 0) {
				tool_error(VERB, "out of memory");
				return -1;
			}
			break;
		case SPOOL_SYNCED:
			if (c.synced > st->synced)
				st->synced = c.synced;
			break;
		default:
			break;
		}
	}
	at = walk.off;
	/*
	 * Every clock sample of the batch is in: now the times; then the records join those
	 * held, and the lines go out up to where no older record can come.
	 */
	for (size_t i = 0; i < st->npend; i++) {
		if (st->pend[i].data)
			st->pend[i].key.ns = clock_to_ns(st, st->pend[i].key.ns);
		/* What a process keeping events in memory had before we came is not streamed. */
		if (st->pend[i].data && st->pend[i].key.ns < st->since)
			continue;
		if (hold(st, &st->pend[i]) < 0) {
			tool_error(VERB, "out of memory");
			return -1;
		}
	}
	st->npend = 0;
	st->nunpacked = 0;
	for (uint64_t horizon = print_horizon(st);
	     tp_merge_top(&st->held) && tp_merge_top(&st->held)->ns <= horizon &&
	     !st->write_failed;) {
		struct pending pd;

		unhold(st, &pd);
		/* Of a tracing_on off window (a traceoff trigger): left out, as in a file. Known
		 * by now: the process spools its switches before each synced mark. */
		if (pd.data && tp_tracing_windows_off(&st->tracing, pd.raw)) {
			free((char *)pd.data);
			pd.data = NULL; /* its drop line, if any, still goes */
		}
		print_pending(st, &pd);
		free((char *)pd.data);
	}
	/* One write per batch: as prompt as line buffering, and cheaper at high rates. */
	if (!st->write_failed && (fflush(stdout) || ferror(stdout))) {
		st->write_failed = true;
		st->write_errno = errno;
	}
	memmove(st->buf, st->buf + at, st->len - at);
	st->len -= at;
	return st->damaged ? -1 : 0;
}

/* What the process added, a window at a time. 0, or -1 if the spool is unusable. */
static int pump(struct streamer *st)
{
	bool more = true;
	int ret = 0;

	while (more && !ret && !st->damaged) {
		more = false;
		ret = pump_window(st, &more);
	}
	return st->damaged ? -1 : ret;
}

/* Is the process gone? Its control socket closes when it ends, zombie or not. */
static bool process_gone(const struct streamer *st)
{
	struct pollfd p = { .fd = st->a.conn.fd, .events = POLLRDHUP };

	if (kill(st->a.pid, 0) < 0 && errno == ESRCH)
		return true;
	return st->a.conn.fd >= 0 && poll(&p, 1, 0) == 1 &&
	       (p.revents & (POLLHUP | POLLRDHUP | POLLERR));
}

static int setup_tep(struct streamer *st)
{
	st->notes = calloc(0x10000, sizeof(*st->notes));
	if (!st->notes)
		return -1;
	/* The process is on this machine: its byte order and long size are ours. */
	return render_init(&st->rd, VERB, NULL, __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__,
			   (int)sizeof(long), TPOINT_PAGE_SIZE);
}

static int stream_pid(pid_t pid, const struct selection *sel)
{
	struct timespec t0;
	struct streamer st;
	struct sigaction sa;
	char err[1024] = "";
	bool salvaged, gone = false;
	int ret = EXIT_FAIL;

	memset(&st, 0, sizeof(st));
	st.fd = -1;
	st.sel = sel;
	/*
	 * From the start: Ctrl-C while the filters are being set must not leave them set. The
	 * requests to the process carry on (SA_RESTART); the wait between reads never restarts,
	 * so the stop is immediate.
	 */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* A reader that went away (| head) is a stop like Ctrl-C, seen as EPIPE. */
	signal(SIGPIPE, SIG_IGN);
	/* /tmp: the process reaches it (its control socket may live there too). */
	if (attach_make_dir(&st.a, pid, "/tmp/stream", err, sizeof(err)) < 0) {
		tool_error(VERB, "%s", err);
		return EXIT_FAIL;
	}
	if (setup_tep(&st) < 0) {
		tool_error(VERB, "out of memory");
		goto out;
	}
	/* Every -e names an event, every -f compiles for one: before anything changes. */
	if (ctl_connect(pid, &st.a.conn, err, sizeof(err)) < 0) {
		tool_error(VERB, "%s", err);
		goto out;
	}
	if (sel_check(sel, VERB, &st.a.conn, pid) < 0)
		goto out;
	ctl_close(&st.a.conn);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	st.since = (uint64_t)t0.tv_sec * 1000000000u + (uint64_t)t0.tv_nsec;
	if (attach_start(&st.a, pid, sel_globs(sel), "discard", 0, true, err, sizeof(err)) < 0) {
		tool_error(VERB, "%s", err);
		goto out;
	}
	st.fd = fcntl(st.a.spool_fd, F_DUPFD_CLOEXEC, 0); /* what we opened, not its name */
	if (st.fd < 0) {
		tool_error(VERB, "%s: %s", st.a.spool, strerror(errno));
		attach_finish(&st.a, &salvaged, err, sizeof(err));
		goto out;
	}
	ret = EXIT_OK;
	while (!stop_requested && !st.write_failed) {
		struct timespec ts = { 0, POLL_NS };

		if (pump(&st) < 0) {
			ret = EXIT_FAIL;
			break;
		}
		if (st.ended || process_gone(&st)) {
			gone = true;
			break;
		}
		nanosleep(&ts, NULL);
	}
	/* The process completes its spool (or we salvage its pages): print what remains. */
	if (attach_finish(&st.a, &salvaged, err, sizeof(err)) < 0 && !gone && !st.ended)
		tool_error(VERB, "%s", err);
	st.flush_all = true;
	if (!st.write_failed && pump(&st) < 0)
		ret = EXIT_FAIL;
	if (salvaged && !st.ended)
		tool_warn("stream", "process %d is gone; its last events were read "
			"from its buffer", (int)pid);
	if (st.write_failed && st.write_errno != EPIPE) {
		tool_error(VERB, "writing: %s", strerror(st.write_errno));
		ret = EXIT_FAIL;
	}
out:
	if (st.fd >= 0)
		close(st.fd);
	attach_cleanup(&st.a);
	render_free(&st.rd);
	for (size_t i = 0; st.notes && i < 0x10000; i++)
		tp_filter_free(st.notes[i].filter);
	free(st.notes);
	for (size_t i = 0; i < st.held.n; i++) {
		struct pending *h = (struct pending *)(void *)st.held.heap[i];

		free((char *)h->data);
		free(h);
	}
	tp_merge_free(&st.held);
	tp_tracing_windows_free(&st.tracing);
	free(st.buf);
	free(st.pend);
	for (size_t i = 0; i < st.unpacked_cap; i++)
		free(st.unpacked[i]);
	free(st.unpacked);
	tp_spool_clock_free(&st.clock);
	return ret;
}

/*
 * No -e: the events process `pid` has enabled now (tpoint enable -p, TPOINT_EVENTS), as a
 * list of their names, malloc'ed; NULL when there is none or the process cannot be asked
 * (said here).
 */
static char *enabled_events(pid_t pid)
{
	struct ctl_conn conn;
	char err[512], *text = NULL, *list = NULL, *cur;
	struct ctl_event_row row;
	size_t len = 0;

	if (ctl_connect(pid, &conn, err, sizeof(err)) < 0 ||
	    ctl_request(&conn, CTL_LIST, NULL, &text, err, sizeof(err)) < 0) {
		tool_error(VERB, "%s", err);
		ctl_close(&conn);
		return NULL;
	}
	ctl_close(&conn);
	for (cur = text; tp_ctl_event_row_next(&cur, &row);) {
		char *grown;

		if (!row.enabled)
			continue;
		grown = realloc(list, len + strlen(row.event) + 2);
		if (!grown)
			break;
		list = grown;
		len += (size_t)sprintf(list + len, "%s%s", len ? "," : "", row.event);
	}
	free(text);
	if (!list)
		tool_error(VERB, "process %d has no event enabled; choose some with -e GLOB, or "
			   "enable them with 'tpoint enable -p %d GLOB' ('tpoint list -p %d' lists "
			   "them)", (int)pid, (int)pid, (int)pid);
	return list;
}

int cmd_stream(int argc, char **argv)
{
	struct opts o;
	const char *events = NULL;
	static struct selection sel; /* static: reachable to the end, whichever way we return */
	pid_t pid = 0;
	int c, ret;

	opts_start(&o, &stream_opts, argc, argv);
	while ((c = opts_next(&o)) != OPTS_END) {
		const char *optarg = o.value;

		switch (c) {
		case 'p':
			pid = ctl_parse_one_pid(VERB, optarg, pid);
			if (pid < 0)
				return EXIT_USAGE;
			break;
		case 'e':
			if ((ret = sel_add_events(&sel, VERB, optarg)) < 0) {
				sel_free(&sel);
				return ret == -2 ? EXIT_USAGE : EXIT_FAIL;
			}
			events = sel_globs(&sel);
			break;
		case 'f':
			if (sel_add_filter(&sel, VERB, optarg) < 0) {
				sel_free(&sel);
				return EXIT_USAGE;
			}
			break;
		default: sel_free(&sel); return opts_exit(c);
		}
	}
	optind = o.ind;
	if (optind < argc) {
		tool_error(VERB, "unexpected argument '%s'; see 'tpoint stream --help'",
			   argv[optind]);
		return EXIT_USAGE;
	}
	if (!pid) {
		tool_error(VERB, "no process given; use -p PID ('tpoint ps' lists them)");
		return EXIT_USAGE;
	}
	/* No -e: what the process has enabled, as trace_pipe shows what is enabled. */
	char *enabled = NULL;

	if (!events || !*events) {
		enabled = enabled_events(pid);
		if (!enabled || sel_add_events(&sel, VERB, enabled) < 0) {
			free(enabled);
			sel_free(&sel);
			return EXIT_FAIL;
		}
		fprintf(stderr, "tpoint stream: the events process %d has enabled: ", (int)pid);
		text_put(stderr, enabled); /* their names, as the process gave them */
		fputc('\n', stderr);
	}
	ret = stream_pid(pid, &sel);
	sel_free(&sel);
	free(enabled); /* the selection's globs pointed into it */
	return ret;
}
