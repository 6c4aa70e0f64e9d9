/* SPDX-License-Identifier: MIT */
/*
 * The names of the files written, heard when they are written: fanotify marks on every file
 * system that holds files (FAN_MARK_FILESYSTEM), reporting the directory and the name of
 * each file closed after writing (FAN_REPORT_DFID_NAME, Linux 5.9), and each unlink and
 * rename (with both names and the file's handle where the kernel has FAN_RENAME and
 * FAN_REPORT_TARGET_FID, 5.17: a renamed file takes its new name); directories are named by
 * the entries made and removed in them. Kept in a bounded
 * table by (device, inode) (top_name_table.h), where the writeback event's inode is looked
 * up. Root only; where it cannot be had, or a file system cannot be marked, top falls back to
 * the processes' open descriptors (top_paths.h), and names_describe() says so.
 */
#ifndef TPOINT_TOP_NAMES_H
#define TPOINT_TOP_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "top_name_table.h"

struct names;

/* The marks, or NULL with why there are none (not root, a kernel without fanotify's names). */
struct names *names_open(char *why, size_t len);
/*
 * Read the events queued since: cheap, call it often (the kernel's queue is finite). The
 * names heard are stamped with `now` (name_entry.heard).
 */
void names_drain(struct names *n, unsigned now);
/* Once a refresh: mark file systems mounted since, resolve directories again. */
void names_refresh(struct names *n);
/* The name of inode ino on the writeback event's disk (see name_table_find()), or NULL. */
const struct name_entry *names_find(struct names *n, bool have_bdi, dev_t bdi,
				    unsigned long long ino, pid_t pid, unsigned since);
/*
 * One line for the header: where the names come from, which file systems could not be
 * marked and why, how many names were dropped. With json, a JSON object's members.
 */
void names_describe(struct names *n, const char *why_none, char *out, size_t len);
void names_json(struct names *n, const char *why_none);
void names_close(struct names *n);

#endif
