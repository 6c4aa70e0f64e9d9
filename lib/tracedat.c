/* SPDX-License-Identifier: MIT */
/*
 * Spool files -> trace.dat version 6, laid out as docs/TRACEDAT-FORMAT.md describes (the
 * format is trace-cmd's, trace-cmd.dat.v6(5); that page says which part of it tpoint writes),
 * or version 7 with compressed sections (tracedat_v7.c) when a codec is given.
 *
 * Each spool is one process's recording. Records are merged per CPU in time order, with a
 * k-way merge over the (process, thread, nesting level) streams, whose records are already
 * in order; timestamps become CLOCK_MONOTONIC nanoseconds (trace clock "mono", which the
 * kernel can use too, so that user and kernel events line up); events lost before a page are
 * marked on the output page as the kernel does (trace-cmd shows "[N EVENTS DROPPED]").
 * Event ids that two processes use for different events are renumbered.
 *
 * This file: the time-ordered merge of each CPU's records (the cursors over the streams,
 * write_cpu()) and tp_tracedat_write(), which runs the writer's stages in order; the stages
 * are the tracedat_*.c files that lib/tracedat_writer.h lists.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "filter.h"
#include "fmt/merge.h"
#include "growbuf.h"
#include "ringbuf.h"
#include "tracedat_format.h"
#include "tracedat_v7.h"
#include "tracedat_writer.h"

struct cursor {
	struct tp_merge_src key; /* first: the merge hands back its address; key.ns: the time */
	const struct stream_chunk **chunks; /* this stream's chunks on this CPU, in order */
	size_t n, at;
	bool started;         /* it is inside chunks[at] */
	struct spool_iter it; /* where in chunks[at] */
	char *unpacked;       /* SPOOL_UNPACKED_MAX bytes if the stream has packed chunks */
	const char *data;     /* the current record: its payload, size and raw clock */
	uint32_t size;
	uint64_t clock;
	uint64_t lost_before;
	bool gap_before;
	bool extra;   /* tracedat_extra's records of CPU `cpu`, not chunks */
	uint32_t cpu;
};

/* Where a chunk starts in its spool, for what is said about it. */
static size_t chunk_offset(const struct writer_state *w, const struct stream_chunk *ch)
{
	return (size_t)((const char *)ch->hdr - w->in[ch->spool].map) - sizeof(struct spool_chunk);
}

/* A chunk's records have been read: all of them, or what stopped the reading is said. */
static void chunk_read_to_end(struct writer_state *w, const struct stream_chunk *ch,
			      const struct spool_iter *it)
{
	const struct spool_in *s = &w->in[ch->spool];
	const char *type = tp_spool_chunk_name(ch->type);

	if (it->damaged)
		tp_tdw_damaged(w, s, chunk_offset(w, ch), "%s chunk of %u bytes (bytes %u..%u of a page): "
			"%s, its records are not read", type, ch->size, ch->hdr->start_off,
			ch->hdr->end_off, ch->type == SPOOL_PAGE_PACKED ? "does not unpack" :
			"no room for its header");
	else if (it->p < it->end) {
		size_t len = ch->type == SPOOL_PAGE_PACKED ?
				     (size_t)(ch->hdr->end_off - ch->hdr->start_off) :
				     ch->size - sizeof(*ch->hdr);
		size_t left = (size_t)(it->end - it->p);

		tp_tdw_damaged(w, s, chunk_offset(w, ch), "%s chunk of %u bytes: no record at byte %zu "
			"of its %zu bytes of records, the last %zu are not read", type, ch->size,
			len - left, len, left);
	}
}

static bool cursor_load(struct writer_state *w, struct cursor *c)
{
	if (c->extra) {
		struct tracedat_extra_rec r;

		if (w->extra->next(w->extra->ctx, c->cpu, &r) != 1)
			return false;
		c->data = r.data;
		c->size = r.size;
		c->key.ns = r.ns;
		c->lost_before += r.lost_before;
		c->gap_before |= r.lost_unknown;
		return true;
	}
	while (c->at < c->n) {
		const struct stream_chunk *ch = c->chunks[c->at];
		uint64_t clock;

		if (!c->started) {
			tp_spool_iter_init(&c->it, ch->type, (const char *)ch->hdr, ch->size,
					   c->unpacked);
			c->started = true;
			/* Added: a record left out (tracedat_select) passes its marks on. */
			c->lost_before += ch->hdr->lost_before;
			c->gap_before |= ch->gap_before;
		}
		if (tp_spool_iter_next(&c->it, &clock, &c->data, &c->size)) {
			c->clock = clock;
			c->key.ns = tp_tdw_to_ns(&w->in[ch->spool], clock);
			return true;
		}
		chunk_read_to_end(w, ch, &c->it);
		c->at++;
		c->started = false;
	}
	return false;
}

static int cmp_chunk(const void *a, const void *b)
{
	const struct stream_chunk *x = *(const struct stream_chunk *const *)a;
	const struct stream_chunk *y = *(const struct stream_chunk *const *)b;

	if (x->stream != y->stream)
		return x->stream < y->stream ? -1 : 1;
	if (x->hdr->seq != y->hdr->seq)
		return x->hdr->seq < y->hdr->seq ? -1 : 1;
	return (x->order > y->order) - (x->order < y->order);
}

static int write_cpu(struct writer_state *w, struct out_file *f, uint32_t cpu, uint64_t *events,
		     uint64_t *lost)
{
	const struct stream_chunk **list;
	struct cursor *cur;
	struct tp_merge heap = { 0 };
	size_t n = 0, ncur = 0;
	struct page_out *po;
	int err = 0;

	bool extra = w->extra && cpu < w->extra->ncpus;

	for (size_t i = 0; i < w->nchunks; i++)
		n += w->chunks[i].hdr->cpu == cpu;
	if (!n && !extra)
		return 0;
	list = malloc((n ? n : 1) * sizeof(*list));
	cur = calloc(n + 1, sizeof(*cur));
	po = calloc(1, sizeof(*po));
	if (!list || !cur || tp_merge_init(&heap, n + 1) || !po) {
		free(list);
		free(cur);
		tp_merge_free(&heap);
		free(po);
		return -ENOMEM;
	}
	n = 0;
	for (size_t i = 0; i < w->nchunks; i++)
		if (w->chunks[i].hdr->cpu == cpu)
			list[n++] = &w->chunks[i];
	qsort(list, n, sizeof(*list), cmp_chunk);
	for (size_t i = 0; i < n;) {
		size_t j = i;

		while (j < n && list[j]->stream == list[i]->stream)
			j++;
		cur[ncur] = (struct cursor){ .chunks = &list[i], .n = j - i, .key.tie = ncur };
		for (size_t k = i; k < j && !cur[ncur].unpacked; k++)
			if (list[k]->type == SPOOL_PAGE_PACKED &&
			    !(cur[ncur].unpacked = malloc(SPOOL_UNPACKED_MAX))) {
				err = -ENOMEM;
				goto out;
			}
		if (cursor_load(w, &cur[ncur]))
			tp_merge_add(&heap, &cur[ncur].key);
		ncur++;
		i = j;
	}
	if (extra) {
		cur[ncur] = (struct cursor){ .extra = true, .cpu = cpu, .key.tie = ncur };
		if (cursor_load(w, &cur[ncur]))
			tp_merge_add(&heap, &cur[ncur].key);
		ncur++;
	}

	po->f = f;
	po->td7 = w->td7;
	po->cpu = cpu;
	while (tp_merge_top(&heap)) {
		struct cursor *c = (struct cursor *)(void *)tp_merge_top(&heap);
		const struct stream_chunk *ch = c->extra ? NULL : c->chunks[c->at];
		uint16_t id;
		struct spool_in *s = ch ? &w->in[ch->spool] : NULL;
		uint16_t file_id;

		memcpy(&id, c->data, 2);
		if (c->extra) {
			/* The kernel's: its ids and losses are its own (option KERNEL counts them). */
			tp_tdw_page_add(po, c->key.ns, c->data, c->size, id, c->lost_before, c->gap_before);
			c->lost_before = 0;
			c->gap_before = false;
			tp_merge_advanced(&heap, cursor_load(w, c));
			continue;
		}
		file_id = tp_tdw_out_id(s, id);
		if (!file_id) {
			if (!s->unknown_ids++) { /* a reader could not tell what it is */
				s->unknown_off = chunk_offset(w, ch);
				s->unknown_id = id;
			}
		} else if (w->by_id[file_id] && !tp_tdw_record_fits(w->by_id[file_id], c->data, c->size)) {
			if (!s->misfits++) {
				s->misfit_off = chunk_offset(w, ch);
				s->misfit_id = file_id;
			}
		} else if ((!w->sel || c->key.ns >= w->sel->since) &&
			   (!w->fired || c->key.ns <= w->fired_ns) &&
			   !tp_tdw_traced_off(s, c->clock) &&
			   tp_tdw_selected(w, file_id, c->data, c->size)) {
			tp_tdw_page_add(po, c->key.ns, c->data, c->size, file_id, c->lost_before,
				 c->gap_before);
			*lost += c->lost_before;
			c->lost_before = 0;
			c->gap_before = false;
		}
		tp_merge_advanced(&heap, cursor_load(w, c));
	}
	tp_tdw_page_close(po);
	*events += po->events;
	w->cpu_pages = po->pages;
out:
	for (size_t i = 0; i < n + 1; i++) /* calloc'd: cursors not made have none */
		free(cur[i].unpacked);
	free(list);
	free(cur);
	tp_merge_free(&heap);
	free(po);
	return err;
}

int tp_tracedat_from_spools(const char *out_path, const char *const *spools, int nspools,
			    struct tracedat_result *res, char *err, size_t errlen)
{
	return tp_tracedat_from_spools_select(out_path, spools, nspools, NULL, res, err, errlen);
}

int tp_tracedat_from_spools_select(const char *out_path, const char *const *spools, int nspools,
				   const struct tracedat_select *sel, struct tracedat_result *res,
				   char *err, size_t errlen)
{
	struct tracedat_write_opts o = { .out_path = out_path, .spools = spools,
					 .nspools = nspools, .sel = sel };

	return tp_tracedat_write(&o, res, err, errlen);
}

/*
 * The input: the kernel's events, each spool read, their ids renumbered, the pages a thread
 * lost marked, the output ids indexed, the selection counted. 0, or -errno said in w->err.
 */
static int gather_input(struct writer_state *w, const struct tracedat_write_opts *o)
{
	const char *const *spools = o->spools;
	int nspools = o->nspools, ret = 0;

	w->in = calloc((size_t)(nspools > 0 ? nspools : 1), sizeof(*w->in));
	if (!w->in)
		return tp_tdw_writer_fail(w, -ENOMEM, "out of memory");
	w->nin = nspools;
	if (w->extra && tp_tdw_add_extra_events(w) < 0)
		ret = tp_tdw_writer_fail(w, -ENOMEM, "out of memory");
	if (w->extra && w->extra->ncpus > w->ncpus)
		w->ncpus = w->extra->ncpus;
	for (int i = 0; i < nspools && !ret; i++) {
		w->in[i].path = spools[i];
		if (i == nspools - 1)
			w->in[i].synced = o->last_spool_synced;
		ret = tp_tdw_read_spool(w, (uint32_t)i);
	}
	if (!ret && w->extra)
		tp_tdw_add_extra_cmdlines(w, w->extra->cmdlines);
	if (!ret && tp_tdw_mark_gaps(w) < 0)
		ret = tp_tdw_writer_fail(w, -ENOMEM, "out of memory");
	/* Output id -> event: for the selection, and for each record's check of its format. */
	if (!ret && !(w->by_id = calloc(0x10000, sizeof(*w->by_id))))
		ret = tp_tdw_writer_fail(w, -ENOMEM, "out of memory");
	if (ret)
		return ret;
	if (w->sel)
		tp_tdw_keep_stack_maps(w);
	tp_tdw_build_by_id(w);
	bool tracing = false;

	for (int i = 0; i < w->nin; i++)
		tracing |= w->in[i].tracing.n > 0;
	if (w->sel || tracing)
		tp_tdw_count_filtered(w);
	return 0;
}

/*
 * Written beside the target and renamed: a reader never sees half a file (outplace.c). The
 * side file is new, made with O_EXCL: nothing that is there already (a link planted in a
 * shared directory) is opened, truncated or removed. *made: the side file is ours to remove
 * (on failure too). 0, or -errno said in w->err.
 */
static int open_output(struct writer_state *w, struct out_file *f, const char *out_path,
		       struct outplace *place, char *side, bool *made)
{
	int ret, fd = tp_outplace_open(place, out_path, NULL, 0);

	if (!fd)
		fd = tp_outplace_side(place, "tmp", false, 0644, side);
	if (fd < 0)
		return tp_tdw_writer_fail(w, fd, "%s: %s", out_path, strerror(-fd));
	*made = true;
	ret = tp_ownfd_adopt(&f->file, fd);
	if (ret)
		return tp_tdw_writer_fail(w, ret, "%s: %s", out_path, strerror(-ret));
	f->place = place;
	f->name = side;
	f->buf = malloc(OUT_BUF);
	return 0;
}

/*
 * The metadata: version 7's sections, or version 6's blocks up to the pages, with the
 * flyrecord table of the CPUs' offsets and sizes left to patch (*table, at *table_off in the
 * file). 0, or -errno said in w->err.
 */
static int write_head(struct writer_state *w, struct out_file *f, const char *out_path,
		      uint64_t **table, uint64_t *table_off)
{
	if (w->codec) {
		struct td7_io io = { f, tp_tdw_out_td7_write, tp_tdw_out_td7_patch, tp_tdw_out_td7_offset };
		int ret;

		w->td7 = tp_td7_start(&io, w->codec, TPOINT_PAGE_SIZE);
		ret = w->td7 ? tp_tdw_write_metadata_v7(w) : -ENOMEM;
		if (ret)
			tp_tdw_writer_fail(w, ret, "%s: %s", out_path, strerror(-ret));
		return ret;
	}
	tp_tdw_write_metadata_v6(w, f);
	struct td6_out o = tp_tdw_out_v6(f);

	tp_td6_put_flyrecord(&o);
	*table_off = f->off;
	*table = calloc(w->ncpus, 16);
	if (!*table)
		return tp_tdw_writer_fail(w, -ENOMEM, "out of memory");
	/* the CPUs' offsets and sizes: patched in when their pages are written */
	for (uint32_t cpu = 0; cpu < w->ncpus; cpu++)
		tp_td6_put_cpu_data(&o, 0, 0);
	tp_td6_put_text(&o, 8, "[mono]", sizeof("[mono]") - 1);
	tp_tdw_out_pad_to_page(f);
	return 0;
}

/*
 * Each CPU's records, merged by time, into its pages; where they went into table (version
 * 6), the counts and the largest CPU into res. 0, or -ENOMEM said in w->err (a write error
 * stays in f->error, for finish_output()).
 */
static int write_cpus(struct writer_state *w, struct out_file *f, uint64_t *table,
		      struct tracedat_result *res)
{
	tp_tdw_build_by_id(w); /* the events are sorted now */
	for (uint32_t cpu = 0; cpu < w->ncpus && !f->error; cpu++) {
		uint64_t start = f->off, bytes;
		int ret;

		w->cpu_pages = 0;
		ret = write_cpu(w, f, cpu, &res->events, &res->lost);
		if (ret)
			return tp_tdw_writer_fail(w, ret, "out of memory");
		bytes = w->cpu_pages * TPOINT_PAGE_SIZE;
		if (table) {
			table[2 * cpu] = f->off > start ? start : 0;
			table[2 * cpu + 1] = f->off - start;
		}
		if (bytes > res->big_cpu_bytes) {
			res->big_cpu = cpu;
			res->big_cpu_bytes = bytes;
		}
	}
	return 0;
}

/*
 * The file ended (version 7's end, or version 6's table patched in), closed, checked once
 * more and renamed onto out_path. 0, or -errno said in w->err.
 */
static int finish_output(struct writer_state *w, struct out_file *f, const uint64_t *table,
			 uint64_t table_off, const char *out_path, struct outplace *place,
			 const char *side)
{
	int ret, fd;

	if (w->td7) {
		ret = tp_td7_finish(w->td7, "mono", NULL, NULL);
		w->td7 = NULL;
		if (ret && !f->error)
			return tp_tdw_writer_fail(w, ret, "%s: %s", out_path, strerror(-ret));
	}
	tp_tdw_out_flush(f);
	if (table && !f->error && tp_tdw_out_file_ours(f) &&
	    pwrite(f->file.fd, table, (size_t)w->ncpus * 16, (off_t)table_off) != (ssize_t)w->ncpus * 16)
		f->error = errno ? errno : EIO;
	if (f->error)
		return tp_tdw_writer_fail(w, -f->error, "%s: %s", out_path, f->error == EBADF ?
			   "the program closed the descriptor it was being written through" :
			   strerror(f->error));
	fd = f->file.fd;
	f->file.fd = -1;
	if (close(fd) < 0)
		return tp_tdw_writer_fail(w, -errno, "%s: %s", out_path, strerror(errno));
	/* Once more: what was a file when we began may have become something else. */
	ret = tp_outplace_dir(place);
	if (ret < 0)
		return tp_tdw_writer_fail(w, ret, "%s: %s", out_path, strerror(-ret));
	ret = tp_output_check_at(ret, place->name, out_path, w->err, w->errlen);
	if (ret)
		return ret;
	ret = tp_outplace_commit(place, side, false, false);
	if (ret < 0)
		return tp_tdw_writer_fail(w, ret, "%s: %s", out_path, strerror(-ret));
	return 0;
}

/* The records left out of the file, said in the damage lines of the spool they came from. */
static void note_left_out(struct writer_state *w)
{
	for (int i = 0; i < w->nin; i++)
		if (w->in[i].unknown_ids)
			tp_tdw_damaged(w, &w->in[i], w->in[i].unknown_off, "%llu records of event ids that "
				"no event chunk names (the first: id %u, in this chunk) are left out",
				(unsigned long long)w->in[i].unknown_ids, w->in[i].unknown_id);
	for (int i = 0; i < w->nin; i++) {
		const struct out_event *e = tp_tdw_event_by_out_id(w, w->in[i].misfit_id);

		if (w->in[i].misfits && e)
			tp_tdw_damaged(w, &w->in[i], w->in[i].misfit_off, "%llu records of event %s:%s "
				"shorter than its format's %u bytes, or with a string or array past "
				"their end (the first in this chunk) are left out",
				(unsigned long long)w->in[i].misfits, e->system, e->name, e->fixed_end);
	}
}

/* The result: the damage and unfinished lines, each event's counts, the losses. */
static void fill_result(struct writer_state *w, struct tracedat_result *res)
{
	uint64_t counted = 0;

	res->damage = tp_tdw_problem_text(w->damage, w->ndamage);
	res->unfinished = tp_tdw_problem_text(w->unfinished, w->nunfinished);
	w->damage = w->unfinished = NULL;
	res->ev = calloc(w->nevents ? w->nevents : 1, sizeof(*res->ev));
	for (size_t i = 0; res->ev && i < w->nevents; i++) {
		struct tracedat_event *d = &res->ev[res->nev];
		const struct out_event *e = &w->events[i];

		if (e->dropped)
			continue;
		/* The strings move to the result. */
		d->system = e->system;
		d->name = e->name;
		d->condition = e->condition;
		w->events[i].system = w->events[i].name = w->events[i].condition = NULL;
		d->cond_skipped = e->stat.cond_skipped;
		d->filtered = e->stat.filtered;
		d->recorded = e->stat.recorded;
		d->lost = e->stat.lost;
		d->hits = d->cond_skipped + d->filtered + d->recorded + d->lost;
		d->too_big = e->too_big;
		d->refused = e->refused;
		d->kernel = e->kernel;
		d->reg_error = e->reg_error;
		d->uncounted = e->uncounted;
		counted += d->lost;
		res->nev++;
	}
	/*
	 * The pages' marks tell of records dropped for want of room; the counters of every loss
	 * (overwritten, or cut off by a full disk too). A process killed before it wrote its
	 * counters leaves only its marks.
	 */
	res->lost_marked = res->lost;
	if (counted > res->lost)
		res->lost = counted;
	res->uncounted = w->uncounted;
}

/* Everything the writer holds let go; the side file removed when it failed (ret). */
static void writer_release(struct writer_state *w, struct out_file *f, struct outplace *place,
			   const char *side, bool made, uint64_t *table, int ret)
{
	tp_td7_abort(w->td7);
	tp_ownfd_close(&f->file);
	if (ret && made)
		tp_outplace_discard(place, side, false);
	tp_outplace_close(place);
	free(f->buf);
	free(table);
	for (int i = 0; i < w->nin; i++) {
		if (w->in[i].copied)
			free(w->in[i].map);
		else if (w->in[i].map)
			munmap(w->in[i].map, w->in[i].len);
		tp_spool_clock_free(&w->in[i].clock);
		free(w->in[i].idmap);
		tp_tracing_windows_free(&w->in[i].tracing);
	}
	free(w->in);
	for (size_t i = 0; i < w->nevents; i++) {
		free(w->events[i].system);
		free(w->events[i].name);
		free(w->events[i].condition);
		tp_filter_free(w->events[i].filter);
	}
	free(w->events);
	free(w->name_index);
	free(w->by_id);
	free(w->chunks);
	free(w->comms);
	free(w->damage);
	free(w->unfinished);
}

/* The stages in order; the first that fails ends it, and what was made is let go. */
int tp_tracedat_write(const struct tracedat_write_opts *o, struct tracedat_result *res,
		      char *err, size_t errlen)
{
	struct writer_state w = { .err = err, .errlen = errlen, .ncpus = 1, .sel = o->sel,
				  .extra = o->extra, .codec = o->codec, .fired = o->fired };
	struct out_file f = { .file = OWNED_FD_NONE };
	struct outplace place = { .dir = OWNED_FD_NONE };
	uint64_t table_off = 0, *table = NULL;
	char side[OUTPLACE_SIDE_MAX];
	bool made = false; /* side is ours to remove */
	int ret;

	memset(res, 0, sizeof(*res));
	if (errlen)
		err[0] = 0;
	/* Only a regular file is replaced: not a device node, a FIFO, a link (ownfile.c). */
	ret = tp_output_check(o->out_path, err, errlen);
	if (ret)
		return ret;
	ret = gather_input(&w, o);
	if (!ret && w.fired && w.nin) /* the spool's clock, as its records' */
		w.fired_ns = tp_tdw_to_ns(&w.in[0], w.fired->clock);
	if (!ret)
		ret = open_output(&w, &f, o->out_path, &place, side, &made);
	if (!ret)
		ret = write_head(&w, &f, o->out_path, &table, &table_off);
	if (!ret)
		ret = write_cpus(&w, &f, table, res);
	if (!ret)
		ret = finish_output(&w, &f, table, table_off, o->out_path, &place, side);
	if (!ret) {
		note_left_out(&w);
		fill_result(&w, res);
	}
	writer_release(&w, &f, &place, side, made, table, ret);
	return ret;
}

/*
 * trace-cmd (3.1.6 here, 3.4 too) maps a CPU's records in pieces of the largest power of two
 * of pages within the largest CPU's size, a size it keeps in an int: from 2 GiB on that
 * overflows, the mapping fails, and `trace-cmd report` stops early without a word (of 120 M
 * records in one CPU's 4.8 GB it printed 6.6 M). The file is right; say so, and what reads
 * it all.
 */
const char *tp_tracedat_size_warning(const struct tracedat_result *res, char *buf, size_t len)
{
	if (res->big_cpu_bytes < (1ull << 31))
		return NULL;
	snprintf(buf, len, "CPU %u holds %llu MiB of records; trace-cmd (3.4 and before) and "
		 "KernelShark, through its libtracecmd, read no more than 2 GiB of one CPU's "
		 "records and stop there, without an error; `tpoint report` reads them all",
		 res->big_cpu, (unsigned long long)(res->big_cpu_bytes >> 20));
	return buf;
}

void tp_tracedat_result_free(struct tracedat_result *res)
{
	for (size_t i = 0; i < res->nev; i++) {
		free(res->ev[i].system);
		free(res->ev[i].name);
		free(res->ev[i].condition);
	}
	free(res->ev);
	res->ev = NULL;
	res->nev = 0;
	free(res->damage);
	free(res->unfinished);
	res->damage = res->unfinished = NULL;
}
