/* SPDX-License-Identifier: MIT */
/*
 * The recording's state, shared by the files of the session: session.c (a recording, its
 * start and stop, a client's requests) and session_env.c (the environment's recording, at
 * exit and after fork). The rest of the library uses the session through session.h. All of
 * it under tp_session_mutex.
 */
#ifndef TPOINT_SESSION_STATE_H
#define TPOINT_SESSION_STATE_H

#include <pthread.h>
#include <stdbool.h>
#include <sys/types.h>
#include "pool.h"
#include "session.h"
#include "tracedat.h"

struct recording {
	bool active;
	bool spool_only; /* `tpoint record` assembles the file from the spools itself */
	char *out_path;  /* trace.dat to write, unless spool_only */
	char *spool;     /* NULL: in memory only (the pool is the flight recorder) */
	/* Started from the environment: the spools of the images before exec come first,
	 * generations 0 .. gen - 1 of spool_base (handover.c); spool is generation gen. */
	char *spool_base;
	int gen;
	/* The directory of its own that the spools of a file recording are in (spool_dir_make()),
	 * removed with them; NULL for a spool elsewhere (the tool's, a client's). */
	char *spool_dir;
	/* "TPOINT_RECORD=FILE" for the environment's recording, which says what went wrong
	 * even without TPOINT_DEBUG (tp_notice()); NULL for tpoint_record_start()'s. */
	char *what;
	/* The output did not exist before: it is removed if it stays empty (no file written). */
	bool out_made;
	dev_t out_dev;
	ino_t out_ino;
	struct pool *pool;
	bool attached;  /* a client (tpoint record -p, stream) records: tp_session_attach() */
	char *reader;   /* its spool, when it reads the in-memory run (tp_spool_start_reader) */
	char describe[4096 + 8];
};
extern HIDDEN struct recording tp_recording;
extern HIDDEN pthread_mutex_t tp_session_mutex;
/* The size and mode of the next pool (tpoint_set_buffer_size(), TPOINT_BUFFER_SIZE...). */
extern HIDDEN size_t tp_session_pool_bytes;
extern HIDDEN enum tpoint_mode tp_session_pool_mode;
/* TPOINT_COMPRESS: the files are written as version 7, compressed as it says (NULL: v6). */
extern HIDDEN char *tp_session_compress_spec;
/* Their short names in the session's files. */
#define rec tp_recording
#define session_mutex tp_session_mutex
#define pool_bytes tp_session_pool_bytes
#define pool_mode tp_session_pool_mode
#define compress_spec tp_session_compress_spec

/* `path`, malloc'ed, from / on; NULL when out of memory. */
HIDDEN char *tp_session_absolute(const char *path);
/* The spools and the directory of a recording that wrote its file, or never began. */
HIDDEN void tp_session_spool_dir_remove(const char *dir, char **spools, int n);
/* A recording into `spool` (NULL: in memory), its file `out_path` unless spool_only. */
HIDDEN int tp_session_start_locked(const char *out_path, const char *spool, bool spool_only,
				   char *why, size_t whylen);
/* A recording into the file `out`, its spools in a directory of their own; `what` names it. */
HIDDEN int tp_session_start_file_locked(const char *out, char *what, char *why, size_t whylen);
/*
 * The spools into a trace.dat (v7 if TPOINT_COMPRESS asks and its library loads, else v6).
 * last_synced: 0, or the length of the last spool that is whole while it is still written;
 * fired: what fired a snapshot trigger's file, else NULL.
 */
HIDDEN int tp_session_write_file(const char *out, char **spools, int n, uint64_t last_synced,
				 const struct tracedat_fired *fired, struct tracedat_result *res,
				 char *err, size_t errlen);
HIDDEN int tp_session_stop_locked(void);
/* Enabled events and nothing records: record into memory. */
HIDDEN void tp_session_keep_enabled_locked(void);

#endif
