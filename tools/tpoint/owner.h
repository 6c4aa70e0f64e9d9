/* SPDX-License-Identifier: MIT */
/*
 * Who owns what a tool leaves while it runs (a tracefs instance, a spool directory), proved
 * by a lock and not by a process id: an open file's flock() is let go by the kernel when its
 * last holder is gone, whatever the way it ended (SIGKILL included) and whatever PID
 * namespace it ran in. A pid says nothing across namespaces (two recorders can both be pid 1)
 * and a process's name says nothing at all (a binary can be renamed): a lock that can be
 * taken is the one proof that its owner is gone, and without that proof nothing is removed.
 */
#ifndef TPOINT_OWNER_H
#define TPOINT_OWNER_H

#include <stdbool.h>

/*
 * Hold the lock of directory `dir` (one we just made): the descriptor that holds it
 * (close-on-exec: the program run does not inherit it), or -1. Closing it lets go.
 */
int owner_lock_dir(const char *dir);
/*
 * Is the directory at dirfd/name (a directory of ours) left by an owner that is gone: its
 * lock can be taken? The lock is let go again before returning.
 */
bool owner_dir_gone(int dirfd, const char *name);
/*
 * The recordings that could not be finished beside `near` (a path whose directory is
 * searched): each .tpoint-spool.* directory of ours that holds spools and whose recorder is
 * gone is named on stderr, one line, with the command that writes its file.
 */
void owner_say_unfinished(const char *verb, const char *near);
/*
 * Remove directory `name` of dirfd that we made, with the files in it (no subdirectories):
 * nothing if it is not a directory of ours (a link, or another user's). 0 or -1.
 */
int owner_remove_dir(int dirfd, const char *name);

#endif
