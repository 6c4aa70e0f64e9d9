/* SPDX-License-Identifier: MIT */
/*
 * tracedat_writer - what the stages of the trace.dat writer share (lib/tracedat.c and its
 * tracedat_*.c files): the state of one file being written, the events with their output
 * ids, the spools' chunks, the output file, a CPU's page being filled. The stages, in the
 * order tp_tracedat_write() runs them:
 *
 *	tracedat_kernel.c    the kernel's events and cmdlines (tracedat_extra), first
 *	tracedat_ingest.c    each spool read: its chunks indexed, its events mapped
 *	tracedat_ids.c       the events' output ids (renumbered where two processes clash)
 *	tracedat_gaps.c      pages a thread lost, marked on its next page
 *	tracedat_select.c    what a consumer selected (record -p): events and filters
 *	tracedat_meta.c      the metadata, through lib/fmt/tracedat_v6.h (v6, or v7 sections)
 *	tracedat.c           the records merged by time per CPU, into
 *	tracedat_pages.c     pages in the kernel's layout
 *	tracedat_out.c       the output file, written through a buffer, checked as ours
 *	tracedat_problems.c  what could not be read, for the result
 *
 * Not for other files: their interface is tracedat.h.
 */
#ifndef TPOINT_TRACEDAT_WRITER_H
#define TPOINT_TRACEDAT_WRITER_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fmt/tracedat_v6.h"
#include "fmt/tracing_windows.h"
#include "hidden.h"
#include "outplace.h"
#include "ownfile.h"
#include "spool_read.h"
#include "tracedat.h"

struct out_event {
	char *system, *name, *condition;
	const char *format_body; /* the format text from "format:" on */
	uint16_t id;             /* in the output file */
	struct spool_stat stat;
	bool dropped;            /* not selected (tracedat_select): nothing of it goes out */
	struct filter *filter;   /* what its records must pass (tracedat_select), or NULL */
	uint64_t too_big;        /* records too big for a page (in stat.lost too) */
	bool refused;            /* selected, but its print format keeps it off */
	bool kernel;             /* from tracedat_extra: no spool's event, whatever its name */
	int reg_error;           /* selected, but its reg() returned this (non-zero): off */
	bool uncounted;          /* a spool naming it has no counters: its counts are unknown */

	/*
	 * What each record of it must hold, by its format (tp_tdw_format_bounds()): its fields up to
	 * fixed_end, and the bytes its first __data_loc/__rel_loc fields point at. A record
	 * that does not is one `tpoint report` would call corrupt: left out, and said.
	 */
	uint32_t fixed_end;
	uint8_t nlocs;
	struct { uint16_t off; bool rel; } locs[8];
};

struct stream_chunk {
	const struct spool_records *hdr;
	uint32_t type; /* SPOOL_PAGE, SPOOL_PAGE_PACKED or SPOOL_RECORDS */
	uint32_t size; /* of the chunk's body, its header included */
	uint32_t spool;
	uint32_t stream; /* index of its (spool, tid, level) stream */
	uint32_t order;  /* position in the spool */
	bool gap_before; /* pages of its thread before it are missing (overwritten) */
};

struct spool_in {
	const char *path;
	uint64_t synced; /* 0, or the bytes to read of a spool still being written */
	char *map;
	size_t len;
	bool copied; /* map is a copy in the heap (read_copy()), not a mapping */
	uint64_t unknown_ids; /* records whose event id no SPOOL_EVENT chunk names: dropped */
	uint64_t misfits;     /* records that do not hold what their format says: dropped */
	size_t misfit_off;    /* the chunk of the first of them */
	uint16_t misfit_id;   /* and its event's output id */
	size_t unknown_off;   /* the chunk of the first of them */
	uint16_t unknown_id;
	struct spool_clock clock; /* its raw clock to CLOCK_MONOTONIC ns */
	uint16_t *idmap; /* spool id - TPOINT_FIRST_ID -> output id */
	size_t nidmap;
	struct tracing_windows tracing; /* its process's tracing_on off windows */
};

struct writer_state {
	struct spool_in *in;
	int nin;
	struct out_event *events;
	size_t nevents, events_cap;
	size_t nspool_events; /* of them, the spools' (the rest: the kernel's, tracedat_extra) */
	/*
	 * While the spools' events are mapped (tp_tdw_map_event()): an open-addressing index of the
	 * spools' events by system and name, and the output ids taken. A spool may name up to the
	 * whole id space: a scan of the events for each would make reading it quadratic.
	 */
	uint32_t *name_index; /* event index + 1, or 0 for an empty slot */
	size_t name_index_size; /* a power of two, at least twice nevents */
	uint64_t ids_taken[(UINT16_MAX + 1) / 64];
	struct stream_chunk *chunks;
	size_t nchunks, chunks_cap; /* grown by doubling: a spool may hold millions */
	struct comm { uint32_t tid; char comm[64]; } *comms;
	size_t ncomms;
	uint32_t ncpus;
	char *err;
	size_t errlen;
	const struct tracedat_select *sel;
	const struct tracedat_extra *extra;
	const struct tracedat_fired *fired; /* a snapshot trigger's file: nothing after */
	uint64_t fired_ns;                  /* its record's time */
	const struct tp_codec *codec; /* version 7 compressed with it, or NULL: version 6 */
	struct td7_writer *td7;
	uint64_t cpu_pages; /* the pages write_cpu() wrote last */
	struct out_event **by_id; /* with a selection: output id -> event (tp_tdw_build_by_id()) */
	/*
	 * What the spools hold that cannot be read ("PATH: offset N: what\n" lines), and spools
	 * that end without their end mark: the caller decides what they mean (tracedat_result).
	 */
	char *damage, *unfinished;
	size_t ndamage, nunfinished;
	size_t uncounted; /* spools without their process's counters */
};

/*
 * The file being written, through a buffer: the records go out a 4 KiB page at a time, and a
 * write() a page (200 K of them for 20 M events, at a microsecond or more each on this
 * project's VM) was a good part of the time `tpoint record` takes to finish the file.
 */
#define OUT_BUF (256u << 10)

struct out_file {
	struct owned_fd file; /* checked before each write: the program may close it (ownfile.c) */
	struct outplace *place; /* its directory, and */
	const char *name;       /* its name there: to open it again */
	uint64_t done;        /* bytes in the file */
	uint64_t off; /* bytes written so far, the buffered ones included */
	int error;
	char *buf;    /* OUT_BUF bytes, or NULL: then every write goes straight out */
	size_t used;
	struct tp_growbuf *mem; /* no file: a block of metadata gathered here (version 7) */
};


/* One CPU's output: pages in the kernel's layout, filled in time order. */
struct page_out {
	char page[TPOINT_PAGE_SIZE];
	uint32_t used;
	uint64_t last_ns;
	uint64_t lost; /* to mark on the page being filled */
	bool lost_unknown; /* events were lost, how many is not known */
	bool open;
	struct out_file *f;
	struct td7_writer *td7; /* version 7: the pages go to it, compressed */
	uint32_t cpu;
	uint64_t events;
	uint64_t pages;
};


/* The output file's event ids: TPOINT_FIRST_ID and up, one an event. */
#define OUT_IDS_MAX ((size_t)UINT16_MAX + 1 - TPOINT_FIRST_ID)

/* At most this many lines of each kind are kept; the rest are counted. */
#define PROBLEM_LINES 16

/* tracedat_problems.c: bytes of spool s at file offset off cannot be read, or it is unfinished. */
HIDDEN __attribute__((format(printf, 4, 5))) void tp_tdw_damaged(struct writer_state *w,
							   const struct spool_in *s, size_t off,
							   const char *fmt, ...);
HIDDEN __attribute__((format(printf, 4, 5))) void tp_tdw_unfinished(struct writer_state *w,
							      const struct spool_in *s, size_t off,
							      const char *fmt, ...);
/* The lines kept, and how many more there were, for the result. */
HIDDEN char *tp_tdw_problem_text(char *text, size_t count);
/* The message into w->err; returns err. */
HIDDEN int tp_tdw_writer_fail(struct writer_state *w, int err, const char *fmt, ...);

/* tracedat_ingest.c */
/* Raw clock -> CLOCK_MONOTONIC ns, as every reader of a spool converts it (spool_read.h). */
HIDDEN uint64_t tp_tdw_to_ns(struct spool_in *s, uint64_t c);
/* Was tracing off in the spool's process at raw clock `c` (fmt/tracing_windows.h)? */
static inline bool tp_tdw_traced_off(const struct spool_in *s, uint64_t c)
{
	return s->tracing.n && tp_tracing_windows_off(&s->tracing, c);
}
/* Spool si read: its chunks indexed, its events and cmdlines taken. */
HIDDEN int tp_tdw_read_spool(struct writer_state *w, uint32_t si);

/* tracedat_ids.c */
HIDDEN bool tp_tdw_id_taken(const struct writer_state *w, uint16_t id);
HIDDEN void tp_tdw_add_cmdline(struct writer_state *w, uint32_t tid, const char *comm);
/* Does the record hold what its event's format says (tp_tdw_format_bounds())? */
HIDDEN bool tp_tdw_record_fits(const struct out_event *e, const char *data, uint32_t size);
HIDDEN int tp_tdw_map_event(struct writer_state *w, struct spool_in *s, const struct spool_event_def *d);
/* A spool's event id -> the output file's. */
HIDDEN uint16_t tp_tdw_out_id(const struct spool_in *s, uint16_t id);
HIDDEN struct out_event *tp_tdw_event_by_out_id(struct writer_state *w, uint16_t id);

/* tracedat_kernel.c */
HIDDEN int tp_tdw_add_extra_events(struct writer_state *w);
HIDDEN void tp_tdw_add_extra_cmdlines(struct writer_state *w, const char *text);

/* tracedat_out.c */
HIDDEN bool tp_tdw_out_file_ours(struct out_file *f);
HIDDEN void tp_tdw_out_flush(struct out_file *f);
HIDDEN void tp_tdw_out_write(struct out_file *f, const void *buf, size_t len);
HIDDEN void tp_tdw_out_patch(struct out_file *f, uint64_t off, const void *p, size_t len);
/* The file through the serialiser of version 6's blocks (lib/fmt/tracedat_v6.h). */
HIDDEN struct td6_out tp_tdw_out_v6(struct out_file *f);
HIDDEN void tp_tdw_out_pad_to_page(struct out_file *f);
/* The version 7 writer's io (struct td7_io): the file, through its buffer. */
HIDDEN void tp_tdw_out_td7_write(void *ctx, const void *p, size_t n);
HIDDEN void tp_tdw_out_td7_patch(void *ctx, uint64_t off, const void *p, size_t n);
HIDDEN uint64_t tp_tdw_out_td7_offset(void *ctx);

/* tracedat_select.c */
HIDDEN void tp_tdw_build_by_id(struct writer_state *w);
HIDDEN void tp_tdw_keep_stack_maps(struct writer_state *w);
/* Does the record of output id `id` go into the file? */
HIDDEN bool tp_tdw_selected(const struct writer_state *w, uint16_t id, const char *data, uint32_t size);
HIDDEN void tp_tdw_count_filtered(struct writer_state *w);

/* tracedat_meta.c: the events sorted by system, then the metadata written. */
HIDDEN void tp_tdw_write_metadata_v6(struct writer_state *w, struct out_file *f);
HIDDEN int tp_tdw_write_metadata_v7(struct writer_state *w);

/* tracedat_pages.c */
HIDDEN void tp_tdw_page_close(struct page_out *po);
HIDDEN void tp_tdw_page_add(struct page_out *po, uint64_t ns, const char *payload, uint32_t size,
		     uint16_t id, uint64_t lost_before, bool lost_unknown);

/* tracedat_gaps.c */
HIDDEN int tp_tdw_mark_gaps(struct writer_state *w);

#endif
