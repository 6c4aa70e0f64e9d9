/* SPDX-License-Identifier: MIT */
/*
 * Which file a kernel (device, inode) pair is, as one process sees it: looked up among the
 * files it has open (/proc/PID/fd) and mapped (/proc/PID/maps). Each process is read at most
 * once a round (paths_next_round()), however many of its inodes are asked for, so the cost
 * follows the number of processes that dirty unknown files, not the rate of their events.
 */
#ifndef TPOINT_TOP_PATHS_H
#define TPOINT_TOP_PATHS_H

#include <stdbool.h>
#include <sys/types.h>

/* Start a new round: a process asked about again is read again. */
void paths_next_round(void);

/*
 * The path of inode `ino` of device `dev` (any device when !have_dev; a partition of that
 * disk also matches) in process pid, malloc'ed, ending in " (deleted)" when it was unlinked;
 * NULL when the process has it neither open nor mapped (or is gone).
 */
char *paths_lookup(pid_t pid, bool have_dev, dev_t dev, unsigned long long ino);

/* The whole disk of a partition (the writeback event names a disk's bdi), else dev itself. */
dev_t paths_disk_of(dev_t dev);

/* Forget every process read (at exit). */
void paths_free(void);

#endif
