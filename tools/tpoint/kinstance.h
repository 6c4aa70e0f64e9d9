/* SPDX-License-Identifier: MIT */
/*
 * A private tracefs instance of the tool's own, through libtracefs: the one place the tool
 * touches the kernel's tracing (tpoint record -k, tpoint top's dirty view). Nothing outside
 * the instance changes: its events, filters, pid list, clock and buffers are its own.
 *
 * The instance is named PREFIX-PID-RANDOM, the prefix its user's (tpoint-record, tpoint-top),
 * PID the tool's process id and RANDOM 8 hex digits, e.g. tpoint-record-1234-5f0c22a9: two
 * tools in two PID namespaces can both be pid 1. Its owner holds the lock of
 * /run/tpoint/NAME.lock (flock) while the instance is its own. A tool killed with SIGKILL
 * leaves the instance behind, and the next kinst_remove_stale() removes every instance whose
 * lock can be taken, with the spill directory its lock names: the owner is proved gone. An
 * instance with no lock there (another tool's, or one whose lock could not be made) is
 * never removed: a pid and a process's name prove nothing.
 *
 * Every function that can fail says why in err (one line, naming the value and what was
 * wrong: not root, tracefs not mounted, lockdown, an unknown event, the kernel's own words on
 * a filter) and returns -1 or NULL.
 */
#ifndef TPOINT_KINSTANCE_H
#define TPOINT_KINSTANCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct kinstance;

/* The kernel events a glob list selects, as "system:name" strings. */
struct kevent_list {
	char **name;
	size_t n;
};

/*
 * Can the kernel be traced here? 0, or -1 with why (tracefs not mounted, not root,
 * lockdown). Nothing is made.
 */
int kinst_check(char *err, size_t errlen);
/*
 * The kernel events a comma-separated glob list selects (glob.h's rules), added to *out
 * (once each). -1 when a glob matches no event, naming it.
 */
int kinst_match(const char *globs, struct kevent_list *out, char *err, size_t errlen);
/* Add one "system:name" unless it is there: 0, or -1 out of memory. */
int kevent_list_add(struct kevent_list *l, const char *event);
void kevent_list_free(struct kevent_list *l);

/*
 * Remove the tpoint-* instances whose owner is proved gone (their lock can be taken): left by
 * a tool killed with SIGKILL, with the spill directory each names. How many were removed.
 */
int kinst_remove_stale(void);
/* Make PREFIX-PID-RANDOM, its lock held, tracing off (kinst_trace() starts it), clock mono. */
struct kinstance *kinst_create(const char *prefix, char *err, size_t errlen);
/* The directory the instance's pages go to: what kinst_remove_stale() removes with it. */
void kinst_set_spill(struct kinstance *k, const char *dir);
const char *kinst_name(const struct kinstance *k);
/* Enable one event ("system:name"), with the kernel's filter EXPR unless NULL. */
int kinst_enable(struct kinstance *k, const char *event, const char *filter, char *err,
		 size_t errlen);
/* Only these processes' events, and (follow_fork) their children's. */
int kinst_set_pids(struct kinstance *k, const pid_t *pids, size_t n, bool follow_fork,
		   char *err, size_t errlen);
/* Never these tasks' events (set_event_notrace_pid): the recorder's own writing. */
int kinst_set_notrace(struct kinstance *k, const pid_t *tids, size_t n, char *err,
		      size_t errlen);
/* The event's format file, as the kernel shows it (malloc'ed), or NULL. */
char *kinst_format(struct kinstance *k, const char *event);
/* One of the event's files in the instance ("hist", "trigger"; malloc'ed), or NULL. */
char *kinst_event_file(struct kinstance *k, const char *event, const char *file);
/* Does the kernel take hist: triggers on the event (its trigger file lists "hist")? */
bool kinst_has_hist(struct kinstance *k, const char *event);
/* Add a trigger to the event's trigger file ("!..." removes it); -1 with the kernel's words. */
int kinst_set_trigger(struct kinstance *k, const char *event, const char *trigger, char *err,
		      size_t errlen);
/*
 * The kernel's names of recent tasks, saved_cmdlines ("PID COMM" lines, malloc'ed), or NULL:
 * a task's name after it ended. The top level's file, which every instance fills.
 */
char *kinst_saved_cmdlines(void);
/* Tracing on or off (tracing_on). */
int kinst_trace(struct kinstance *k, bool on, char *err, size_t errlen);

/* ---- the per-CPU ring buffers, read as raw pages (trace_pipe_raw) ---- */

/* The CPUs the kernel has buffers for (0 .. n-1). */
int kinst_cpus(void);
/* Open every CPU's trace_pipe_raw; the page size read, or -1. */
int kinst_open_cpus(struct kinstance *k, char *err, size_t errlen);
/* How kinst_read_page() takes a page; one instance is read in one way (then flushed). */
enum kinst_read {
	/* Whole pages only, through a pipe (splice): a recording, which keeps every byte. */
	KINST_WHOLE_PAGES,
	/* Also the page the kernel is writing, as far as it is written (read()): a live view. */
	KINST_LATEST,
	/* Tracing off, after KINST_WHOLE_PAGES: what is left, what the pipe holds included. */
	KINST_FLUSH,
};
/*
 * One page of CPU cpu into buf (kinst_open_cpus()'s size), without waiting: its bytes, 0 when
 * there is none to take (as `how` takes them), -1 on an error.
 */
int kinst_read_page(struct kinstance *k, int cpu, void *buf, enum kinst_read how);
/* The CPU's counters, from per_cpu/cpuN/stats. */
struct kinst_cpu_stats {
	uint64_t entries, overrun, commit_overrun, dropped, read;
};
int kinst_cpu_stats(struct kinstance *k, int cpu, struct kinst_cpu_stats *st);
/* Buffer size per CPU in KiB (buffer_size_kb). */
long kinst_buffer_kb(struct kinstance *k);

/* Close the readers, turn tracing off and remove the instance; frees k. */
void kinst_remove(struct kinstance *k);

#endif
