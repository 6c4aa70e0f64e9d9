/* SPDX-License-Identifier: MIT */
/*
 * The conversion interface: what the back-ends that turn trace.dat files into other readers'
 * formats (ctf.c: CTF 1.8 for babeltrace2 and Trace Compass; json.c: JSON lines for jq and
 * Python, and `tpoint report --json`; convert_tracedat.c: the other trace.dat version) share
 * with their input (convert_input.c) and their callers (the verb convert.c, report.c). The
 * back-ends depend on this header, never on the verb.
 *
 * The model shared by the writers: each input file is opened and validated by tracedat_read;
 * each event format is parsed by libtraceevent (under the renderer's guard) and turned into
 * a list of typed fields, whatever system the event is from, so that kernel events and
 * tpoint's own convert alike. A writer reads the records one CPU (CTF) or all of them merged
 * by time (JSON, through td_merge.h), and memory stays bounded whatever the file's size: CTF reads each CPU's
 * pages by pread() a 1 MiB run at a time (checked as they are walked) and writes 1 MiB runs;
 * JSON walks the mapped input, checked first, and writes through a 64 KiB buffer.
 */
#ifndef TPOINT_CONVERT_BACKEND_H
#define TPOINT_CONVERT_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "render.h"
#include "td_merge.h"
#include "tracedat_read.h"

enum conv_kind {
	CONV_INT,    /* an integer of 1, 2, 4 or 8 bytes */
	CONV_CHARS,  /* char[N]: text up to its first NUL */
	CONV_ARRAY,  /* T[N] of integers */
	CONV_BYTES,  /* anything else of fixed size (a struct): its bytes */
	CONV_STRING, /* __data_loc/__rel_loc char[]: text */
	CONV_SEQ,    /* __data_loc/__rel_loc T[]: as many integers as its length holds */
};

/* One value of a __print_symbolic() or __print_flags() list. */
struct conv_sym {
	unsigned long long value;
	char *str;
};

struct conv_field {
	char *name; /* owned, as everything here: libtraceevent's handle is gone by then */
	enum conv_kind kind;
	uint32_t offset, size; /* in the record: the value, or the location word */
	uint32_t elem_size;    /* CONV_INT: size; arrays and sequences: one element */
	uint32_t count;	       /* CONV_ARRAY, CONV_BYTES: elements */
	bool is_signed;
	bool relative; /* __rel_loc: offset counted from the end of the location word */
	int base;      /* how its print format shows it: 10, 16 or 8 */
	/* __print_symbolic (symbolic) or __print_flags (flags) of this very field */
	struct conv_sym *syms;
	size_t nr_syms;
	bool symbolic, flags;
	char *delim; /* __print_flags's */
};

struct conv_event {
	int id;
	char *system, *name; /* owned */
	struct conv_field *fields;
	size_t nr_fields;
	uint32_t min_size; /* a record shorter than this is corrupt */
	bool raw;	   /* no usable format: its records convert as bytes */
	bool said;	   /* its problem was said */
	uint64_t count;	   /* records converted */
};

struct conv_input {
	const char *file;
	unsigned int index;
	struct tracedat td;
	struct conv_event **events; /* by id, 65536; NULL until a record or a format needs it */
	struct td_cmdline **comms;  /* by pid, sorted, for the lookups */
	size_t nr_comms;
};

/* Everything a conversion reads, and what it says. */
struct conv {
	const char *verb;
	struct conv_input *in;
	size_t nr_in;
	int problems;	   /* records not converted faithfully */
	uint64_t total;	   /* records in all inputs; 0 until conv_check_pages() */
	uint64_t done;	   /* records converted so far */
	uint64_t total_pages, pages_done; /* the progress of a writer that reads by pages */
	bool progress;	   /* stderr is a terminal: a progress line */
	double next_progress;
	bool drawn;	   /* a progress line is on the terminal */
	td_merge_keep_fn keep; /* the records a writer that merges writes (NULL: all) */
	void *keep_ctx;
};

/*
 * Open, validate and parse every input but their pages (tracedat_open_unchecked()): a writer
 * checks each page as it reads it, or all of them first with conv_check_pages(). -1 with the
 * reason said.
 */
int conv_open(struct conv *cv, const char *verb, char **files, size_t nr);
/* Every page of every input checked (what the merge's cursors need); -1 with the reason said. */
int conv_check_pages(struct conv *cv);
void conv_close(struct conv *cv);

/* The event of a record's id (made raw when no format has it); NULL when out of memory. */
struct conv_event *conv_event(struct conv *cv, struct conv_input *in, const unsigned char *rec,
			      uint32_t size);
/* Says once per event what is wrong with its records, counting each one. */
void conv_problem(struct conv *cv, struct conv_input *in, struct conv_event *ev,
		  const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* The comm recorded for a pid, or "<...>" as trace-cmd shows an unknown one. */
const char *conv_comm(const struct conv_input *in, int pid);

/* Inline, as they are used for every record. */
static inline int conv_pid(const struct conv_input *in, const unsigned char *rec)
{
	return (int32_t)tracedat_u32(&in->td, rec + 4);
}

/* Numbers of the record, in the file's byte order. */
static inline uint64_t conv_uint(const struct conv_input *in, const unsigned char *p,
				 uint32_t size)
{
	switch (size) {
	case 1:
		return *p;
	case 2:
		return tracedat_u16(&in->td, p);
	case 4:
		return tracedat_u32(&in->td, p);
	default:
		return tracedat_u64(&in->td, p);
	}
}

static inline long long conv_sint(const struct conv_input *in, const unsigned char *p,
				  uint32_t size)
{
	switch (size) {
	case 1:
		return (int8_t)*p;
	case 2:
		return (int16_t)tracedat_u16(&in->td, p);
	case 4:
		return (int32_t)tracedat_u32(&in->td, p);
	default:
		return (int64_t)tracedat_u64(&in->td, p);
	}
}

/*
 * Where a dynamic field's data is in a record of `size` bytes: 0 and *off, *len set, or -1
 * when the location points outside the record.
 */
static inline int conv_loc(const struct conv_input *in, const struct conv_field *f,
			   const unsigned char *rec, uint32_t size, uint32_t *off, uint32_t *len)
{
	uint32_t loc = tracedat_u32(&in->td, rec + f->offset);

	*off = loc & 0xffff;
	*len = loc >> 16;
	if (f->relative)
		*off += f->offset + f->size;
	if (*off > size || *len > size - *off)
		return -1;
	return 0;
}
/* __print_symbolic/__print_flags of a value into buf, as libtraceevent prints it. */
const char *conv_sym_text(const struct conv_field *f, unsigned long long v, char *buf,
			  size_t len);

/*
 * Counts a converted record and redraws the progress line now and then; true when a signal
 * asked to stop (said here), so that the writer removes its temporary output.
 */
bool conv_tick(struct conv *cv);
/* The same for a page of records read and converted. */
bool conv_tick_page(struct conv *cv, uint64_t records);
/* SIGINT, SIGTERM and SIGHUP ask conv_tick() to stop. */
void conv_catch_signals(void);
void conv_progress_end(struct conv *cv);

/* The writers: 0, or -1 with the reason said. `out` is the directory (CTF) or stream (JSON). */
int ctf_write(struct conv *cv, int dirfd, const char *dirname);
int json_write(struct conv *cv, FILE *out, const char *outname);

/*
 * OUT written by fill(fd, OUT, arg) under a temporary name beside it and renamed into place
 * when complete and synced (replacing a non-empty OUT only when force). 0, or -1 with the
 * reason said (write says its own) and nothing left behind.
 */
int conv_write_file(const char *out, bool force, int (*fill)(int fd, const char *out, void *arg),
		    void *arg);

/* `tpoint convert FILE --to v6|v7 [--compress=SPEC] -o OUT` (convert_tracedat.c): an exit status. */
int convert_tracedat(const char *in, const char *to, const char *compress, const char *out,
		     bool force);

struct rsel;
/* `tpoint report --json FILE...`: JSON lines on stdout, of the records sel keeps (NULL: all). */
int json_report(const char *verb, char **files, size_t nr, struct rsel *sel);

#endif
