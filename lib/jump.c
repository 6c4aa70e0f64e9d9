/* SPDX-License-Identifier: MIT */
/*
 * Jump-label sites (<tpoint/jump_label.h>): the table of every site of every loaded object,
 * and keeping each site's instruction in step with its event's enable word.
 *
 * A site is compiled as a jump to its checked block (which tests the enable word), so it is
 * correct in either form; the NOP is only an optimisation of the off state. That is what
 * makes refusal safe: a site that cannot be patched stays a jump, and its event still works.
 *
 * Order of writes, so that no hit is lost and none is invented: when an event goes on, its
 * enable word is set before its sites become jumps; when it goes off, the word is cleared
 * before they become NOPs. A site that is late either way only sends a thread to the
 * checked block, which then reads the word.
 *
 * Locks: the registry's lock, when held, is taken before this file's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <tpoint/jump_label.h>
#include <tpoint/tpoint.h>
#include "env.h"
#include "jump.h"
#include "jump_arch.h"
#include "log.h"
#include "registry.h"
#include "sized.h"

struct jump_site {
	struct tpoint_event *ev;
	uint8_t *addr;
	const uint8_t *target;
	const struct tpoint_jump_entry *object; /* the first entry of its object's table */
	bool on;    /* the instruction there now is the jump */
	bool stuck; /* cannot be patched: keeps the instruction it has */
};

struct jump_object {
	const struct tpoint_jump_entry *begin, *end;
	unsigned refs; /* the files of the object that registered the table */
};

static pthread_mutex_t jump_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct jump_site *sites; /* sorted by event, then address */
static size_t nsites, sites_cap;
static struct jump_object *objects;
static size_t nobjects, objects_cap;
static size_t page_size;

/* Patching: 0 not tried yet, 1 allowed, -1 refused (for the reason in refusal). */
static int patching;
static char refusal[160];
static bool membarrier_ready;

#ifdef JUMP_INSN_SIZE

static int membarrier(int cmd)
{
	return (int)syscall(__NR_membarrier, cmd, 0, 0);
}

/* Every thread of the process runs a serialising instruction before it goes on. */
static void sync_cores(void)
{
	if (membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE) < 0)
		tp_warn("jump labels: membarrier: %s", strerror(errno));
}

static __attribute__((format(printf, 1, 2))) void refuse(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(refusal, sizeof(refusal), fmt, ap);
	va_end(ap);
	patching = -1;
	tp_warn("jump labels: %s; every site keeps its checked path (a jump and a load)",
		refusal);
}

/* Decide once whether this process may patch its code at all. */
static bool patching_allowed(void)
{
	if (patching)
		return patching > 0;
	if (tp_env_jump_label_off()) {
		refuse("%s", "TPOINT_JUMP_LABEL=0");
		return false;
	}
	if (!membarrier_ready) {
		if (membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE) < 0) {
			refuse("membarrier(SYNC_CORE) unavailable: %s", strerror(errno));
			return false;
		}
		membarrier_ready = true;
	}
	char why[sizeof(refusal)];

	if (tp_jump_arch_init(why, sizeof(why)) < 0) {
		refuse("%s", why);
		return false;
	}
	patching = 1;
	return true;
}

/* The pages of [addr, addr + len) as one range. */
static void page_range(const uint8_t *addr, size_t len, uintptr_t *lo, uintptr_t *hi)
{
	*lo = (uintptr_t)addr & ~(page_size - 1);
	*hi = ((uintptr_t)addr + len + page_size - 1) & ~(page_size - 1);
}

/*
 * Pages [a, b) writable, unless the last range made writable holds them already; the ranges
 * are recorded for their way back to read-and-execute.
 */
static bool make_writable(uintptr_t a, uintptr_t b, uintptr_t *lo, uintptr_t *hi, size_t *nr)
{
	if (*nr && a >= lo[*nr - 1] && b <= hi[*nr - 1])
		return true;
	if (mprotect((void *)a, b - a, PROT_READ | PROT_WRITE | PROT_EXEC) < 0)
		return false;
	lo[*nr] = a;
	hi[(*nr)++] = b;
	return true;
}

/*
 * Bring the sites of `todo` (pointers into sites[]) to their wanted state: pages writable
 * (never without execute permission), the architecture's safe rewrite, pages back to
 * read-and-execute. A site whose page cannot be made writable, or whose bytes are not what
 * we left there (a debugger's breakpoint, a uprobe), is left alone for good.
 */
static void patch_sites(struct jump_site **todo, const bool *want, size_t n)
{
	struct jump_patch batch[JUMP_ARCH_BATCH];
	struct jump_site *in_batch[JUMP_ARCH_BATCH];
	uintptr_t lo[JUMP_ARCH_BATCH], hi[JUMP_ARCH_BATCH];
	size_t done = 0;

	while (done < n) {
		size_t nb = 0, nr = 0;

		for (; done < n && nb < JUMP_ARCH_BATCH; done++) {
			struct jump_site *s = todo[done];
			uint8_t expect[JUMP_INSN_SIZE];
			uintptr_t a, b;
			char name[2 * TPOINT_NAME_MAX];

			tp_jump_arch_insn(expect, s->addr, s->target, s->on);
			if (memcmp(expect, s->addr, JUMP_INSN_SIZE) != 0) {
				s->stuck = true;
				tp_warn("jump labels: site %p of %s holds unexpected bytes (a "
					"breakpoint or uprobe?); left alone", (void *)s->addr,
					tp_registry_event_label(s->ev, name, sizeof(name)));
				continue;
			}
			page_range(s->addr, JUMP_INSN_SIZE, &a, &b);
			if (!make_writable(a, b, lo, hi, &nr))
				goto refused;
			batch[nb] = (struct jump_patch){ s->addr, s->target, want[done] };
			in_batch[nb++] = s;
			continue;
refused:
			/* Said once; but a site stuck on its NOP is worth a word each time. */
			s->stuck = true;
			if (!refusal[0] || !s->on)
				tp_warn("jump labels: site %p of %s: mprotect: %s; it keeps %s",
					(void *)s->addr, tp_registry_event_label(s->ev, name, sizeof(name)),
					strerror(errno), s->on ? "its checked path, as will other "
					"sites where mprotect fails" : "its NOP: the event cannot fire there");
			if (!refusal[0])
				snprintf(refusal, sizeof(refusal), "mprotect: %s", strerror(errno));
		}
		if (nb)
			tp_jump_arch_patch(batch, nb, sync_cores);
		for (size_t i = 0; i < nb; i++)
			in_batch[i]->on = batch[i].on;
		for (size_t r = 0; r < nr; r++)
			if (mprotect((void *)lo[r], hi[r] - lo[r], PROT_READ | PROT_EXEC) < 0)
				tp_err("jump labels: mprotect(%p, r-x): %s", (void *)lo[r],
				       strerror(errno));
	}
}

/* Bring sites[first, last) to their events' states, under the lock. */
static void sync_range(size_t first, size_t last)
{
	struct jump_site **todo;
	bool *want;
	size_t n = 0;

	if (first >= last)
		return;
	todo = malloc((last - first) * sizeof(*todo));
	want = malloc((last - first) * sizeof(*want));
	if (!todo || !want) {
		tp_err("jump labels: out of memory; sites keep their state");
		goto out;
	}
	for (size_t i = first; i < last; i++) {
		struct jump_site *s = &sites[i];
		bool on = __atomic_load_n(&s->ev->enabled, __ATOMIC_RELAXED) != 0;

		if (s->on == on || s->stuck)
			continue;
		todo[n] = s;
		want[n++] = on;
	}
	if (n && patching_allowed())
		patch_sites(todo, want, n);
	else if (n)
		for (size_t i = 0; i < n; i++)
			todo[i]->stuck = true;
out:
	free(todo);
	free(want);
}

#else /* no jump-label support for this architecture: sites are never compiled */

static void sync_range(size_t first, size_t last)
{
	(void)first;
	(void)last;
}

#endif

static int site_cmp(const void *a, const void *b)
{
	const struct jump_site *x = a, *y = b;

	if (x->ev != y->ev)
		return (uintptr_t)x->ev < (uintptr_t)y->ev ? -1 : 1;
	return (uintptr_t)x->addr < (uintptr_t)y->addr ? -1 : (x->addr != y->addr);
}

/* The first site of `ev` (or where it would be) in the sorted table. */
static size_t first_site_of(const struct tpoint_event *ev)
{
	size_t lo = 0, hi = nsites;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if ((uintptr_t)sites[mid].ev < (uintptr_t)ev)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static struct jump_object *find_object(const struct tpoint_jump_entry *begin)
{
	for (size_t i = 0; i < nobjects; i++)
		if (objects[i].begin == begin)
			return &objects[i];
	return NULL;
}

static bool add_object(const struct tpoint_jump_entry *begin,
		       const struct tpoint_jump_entry *end)
{
	size_t n = (size_t)(end - begin);

	if (nobjects == objects_cap) {
		size_t cap = objects_cap ? 2 * objects_cap : 8;
		struct jump_object *o = realloc(objects, cap * sizeof(*o));

		if (!o)
			return false;
		objects = o;
		objects_cap = cap;
	}
	if (nsites + n > sites_cap) {
		size_t cap = sites_cap ? sites_cap : 64;
		struct jump_site *s;

		while (cap < nsites + n)
			cap *= 2;
		s = realloc(sites, cap * sizeof(*s));
		if (!s)
			return false;
		sites = s;
		sites_cap = cap;
	}
	objects[nobjects++] = (struct jump_object){ begin, end, 1 };
	for (const struct tpoint_jump_entry *e = begin; e < end; e++) {
		if (!e->event)
			continue;
		sites[nsites++] = (struct jump_site){
			.ev = e->event,
			.addr = (uint8_t *)&e->site + e->site,
			.target = (const uint8_t *)&e->target + e->target,
			.object = begin,
			.on = true, /* as compiled */
		};
	}
	qsort(sites, nsites, sizeof(*sites), site_cmp);
	return true;
}

TPOINT_EXPORT void tpoint_jump_register(const struct tpoint_jump_entry *begin,
					const struct tpoint_jump_entry *end)
{
	struct jump_object *o;

	if (!begin || end <= begin)
		return;
	/* From here on the registry tells the sites of each change of an enable word. */
	tp_registry_on_enable_change(tp_jump_event_changed);
	pthread_mutex_lock(&jump_mutex);
	if (!page_size)
		page_size = (size_t)sysconf(_SC_PAGESIZE);
	o = find_object(begin);
	if (o) {
		o->refs++;
	} else if (add_object(begin, end)) {
		/* Every event with a site here: most are off, so most sites become NOPs now. */
		sync_range(0, nsites);
	} else {
		tp_err("jump labels: out of memory; %zu sites keep their checked path",
		       (size_t)(end - begin));
	}
	pthread_mutex_unlock(&jump_mutex);
}

TPOINT_EXPORT void tpoint_jump_unregister(const struct tpoint_jump_entry *begin,
					  const struct tpoint_jump_entry *end)
{
	struct jump_object *o;
	size_t kept = 0;

	(void)end;
	if (!begin)
		return;
	pthread_mutex_lock(&jump_mutex);
	o = find_object(begin);
	if (o && --o->refs == 0) {
		for (size_t i = 0; i < nsites; i++)
			if (sites[i].object != begin)
				sites[kept++] = sites[i];
		nsites = kept;
		*o = objects[--nobjects];
	}
	pthread_mutex_unlock(&jump_mutex);
}

void tp_jump_event_changed(struct tpoint_event *ev)
{
	size_t first, last;

	pthread_mutex_lock(&jump_mutex);
	first = first_site_of(ev);
	for (last = first; last < nsites && sites[last].ev == ev; last++)
		;
	sync_range(first, last);
	pthread_mutex_unlock(&jump_mutex);
}

/*
 * The high half of an enable word is the event's USDT semaphore, which the kernel changes
 * without telling: a uprobe attached by bpftrace or perf adds 1. The control thread calls
 * this a few times a second while the process has sites, so that they follow the semaphores
 * as they follow the library's bits. Returns whether the process has sites.
 */
bool tp_jump_follow_words(void)
{
	bool any;

	pthread_mutex_lock(&jump_mutex);
	any = nsites > 0;
	for (size_t i = 0; i < nsites; i++) {
		bool on = __atomic_load_n(&sites[i].ev->enabled, __ATOMIC_RELAXED) != 0;

		if (on != sites[i].on && !sites[i].stuck) {
			sync_range(0, nsites);
			break;
		}
	}
	pthread_mutex_unlock(&jump_mutex);
	return any;
}

/* As EVENT_STATS_V1_SIZE (registry.c): the first version's size. */
#define JUMP_STATS_V1_SIZE 184
_Static_assert(sizeof(struct tpoint_jump_stats) >= JUMP_STATS_V1_SIZE,
	       "the struct only grows at its end");

TPOINT_EXPORT int tpoint_jump_stats_sized(struct tpoint_jump_stats *out, size_t size)
{
	struct tpoint_jump_stats st;

	if (!out || size < JUMP_STATS_V1_SIZE)
		return -EINVAL;
	memset(&st, 0, sizeof(st));
	pthread_mutex_lock(&jump_mutex);
	st.sites = nsites;
	for (size_t i = 0; i < nsites; i++)
		st.checked += sites[i].stuck;
	snprintf(st.reason, sizeof(st.reason), "%s", refusal);
#ifdef JUMP_INSN_SIZE
	st.traps = tp_jump_arch_traps();
#endif
	pthread_mutex_unlock(&jump_mutex);
	tp_copy_sized(out, size, &st, sizeof(st));
	return 0;
}

/* Programs built against the first version. */
TPOINT_EXPORT int(tpoint_jump_stats)(struct tpoint_jump_stats *out)
{
	return tpoint_jump_stats_sized(out, JUMP_STATS_V1_SIZE);
}

void tp_jump_fork_prepare(void)
{
	pthread_mutex_lock(&jump_mutex);
}

void tp_jump_fork_parent(void)
{
	pthread_mutex_unlock(&jump_mutex);
}

void tp_jump_fork_child(void)
{
	pthread_mutex_init(&jump_mutex, NULL);
	/* A new process: its membarrier registration starts empty. */
	membarrier_ready = false;
	if (patching > 0)
		patching = 0;
}
