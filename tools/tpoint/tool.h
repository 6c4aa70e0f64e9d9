/* SPDX-License-Identifier: MIT */
/* tpoint - the command-line tool: one file per verb, sharing this small core. */
#ifndef TPOINT_TOOL_H
#define TPOINT_TOOL_H

#include <stdarg.h>
#include <stdbool.h>
#include "tool_error.h"

/* Exit statuses, as perf and trace-cmd use them. */
#define EXIT_OK 0
#define EXIT_FAIL 1  /* the work failed: bad file, command failed, nothing matched */
#define EXIT_USAGE 2 /* the command line was wrong */

int cmd_list(int argc, char **argv);

/* The events of an ELF file without running it (list.c); `refused` is "" or why the
 * runtime keeps the event off (a print format libtraceevent cannot render). */
typedef void (*elf_event_fn)(const char *system, const char *name, const char *refused,
			     void *arg);
int elf_events(const char *file, elf_event_fn fn, void *arg);
int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_ps(int argc, char **argv);
int cmd_enable(int argc, char **argv);
int cmd_disable(int argc, char **argv);
int cmd_filter(int argc, char **argv);
int cmd_trigger(int argc, char **argv);
int cmd_stat(int argc, char **argv);
int cmd_stream(int argc, char **argv);
int cmd_snapshot(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_hist(int argc, char **argv);
int cmd_convert(int argc, char **argv);

#endif
