/* SPDX-License-Identifier: MIT */
/* tpoint record's modes (record_*.c) and what they share (record_common.c). */
#ifndef TPOINT_RECORD_H
#define TPOINT_RECORD_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "codec.h"
#include "krecord.h"
#include "select.h"
#include "tracedat.h"

/* Set by the stop signals (SIGINT, SIGTERM, SIGHUP, SIGPIPE) once on_stop() handles them. */
extern volatile sig_atomic_t stop_requested;
/* --compress or TPOINT_COMPRESS: the file is version 7, compressed with it; NULL: version 6. */
extern const struct tp_codec *opt_codec;

void on_stop(int sig);
void stop_signals_set(void (*handler)(int));
/* Removes dir and the spools in it. */
int remove_dir(const char *dir);
/* The spools in dir, sorted (one per process): 0, or -1 if there is none. */
int collect_spools(const char *dir, char ***spools, size_t *nspools);
void free_spools(char **spools, size_t nspools);
/* What was recorded, on stderr: the events in the file and each event's counters. */
void print_summary(const char *out, const struct tracedat_result *res, size_t nproc,
		   const char *globs);

/* What the command line asked of a recording with a command (record.c). */
struct record_args {
	const char *events;	      /* every -e, comma-separated; NULL: none */
	const struct selection *sel;  /* the -e groups and their -f */
	const char *filter;	      /* a -f of a -e was given */
	const char *out;
	const char *buffer;	      /* -b as given, or NULL */
	const char *mode;	      /* "overwrite", "block", or NULL for the default */
	bool kernel_pids;
};

/*
 * -e checked against the events compiled into the command and its libraries before it
 * runs (record_cmd.c); -1 when it should not be started (said).
 */
int check_before_start(const char *cmd, const char *events);

/* The modes: each returns the exit status. */
int record_command(char **cmd, const struct record_args *a, struct krecord *kr);
int record_pid(pid_t pid, const struct selection *sel, const char *out, double duration,
	       const char *mode, size_t bytes, struct krecord *kr, bool kernel_pids);
int record_kernel(struct krecord *kr, const char *out, double duration);
int record_assemble(const char *dir, const char *out);

#endif
