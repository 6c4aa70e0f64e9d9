/* SPDX-License-Identifier: MIT */
/*
 * Recording a running process: it spools its own pages into a directory we make for it
 * (tpoint record -p, tpoint stream), and hands us its page pool, so that what it committed
 * before dying, if it is killed, is still ours to read.
 */
#ifndef TPOINT_ATTACH_H
#define TPOINT_ATTACH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "control_client.h"

struct attach {
	struct ctl_conn conn;
	pid_t pid;
	uid_t uid; /* the process's (effective) user */
	char dir[4096];
	char spool[4200]; /* the path the process writes to, for it and for messages */
	/*
	 * What the tool itself opened; the directory and the spool are lent to the process's
	 * user (as root), who may rename or replace their names but not these.
	 */
	int dir_fd;
	int spool_fd;      /* read-write: salvage appends to it */
	char spool_ref[32]; /* "/proc/self/fd/N": the spool, for readers that take a path */
	int pool_fd;       /* the process's pages (a memfd), or -1 if it could not pass them */
	size_t pool_len;
	uint32_t npages;
	size_t meta_off;
	int nevents;
};

/*
 * Make a private directory beside `near` (a file path) with the process's spool file in it,
 * both owned by the process's user. On failure everything made is removed again.
 */
int attach_make_dir(struct attach *a, pid_t pid, const char *near, char *err, size_t errlen);
/* Connect, and start the process recording `globs` into our directory. */
/* mode: "discard", "overwrite" or "block", as the library's TPOINT_MODE. */
int attach_start(struct attach *a, pid_t pid, const char *globs, const char *mode,
		 size_t pool_size, bool live, char *err, size_t errlen);
/*
 * Stop: the process completes its spool; if it is gone, the pages it left in its pool are
 * added to the spool instead. *salvaged says which. 0, or -errno with a reason.
 */
int attach_finish(struct attach *a, bool *salvaged, char *err, size_t errlen);
/*
 * Open a file the process named (a snapshot's spool) for reading: only a regular file of the
 * process's own user, never a FIFO or device, never through a symlink at its end. A
 * descriptor, or -errno with the reason in err.
 */
int attach_open_result(struct attach *a, const char *path, char *err, size_t errlen);
/* Remove the directory and what is in it; close everything. */
void attach_cleanup(struct attach *a);

#endif
