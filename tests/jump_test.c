// SPDX-License-Identifier: MIT
/*
 * tpoint-test: serial (it saturates both CPUs)
 * jump_test - jump-label sites switched while threads run through them.
 *
 * Two threads run through 8 jump-label sites (and one load-and-branch site of the same
 * event, from tests/jump_plain.c) in tight loops; a third runs through a site in a dlopen'ed
 * library; the main thread enables and disables the events 5,000 times (100,000 in make
 * check-stress), and every twentieth of those closes the library and opens it again. Every
 * event's condition marks the hit as seen. A pass through a site that began and ended while the events were steadily on
 * must have been seen, one while they were steadily off must not; the counters must agree
 * with the hits seen. The live instructions are checked too: the 5-byte NOP (arm64: NOP)
 * while off, the jump while on. Run again with TPOINT_JUMP_LABEL=0: every site keeps its
 * checked path and the events still work; and again under a W^X policy (a seccomp filter
 * that refuses mprotect with write and execute). A forked child switches its own copy of the sites.
 *
 * TPOINT_TEST_EMULATED=1 (make check-arm64, under qemu-user): a pass missed while on is
 * noted, not failed; qemu finishes a translated block that was entered before its code
 * changed, which no real core does after membarrier's core synchronisation.
 */
#define TPOINT_JUMP_LABEL
#include "testutil.h"
#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <stdbool.h>

#define CREATE_TRACE_POINTS
#include <trace/events/tpt_jump.h>

#define WORKERS 2
#define SITES 8
#define EVENTS "tpt_jump*"

int jump_plain_hit(int v);

struct tally {
	uint64_t on_seen, off_quiet; /* passes in a steady state, as they must be */
	uint64_t missed, invented;   /* passes in a steady state, as they must not be */
	uint64_t seen;               /* every pass that reached the hit function */
	uint64_t passes;
};

/* Even: steady, and on when (state / 2) is odd. Odd: the events are being switched. */
static unsigned state;
static int stop;
static struct tally tallies[WORKERS + 1];
static uint64_t plain_seen;

static pthread_rwlock_t lib_lock = PTHREAD_RWLOCK_INITIALIZER;
static char lib_path[PATH_MAX + 32];
static void *lib;
static int (*lib_hit)(int v);

static void count(struct tally *t, unsigned s1, unsigned s2, int seen)
{
	__atomic_store_n(&t->passes, t->passes + 1, __ATOMIC_RELAXED);
	t->seen += seen != 0;
	if (s1 != s2 || (s1 & 1))
		return;
	if ((s1 / 2) & 1) {
		t->on_seen += seen != 0;
		t->missed += !seen;
	} else {
		t->off_quiet += !seen;
		t->invented += seen != 0;
	}
}

/* One pass through one site, between two readings of the state (a seqlock's reader). */
#define PASS(t, call)                                                                         \
	do {                                                                                  \
		int seen = 0;                                                                 \
		unsigned s1 = __atomic_load_n(&state, __ATOMIC_ACQUIRE);                      \
		call;                                                                         \
		__atomic_thread_fence(__ATOMIC_ACQUIRE);                                      \
		count(t, s1, __atomic_load_n(&state, __ATOMIC_RELAXED), seen);                \
	} while (0)

static void *worker(void *arg)
{
	struct tally *t = arg;

	/* An unsigned count wraps where an int would overflow (a long run makes 2^31 passes). */
	for (unsigned n = 0; !__atomic_load_n(&stop, __ATOMIC_RELAXED); n++) {
		int i = (int)(n & 0xffffff);

		/* Eight sites: each inlined call is an instruction of its own. */
		PASS(t, trace_jump_a(&seen, i));
		PASS(t, trace_jump_b(&seen, i + 1));
		PASS(t, trace_jump_a(&seen, i + 2));
		PASS(t, trace_jump_b(&seen, i + 3));
		PASS(t, tpoint_trace(jump_a, &seen, i + 4));
		PASS(t, tpoint_trace(jump_b, &seen, i + 5));
		PASS(t, trace_jump_a(&seen, i + 6));
		PASS(t, trace_jump_b(&seen, i + 7));
		/* The load-and-branch site of the other file counts only as a hit. */
		if (t == &tallies[0])
			plain_seen += (uint64_t)jump_plain_hit(i);
	}
	return NULL;
}

static void *lib_worker(void *arg)
{
	struct tally *t = arg;

	/* Unsigned, as in worker(). */
	for (unsigned n = 0; !__atomic_load_n(&stop, __ATOMIC_RELAXED); n++) {
		int i = (int)(n & 0xffffff);

		pthread_rwlock_rdlock(&lib_lock);
		PASS(t, seen = lib_hit(i));
		pthread_rwlock_unlock(&lib_lock);
	}
	return NULL;
}

static void open_lib(void)
{
	lib = dlopen(lib_path, RTLD_NOW | RTLD_LOCAL);
	REQUIRE(lib != NULL, "dlopen %s: %s", lib_path, dlerror());
	*(void **)&lib_hit = dlsym(lib, "jumplib_hit");
	REQUIRE(lib_hit != NULL, "jumplib_hit found");
}

/* Switch the events (`events` of them exist now), with the state odd meanwhile. */
static void set_events(bool on, int events)
{
	__atomic_fetch_add(&state, 1, __ATOMIC_SEQ_CST);
	int n = on ? tpoint_enable(EVENTS) : tpoint_disable(EVENTS);
	__atomic_fetch_add(&state, 1, __ATOMIC_SEQ_CST);
	if (n != events)
		CHECK(n == events, "%s matched %d events, not %d", on ? "enable" : "disable", n,
		      events);
}

/* Until every thread has made a pass in the present state: both states get exercised
 * however the scheduler shares two cores among four threads. */
static void wait_for_passes(void)
{
	uint64_t before[WORKERS + 1];

	for (int w = 0; w <= WORKERS; w++)
		before[w] = __atomic_load_n(&tallies[w].passes, __ATOMIC_RELAXED);
	for (int w = 0; w <= WORKERS; w++)
		while (__atomic_load_n(&tallies[w].passes, __ATOMIC_RELAXED) < before[w] + 2)
			sched_yield();
}

#if defined(__x86_64__)
static bool site_is(const struct tpoint_jump_entry *e, bool on)
{
	static const uint8_t nop5[5] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };
	const uint8_t *site = (const uint8_t *)&e->site + e->site;
	const uint8_t *target = (const uint8_t *)&e->target + e->target;
	int32_t rel;

	if (!on)
		return !memcmp(site, nop5, 5);
	memcpy(&rel, site + 1, 4);
	return site[0] == 0xe9 && site + 5 + rel == target;
}
#elif defined(__aarch64__)
static bool site_is(const struct tpoint_jump_entry *e, bool on)
{
	const uint8_t *site = (const uint8_t *)&e->site + e->site;
	const uint8_t *target = (const uint8_t *)&e->target + e->target;
	uint32_t insn;

	memcpy(&insn, site, 4);
	if (!on)
		return insn == 0xd503201fu;
	return insn == (0x14000000u | ((uint32_t)((target - site) >> 2) & 0x03ffffffu));
}
#endif

/* Every site of this program shows the instruction of the state `on`. */
static void check_sites(bool on, const char *when)
{
	int bad = 0, n = 0;

	for (const struct tpoint_jump_entry *e = __start_tpoint_jump; e < __stop_tpoint_jump;
	     e++, n++)
		bad += !site_is(e, on);
	CHECK(n >= SITES, "%d sites in this program's table, expected at least %d", n, SITES);
	CHECK(bad == 0, "%s: %d of %d sites do not hold the %s", when, bad, n,
	      on ? "jump" : "NOP");
}

static int trap_calls;

static void program_sigtrap(int sig)
{
	(void)sig;
	trap_calls++;
}

/*
 * A W^X policy, as PaX MPROTECT or SELinux enforce it: mprotect() asking for write and
 * execute at once fails with EACCES. A seccomp filter, kept across exec.
 */
static int refuse_wx(void)
{
	struct sock_filter prog[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_mprotect, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[2])),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, PROT_WRITE, 0, 1),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, PROT_EXEC, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EACCES),
	};
	struct sock_fprog fprog = { sizeof(prog) / sizeof(prog[0]), prog };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog);
}

/* This test again, in a process where patching is refused: by TPOINT_JUMP_LABEL=0, or W^X. */
static void run_refused(int toggles, bool wx)
{
	const char *why = wx ? "mprotect: Permission denied" : "TPOINT_JUMP_LABEL=0";
	char self[PATH_MAX], arg[16];
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	pid_t pid;
	int status = 0;

	REQUIRE(len > 0, "readlink /proc/self/exe");
	self[len] = 0;
	snprintf(arg, sizeof(arg), "%d", toggles);
	pid = fork();
	if (pid == 0) {
		if (wx && refuse_wx() < 0) {
			fprintf(stderr, "seccomp: %s\n", strerror(errno));
			_exit(126);
		}
		if (!wx)
			setenv("TPOINT_JUMP_LABEL", "0", 1);
		execl(self, self, arg, why, (char *)NULL);
		_exit(127);
	}
	REQUIRE(pid > 0 && waitpid(pid, &status, 0) == pid, "child");
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "where patching is refused (%s), the test failed (status %#x)", why, status);
}

int main(int argc, char **argv)
{
	char dir[PATH_MAX], tmp[PATH_MAX + 16], out[PATH_MAX + 32];
	pthread_t th[WORKERS + 1];
	struct tpoint_jump_stats js;
	struct tpoint_event_stats st[8];
	int toggles = argc > 1 ? atoi(argv[1]) : tu_stress() ? 100000 : 5000;
	int reopen_every = toggles >= 40 ? toggles / 20 : 2;
	/* Run again by run_refused(): patching must be refused, for this reason. */
	const char *refusal = argc > 2 ? argv[2] : NULL;
	bool checked_only = refusal != NULL;
	/* Under qemu-user (make check-arm64), which does not model cross-modifying code. */
	bool emulated = getenv("TPOINT_TEST_EMULATED") != NULL;
	bool patched;

	tu_self_dir(dir, sizeof(dir));
	snprintf(lib_path, sizeof(lib_path), "%s/libtp_jumplib.so", dir);
	if (access(lib_path, R_OK))
		tu_skip("build/tests/libtp_jumplib.so not built (TEST_LIBS)");

	REQUIRE(tpoint_jump_stats(&js) == 0, "tpoint_jump_stats");
	patched = js.checked == 0;
	tu_note("%zu sites, %zu on the checked path%s%s", js.sites, js.checked,
		js.reason[0] ? ": " : "", js.reason);
	if (checked_only)
		CHECK(js.checked == js.sites && strstr(js.reason, refusal),
		      "refused for '%s', every site keeps its checked path (%zu of %zu: %s)",
		      refusal, js.checked, js.sites, js.reason);
	else if (!patched)
		tu_note("this machine refuses patching (%s): checking the checked path only",
			js.reason);
	if (patched)
		check_sites(false, "at start, events off");

	/* A recording, so that enabled events have their enable word set. */
	snprintf(tmp, sizeof(tmp), "%s/tpoint-jump.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	REQUIRE(mkdtemp(tmp), "mkdtemp %s: %s", tmp, strerror(errno));
	snprintf(out, sizeof(out), "%s/jump.dat", tmp);
	REQUIRE(tpoint_record_start(out) == 0, "recording started");

	set_events(true, 2);
	if (patched)
		check_sites(true, "after enable");
	set_events(false, 2);
	if (patched)
		check_sites(false, "after disable");

	/*
	 * A forked child shares the parent's text pages until one of them writes: switching the
	 * events in the child patches the child's copy only, and each process's sites follow
	 * its own enable words.
	 */
	pid_t child = fork();

	if (child == 0) {
		int seen = 0;

		set_events(true, 2);
		trace_jump_a(&seen, 0);
		if (patched)
			check_sites(true, "in the child after enable");
		CHECK(seen, "the child's site fires after the child enabled its event");
		_exit(tu_failures ? 1 : 0);
	}
	int cstatus = 0;

	REQUIRE(child > 0 && waitpid(child, &cstatus, 0) == child, "fork");
	CHECK(WIFEXITED(cstatus) && WEXITSTATUS(cstatus) == 0, "the child failed (%#x)", cstatus);
	/* The child recorded into out.<pid>, and left its spool when it _exit()ed. */
	for (int k = 0; k < 2; k++) {
		char path[PATH_MAX + 64];

		snprintf(path, sizeof(path), "%s.%d%s", out, (int)child, k ? ".spool" : "");
		unlink(path);
	}
	if (patched)
		check_sites(false, "in the parent after its child enabled the events");
	{
		int seen = 0;

		trace_jump_a(&seen, 0);
		CHECK(!seen, "the parent's site stays quiet while the child's events are on");
	}

	/* A handler of the program's own, installed after ours: patching puts ours back in
	 * front, and a SIGTRAP that is not a site's still reaches the program. */
	signal(SIGTRAP, program_sigtrap);

	open_lib();
	for (int i = 0; i < WORKERS; i++)
		REQUIRE(pthread_create(&th[i], NULL, worker, &tallies[i]) == 0, "thread");
	REQUIRE(pthread_create(&th[WORKERS], NULL, lib_worker, &tallies[WORKERS]) == 0, "thread");

	for (int i = 0; i < toggles; i++) {
		set_events(i % 2 == 0, 3);
		if (i % 1000 < 2)
			wait_for_passes();
		if (i % reopen_every == reopen_every - 1) {
			pthread_rwlock_wrlock(&lib_lock);
			dlclose(lib);
			open_lib();
			pthread_rwlock_unlock(&lib_lock);
		}
		if (i % 20000 == 19999) {
			fprintf(stderr, "\r  %d of %d switches", i + 1, toggles);
			fflush(stderr);
		}
	}
	fputc('\n', stderr);
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (int i = 0; i <= WORKERS; i++)
		pthread_join(th[i], NULL);
	if (patched)
		check_sites(toggles % 2 == 1, "after the switching");

	REQUIRE(tpoint_jump_stats(&js) == 0, "tpoint_jump_stats");
	tu_note("%" PRIu64 " times a thread met a site mid-patch and was moved on", js.traps);
#if defined(__x86_64__)
	/* Two threads in tight loops through the sites while they are patched 200,000 times
	 * (make check-stress): one of them met an INT3. Fewer switches may all miss. */
	if (patched && toggles >= 10000)
		CHECK(js.traps > 0, "no thread ever met a site's INT3: the trap path went untested");
#endif
	raise(SIGTRAP);
	CHECK(trap_calls == 1, "the program's own SIGTRAP handler ran %d times, not once",
	      trap_calls);

	uint64_t seen_main = plain_seen, seen_lib = tallies[WORKERS].seen;
	for (int w = 0; w <= WORKERS; w++) {
		struct tally *t = &tallies[w];

		if (w < WORKERS)
			seen_main += t->seen;
		tu_note("thread %d: %" PRIu64 " passes, %" PRIu64 " seen while on, %" PRIu64
			" quiet while off", w, t->passes, t->on_seen, t->off_quiet);
		if (emulated && t->missed)
			tu_note("thread %d: %" PRIu64 " passes while on were not seen: under "
				"emulation, a thread inside a block of translated code runs it to "
				"its end after the code changed (no instruction fetch to sync)",
				w, t->missed);
		else
			CHECK(t->missed == 0, "thread %d: %" PRIu64 " passes while on were not "
			      "seen", w, t->missed);
		CHECK(t->invented == 0, "thread %d: %" PRIu64 " passes while off were seen", w,
		      t->invented);
		CHECK(t->on_seen > 0 && t->off_quiet > 0,
		      "thread %d passed through both steady states", w);
	}

	int n = tpoint_stats(st, 8);
	uint64_t skipped_main = 0, skipped_lib = 0;

	for (int i = 0; i < n && i < 8; i++) {
		if (!strcmp(st[i].system, "tpt_jump"))
			skipped_main += st[i].cond_skipped;
		else if (!strcmp(st[i].system, "tpt_jumplib"))
			skipped_lib += st[i].cond_skipped;
		CHECK(st[i].recorded == 0, "%s:%s recorded nothing", st[i].system, st[i].name);
	}
	CHECK(skipped_main == seen_main, "the counters say %" PRIu64 " hits, the threads saw %"
	      PRIu64, skipped_main, seen_main);
	CHECK(skipped_lib == seen_lib, "the library's counter says %" PRIu64
	      " hits, its thread saw %" PRIu64, skipped_lib, seen_lib);
	tu_note("%d switches; %" PRIu64 " hits counted, as seen", toggles, skipped_main + skipped_lib);

	CHECK(tpoint_record_stop() == 0, "recording stopped");
	dlclose(lib);
	unlink(out);
	rmdir(tmp);

	/* The same again where patching is refused: every site takes its checked path. */
	if (!checked_only) {
		run_refused(toggles / 20, false);
		if (!emulated) /* qemu-user does not apply a seccomp filter to the guest */
			run_refused(toggles / 20, true);
	}
	return tu_finish();
}
