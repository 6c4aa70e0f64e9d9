/* SPDX-License-Identifier: MIT */
/*
 * The filters attached to events (tpoint_set_filter(), TPOINT_FILTER, `tpoint filter`):
 * compiled by filter.c against the event's fields, published in its descriptor, and kept by
 * name for an event that is not registered yet. Under the registry lock (registry.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <tpoint/tpoint.h>
#include "event_filter.h"
#include "filter.h"
#include "fmt/selection.h"
#include "format.h"
#include "log.h"
#include "meta_read.h"
#include "registry.h"
#include "trigger_run.h"
#include "writer.h"

/* Filters by event name, kept so that an event loaded later (dlopen) gets its filter. */
struct wanted_filter {
	char *event; /* "system:name" */
	char *expr;
};
static struct wanted_filter *wanted;
static size_t nwanted;

/*
 * The event's fields as filters and histograms read them (struct filter_field): the common
 * ones, then the record's numbers and strings, offsets from common_type. *fields is
 * malloc'ed; the names point into the slot's records. 0, -ENOMEM, or -EINVAL with err set.
 */
int tp_registry_slot_fields(const struct event_slot *s, struct filter_field **fields,
			    size_t *nfields, char *err, size_t errlen)
{
	const struct tpoint_meta_class *c = s->class_meta;
	const struct tpoint_meta_field *mf = tpoint_meta_class_fields(c);
	const char *names = tpoint_meta_class_field_strings(c);
	struct filter_field *f = calloc(c->nfields + 4, sizeof(*f));
	uint16_t *off = calloc(c->nfields + 1, sizeof(*off));
	size_t n = 0;

	if (!f || !off) {
		free(f);
		free(off);
		return -ENOMEM;
	}
	if (tpoint_meta_layout(c, off) < 0) {
		free(f);
		free(off);
		snprintf(err, errlen, "%s:%s: record layout not understood", s->system, s->name);
		return -EINVAL;
	}
	f[n++] = (struct filter_field){ "common_type", 0, 2, 0, FILTER_NUM };
	f[n++] = (struct filter_field){ "common_flags", 2, 1, 0, FILTER_NUM };
	f[n++] = (struct filter_field){ "common_preempt_count", 3, 1, 0, FILTER_NUM };
	f[n++] = (struct filter_field){ "common_pid", 4, 4, 1, FILTER_NUM };
	for (uint32_t i = 0; i < c->nfields; i++) {
		struct filter_field *x = &f[n];
		const char *type = names, *field = tpoint_meta_str_next(type);
		bool is_char = !strcmp(type, "char") || !strcmp(type, "const char") ||
			       !strcmp(type, "unsigned char");

		names = tpoint_meta_str_next(field);
		x->name = field;
		x->offset = off[i];
		x->size = mf[i].size;
		x->is_signed = mf[i].is_signed;
		if (mf[i].kind == TPOINT_FIELD_DYNAMIC && is_char)
			x->kind = FILTER_STR_DYN;
		else if (mf[i].kind == TPOINT_FIELD_ARRAY && is_char)
			x->kind = FILTER_STR_ARRAY;
		else if (mf[i].kind == TPOINT_FIELD_PLAIN &&
			 (x->size == 1 || x->size == 2 || x->size == 4 || x->size == 8))
			x->kind = FILTER_NUM;
		else
			continue; /* structs and other arrays cannot be compared */
		n++;
	}
	free(off);
	*fields = f;
	*nfields = n;
	return 0;
}

static int slot_compile_filter(struct event_slot *s, const char *expr, struct filter **out,
			       char *err, size_t errlen)
{
	char name[2 * TPOINT_NAME_MAX + 2];
	struct filter_field *f;
	size_t n;
	int ret = tp_registry_slot_fields(s, &f, &n, err, errlen);

	if (ret < 0)
		return ret;
	snprintf(name, sizeof(name), "%s:%s", s->system, s->name);
	ret = tp_filter_compile(expr, name, f, n, out, err, errlen);
	free(f);
	return ret;
}

/*
 * Replaced filters, freed after a grace period. A hit loads ev->filter after it claimed its
 * thread's nesting level (tpoint_reserve() stores TPOINT_TLS.top first) and is done with it
 * before it lets the level go (tpoint_filter_commit_v1(): the commit or the take-back). So a
 * thread seen with no level claimed after the filter was replaced holds it no longer. The
 * hits do nothing more than before: the price is paid here, by the one who replaces a
 * filter, with membarrier() in place of fences on the hot path. Each round of reclaim_filters():
 *   - a fence (membarrier) numbered F: every thread's claim made before its load of the
 *     pointer is visible from here, and a thread that loads it later sees the new one;
 *   - each thread is looked at once (a few microseconds of waiting at most): seen free of a
 *     level, it is known to hold no filter replaced before fence F;
 *   - a filter is freed once every thread was so seen after the fence that followed its
 *     replacement, and after one more fence, which orders the loads of its last
 *     evaluation before the free.
 * So threads need not be free at the same moment, and one that is stopped in the middle
 * of a record (a debugger) only delays it. Every replacement runs a round; without
 * membarrier() (an old kernel) the filters are kept, as they always were. Under the
 * registry lock.
 */
struct retired_filter {
	struct retired_filter *next;
	void *p;
	void (*free_fn)(void *);
	uint64_t fence; /* the first fence after its replacement */
};
static struct retired_filter *retired;
static uint64_t fences;    /* fences made so far: the number of the last one */
static int membarrier_cmd; /* 0: not tried yet; -1: none works */

/* The last fence after which each thread record was seen free of filters. */
static struct seen_thread {
	const struct thread_rec *rec;
	uint64_t fence;
} *seen;
static size_t nseen, seen_cap;

static inline void spin_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#else
	__asm__ __volatile__("" ::: "memory");
#endif
}

static bool fence_all_threads(void)
{
	if (!membarrier_cmd) {
		if (syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0)
			membarrier_cmd = MEMBARRIER_CMD_PRIVATE_EXPEDITED;
		else if (syscall(__NR_membarrier, MEMBARRIER_CMD_QUERY, 0, 0) > 0)
			membarrier_cmd = MEMBARRIER_CMD_GLOBAL; /* slower, and as rare */
		else
			membarrier_cmd = -1;
		if (membarrier_cmd < 0)
			tp_debug("filters: no membarrier() (%s): replaced filters are kept",
				 strerror(errno));
	}
	if (membarrier_cmd < 0 || syscall(__NR_membarrier, membarrier_cmd, 0, 0) < 0)
		return false;
	fences++;
	return true;
}

/* -1: not known now (another is looking at it, or it is exiting); 0: busy; 1: free. */
static int thread_free_of_filters(struct thread_rec *r)
{
	uint32_t state = THREAD_LIVE;
	int quiet;

	/* LIVE -> POKED keeps its TLS from going away while we read it (tp_writer_detach_all) */
	if (!__atomic_compare_exchange_n(&r->state, &state, THREAD_POKED, false, __ATOMIC_ACQUIRE,
					 __ATOMIC_RELAXED))
		return state == THREAD_FREE ? 1 : -1;
	/*
	 * No TLS yet: the thread is attaching (its first record), and has loaded no filter
	 * before the fence, or its pointer to the TLS would be seen. Else a level is claimed
	 * when `top` is past stream[0]; the unlinked stream (not attached) is elsewhere.
	 */
	const struct tpoint_tls *t = __atomic_load_n(&r->tls, __ATOMIC_RELAXED);
	uintptr_t top = t ? (uintptr_t)__atomic_load_n(&t->top, __ATOMIC_RELAXED) : 0;

	quiet = !t || top < (uintptr_t)&t->stream[1] ||
		top > (uintptr_t)&t->stream[TPOINT_MAX_NESTING];
	__atomic_store_n(&r->state, THREAD_LIVE, __ATOMIC_RELEASE);
	return quiet;
}

static struct seen_thread *seen_of(const struct thread_rec *r)
{
	for (size_t i = 0; i < nseen; i++)
		if (seen[i].rec == r)
			return &seen[i];
	if (nseen == seen_cap) {
		size_t cap = seen_cap ? 2 * seen_cap : 16;
		struct seen_thread *n = realloc(seen, cap * sizeof(*n));

		if (!n)
			return NULL;
		seen = n;
		seen_cap = cap;
	}
	seen[nseen] = (struct seen_thread){ r, 0 }; /* new: seen free after no fence yet */
	return &seen[nseen++];
}

/* Look at every thread once; the fence after which all were seen free of filters. */
static uint64_t look_at_threads(void)
{
	uint64_t all = fences;

	for (struct thread_rec *r = tp_thread_list_head(); r; r = r->next) {
		struct seen_thread *st = seen_of(r);
		int quiet;

		if (!st)
			return 0;
		/* a running thread is in the middle of a record for well under a microsecond */
		for (int spin = 0; (quiet = thread_free_of_filters(r)) != 1 && spin < 256; spin++)
			spin_pause();
		if (quiet == 1)
			st->fence = fences;
		if (st->fence < all)
			all = st->fence;
	}
	return all;
}

static void free_retired(uint64_t upto)
{
	for (struct retired_filter **p = &retired; *p;) {
		struct retired_filter *r = *p;

		if (r->fence > upto) {
			p = &r->next;
			continue;
		}
		*p = r->next;
		r->free_fn(r->p);
		free(r);
	}
}

static void reclaim_filters(void)
{
	uint64_t quiet;

#ifdef TPOINT_TSAN
	/*
	 * ThreadSanitizer cannot see what membarrier() orders: it would take every free for
	 * a race with the last evaluation. Its builds keep the filters, as before.
	 */
	return;
#endif
	if (!retired || !fence_all_threads())
		return;
	quiet = look_at_threads();
	if (quiet && fence_all_threads())
		free_retired(quiet);
}

void tp_registry_retire(void *p, void (*free_fn)(void *))
{
	struct retired_filter *r;

	if (p) {
		r = malloc(sizeof(*r));
		if (!r)
			return; /* kept for ever: a hit may be using it */
		*r = (struct retired_filter){ retired, p, free_fn, fences + 1 };
		retired = r;
	}
	reclaim_filters();
}

static void free_filter(void *f)
{
	tp_filter_free(f);
}

/* A filter no longer published: freed when no hit can be evaluating it. */
static void retire_filter(struct filter *f)
{
	tp_registry_retire(f, free_filter);
}

/* Publish a slot's wanted filter (or none) to its event. */
void tp_registry_slot_apply_filter(struct event_slot *s)
{
	char full[2 * TPOINT_NAME_MAX + 2], err[512];
	struct filter *f = NULL;

	if (!s->ev || (!nwanted && !s->filter))
		return; /* nothing to publish, nor to take back: the usual registration */
	snprintf(full, sizeof(full), "%s:%s", s->system, s->name);
	/* Its own name with the system first; a bare name (TPOINT_FILTER='name:EXPR') else. */
	const struct wanted_filter *w = NULL;
	enum event_naming best = EVENT_NOT_NAMED;

	for (size_t i = 0; i < nwanted && best != EVENT_NAMED_FULL; i++) {
		enum event_naming how = tp_event_named(wanted[i].event, s->system, s->name);

		if (how > best) {
			best = how;
			w = &wanted[i];
		}
	}
	if (w && w->expr && slot_compile_filter(s, w->expr, &f, err, sizeof(err)) < 0) {
		tp_err("filter of %s not set: %s", full, err);
		f = NULL;
	}
	struct filter *old = s->filter;

	s->filter = f;
	tp_registry_publish_judge(s);
	retire_filter(old); /* a thread may be evaluating it right now */
}

void tp_registry_publish_judge(struct event_slot *s)
{
	struct trigger_set *ts = tp_trigger_set_of(s->ev->index);
	struct trigger_gate *gate = NULL;

	if (ts) {
		gate = calloc(1, sizeof(*gate));
		if (gate) {
			gate->f.fast_size = UINT64_MAX; /* never judged inline: judge_checked() */
			gate->filter = s->filter;
			gate->ts = ts;
		} else {
			tp_err("%s:%s: out of memory: its triggers do not run", s->system, s->name);
		}
	}
	/*
	 * Release: the filter or gate is complete before a hit can load it. The gate it
	 * replaces waits, as a filter does.
	 */
	struct filter *old = __atomic_exchange_n((struct filter **)&s->ev->filter,
						 gate ? &gate->f : s->filter, __ATOMIC_ACQ_REL);

	tp_registry_slot_apply(s); /* TPOINT_ENABLED_FILTER follows */
	if (tp_trigger_gate(old))
		tp_registry_retire(old, free);
}

void tp_registry_slot_drop_filter(struct event_slot *s)
{
	struct filter *old = __atomic_exchange_n((struct filter **)&s->ev->filter, NULL,
						 __ATOMIC_ACQ_REL);

	if (tp_trigger_gate(old))
		tp_registry_retire(old, free);
	retire_filter(s->filter);
	s->filter = NULL;
}

/*
 * Remember (or, for "", forget) the filter of "system:name" or of a bare "name". A cleared
 * "system:name" stays, without an expression: it says "none" over a bare name's filter.
 * Under the lock.
 */
static int wanted_put(const char *full, const char *expr)
{
	bool keep_cleared = strchr(full, ':') != NULL;

	size_t i;

	for (i = 0; i < nwanted; i++)
		if (!strcmp(wanted[i].event, full))
			break;
	if (i == nwanted) {
		struct wanted_filter *n;

		if (!*expr && !keep_cleared)
			return 0;
		n = realloc(wanted, (nwanted + 1) * sizeof(*n));
		if (!n)
			return -ENOMEM;
		wanted = n;
		wanted[nwanted].event = strdup(full);
		wanted[nwanted].expr = NULL;
		if (!wanted[nwanted].event)
			return -ENOMEM;
		nwanted++;
	}
	free(wanted[i].expr);
	wanted[i].expr = *expr ? strdup(expr) : NULL;
	if (!wanted[i].expr && (*expr || !keep_cleared)) {
		free(wanted[i].event);
		wanted[i] = wanted[--nwanted];
		if (*expr)
			return -ENOMEM;
	}
	return 0;
}

/*
 * The first registered event that `event` names, into *sp, with expr compiled against it
 * (and dropped): 0, -ENOENT, or the compiler's error, with err saying why. Under the lock.
 */
static int find_and_compile(const char *event, const char *expr, struct event_slot **sp,
			    char *err, size_t errlen)
{
	struct event_slot *s = NULL;
	struct filter *f = NULL;
	int ret;

	for (uint32_t k = 0; k < tp_nslots && !s; k++)
		if (tp_event_named(event, tp_slots[k].system, tp_slots[k].name))
			s = &tp_slots[k];
	*sp = s;
	if (!s) {
		snprintf(err, errlen, "no event '%s' in this process", event);
		return -ENOENT;
	}
	if (*expr && s->ev) {
		/* Compile now, to answer with the error; the slot keeps only valid filters. */
		ret = slot_compile_filter(s, expr, &f, err, errlen);
		if (ret < 0)
			return ret;
		tp_filter_free(f);
	}
	return 0;
}

int tp_registry_set_filter(const char *event, const char *expr, char *err, size_t errlen)
{
	char full[2 * TPOINT_NAME_MAX + 2];
	struct event_slot *s;
	int ret;

	tp_registry_lock();
	ret = find_and_compile(event, expr, &s, err, errlen);
	if (ret < 0) {
		tp_registry_unlock();
		return ret;
	}
	snprintf(full, sizeof(full), "%s:%s", s->system, s->name);
	ret = wanted_put(full, expr);
	if (ret == 0)
		tp_registry_slot_apply_filter(s);
	tp_registry_unlock();
	return ret;
}

int tp_registry_try_filter(const char *event, const char *expr, char *err, size_t errlen)
{
	struct event_slot *s;
	int ret;

	tp_registry_lock();
	ret = find_and_compile(event, expr, &s, err, errlen);
	tp_registry_unlock();
	return ret;
}

int tp_registry_want_filter(const char *event, const char *expr, char *err, size_t errlen)
{
	int ret;

	(void)err;
	(void)errlen;
	tp_registry_lock();
	ret = wanted_put(event, expr);
	for (uint32_t k = 0; ret == 0 && k < tp_nslots; k++)
		if (tp_event_named(event, tp_slots[k].system, tp_slots[k].name))
			tp_registry_slot_apply_filter(&tp_slots[k]);
	tp_registry_unlock();
	return ret;
}

TPOINT_EXPORT int tpoint_set_filter(const char *event, const char *expr)
{
	char err[512];
	int ret;

	if (!event || !expr)
		return -EINVAL;
	ret = tp_registry_set_filter(event, expr, err, sizeof(err));
	if (ret < 0)
		tp_err("%s", err);
	return ret;
}

const char *tp_registry_slot_filter_text(const struct event_slot *s)
{
	return s->filter ? tp_filter_text(s->filter) : "";
}
