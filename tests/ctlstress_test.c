// SPDX-License-Identifier: MIT
/*
 * tpoint-test: serial (it saturates both CPUs)
 * ctlstress_test - the control socket changes what is traced while it is being traced. Two
 * threads hit two events at full speed (one with a condition) with self-checking records
 * (stressutil.h), recording to a file through a 4 MiB pool in discard mode, while a third
 * thread sends 10,000 changes through this process's own control socket, as `tpoint
 * enable/disable/filter -p` would: enable, disable, set a filter, clear it, in a random mix.
 * Every switch of an enable word or a filter pointer thus lands between, or inside, some
 * writer's reserve and commit.
 *
 * Afterwards every record in the file must be intact (checksum, tid = common_pid), each
 * thread's sequence numbers strictly increasing, no cs_cond record whose condition was
 * false, and for each event
 *	records in the file == recorded,
 *	hits == cond_skipped + filtered + recorded + lost, and hits <= the threads' calls,
 * with filtered > 0 and cond_skipped > 0: the filters and the condition really acted.
 */
#include "stressutil.h"
#include <pthread.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include "../lib/fmt/control_msg.h"

#define CREATE_TRACE_POINTS
#include <trace/events/tpt_ctlstress.h>

#define NWRITERS 2
#define NCHANGES 10000
/*
 * The writers may run this many calls ahead of the changes: at full speed they would
 * otherwise make hundreds of millions of calls while the socket round trips go on, a file
 * trace-cmd takes minutes to read, and most changes would land after they are done.
 */
#define CALLS_PER_CHANGE 50
#define POOL_BYTES (4u << 20)
#define FILE_NAME "ctlstress.dat"

struct writer {
	pthread_t th;
	uint32_t tid;
	uint64_t seq;          /* one per call, whichever event it hit */
	uint64_t plain_calls;
	uint64_t cond_calls;
	uint64_t cond_false;   /* cs_cond calls whose condition was false */
	/* What the reader found. */
	uint64_t last_seq, seen;
	int have_last;
};

static struct writer writers[NWRITERS];
static uint64_t changes_done; /* the controller's progress: the writers' budget */
static int stop_flag;

static void *writer_main(void *arg)
{
	struct writer *w = (struct writer *)arg;
	char pad[SU_PAD_MAX + 1];
	uint64_t x = 0x2545f4914f6cdd1dull ^ ((uint64_t)(uintptr_t)arg << 17);

	w->tid = (uint32_t)tu_gettid();
	while (!__atomic_load_n(&stop_flag, __ATOMIC_RELAXED)) {
		uint64_t budget = (__atomic_load_n(&changes_done, __ATOMIC_RELAXED) + 1) *
				  CALLS_PER_CHANGE;

		if (w->seq >= budget) {
			/* Ahead of the controller: leave it the CPU (this may be a 2-core VM). */
			sched_yield();
			continue;
		}
		for (int k = 0; k < 32; k++) {
			/* xorshift: neither the event nor val may follow the filters' bit tests. */
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			uint64_t val = x >> 40;
			uint64_t sum = su_make(w->tid, w->seq, val, pad);

			if (x & 0x100) {
				trace_cs_cond(w->tid, w->seq, val, pad, sum);
				w->cond_calls++;
				w->cond_false += val % 3 == 0;
			} else {
				trace_cs_plain(w->tid, w->seq, val, pad, sum);
				w->plain_calls++;
			}
			w->seq++;
		}
	}
	return NULL;
}

/* ---- the controller: a client of our own control socket ---- */

static char sock_path[108];

static int connect_self(void)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	struct timeval tv = { 5, 0 };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	memcpy(a.sun_path, sock_path, sizeof(a.sun_path));
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	/* A control thread that stopped answering must fail the test, not hang it. */
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	return fd;
}

static int send_req(int fd, uint32_t type, const char *payload)
{
	size_t len = strlen(payload);
	struct ctl_hdr h = { CTL_MAGIC, CTL_MAJOR, CTL_MINOR, type, (uint32_t)len };

	if (send(fd, &h, sizeof(h), MSG_NOSIGNAL) != (ssize_t)sizeof(h))
		return -1;
	if (len && send(fd, payload, len, MSG_NOSIGNAL) != (ssize_t)len)
		return -1;
	return 0;
}

static int recv_full(int fd, void *buf, size_t len)
{
	char *p = (char *)buf;

	while (len) {
		ssize_t n = recv(fd, p, len, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* One answer: its type, with the result and the text (cut to len); -1 if none came. */
static int answer(int fd, int32_t *result, char *msg, size_t len)
{
	char buf[4096];
	struct ctl_hdr h;
	uint32_t left;

	msg[0] = 0;
	if (recv_full(fd, &h, sizeof(h)) < 0 || h.magic != CTL_MAGIC || h.len < 4)
		return -1;
	if (recv_full(fd, result, 4) < 0)
		return -1;
	/* Read all of the text to stay in step with the stream; keep what fits. */
	for (left = h.len - 4; left;) {
		uint32_t n = left < sizeof(buf) ? left : (uint32_t)sizeof(buf);
		uint32_t done = h.len - 4 - left;

		if (recv_full(fd, buf, n) < 0)
			return -1;
		if (done < len - 1) {
			size_t k = n < len - 1 - done ? n : len - 1 - done;

			memcpy(msg + done, buf, k);
			msg[done + k] = 0;
		}
		left -= n;
	}
	return (int)h.type;
}

/* Filters in the kernel's grammar; each rejects a different share of the records. */
static const char *const exprs[] = {
	"seq & 1",
	"seq & 6 && val > 4000000",
	"val < 2000000 || seq & 8",
	"!(seq & 3)",
	"val >= 1000 && val <= 9000000",
	"common_pid != 0 && (tid & 1 || seq & 16)",
	"val == 12345",
	"seq > 100 && !(val & 7) || val < 500000",
};
#define NEXPRS (sizeof(exprs) / sizeof(exprs[0]))

static const char *const targets[] = { "tpt_ctlstress:cs_plain", "tpt_ctlstress:cs_cond",
				       "tpt_ctlstress:*" };

struct control_tally {
	uint64_t enable, disable, filter, clear, bad_filter;
	uint64_t wrong;  /* answers that were not what the request should get */
	uint64_t t_ns;
};

static void *controller_main(void *arg)
{
	struct control_tally *ct = (struct control_tally *)arg;
	uint64_t x = 0x9e3779b97f4a7c15ull, t0 = tu_mono_ns();
	char req[256], msg[512];
	int32_t res;
	int fd = connect_self(), type, got;

	if (fd < 0 || send_req(fd, CTL_HELLO, "") < 0 ||
	    answer(fd, &res, msg, sizeof(msg)) != CTL_OK || atoi(msg) != (int)getpid()) {
		fprintf(stderr, "controller: no HELLO from %s: %s\n", sock_path, strerror(errno));
		ct->wrong++;
		goto out;
	}
	for (uint64_t i = 0; i < NCHANGES; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		unsigned pick = (unsigned)(x >> 32) % 100;
		unsigned t = (unsigned)(x >> 8) % 3;
		const char *ev = targets[(x >> 16) & 1];
		int32_t want;

		/*
		 * Enabling and filtering more often than the opposite, so that the events
		 * spend most of the run on, with and without a filter, and every state
		 * follows every other.
		 */
		if (pick < 30) {
			type = CTL_ENABLE;
			want = t == 2 ? 2 : 1;
			snprintf(req, sizeof(req), "%s", targets[t]);
			ct->enable++;
		} else if (pick < 45) {
			type = CTL_DISABLE;
			want = t == 2 ? 2 : 1;
			snprintf(req, sizeof(req), "%s", targets[t]);
			ct->disable++;
		} else if (pick < 80) {
			type = CTL_FILTER;
			want = 0;
			snprintf(req, sizeof(req), "%s\t%s", ev, exprs[(x >> 20) % NEXPRS]);
			ct->filter++;
		} else {
			type = CTL_FILTER;
			want = 0;
			snprintf(req, sizeof(req), "%s\t", ev);
			ct->clear++;
		}
		res = 0;
		got = send_req(fd, (uint32_t)type, req) < 0 ? -1 : answer(fd, &res, msg, sizeof(msg));
		if (got != CTL_OK || res != want) {
			if (ct->wrong++ < 5)
				fprintf(stderr, "controller: request %u '%s' got %d/%d '%s', want %d\n",
					(unsigned)type, req, got, (int)res, msg, (int)want);
			if (got < 0)
				break; /* the channel is gone: nothing more will be answered */
		}
		/*
		 * Now and then an expression that does not compile: refused with the reason,
		 * and the filter in force stays (the next records still match it or not).
		 */
		if (i % 97 == 0) {
			snprintf(req, sizeof(req), "%s\tseq && & 3", ev);
			if (send_req(fd, CTL_FILTER, req) < 0 ||
			    answer(fd, &res, msg, sizeof(msg)) != CTL_ERROR || res != -EINVAL) {
				if (ct->wrong++ < 5)
					fprintf(stderr, "controller: malformed filter got %d '%s'\n",
						(int)res, msg);
			}
			ct->bad_filter++;
		}
		__atomic_store_n(&changes_done, i + 1, __ATOMIC_RELAXED);
	}
out:
	if (fd >= 0)
		close(fd);
	ct->t_ns = tu_mono_ns() - t0;
	/* The writers may stop now; if the channel failed, they stop anyway. */
	__atomic_store_n(&stop_flag, 1, __ATOMIC_RELAXED);
	return NULL;
}

/* Where the library listens: as lib/control.c and ctlproto_test choose it. */
static void find_socket(void)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");

	if (xdg && *xdg == '/' && access(xdg, W_OK) == 0)
		snprintf(sock_path, sizeof(sock_path), "%s/tpoint/%d.sock", xdg, (int)getpid());
	else
		snprintf(sock_path, sizeof(sock_path), "/tmp/tpoint-%u/%d.sock",
			 (unsigned)geteuid(), (int)getpid());
}

/* ---- reading the file back ---- */

struct reader {
	uint64_t intact, broken, order_errors, unknown_tid, cond_violations;
	uint64_t plain, cond;
};

static struct writer *writer_of(uint32_t tid)
{
	for (int i = 0; i < NWRITERS; i++)
		if (writers[i].tid == tid)
			return &writers[i];
	return NULL;
}

static int read_line(const struct tu_line *l, void *arg)
{
	struct reader *rd = (struct reader *)arg;
	const char *why;
	struct writer *w;
	struct su_rec r;
	int is_cond = !strcmp(l->name, "cs_cond");

	if (is_cond)
		rd->cond++;
	else if (!strcmp(l->name, "cs_plain"))
		rd->plain++;
	if (su_check(l, &r, &why) < 0) {
		if (rd->broken++ < 5)
			fprintf(stderr, "broken record (%s): %s: %s\n", why, l->name, l->text);
		return 0;
	}
	rd->intact++;
	if (is_cond && r.val % 3 == 0 && rd->cond_violations++ < 5)
		fprintf(stderr, "cs_cond recorded with its condition false: %s\n", l->text);
	w = writer_of(r.tid);
	if (!w) {
		rd->unknown_tid++;
		return 0;
	}
	if (w->have_last && r.seq <= w->last_seq && rd->order_errors++ < 5)
		fprintf(stderr, "thread %u: seq %llu after %llu\n", r.tid,
			(unsigned long long)r.seq, (unsigned long long)w->last_seq);
	w->have_last = 1;
	w->last_seq = r.seq;
	w->seen++;
	return 0;
}

static void snapshot(struct tpoint_event_stats *plain, struct tpoint_event_stats *cond)
{
	REQUIRE(tu_stats("tpt_ctlstress", "cs_plain", plain) == 0, "stats know cs_plain");
	REQUIRE(tu_stats("tpt_ctlstress", "cs_cond", cond) == 0, "stats know cs_cond");
}

/* The counters of one event, as deltas over the run, against the file and the calls. */
static void check_event(const char *name, const struct tpoint_event_stats *a,
			const struct tpoint_event_stats *b, uint64_t in_file, uint64_t calls,
			uint64_t leaks0)
{
	uint64_t hits = b->hits - a->hits, skip = b->cond_skipped - a->cond_skipped;
	uint64_t filt = b->filtered - a->filtered, rec = b->recorded - a->recorded;
	uint64_t lost = b->lost - a->lost;

	tu_note("%-8s calls %" PRIu64 ": hits %" PRIu64 " = cond_skipped %" PRIu64
		" + filtered %" PRIu64 " + recorded %" PRIu64 " + lost %" PRIu64
		"; in the file %" PRIu64,
		name, calls, hits, skip, filt, rec, lost, in_file);
	CHECK_EXACT(leaks0, in_file == rec, "%s: %" PRIu64 " records in the file, recorded %" PRIu64,
		    name, in_file, rec);
	CHECK(hits == skip + filt + rec + lost, "%s: hits %" PRIu64 " != %" PRIu64 " + %" PRIu64
	      " + %" PRIu64 " + %" PRIu64, name, hits, skip, filt, rec, lost);
	/* A hit is a call made while the event was on: never more than the calls. */
	CHECK(hits <= calls, "%s: %" PRIu64 " hits from %" PRIu64 " calls", name, hits, calls);
	CHECK(hits > 0 && hits < calls, "%s: %" PRIu64 " hits of %" PRIu64
	      " calls: the event was on for part of the run only", name, hits, calls);
	CHECK(filt > 0, "%s: the filters rejected nothing", name);
}

int main(void)
{
	struct tpoint_event_stats p0, c0, p1, c1;
	struct control_tally ct = { 0 };
	uint64_t plain_calls = 0, cond_calls = 0, cond_false = 0, t0, t_run, t_stop;
	pthread_t ctl_th;
	struct tu_report rep;
	struct reader rd = { 0 };
	uint64_t leaks0;
	int ret;

	tu_require_trace_cmd();
	su_listen();
	find_socket();
	leaks0 = __atomic_load_n(&su_pool_leaks, __ATOMIC_RELAXED);
	tpoint_disable("tpt_ctlstress"); /* off until the controller says otherwise */
	snapshot(&p0, &c0);
	REQUIRE(tpoint_set_buffer_size(POOL_BYTES) == 0, "4 MiB pool accepted");
	REQUIRE(tpoint_set_mode(TPOINT_MODE_DISCARD) == 0, "discard mode accepted");
	ret = tpoint_record_start(FILE_NAME);
	REQUIRE(ret == 0, "tpoint_record_start: %s", strerror(-ret));

	t0 = tu_mono_ns();
	for (int i = 0; i < NWRITERS; i++)
		REQUIRE(pthread_create(&writers[i].th, NULL, writer_main, &writers[i]) == 0,
			"pthread_create");
	REQUIRE(pthread_create(&ctl_th, NULL, controller_main, &ct) == 0, "pthread_create");
	pthread_join(ctl_th, NULL);
	for (int i = 0; i < NWRITERS; i++)
		pthread_join(writers[i].th, NULL);
	t_run = tu_mono_ns() - t0;
	ret = tpoint_record_stop();
	REQUIRE(ret == 0, "tpoint_record_stop: %s", strerror(-ret));
	t_stop = tu_mono_ns() - t0 - t_run;
	snapshot(&p1, &c1);

	for (int i = 0; i < NWRITERS; i++) {
		plain_calls += writers[i].plain_calls;
		cond_calls += writers[i].cond_calls;
		cond_false += writers[i].cond_false;
	}
	tu_note("%d writers, %" PRIu64 " calls in %.2f s (record_stop %.2f s); control: %" PRIu64
		" enable, %" PRIu64 " disable, %" PRIu64 " filter, %" PRIu64 " clear (+%" PRIu64
		" malformed filters) in %.2f s",
		NWRITERS, plain_calls + cond_calls, (double)t_run / 1e9, (double)t_stop / 1e9,
		ct.enable, ct.disable, ct.filter, ct.clear, ct.bad_filter, (double)ct.t_ns / 1e9);
	CHECK(ct.enable + ct.disable + ct.filter + ct.clear == NCHANGES, "%d changes sent",
	      NCHANGES);
	CHECK(ct.wrong == 0, "%" PRIu64 " control answers were not what the request should get",
	      ct.wrong);

	ret = tu_check_events(FILE_NAME);
	CHECK(ret == 0, "trace-cmd report --check-events: exit %d", ret);
	REQUIRE(tu_report_each(FILE_NAME, read_line, &rd, &rep) == 0, "run trace-cmd report");
	CHECK(rep.status == 0, "trace-cmd report exit %d", rep.status);
	CHECK(rep.malformed == 0 && rep.other == 0, "%" PRIu64 " malformed, %" PRIu64
	      " other lines", rep.malformed, rep.other);
	CHECK(rd.broken == 0, "%" PRIu64 " broken records of %" PRIu64, rd.broken, rep.events);
	CHECK(rd.unknown_tid == 0, "%" PRIu64 " records of threads that did not write",
	      rd.unknown_tid);
	CHECK(rd.order_errors == 0, "%" PRIu64 " sequence numbers out of order or repeated",
	      rd.order_errors);
	CHECK(rd.cond_violations == 0, "%" PRIu64 " cs_cond records with the condition false",
	      rd.cond_violations);
	tu_note("file: %" PRIu64 " records, all intact: %s; per-thread order: %s",
		rep.events, rd.broken ? "NO" : "yes", rd.order_errors ? "BROKEN" : "strictly increasing");

	check_event("cs_plain", &p0, &p1, rd.plain, plain_calls, leaks0);
	check_event("cs_cond", &c0, &c1, rd.cond, cond_calls, leaks0);
	CHECK(p1.cond_skipped == p0.cond_skipped, "cs_plain has no condition to skip");
	CHECK(c1.cond_skipped > c0.cond_skipped, "cs_cond's condition skipped nothing");
	CHECK(c1.cond_skipped - c0.cond_skipped <= cond_false,
	      "cs_cond: %" PRIu64 " skipped by the condition, only %" PRIu64 " calls had it false",
	      c1.cond_skipped - c0.cond_skipped, cond_false);
	if (__atomic_load_n(&su_pool_leaks, __ATOMIC_RELAXED) != leaks0)
		tu_note("the library logged %" PRIu64 " pages leaving the pool (known bug)",
			__atomic_load_n(&su_pool_leaks, __ATOMIC_RELAXED) - leaks0);
	unlink(FILE_NAME);
	return tu_finish();
}
