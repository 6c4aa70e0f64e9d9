/* SPDX-License-Identifier: MIT */
/*
 * tpoint/event.h - the part of the runtime that call sites compile inline.
 *
 * This is ABI: the layout of struct tpoint_event, the meaning of its enable bits, struct
 * tpoint_tls and the page format are compiled into every instrumented object. Any change
 * bumps TPOINT_ABI, so that old and new objects can never be mixed silently: the registry
 * refuses, with a message, the events of an object built for another ABI. A function whose
 * contract changes also takes a new _vN name, so that such an object does not even load.
 * (ABI 2: filtered events are flagged by TPOINT_ENABLED_FILTER, not found by a test of
 * .filter on every hit. ABI 3: struct tpoint_tls points at the stream to claim instead of
 * counting levels, and a commit counts its record without testing for the counters. ABI 4:
 * the descriptor ends with TRACE_EVENT_FN's reg and unreg. ABI 5: class_meta and meta point
 * at records of TPOINT_META_VERSION 2, strings as long as they are. ABI 6: the descriptor
 * has no pointers to its records, an object's table (struct tpoint_event_ref) has offsets
 * to both; a stream's off and end are 64-bit; the thread's state, tpoint_tls_v2, starts at
 * the library's unlinked stream. ABI 7: a stream holds pointers, the page's commit word
 * the address of its first free byte, and the clock is read at publish, after the fields:
 * tpoint_tls_v3, tpoint_filter_commit_v2, tpoint_commit_slow_v1.)
 *
 * The hot path (tpoint_reserve + tpoint_publish) does no atomic read-modify-write, takes no
 * lock and makes no system call: a room and a CPU check, the fields, a clock read, a bump of
 * the thread's own write pointer, the header's stores, and a release store of the page's
 * commit word.
 */
#ifndef TPOINT_EVENT_H
#define TPOINT_EVENT_H

#include <stdint.h>
#include <stddef.h>
#include <string.h>
#include <tpoint/arch.h>
#include <tpoint/meta.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TPOINT_ABI 7
#define TPOINT_EXPORT __attribute__((visibility("default")))

/* Bits of tpoint_event.enabled. */
#define TPOINT_ENABLED_RECORD 1u /* write records into the buffers */
#define TPOINT_ENABLED_PROBES 2u /* call the in-process probes (register_trace_<name>) */
#define TPOINT_ENABLED_FILTER 4u /* with RECORD: a filter judges each record (.filter) */
/*
 * The library's bits are the low half of the word. The high half is the event's USDT
 * semaphore (<tpoint/usdt.h>): the kernel adds 1 to it for each uprobe that bpftrace, perf
 * or SystemTap attach to the event's probe, so that a call site's one test of the word sees
 * them too. The library writes only its half (a compare-and-swap of the word); objects
 * built before (or with -DTPOINT_NO_USDT) have no probe, and their high half stays 0.
 */
#define TPOINT_ENABLED_MASK 0xffffu
#define TPOINT_ENABLED_USDT_SHIFT 16

struct tpoint_event {
	uint32_t enabled; /* TPOINT_ENABLED_* | USDT semaphore << 16; call sites read it
			   * relaxed, then branch */
	uint16_t id;      /* common_type of its records; 0 until registered */
	uint8_t abi;      /* TPOINT_ABI of the object that defined it */
	uint8_t registered;
	uint32_t index;   /* dense number in the registry: the per-thread counters' slot */
	uint32_t counters; /* index * sizeof(struct tpoint_counters): where the slot is, in bytes,
			    * so that a commit counts with no multiplication */
	void *probes;     /* struct tpoint_probe_set *, replaced as a whole on (un)register */
	void *filter;     /* the compiled filter, or NULL; TPOINT_ENABLED_FILTER says to look */
	/* TRACE_EVENT_FN: called by the registry, outside its lock, as the event goes on (a
	 * non-zero return keeps it off) and after it went off; NULL for other events. */
	int (*reg)(void);
	void (*unreg)(void);
};

/* Per-thread, per-event counts; a thread only ever writes its own. */
struct tpoint_counters {
	uint64_t cond_skipped; /* hits whose TP_CONDITION was false */
	uint64_t filtered;     /* records a filter rejected */
	uint64_t recorded;     /* records committed to the pool */
	uint64_t lost;         /* records that found no room (discard) or were overwritten */
};

/*
 * Ring-buffer pages use the kernel's layout: u64 timestamp, u64 commit (exact bytes of event
 * data), then the events. Every record here uses the 8-byte header form (type_len 0 and an
 * explicit length), so records and their payloads stay 8-byte aligned. A record's first u32
 * holds type_len in its low TPOINT_TYPE_LEN_BITS bits and the time delta in the
 * TPOINT_DELTA_BITS above; the rest of the encoding (time extends, decoding) is the
 * library's (lib/fmt/rb_record.h, lib/tracedat_format.h).
 */
#define TPOINT_PAGE_SIZE 4096u
#define TPOINT_PAGE_HEADER 16u
#define TPOINT_PAGE_DATA (TPOINT_PAGE_SIZE - TPOINT_PAGE_HEADER)
/* Eight bytes stay free at the end of every page for the count of events lost before it. */
#define TPOINT_PAGE_DATA_END (TPOINT_PAGE_DATA - 8u)
#define TPOINT_RECORD_HEADER 8u
#define TPOINT_MAX_PAYLOAD (TPOINT_PAGE_DATA_END - TPOINT_RECORD_HEADER)
/* The longest payload whose strings the inline path copies itself (tpoint_copy_short()). */
#define TPOINT_INLINE_COPY_MAX 512u
#define TPOINT_TYPE_LEN_BITS 5
#define TPOINT_DELTA_BITS 27
#define TPOINT_DELTA_MAX ((1ull << TPOINT_DELTA_BITS) - 1)

/* Nesting levels with a stream of their own: thread, signal handler, nested signal, ... */
#define TPOINT_MAX_NESTING 4

/*
 * Where one nesting level of one thread writes. Pointers, not offsets, so that the fast path
 * finds the record's address without an addition and keeps no page address in a register.
 */
struct tpoint_stream {
	char *wp;         /* the first free byte of the current page's event area, or NULL */
	char *limit;      /* a record must end at or before this; NULL without a page */
	uint64_t last;    /* clock of the previous record in this page */
	uint64_t *commit; /* the page's commit word (tpoint_publish()) */
	uint32_t cpu_key; /* tpoint_arch_cpu_key() when the page was taken */
	uint32_t page;    /* index of the page in the pool */
	/* The next level's stream, what a reservation here claims; the spare's is itself. */
	struct tpoint_stream *next;
};

struct tpoint_tls {
	/*
	 * The stream the next reservation claims: &stream[levels currently inside
	 * tpoint_reserve..tpoint_publish]. Before the thread's first record, the library's
	 * unlinked stream, shared by all threads and never written: no page and no room (its
	 * limit is NULL), linked to itself, so that the first reservation fails the room check
	 * and the slow path links the thread's own streams, with no test of its own on the hot
	 * path. A pointer, not a count, so that the hot path needs no address arithmetic.
	 */
	struct tpoint_stream *top;
	uint32_t ncounters;
	uint32_t unused;
	uint64_t pid_word; /* (u64)tid << 32: OR-ed with the event id, it is the common header */
	struct tpoint_counters *counters;
	void *thread;      /* library-private per-thread state */
	/*
	 * One more than the levels: that spare stream never has a page (its limit stays NULL),
	 * so a reservation nested too deep fails the room check and goes to the slow path, which
	 * drops it: no test of its own on the hot path. Claiming it claims nothing (its next
	 * is itself), so a handler interrupting that reservation reads no further.
	 */
	struct tpoint_stream stream[TPOINT_MAX_NESTING + 1];
};

/* _v3: the streams of ABI 7 (_v2 had offsets; _v1 started NULL, which the hot path tested). */
#define TPOINT_TLS tpoint_tls_v3
extern __thread struct tpoint_tls TPOINT_TLS __attribute__((tls_model("initial-exec")));

/*
 * The slow path: makes room for a record of `total` bytes (header included) in the stream of
 * this thread's current nesting level, now, for the fast path to take: a page, a page of
 * the CPU the thread migrated to, the thread's streams linked on its first record. Returns
 * 1; or 0, having counted the record as lost (no recording, no free page, nesting too deep).
 * Nothing stays claimed either way.
 */
TPOINT_EXPORT int tpoint_make_room_v1(struct tpoint_event *ev, uint32_t total);
TPOINT_EXPORT struct tpoint_counters *tpoint_counters_slow_v1(struct tpoint_event *ev);
/*
 * A record of `size` payload bytes just filled at s->wp, its level claimed by
 * tpoint_reserve(), published by the library (the caller makes these its tail calls):
 * _commit_slow_v1, when the pause since the stream's last record is too long for the
 * header's 27-bit delta (a time extend goes before the record, which moves to a new page if
 * the extend does not fit); _filter_commit_v2, when the event has a filter: judged first,
 * then dropped and counted as filtered, or published as tpoint_publish() does. Either way
 * the level is released.
 */
TPOINT_EXPORT void tpoint_commit_slow_v1(struct tpoint_event *ev, struct tpoint_stream *s,
					 uint32_t size);
TPOINT_EXPORT void tpoint_filter_commit_v2(struct tpoint_event *ev, struct tpoint_stream *s,
					   uint32_t size);
TPOINT_EXPORT void tpoint_count_lost_v1(struct tpoint_event *ev);

#define tpoint_barrier() __asm__ __volatile__("" ::: "memory")

static inline uint32_t tpoint_record_total(uint32_t payload)
{
	return (payload + TPOINT_RECORD_HEADER + 7u) & ~7u;
}

/*
 * The header of a data record of `total` bytes (header included), `delta` clock ticks after
 * the record before it: type_len 0, the delta, and the length + 4 in the second u32.
 */
static inline uint64_t tpoint_record_header(uint64_t delta, uint32_t total)
{
	return (delta << TPOINT_TYPE_LEN_BITS) | ((uint64_t)(total - 4) << 32);
}

/*
 * The fast path, first half: claim this thread's current nesting level and find room for a
 * record of `payload` bytes (common header included) in its page.
 * Returns the payload, to be filled (its common header is tpoint_publish()'s) and then
 * published with tpoint_publish(), the stream in *sp; or NULL, having claimed nothing, when the slow path is needed (the thread's first
 * record, no page, no room, a CPU migration, nesting too deep). Callers then call
 * tpoint_make_room_v1() from a function of their own, and try again, so that this path
 * makes no call and keeps its state in the registers that a call would clobber.
 *
 * Between reserve and publish, this thread's nesting level stays claimed: a signal handler
 * that traces meanwhile writes into the next level's stream, so neither record is
 * disturbed, and no handle is needed: the record is at the level's s->wp.
 *
 * The clock is read at publish, after the fields: the arguments are stored before `rdtsc`
 * takes the registers it writes (edx, eax), so none is moved out of its way, and the clock
 * and the 27-bit delta, read and checked last, cannot be disturbed by a handler (the level
 * is already claimed when they are).
 */
static inline void *tpoint_reserve(uint32_t payload, struct tpoint_stream **sp)
{
	struct tpoint_tls *t = &TPOINT_TLS;
	struct tpoint_stream *s = t->top;
	uint32_t total = tpoint_record_total(payload);
	uint64_t *rec;

	/*
	 * Claim the level before reading its stream. A signal arriving before this store sees
	 * the same level, but it runs to completion before we read the stream below.
	 */
	t->top = s->next;
	tpoint_barrier();

	/*
	 * No page, no room or nesting too deep (the spare stream has no room), a CPU migration:
	 * branches that are never taken. The CPU check is a hint anyway, as the thread may move
	 * right after it. As integers: no page is a NULL wp and limit.
	 */
	rec = (uint64_t *)(void *)s->wp;
	if (__builtin_expect((uintptr_t)rec + total > (uintptr_t)s->limit, 0) ||
	    __builtin_expect(tpoint_arch_cpu_key() != s->cpu_key, 0)) {
		tpoint_barrier();
		t->top = s;
		return NULL;
	}
	*sp = s;
	return rec + 1;
}

/*
 * A record as the fast path counts it: one more recorded, with no test: a thread that
 * publishes has its counters (the slow path attached it before it could have a page), and
 * an event that records has its index (the registry numbers events below its bound before
 * enabling them).
 */
static inline void tpoint_count_recorded(struct tpoint_event *ev);

/*
 * The fields every event has (common_type, flags 0, preempt_count 0, common_pid), at the
 * start of a record's payload. Written at publish, or before a filter judges the record,
 * which may test them.
 */
static inline void tpoint_common_header(struct tpoint_event *ev, void *entry)
{
	*(uint64_t *)entry = TPOINT_TLS.pid_word | ev->id;
}

/*
 * Stamp the record at `rec` (s->wp, `total` bytes, filled) `now`, `delta` (27 bits) after
 * the stream's last record, publish it, count it, and release the level: the end of tpoint_publish(), and of the library's publishing after a
 * long pause or a filter. `rec` is passed, not read from s->wp again: the fields' stores
 * might have changed it, for all the compiler knows.
 */
static inline void tpoint_stamp_publish(struct tpoint_event *ev, struct tpoint_stream *s,
					char *rec, uint32_t total, uint64_t now, uint64_t delta)
{
	char *end = rec + total;

	s->last = now;
	s->wp = end;
	/* Two 32-bit stores: the delta, shifted past type_len 0, and the length + 4. */
	((uint32_t *)(void *)rec)[0] = (uint32_t)delta << TPOINT_TYPE_LEN_BITS;
	((uint32_t *)(void *)rec)[1] = total - 4;
	/*
	 * Release: the record's bytes are visible before the commit that covers them. The
	 * commit word holds the address of the first free byte: its low 12 bits are the page
	 * offset (the library's readers take the page header off), and the fast path stores
	 * the pointer it has, with no subtraction.
	 */
	__atomic_store_n(s->commit, (uint64_t)(uintptr_t)end, __ATOMIC_RELEASE);
	tpoint_barrier();
	TPOINT_TLS.top = s;
	tpoint_count_recorded(ev);
}

/*
 * The fast path, second half: read the clock, then stamp and publish the record whose
 * payload tpoint_reserve() returned (`payload` bytes, filled). A pause too long for the
 * 27-bit delta goes to the library (a tail call), which puts a time extend before it.
 */
static inline void tpoint_publish(struct tpoint_event *ev, struct tpoint_stream *s,
				  void *entry, uint32_t payload)
{
	uint64_t now = tpoint_arch_clock();
	uint64_t delta = now - s->last;

	if (__builtin_expect(delta > TPOINT_DELTA_MAX, 0)) {
		tpoint_commit_slow_v1(ev, s, payload);
		return;
	}
	tpoint_common_header(ev, entry);
	tpoint_stamp_publish(ev, s, (char *)entry - TPOINT_RECORD_HEADER,
			     tpoint_record_total(payload), now, delta);
}

/*
 * This thread's counters of the event. Only hit functions call it, behind the enabled test,
 * so counting costs nothing while an event is off; a thread only writes its own counters.
 */
static inline struct tpoint_counters *tpoint_counters_of(struct tpoint_event *ev)
{
	struct tpoint_tls *t = &TPOINT_TLS;
	uint32_t i = ev->index;

	if (__builtin_expect(i < t->ncounters, 1))
		return &t->counters[i];
	return tpoint_counters_slow_v1(ev); /* first event of the thread */
}

/* Built for ThreadSanitizer: gcc says so with a macro, clang with a feature. */
#if defined(__SANITIZE_THREAD__)
#define TPOINT_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TPOINT_TSAN 1
#endif
#endif

/*
 * One more in a counter of this thread's. Only its thread writes a counter, while others
 * read it (tp_counters_sum()): a relaxed load and store, not a read-modify-write, so that the
 * readers' atomic loads race with nothing. clang makes them the one `addq $1, mem` of a
 * plain ++ on x86-64, and ldr/add/str on arm64 as for ++. gcc (12) makes them three
 * instructions on x86-64, no longer inlines tpoint_count_recorded(), and kept as one add in
 * asm, costs the condition's hit a stack frame (it does not duplicate asm): there, the ++,
 * which gcc compiles to that one add, an aligned 8-byte store no reader sees torn, except
 * under ThreadSanitizer, which must see the atomics (docs/DECISIONS.md, "Data races").
 */
static inline void tpoint_count_one(uint64_t *counter)
{
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(TPOINT_TSAN)
	++*counter;
#else
	__atomic_store_n(counter, __atomic_load_n(counter, __ATOMIC_RELAXED) + 1, __ATOMIC_RELAXED);
#endif
}

/* (Declared above, with tpoint_publish().) */
static inline void tpoint_count_recorded(struct tpoint_event *ev)
{
	char *counters = (char *)TPOINT_TLS.counters + ev->counters;

	tpoint_count_one(&((struct tpoint_counters *)(void *)counters)->recorded);
}

/*
 * The enable word as a hit function reads it, once, to compare it with one value: a plain
 * load on x86-64, which gcc and clang fold into the compare (`cmpl $1, word`), where an
 * atomic load is a load of its own; an aligned 4-byte load is never torn. ThreadSanitizer
 * must see the atomic (docs/DECISIONS.md, "Data races"), and so do other architectures.
 */
static inline uint32_t tpoint_enabled_peek(const struct tpoint_event *ev)
{
#if defined(__x86_64__) && !defined(TPOINT_TSAN)
	return ev->enabled;
#else
	return __atomic_load_n(&ev->enabled, __ATOMIC_RELAXED);
#endif
}

/* In-process probes (register_trace_<name>). */
struct tpoint_probe {
	void (*func)(void);
	void *data;
};
/* A flexible array member, which C++ has only as an extension: marked as one, so that
 * -pedantic C++ builds stay quiet (clang wants its own warning off as well). */
#pragma GCC diagnostic push
#ifdef __clang__
#pragma GCC diagnostic ignored "-Wc99-extensions"
#endif
struct tpoint_probe_set {
	uint32_t count;
	__extension__ struct tpoint_probe probe[];
};
#pragma GCC diagnostic pop

TPOINT_EXPORT int tpoint_probe_register(struct tpoint_event *ev, void (*func)(void), void *data);
TPOINT_EXPORT int tpoint_probe_unregister(struct tpoint_event *ev, void (*func)(void), void *data);

/*
 * One event of an object, in its section tpoint_events: its descriptor and its two meta
 * records, each as an offset from the field that holds it. Offsets, not pointers, so that
 * the dynamic loader has nothing to relocate (a pointer in a PIE or a library costs a
 * 24-byte relocation, and the write of its page at every start) and the descriptor is not
 * written before the event registers. tpoint_event_ref_at() reads one.
 */
struct tpoint_event_ref {
	int32_t event;      /* struct tpoint_event */
	int32_t class_meta; /* struct tpoint_meta_class */
	int32_t meta;       /* struct tpoint_meta_event */
};

static inline const void *tpoint_event_ref_at(const int32_t *field)
{
	return (const char *)field + *field;
}

/* What CREATE_TRACE_POINTS hands the runtime: the section bounds of one loaded object. */
struct tpoint_module {
	uint32_t abi;
	const struct tpoint_event_ref *events_begin;
	const struct tpoint_event_ref *events_end;
	const char *meta_begin;
	const char *meta_end;
};

TPOINT_EXPORT void tpoint_module_register(const struct tpoint_module *m);
TPOINT_EXPORT void tpoint_module_unregister(const struct tpoint_module *m);

#ifdef __cplusplus
}
#endif

#endif /* TPOINT_EVENT_H */
