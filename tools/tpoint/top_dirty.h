/* SPDX-License-Identifier: MIT */
/*
 * The dirty view of tpoint top: who dirties which file, from the kernel's
 * writeback:writeback_mark_inode_dirty (or writeback_dirty_inode where it is missing), kept by
 * a kernel filter to the seed's condition: the I_DIRTY_SYNC, I_DIRTY_DATASYNC, I_DIRTY_PAGES
 * bits. Read from a private tracefs instance, tpoint-top-PID (kinstance.h).
 */
#ifndef TPOINT_TOP_DIRTY_H
#define TPOINT_TOP_DIRTY_H

#include <stdbool.h>
#include <sys/types.h>

struct dirty_view;

/* One (thread, file): the thread's process and comm, the file as the kernel names it. */
struct dirty_row {
	pid_t pid, tid;
	char comm[16];
	char dev[32];            /* "MAJ:MIN" of the file's backing device, or its bdi name */
	unsigned long long ino;
	char *path;              /* NULL until resolved; may end in " (deleted)", " (renamed)" */
	bool named;              /* path is the name fanotify heard, not an open descriptor's */
	unsigned long long events, events_before; /* in all; at the refresh before */
	unsigned long flags;     /* every flag seen */
	double rate;             /* events per second over the last refresh */
	unsigned idle;           /* refreshes since its last event */
	unsigned gone;           /* refreshes its process has been gone at (0: it is there) */
	unsigned first_drain;    /* the reading of the kernel's buffers that saw its first event */
	bool shown;              /* a process -p selects (all without -p) */
	bool pid_unknown;        /* the thread was gone before /proc was read: pid is its tid */
};

/*
 * Create the instance and start the event. pids[0..npids): the processes to show (none: all).
 * Returns the view, or NULL with why it cannot be had (not root, no tracefs, no event).
 */
struct dirty_view *dirty_open(const pid_t *pids, int npids, char *why, size_t len);
/* Read what the kernel buffered since: cheap, call it often (its buffers are finite). */
void dirty_drain(struct dirty_view *d);
/* Rates over `secs`, the paths of new rows; the rows in *rows (owned by the view). */
int dirty_refresh(struct dirty_view *d, double secs, struct dirty_row **rows);
/* The event read, the kernel filter set, the events the kernel lost (overrun pages). */
const char *dirty_event_name(struct dirty_view *d);
const char *dirty_filter(struct dirty_view *d);
unsigned long long dirty_lost(struct dirty_view *d);
/* flags as "I_DIRTY_SYNC|I_DIRTY_PAGES", the kernel's names. */
void dirty_flag_names(struct dirty_view *d, unsigned long flags, char *out, size_t len);
/* Where the names come from, and why some may be missing: a line, or JSON members. */
void dirty_names(struct dirty_view *d, char *out, size_t len);
void dirty_names_json(struct dirty_view *d);
/* Stop the event and remove the instance. */
void dirty_close(struct dirty_view *d);

#endif
