/* SPDX-License-Identifier: MIT */
/*
 * The spool being written, shared by the files that write it: spool_out.c (the buffer, the
 * write, a full disk, opening and closing), spool_context.c (what the file needs besides
 * records), drain.c (the drain thread) and spool_snapshot.c (a copy of the pool). Their entry
 * points for the rest of the library are in drain.h, spool_out.h, spool_context.h and
 * spool_snapshot.h.
 */
#ifndef TPOINT_SPOOL_H
#define TPOINT_SPOOL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>
#include <tpoint/tpoint.h>
#include "hidden.h"
#include "ownfile.h"
#include "pack.h"
#include "pool.h"
#include "spool_format.h"

struct spool {
	pthread_mutex_t io; /* one writer of the file at a time: the thread, flush or stop */
	pthread_t thread;
	bool thread_running;
	int thread_begun; /* tp_thread_begun() */
	bool stop;
	struct owned_fd file; /* the spool: checked before each write (ownfile.c) */
	char *path;           /* from / on: a daemon changes directory (session.c) */
	struct pool *pool;
	uint64_t *clock_at; /* per page: the running clock where its spooled part ends */
	char *buf;          /* chunks being put together: headers, names, formats, copies */
	size_t used;
	size_t seg_start;   /* buf bytes before this are in iov already */
	/* The last chunk begun, whose checksum is put in when it is whole (seal_chunk()):
	 * its offset in buf, and the page bytes referenced after it, if any. */
	bool unsealed;
	size_t unsealed_off;
	const char *unsealed_ref;
	uint32_t unsealed_ref_len;
	struct iovec *iov;  /* what the next write takes: parts of buf, and pool pages */
	uint32_t niov;
	size_t referenced;  /* bytes in iov that are pool pages, not buf */
	/* The records going out with the next write, wherever they are: if it fails, they
	 * count as lost. */
	struct iovec *records;
	uint32_t nrecords;
	off_t file_end;     /* the file up to here holds whole chunks */
	int error;
	uint32_t events_written;
	uint32_t tracing_written; /* tracing_on switches in the file (lib/tracing_on.h) */
	uint32_t *tids;     /* threads seen, in order: their names go in the file */
	size_t ntids, tids_cap;
	uint32_t *tid_set;  /* the same tids, hashed: a lookup per page, 1,000 threads or 1 */
	size_t tid_set_cap; /* a power of two, at least twice ntids */
	uint64_t last_clock_sample;
	uint32_t *to_free; /* drained pages waiting for the buffer to reach the file */
	uint32_t nto_free;
	bool live;         /* spool partly filled pages too, every LIVE_PERIOD */
	pack_fn packer;    /* packs pages that stay put (SPOOL_PAGE_PACKED), or NULL */
	bool snapshot;     /* a copy: records that fail to reach it are still in the pool */
	bool reader;       /* tp_spool_start_reader(): copies, never takes a page */
	uint64_t last_live;
	/* The drain thread, idle in overwrite mode: the mode changed, or stop. Waited on and
	 * signalled under io; zeroed, as after a fork, it is a default one, made anew. */
	pthread_cond_t wake;
	bool wake_ready;
	struct owned_fd room; /* room held for the last counts on a full disk */
};
/* The one spool of the process (spool_out.c); its io mutex guards all of it. */
extern HIDDEN struct spool tp_spool;
/* Its short name in the files that write it. */
static struct spool *const sp = &tp_spool;

/* ---- spool_out.c ---- */
/* Write what the buffer holds, then give the drained pages back to the pool. */
HIDDEN void tp_spool_flush(void);
/* Room for a chunk of `type` and `size` bytes in the buffer: its body, or NULL (too big). */
HIDDEN void *tp_spool_chunk_begin(uint32_t type, uint32_t size);
/* The header of a chunk of page bytes, to fill in; the bytes packed, referenced or copied. */
HIDDEN struct spool_records *tp_spool_page_chunk(const char *bytes, uint32_t len, bool stable,
						 uint32_t *lag);
/* The file and its header, in the buffer; tp_spool_open() puts what follows. */
HIDDEN int tp_spool_open_file(struct pool *p, const char *path, bool live);
/* Let go of the room held for the closing chunks (SPOOL_ROOM) after a failed write. */
HIDDEN void tp_spool_room_give_back(void);
HIDDEN void tp_spool_close(int *err);
HIDDEN void tp_spool_free_state(void);

/* ---- spool_context.c ---- */
/* The file, its header, the first clock sample and the formats: all but the thread. */
HIDDEN int tp_spool_open(struct pool *p, const char *path, bool live);
/* Names, a clock sample and the counts (with the end mark when `final`), even on a full disk. */
HIDDEN void tp_spool_put_closing_chunks(bool final);
HIDDEN void tp_spool_put_clock_sample(void);
HIDDEN void tp_spool_put_comm(uint32_t tid);
/* A thread seen for the first time: its name goes in the file. */
HIDDEN void tp_spool_note_tid(uint32_t tid);
/* The definitions of the events registered since the last call. */
HIDDEN void tp_spool_put_new_events(void);
/* The tracing_on switches (lib/tracing_on.h) not in the file yet: each drain pass, at close. */
HIDDEN void tp_spool_put_tracing(void);
/* The counts since the recording began (tp_spool_mark_stats()), and the notes after them. */
HIDDEN void tp_spool_put_stats(void);

/* ---- drain.c ---- */
/* A page's records from `from` on into the spool (partial: claimed from a writer). */
HIDDEN void tp_spool_emit_records(const char *page, struct page_meta *m, uint64_t gen,
				  uint32_t from, uint64_t clock, uint64_t *clock_out, bool partial,
				  bool stable);

#endif
