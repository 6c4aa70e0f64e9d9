/* SPDX-License-Identifier: MIT */
/*
 * tpoint/tpoint.h - the runtime API of libtpoint.
 *
 * Conventions: functions that return int return >= 0 on success and -errno on failure; the
 * library never prints on its own, it calls the log callback (silent unless TPOINT_DEBUG=1
 * or tpoint_set_log() installed one); nothing here aborts or blocks the host program (but
 * block mode, which a user asks for, makes a writer wait for room).
 *
 * Environment, read when the library is loaded:
 *	TPOINT_EVENTS=GLOB[,GLOB...]	events to enable ("sys:name", "sys:*", "sys", "name")
 *	TPOINT_RECORD=FILE		record from start to exit into FILE (trace.dat v6); a
 *					forked child records into FILE.<pid>
 *	TPOINT_BUFFER_SIZE=N[K|M|G]	size of the page pool (default 8M, at least 64K)
 *	TPOINT_MODE=discard|overwrite|block
 *					when the pool is full: drop new events (default),
 *					overwrite the oldest pages (flight recorder), or wait
 *					for the drain to write pages out (nothing lost)
 *	TPOINT_FILTER='sys:ev:EXPR;...'	filters, as tpoint_set_filter()
 *	TPOINT_TRIGGER='sys:ev:hist:...;...'
 *					triggers, as tpoint_set_trigger()
 *	TPOINT_CONTROL=0		no control socket (tpoint ps/stat/enable -p cannot reach it)
 *	TPOINT_JUMP_LABEL=0		never patch jump-label sites: they keep their checked path
 *	TPOINT_DEBUG=1			log to stderr why anything did not work
 */
#ifndef TPOINT_TPOINT_H
#define TPOINT_TPOINT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <tpoint/event.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Enable or disable the events matching a comma-separated list of globs: "sys:name",
 * "sys:*", "sys" (every event of a system) or "name" (that event in any system). The
 * patterns also apply to events registered later (dlopen). Returns the number of events
 * matched now, or -EINVAL for an empty or malformed pattern.
 */
TPOINT_EXPORT int tpoint_enable(const char *patterns);
TPOINT_EXPORT int tpoint_disable(const char *patterns);

/*
 * Filter the records of one event ("system:name" or "name") with an ftrace filter
 * expression, e.g. "flags & 3 && ino > 100" or "path ~ \"tmp*\""; "" removes it. A
 * record the filter rejects is never published, and is counted as filtered.
 * -ENOENT for an unknown event, -EINVAL for an expression that does not compile (the reason
 * goes to the log).
 */
TPOINT_EXPORT int tpoint_set_filter(const char *event, const char *expr);

/*
 * The kernel's event triggers on one event ("system:name" or "name"), in the kernel's
 * syntax: "hist:keys=common_pid:vals=bytes:sort=bytes.descending if bytes > 512" adds a
 * histogram, aggregated in this process on the thread that hits the event (no lock shared
 * between threads; a thread's first hit maps its table); "!hist:..." removes it, and
 * ":pause", ":cont" and ":clear" change it. The event goes on for its triggers, recorded or
 * not (a hit that is not recorded counts as filtered). Read with tpoint_print_hist() or
 * `tpoint hist -p PID`. 0; -ENOENT for an unknown event, -EEXIST for a trigger set already,
 * -EINVAL for one that does not parse (the kernel's message goes to the log).
 */
TPOINT_EXPORT int tpoint_set_trigger(const char *event, const char *trigger);

/*
 * Print the histograms of the events that `globs` selects (as TPOINT_EVENTS; NULL: all) as
 * the kernel's hist file shows them, or one JSON object a line (json != 0). The number of
 * histograms printed, or -errno.
 */
TPOINT_EXPORT int tpoint_print_hist(FILE *out, const char *globs, int json);

enum tpoint_mode {
	TPOINT_MODE_DISCARD = 0,   /* a full pool drops new events and counts them */
	TPOINT_MODE_OVERWRITE = 1, /* a full pool reuses its oldest pages */
	/*
	 * A full pool makes the writer wait (sleeping 50 us at a time) until the drain has
	 * written a page out: the program runs at the speed of the file, and loses nothing.
	 * A drain that frees nothing for 100 ms is taken as stuck (a hung disk): writers then
	 * drop and count, as in discard mode, until it frees a page again. Without a drain
	 * (a recording that keeps events in memory only) it is discard mode.
	 */
	TPOINT_MODE_BLOCK = 2,
};

/*
 * Pool size in bytes (rounded down to whole pages, at least 64 KiB) for the next recording:
 * -EBUSY while recording, -EINVAL for a size below the minimum. The pool's memory is
 * allocated when the recording starts, not when writers first touch it.
 */
TPOINT_EXPORT int tpoint_set_buffer_size(size_t bytes);

/*
 * Mode for the next recording and for the running one, which switches at once (as ftrace's
 * options/overwrite does): back in discard mode, the full pages that overwrite mode kept go
 * to the file. -EINVAL for a mode that is not one of the above.
 */
TPOINT_EXPORT int tpoint_set_mode(enum tpoint_mode mode);

/*
 * Start recording the enabled events into `path` (trace.dat v6, written when the recording
 * stops, at exit, or on tpoint_flush()). A background thread spools full pages to
 * "<path>.spool" meanwhile, so long recordings lose nothing at moderate rates.
 * -EBUSY if a recording runs, -errno if the file or the pool cannot be made.
 */
TPOINT_EXPORT int tpoint_record_start(const char *path);

/* Stop recording and complete the file. -ENOENT if no recording runs, -errno on I/O error. */
TPOINT_EXPORT int tpoint_record_stop(void);

/*
 * Make the file complete with everything recorded up to now, and keep recording: the pages
 * full at the call and those being written, not what threads record while it runs. Returns
 * the number of events written, or -errno.
 */
TPOINT_EXPORT int tpoint_flush(void);

/* Log callback: level 0 = error, 1 = warning, 2 = debug. msg has no trailing newline. */
typedef void (*tpoint_log_fn)(int level, const char *msg, void *arg);
TPOINT_EXPORT void tpoint_set_log(tpoint_log_fn fn, void *arg);

/* Per-event counters, summed over all threads. */
struct tpoint_event_stats {
	char system[TPOINT_NAME_MAX];
	char name[TPOINT_NAME_MAX];
	const char *condition; /* source text of TP_CONDITION, "" if none; owned by tpoint */
	uint64_t hits;         /* = cond_skipped + filtered + recorded + lost */
	uint64_t cond_skipped;
	uint64_t filtered;
	uint64_t recorded;
	uint64_t lost;
	int enabled;
	uint32_t usdt;         /* USDT probes attached by bpftrace, perf, ...: the semaphore */
};

/*
 * Fill up to `max` entries (the registered events, in id order); returns how many events
 * exist, which may be more than max, or -EINVAL.
 *
 * tpoint_stats() passes the size of the struct as this header declares it, so that the struct
 * can grow at its end in a later version without breaking programs built before: a newer
 * library fills only the fields the program knows, an older one zeroes those it does not.
 * The function of the first version, tpoint_stats(), stays for programs built against it.
 */
TPOINT_EXPORT int tpoint_stats_sized(struct tpoint_event_stats *out, int max, size_t size);
#define tpoint_stats(out, max) \
	tpoint_stats_sized((out), (max), sizeof(struct tpoint_event_stats))
TPOINT_EXPORT int(tpoint_stats)(struct tpoint_event_stats *out, int max);

/*
 * The jump-label sites (code compiled with -DTPOINT_JUMP_LABEL) of the loaded objects. A
 * site the library may not patch (TPOINT_JUMP_LABEL=0, W^X policy, no membarrier, a
 * breakpoint on it) keeps the jump to its checked block: its event works, at the cost of a
 * jump and a load while off. Returns 0, or -EINVAL.
 */
struct tpoint_jump_stats {
	size_t sites;     /* sites in the loaded objects */
	size_t checked;   /* of which keep their instruction for good */
	uint64_t traps;   /* x86-64: threads that met a site mid-patch and were moved on */
	char reason[160]; /* why patching was refused, "" if it never was */
};
/* Sized as tpoint_stats() is: the struct may grow at its end. */
TPOINT_EXPORT int tpoint_jump_stats_sized(struct tpoint_jump_stats *out, size_t size);
#define tpoint_jump_stats(out) tpoint_jump_stats_sized((out), sizeof(struct tpoint_jump_stats))
TPOINT_EXPORT int(tpoint_jump_stats)(struct tpoint_jump_stats *out);

/*
 * A message, formatted as printf() does, recorded as the library's own event tpoint:print
 * (one field, msg; shown as the message itself), as the kernel's trace_printk() writes
 * ftrace:print: for a quick look without declaring an event. The event is enabled, filtered
 * ("msg ~ \"*retry*\""), counted and recorded like any other (TPOINT_EVENTS=tpoint:print).
 * tpoint_printf() is a macro, like tpoint_trace(): while the event is off it costs a call
 * that reads the enable word, and neither the arguments nor the format are evaluated;
 * (tpoint_printf)(...) calls the function itself. Messages of 512 bytes and more are cut to
 * 511. Not async-signal-safe: it formats with vsnprintf(). Returns the length recorded, 0
 * while the event is off, or a negative value for a format vsnprintf() refuses.
 */
TPOINT_EXPORT int tpoint_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
TPOINT_EXPORT int tpoint_vprintf(const char *fmt, va_list ap)
	__attribute__((format(printf, 1, 0)));
/* Whether tpoint:print is on: the test in front of tpoint_printf(). */
TPOINT_EXPORT int tpoint_print_enabled(void);
#define tpoint_printf(...) (tpoint_print_enabled() ? (tpoint_printf)(__VA_ARGS__) : 0)

/*
 * The calling thread's user stack, recorded as the kernel's user stack traces are: an
 * ftrace:user_stack record (the thread group and 8 callers, innermost first) right after
 * the thread's last record, which trace-cmd report prints as the kernel's, and `tpoint
 * report` with names (function+offset), from the program's and its libraries' symbols and
 * the mappings recorded with it (tpoint:user_stack_map). The kernel's trace_dump_stack()
 * for programs. Records while the event ftrace:user_stack is enabled (TPOINT_EVENTS),
 * counted and lost as its records; a filter on it applies. The first caller is where this
 * call returns to. By frame pointers: the frames above a function built without them
 * (-fomit-frame-pointer, the default of -O2 on x86-64) are wrong or missing, though the
 * walk never reads memory that is not mapped. Async-signal-safe. Returns the callers
 * recorded (up to 8), or 0 while the event is off or nothing records.
 */
TPOINT_EXPORT int tpoint_record_user_stack(void);

#ifdef __cplusplus
}
#endif

#endif /* TPOINT_TPOINT_H */
