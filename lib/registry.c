/* SPDX-License-Identifier: MIT */
/*
 * The registry: every event of every loaded object, by dense index. An event keeps its slot
 * (and so its id and counters) when its object is unloaded, and gets it back when the object
 * is loaded again. A slot points into its object's meta records while the object is loaded,
 * and into a copy of them once it went (struct meta_copy), so nothing here points into an
 * object after dlclose.
 *
 * The enable word each call site tests is derived from three wishes: the event matches an
 * enabled pattern, a recording runs, and in-process probes are registered.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <tpoint/tpoint.h>
#include "filter.h"
#include "format.h"
#include "log.h"
#include "meta_read.h"
#include "print_fmt_check.h"
#include "registry.h"
#include "trigger_run.h"

/*
 * The registry lock (tp_registry_lock()) guards the slot table and everything derived from
 * it: the patterns and the client's globs (patterns.c), the wanted filters (event_filter.c),
 * each event's enable word and probe set (probes.c). The texts of the control channel
 * (control_text.c) and the drain thread (spool_context.c) take it to read. No reg() or
 * unreg() of a TRACE_EVENT_FN event runs under it (tp_registry_run_fn_calls()).
 */
static pthread_mutex_t reg_mutex = PTHREAD_MUTEX_INITIALIZER;
/*
 * Every slot there can be, in .bss: untouched pages cost nothing, a slot never moves (a
 * pointer to it, or to its names, stays good), and registering thousands of events copies
 * no table as it grows.
 */
struct event_slot tp_slots[TPOINT_MAX_EVENTS];
uint32_t tp_nslots;
static struct tpoint_enum *enums;
static size_t nenums, enums_cap;
static bool recording;
/* Slot indices + 1 by the hash of system:name, open-addressed, at most half full; 0 is free
 * (slot_find()). */
#define BY_NAME_CAP (2 * TPOINT_MAX_EVENTS)
static uint16_t by_name[BY_NAME_CAP]; /* (TPOINT_MAX_EVENTS + 1 fits) */
_Static_assert(TPOINT_MAX_EVENTS < 65535, "a slot's index + 1 fits in by_name");
/* A TRACE_EVENT_FN event waits for its reg() or unreg() (run_fn_calls()). */
bool tp_fn_calls_pending;

static void run_fn_calls(void);

/* The hook of the jump labels, set as their first site registers (jump.c). */
static void (*enable_changed)(struct tpoint_event *ev);

void tp_registry_on_enable_change(void (*changed)(struct tpoint_event *ev))
{
	__atomic_store_n(&enable_changed, changed, __ATOMIC_RELAXED);
	/* A word changed before this was set is read by the caller after it. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

void tp_registry_lock(void)
{
	pthread_mutex_lock(&reg_mutex);
}

void tp_registry_unlock(void)
{
	pthread_mutex_unlock(&reg_mutex);
}

/* Whoever switched a TRACE_EVENT_FN event on or off calls its reg() or unreg() here. */
void tp_registry_run_fn_calls(void)
{
	if (__atomic_load_n(&tp_fn_calls_pending, __ATOMIC_RELAXED))
		run_fn_calls();
}

uint32_t tp_registry_count(void)
{
	return __atomic_load_n(&tp_nslots, __ATOMIC_ACQUIRE);
}

struct event_slot *tp_registry_slot(uint32_t index)
{
	if (index >= tp_nslots)
		return NULL;
	tp_registry_slot_prepare(&tp_slots[index]);
	return &tp_slots[index];
}

/*
 * Under the lock: is the slot's event selected (by a pattern, a client or a probe)? Its
 * reg()/unreg() follow this, not the enable word, which a recording's start and stop also
 * switch: the kernel calls them as an event gains its first user and loses its last.
 */
static bool slot_wants_on(const struct event_slot *s)
{
	return s->ev && (((s->record || s->client) && !s->broken) ||
			 __atomic_load_n(&s->ev->probes, __ATOMIC_RELAXED));
}

/*
 * The one writer of an event's enable word, under the registry lock. The event's jump-label
 * sites follow it, after it: a site that is late either way only sends a hit to the test of
 * the word. Relaxed is enough: a call site that sees the word late misses a hit or two.
 */
void tp_registry_set_enable_word(struct tpoint_event *ev, uint32_t word)
{
	/*
	 * A TRACE_EVENT_FN event goes on only once its reg() succeeded, and its unreg() runs
	 * once it is off; both later, outside the lock (run_fn_calls()), which then applies
	 * the slot again.
	 */
	if ((ev->reg || ev->unreg) && ev->registered && ev->index < tp_nslots &&
	    tp_slots[ev->index].ev == ev) {
		struct event_slot *s = &tp_slots[ev->index];

		if (word && !s->fn_on) {
			if (!s->fn_failed)
				tp_fn_calls_pending = true;
			word = 0;
		}
		if (!slot_wants_on(s)) {
			s->fn_failed = false;
			if (s->fn_on)
				tp_fn_calls_pending = true;
		}
	}
	uint32_t old = __atomic_load_n(&ev->enabled, __ATOMIC_RELAXED);

	word &= TPOINT_ENABLED_MASK;
	do {
		if ((old & TPOINT_ENABLED_MASK) == word)
			return;
		/* The high half is the USDT semaphore, the kernel's: kept as it is now. */
	} while (!__atomic_compare_exchange_n(&ev->enabled, &old,
					      (old & ~TPOINT_ENABLED_MASK) | word, false,
					      __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	/* Fenced against the hook's setting (tp_registry_on_enable_change()). */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	void (*changed)(struct tpoint_event *) = __atomic_load_n(&enable_changed, __ATOMIC_RELAXED);

	if (changed)
		changed(ev);
}

void tp_registry_slot_apply(struct event_slot *s)
{
	uint32_t want = 0;

	if (!s->ev)
		return;
	if (s->record || s->client)
		tp_registry_slot_prepare(s); /* whether it may go on is known from here */
	/* Selected but refused: said once, even without TPOINT_DEBUG, never silently off. */
	if ((s->record || s->client) && s->broken && !s->refusal_said) {
		s->refusal_said = true;
		tp_notice("event %s:%s is selected but stays off: %s", s->system, s->name,
			  s->refused ? s->refused : "refused");
	}
	bool records = (s->record || s->client) && recording && !s->broken;

	if (records) {
		want |= TPOINT_ENABLED_RECORD;
		/* Only a recording event asks its filter: the bit alone would send hits of an
		 * event that is off to its condition. */
		if (__atomic_load_n(&s->ev->filter, __ATOMIC_RELAXED))
			want |= TPOINT_ENABLED_FILTER;
	}
	/* An event with triggers is built and shown to them, recorded or not (lib/trigger.c). */
	if (!s->broken && tp_trigger_event_update(s->ev->index, records))
		want |= TPOINT_ENABLED_RECORD | TPOINT_ENABLED_FILTER;
	if (__atomic_load_n(&s->ev->probes, __ATOMIC_RELAXED))
		want |= TPOINT_ENABLED_PROBES;
	tp_registry_set_enable_word(s->ev, want);
}

/*
 * The reg() or unreg() calls that tp_registry_set_enable_word() left for later, made without
 * the lock by the thread that switched the event. One thread calls one event's function at a time
 * (fn_busy); a switch meanwhile is caught up when the call returns, as the slot is applied
 * again. Not on any hot path: only enabling and disabling come here.
 */
static void run_fn_calls(void)
{
	for (;;) {
		struct event_slot *s = NULL;
		int (*reg)(void) = NULL;
		void (*unreg)(void) = NULL;
		bool want = false;
		uint32_t i;
		int ret = 0;

		pthread_mutex_lock(&reg_mutex);
		tp_fn_calls_pending = false;
		for (i = 0; i < tp_nslots; i++) {
			struct event_slot *c = &tp_slots[i];

			if ((!c->reg && !c->unreg) || c->fn_busy)
				continue;
			want = slot_wants_on(c);
			if ((want && !c->fn_on && !c->fn_failed) || (!want && c->fn_on)) {
				s = c;
				break;
			}
		}
		if (!s) {
			pthread_mutex_unlock(&reg_mutex);
			return;
		}
		s->fn_busy = true;
		reg = s->reg;
		unreg = s->unreg;
		pthread_mutex_unlock(&reg_mutex);

		if (want && reg)
			ret = reg();
		else if (!want && unreg)
			unreg();

		pthread_mutex_lock(&reg_mutex);
		s->fn_busy = false;
		if (want && ret) {
			s->fn_failed = true;
			s->fn_error = ret;
			tp_notice("event %s:%s stays off: its reg function returned %d", s->system,
				  s->name, ret);
		} else {
			s->fn_on = want;
			if (want)
				s->fn_error = 0;
		}
		tp_registry_slot_apply(s);
		pthread_mutex_unlock(&reg_mutex);
	}
}

static void add_enums(const char *begin, const char *end)
{
	const char *cur = begin;
	const struct tpoint_meta_hdr *h;

	while (tpoint_meta_next_kind(&cur, end, TPOINT_META_ENUM, &h) > 0) {
		const struct tpoint_meta_enum *e = (const struct tpoint_meta_enum *)h;
		const char *system, *name;
		bool dup = false;

		system = tpoint_meta_enum_system(e);
		name = tpoint_meta_enum_name(e);
		for (size_t i = 0; i < nenums && !dup; i++)
			dup = !strcmp(enums[i].system, system) && !strcmp(enums[i].name, name);
		if (dup)
			continue;
		if (nenums == enums_cap) {
			size_t cap = enums_cap ? enums_cap * 2 : 16;
			struct tpoint_enum *n = realloc(enums, cap * sizeof(*n));

			if (!n)
				return;
			enums = n;
			enums_cap = cap;
		}
		enums[nenums].system = strdup(system);
		enums[nenums].name = strdup(name);
		enums[nenums].value = e->value;
		if (enums[nenums].system && enums[nenums].name)
			nenums++;
	}
}

/* FNV-1a of "system:name". */
static uint32_t name_hash(const char *system, const char *name)
{
	uint32_t h = 2166136261u;

	for (; *system; system++)
		h = (h ^ (uint8_t)*system) * 16777619u;
	h = (h ^ (uint8_t)':') * 16777619u;
	for (; *name; name++)
		h = (h ^ (uint8_t)*name) * 16777619u;
	return h;
}

/*
 * A hash, not a walk of every slot with strcmp: registering n events compared n^2/2 names,
 * most of the start-up of a program with thousands of events (docs/DECISIONS.md). When the
 * name is not there, *free is the bucket where it goes (the table does not change before
 * the caller fills it, under the lock).
 */
static struct event_slot *slot_find(const char *system, const char *name, uint32_t *free)
{
	uint32_t i = name_hash(system, name) & (BY_NAME_CAP - 1);

	for (; by_name[i]; i = (i + 1) & (BY_NAME_CAP - 1)) {
		struct event_slot *s = &tp_slots[by_name[i] - 1];

		if (!strcmp(s->name, name) && !strcmp(s->system, system))
			return s;
	}
	*free = i;
	return NULL;
}

static struct event_slot *slot_new(void)
{
	if (tp_nslots == TPOINT_MAX_EVENTS)
		return NULL;
	memset(&tp_slots[tp_nslots], 0, sizeof(tp_slots[0]));
	return &tp_slots[tp_nslots];
}

/*
 * "system:name" of a registered event, else its address, without the lock: for messages
 * about an event whose code is running (its object is loaded, its names stay where they
 * are).
 */
const char *tp_registry_event_label(const struct tpoint_event *ev, char *buf, size_t len)
{
	uint32_t i = ev->index;

	if (__atomic_load_n(&ev->registered, __ATOMIC_RELAXED) && i < tp_registry_count() &&
	    tp_slots[i].ev == ev)
		snprintf(buf, len, "%s:%s", tp_slots[i].system, tp_slots[i].name);
	else
		snprintf(buf, len, "%p", (const void *)ev);
	return buf;
}

/* Events refused for their ABI, and the last such ABI: said when a recording holds nothing. */
static uint32_t refused_by_abi;
static unsigned refused_abi;

uint32_t tp_registry_refused_by_abi(unsigned *abi)
{
	uint32_t n;

	tp_registry_lock();
	n = refused_by_abi;
	*abi = refused_abi;
	tp_registry_unlock();
	return n;
}

/* An event of an object of this ABI whose descriptor says another (a mixed build). */
static void refuse_event(const char *system, const char *name, unsigned abi)
{
	refused_by_abi++;
	refused_abi = abi;
	tp_err("event %s:%s was built for tpoint ABI %u, this library has %u; not registered",
	       system, name, abi, TPOINT_ABI);
}

/* The texts of a slot that could not be prepared: it stays off, and says why. */
static char no_condition[] = "";
static char no_format[] = "format:\n\nprint fmt: \"\"\n";

static void slot_refuse(struct event_slot *s, const char *why)
{
	s->broken = true;
	if (!s->refused)
		s->refused = strdup(why);
}

/*
 * What registration leaves until something asks for it (enabling the event, listing or
 * recording the process's events, a control request): the copy of the condition,
 * the tracefs format and the check that libtraceevent can render the print format. A
 * program with thousands of events and none enabled never pays for them (DECISIONS.md,
 * "Registration defers"). Under the lock.
 */
static void slot_build(struct event_slot *s, const struct tpoint_meta_event *m,
		       const struct tpoint_meta_class *c);
void tp_registry_slot_prepare(struct event_slot *s)
{
	if (s->prepared)
		return;
	s->prepared = true;
	if (!s->meta) { /* out of memory when its object went */
		s->condition = no_condition;
		s->format = no_format;
		slot_refuse(s, "its object was unloaded before its format was read");
		return;
	}
	slot_build(s, s->meta, s->class_meta);
}

/*
 * The meta records an unloaded object leaves: a copy of its whole tpoint_meta section, made
 * as it goes (dlclose, or exit, which cannot be told apart in a destructor: libtpoint's
 * atexit handler runs after _dl_fini), one memcpy, not one a slot. Its slots point into it
 * until their object is loaded again; the last of them frees it.
 */
struct meta_copy {
	uint32_t users;
	/* As aligned as malloc's memory: the records keep the alignment they had in the
	 * section (8 bytes), which a copy at offset 4 broke (UBSan: misaligned access). */
	_Alignas(16) char bytes[];
};

static const char *rebase(const void *p, const char *from, struct meta_copy *to)
{
	return to->bytes + ((const char *)p - from);
}

static void slot_keep_records(struct event_slot *s, struct meta_copy *copy, const char *from)
{
	if (!copy) {
		s->class_meta = NULL;
		s->meta = NULL;
		s->system = s->name = "?";
		return;
	}
	s->class_meta = (const struct tpoint_meta_class *)(const void *)rebase(s->class_meta, from,
										copy);
	s->meta = (const struct tpoint_meta_event *)(const void *)rebase(s->meta, from, copy);
	s->system = rebase(s->system, from, copy);
	s->name = rebase(s->name, from, copy);
	s->meta_copy = copy;
	copy->users++;
}

static void slot_drop_copy(struct event_slot *s)
{
	if (s->meta_copy && --s->meta_copy->users == 0)
		free(s->meta_copy);
	s->meta_copy = NULL;
}

static void slot_build(struct event_slot *s, const struct tpoint_meta_event *m,
		       const struct tpoint_meta_class *c)
{
	char why[256];
	const char *print;
	char *subst;

	s->condition = strdup(tpoint_meta_event_condition(m));
	s->format = tpoint_format_build(c, m, s->id, enums, nenums);
	if (!s->condition || !s->format) {
		snprintf(why, sizeof(why), "its format could not be built (%s)",
			 strerror(errno ? errno : EINVAL));
		tp_err("event %s:%s stays disabled: %s", s->system, s->name, why);
		free(s->condition);
		free(s->format);
		s->condition = no_condition;
		s->format = no_format;
		slot_refuse(s, why);
		return;
	}
	print = tpoint_meta_event_print(m);
	if (!*print)
		print = tpoint_meta_class_print(c);
	/* Checked as the reader gets it: TRACE_DEFINE_ENUM/SIZEOF names replaced. */
	subst = tpoint_print_fmt_subst(print, s->system, enums, nenums);
	if (!subst || tpoint_print_fmt_check(subst, why, sizeof(why)) < 0) {
		if (!subst)
			snprintf(why, sizeof(why), "out of memory");
		slot_refuse(s, why);
		tp_err("event %s:%s stays disabled: libtraceevent cannot render its TP_printk: %s",
		       s->system, s->name, why);
	}
	free(subst);
}

/*
 * Only what the hot path and a lookup need: a slot, its id and index, its name in the hash.
 * The rest waits for tp_registry_slot_prepare().
 */
static void register_event(const struct tpoint_event_ref *ref,
			   void (*added)(struct event_slot *s))
{
	struct tpoint_event *ev = (struct tpoint_event *)tpoint_event_ref_at(&ref->event);
	const struct tpoint_meta_class *c = tpoint_event_ref_at(&ref->class_meta);
	const struct tpoint_meta_event *m = tpoint_event_ref_at(&ref->meta);
	const char *system, *name;
	struct event_slot *s;
	uint32_t index, bucket = 0;

	/* Another file of the object registered it, or a copy of its entry names it again. */
	if (ev->registered)
		return;
	tpoint_meta_event_names(m, &system, &name);
	if (ev->abi != TPOINT_ABI) {
		refuse_event(system, name, ev->abi);
		return;
	}
	s = slot_find(system, name, &bucket);
	if (s && s->ev) {
		tp_err("event %s:%s is defined twice (two objects define it); the second is ignored",
		       system, name);
		return;
	}
	if (!s) {
		s = slot_new();
		if (!s) {
			tp_err("event %s:%s not registered: more than %u events", system, name,
			       TPOINT_MAX_EVENTS);
			return;
		}
		index = tp_nslots;
		s->id = (uint16_t)(TPOINT_FIRST_ID + index);
		s->system = system;
		s->name = name;
		by_name[bucket] = (uint16_t)(index + 1);
		/* Publish the slot (release) only once it is complete. */
		__atomic_store_n(&tp_nslots, tp_nslots + 1, __ATOMIC_RELEASE);
	} else {
		index = (uint32_t)(s - tp_slots);
		slot_drop_copy(s); /* its object is back */
	}
	s->ev = ev;
	s->class_meta = c;
	s->meta = m;
	s->system = system;
	s->name = name;
	s->reg = ev->reg;
	s->unreg = ev->unreg;
	ev->id = s->id;
	ev->index = index;
	ev->counters = index * (uint32_t)sizeof(struct tpoint_counters);
	ev->registered = 1;
	added(s);
}

/*
 * An object built for another ABI: its events stay off, said by the object and its ABI (the
 * layout of its table is this ABI's only).
 */
static void refuse_module(const struct tpoint_module *mod)
{
	refused_by_abi++;
	refused_abi = mod->abi;
	tp_err("an object built for tpoint ABI %u (this library has %u) was not registered: "
	       "its events stay off", mod->abi, TPOINT_ABI);
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif

/*
 * Fault in, writable, the pages of [lo, hi) that registration is about to write (slots,
 * descriptors, the copy of an object's records): one call, where each page's first write
 * would fault on its own, which costs twice as much a page (13 against 6.5 us in this
 * project's VM: docs/PERFORMANCE.md, "Footprint and start-up"). Best effort: an older
 * kernel says EINVAL, and the writes fault as before.
 */
static void populate(const void *lo, const void *hi)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t a = (uintptr_t)lo & ~(page - 1), b = ((uintptr_t)hi + page - 1) & ~(page - 1);

	if ((uintptr_t)lo < (uintptr_t)hi)
		(void)madvise((void *)a, b - a, MADV_POPULATE_WRITE);
}

/* The slots and the descriptors that an object's registration writes (under the lock). */
static void populate_for(const struct tpoint_module *mod)
{
	size_t n = (size_t)(mod->events_end - mod->events_begin);
	const char *lo = NULL, *hi = NULL;

	/* A page or two faults for no more; another file of the object registered it. */
	if (n < 64 || ((struct tpoint_event *)tpoint_event_ref_at(&mod->events_begin->event))
			      ->registered)
		return;
	for (const struct tpoint_event_ref *r = mod->events_begin; r < mod->events_end; r++) {
		const char *ev = tpoint_event_ref_at(&r->event);

		if (!lo || ev < lo)
			lo = ev;
		if (!hi || ev + sizeof(struct tpoint_event) > hi)
			hi = ev + sizeof(struct tpoint_event);
	}
	if ((size_t)(hi - lo) <= 2 * n * sizeof(struct tpoint_event)) /* a range of them alone */
		populate(lo, hi);
	populate(by_name, by_name + BY_NAME_CAP); /* touched all over: 4 pages */
	if (tp_nslots < TPOINT_MAX_EVENTS)
		populate(&tp_slots[tp_nslots],
			 &tp_slots[tp_nslots + n < TPOINT_MAX_EVENTS ? tp_nslots + n :
								   TPOINT_MAX_EVENTS]);
}

bool tp_registry_add_module(const struct tpoint_module *mod, void (*added)(struct event_slot *s))
{
	if (!mod || !mod->events_begin)
		return false;
	if (mod->abi != TPOINT_ABI) {
		tp_registry_lock();
		refuse_module(mod);
		tp_registry_unlock();
		return false;
	}
	tp_registry_lock();
	add_enums(mod->meta_begin, mod->meta_end);
	populate_for(mod);
	for (const struct tpoint_event_ref *r = mod->events_begin; r < mod->events_end; r++)
		register_event(r, added);
	tp_registry_unlock();
	return true;
}

bool tp_registry_remove_module(const struct tpoint_module *mod,
			       void (*removed)(struct event_slot *s))
{
	struct meta_copy *copy = NULL;
	bool copied = false;
	size_t size;

	if (!mod || mod->abi != TPOINT_ABI || !mod->events_begin)
		return false;
	size = (size_t)(mod->meta_end - mod->meta_begin);
	tp_registry_lock();
	for (const struct tpoint_event_ref *r = mod->events_begin; r < mod->events_end; r++) {
		struct tpoint_event *ev = (struct tpoint_event *)tpoint_event_ref_at(&r->event);
		struct event_slot *s;

		if (!ev->registered)
			continue;
		ev->registered = 0;
		if (ev->index >= tp_nslots || tp_slots[ev->index].ev != ev)
			continue;
		s = &tp_slots[ev->index];
		tp_registry_set_enable_word(ev, 0);
		if (!copied) { /* the first of its events that registered */
			copied = true;
			copy = malloc(sizeof(*copy) + size);
			if (copy) {
				copy->users = 0;
				populate(copy->bytes, copy->bytes + size);
				memcpy(copy->bytes, mod->meta_begin, size);
			}
		}
		if ((const char *)s->meta < mod->meta_begin ||
		    (const char *)s->meta >= mod->meta_end)
			slot_keep_records(s, NULL, NULL); /* not its records: cannot be */
		else
			slot_keep_records(s, copy, mod->meta_begin);
		removed(s);
		s->ev = NULL;
		/* Its unreg() runs as the lock is released, before the object goes. */
		if (s->fn_on)
			tp_fn_calls_pending = true;
	}
	if (copy && !copy->users)
		free(copy);
	tp_registry_unlock();
	return true;
}

void tp_registry_apply_recording(bool on)
{
	tp_registry_lock();
	recording = on;
	for (uint32_t i = 0; i < tp_nslots; i++)
		tp_registry_slot_apply(&tp_slots[i]);
	tp_registry_unlock();
}

bool tp_registry_wants_recording(void)
{
	bool want = false;

	tp_registry_lock();
	for (uint32_t i = 0; i < tp_nslots && !want; i++)
		want = tp_slots[i].ev && tp_slots[i].record && !tp_slots[i].broken;
	tp_registry_unlock();
	return want;
}

void tp_registry_after_fork(void)
{
	/* The child's mutex may have been held by a thread that no longer exists. */
	pthread_mutex_init(&reg_mutex, NULL);
}
