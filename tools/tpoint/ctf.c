/* SPDX-License-Identifier: MIT */
/*
 * CTF 1.8 (convert.h), as babeltrace2 and Trace Compass read it: a directory with the TSDL
 * text "metadata" and one stream file per CPU (per file, per instance).
 *
 * - Each input file is a stream class (id = the input's index), its event formats the event
 *   classes (id = the trace.dat event id), so that several files convert into one trace
 *   whatever ids their events have.
 * - Each trace.dat page becomes one packet: its context has the first and last times, the
 *   CPU and the stream's running count of lost events (events_discarded), so a page that
 *   lost events before it shows as discarded events where they were lost.
 * - The event header is LTTng's "large" one: a 16-bit id and the low 32 bits of the time
 *   (the reader carries the high bits over from the previous time), or, when the gap is
 *   too long, 65535 followed by a 32-bit id and the full 64-bit time.
 * - The event context holds tid (common_pid), pid (-1: trace.dat does not record the
 *   thread group) and comm (from the file's saved cmdlines).
 * - Every integer is byte aligned and in the recording machine's byte order, so that the
 *   record's fixed fields are copied as they are; dynamic arrays and strings are copied out
 *   of their __data_loc/__rel_loc place as CTF sequences (with a length field before them)
 *   and strings.
 *
 * Times are on one clock class: CLOCK_MONOTONIC in ns for tpoint's files ("mono"), with the
 * same UUID in every conversion, so two conversions of one boot line up in Trace Compass.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "convert_backend.h"
#include "tool.h"

#define CTF_MAGIC 0xc1fc1fc1u
#define ID_EXTENDED 65535
/* packet header (magic, uuid, stream_id, stream_instance_id) and context */
#define HEADER_SIZE (4 + 16 + 4 + 8)
#define CONTEXT_SIZE (8 * 6 + 4)

/* CLOCK_MONOTONIC's clock class, the same in every conversion */
static const char monotonic_uuid[] = "6b0b7a2e-3c51-4d0e-9a57-7470c10c6d6f";

/* The output is written in runs of whole file pages, past this much */
#define WRITE_RUN (1u << 20)
/* ... and the kernel asked to start writing back every this much, so that the end's fsync
 * has little left to wait for */
#define WRITEBACK_RUN (32u << 20)
/* The input is read this much at a time (whole pages, at least one) */
#define READ_RUN (1u << 20)
#define FILE_PAGE 4096u

/* How the fixed and the dynamic fields of an event are copied, worked out once. */
struct copy_op {
	uint32_t offset, size; /* a run of fixed fields: the bytes of the record */
	int field;	       /* -1 for a run, else the index of a __data_loc/__rel_loc field */
};

struct copy_plan {
	size_t nr;
	struct copy_op ops[];
};

struct ctf {
	struct conv *cv;
	int dirfd;
	const char *dirname;
	unsigned char uuid[16];
	unsigned char *buf; /* the packets not written yet, the last one being built */
	size_t len, cap;
	size_t packet;	    /* where the packet being built starts in buf */
	int fd;		    /* the stream file being written */
	const char *name;   /* its name */
	uint64_t written;   /* its bytes written */
	uint64_t writeback; /* its bytes whose writeback was started */
	uint64_t instance;  /* stream files written */
	char *clock;	    /* the trace clock of the inputs: "" or "mono" is CLOCK_MONOTONIC */
	struct copy_plan **plans; /* by event id, of the input being written */
};

static int reserve(struct ctf *c, size_t more)
{
	unsigned char *grown;
	size_t cap;

	if (c->len + more <= c->cap)
		return 0;
	cap = c->cap ? c->cap : 2 * WRITE_RUN;
	while (cap < c->len + more)
		cap *= 2;
	grown = realloc(c->buf, cap);
	if (!grown)
		return -1;
	c->buf = grown;
	c->cap = cap;
	return 0;
}

/* Our own fields are in the machine's byte order, which the trace's byte_order names. */
static inline void put(struct ctf *c, const void *p, size_t n)
{
	memcpy(c->buf + c->len, p, n);
	c->len += n;
}

static inline void put16(struct ctf *c, uint16_t v)
{
	put(c, &v, 2);
}

static inline void put32(struct ctf *c, uint32_t v)
{
	put(c, &v, 4);
}

static inline void put64(struct ctf *c, uint64_t v)
{
	put(c, &v, 8);
}

static int write_all(struct ctf *c, const void *p, size_t n)
{
	const char *b = p;

	while (n) {
		ssize_t w = write(c->fd, b, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			tool_error(c->cv->verb, "%s/%s: writing: %s", c->dirname, c->name,
				   w < 0 ? strerror(errno) : "nothing written");
			return -1;
		}
		b += w;
		n -= (size_t)w;
	}
	return 0;
}

/*
 * Writes the packets before c->packet: all of them at the end, else whole file pages once
 * there are WRITE_RUN bytes, so that the kernel never fills a page partly (and zeroes the
 * rest of it first), and the system calls are few.
 */
static int out_flush(struct ctf *c, bool all)
{
	size_t n = all ? c->packet : c->packet & ~(size_t)(FILE_PAGE - 1);

	if (!all && c->packet < WRITE_RUN)
		return 0;
	if (write_all(c, c->buf, n))
		return -1;
	/* a stream whose pages held no record never had a buffer */
	if (c->len > n)
		memmove(c->buf, c->buf + n, c->len - n);
	c->len -= n;
	c->packet -= n;
	c->written += n;
	if (c->written - c->writeback >= WRITEBACK_RUN) {
		/* a hint: where it is not supported, the fsync at the end does it all */
		sync_file_range(c->fd, (off_t)c->writeback, (off_t)(c->written - c->writeback),
				SYNC_FILE_RANGE_WRITE);
		c->writeback = c->written;
	}
	return 0;
}

/* ---- the streams -------------------------------------------------------------------- */

struct packet {
	uint64_t begin, end; /* times */
	uint64_t last;	     /* the time the reader has now */
	uint64_t discarded;  /* the stream's lost events so far */
	uint64_t seq;
	uint32_t cpu, stream_id;
	bool open;
	/* the last comm looked up */
	int pid;
	const char *comm;
	size_t comm_len;
};

static int packet_start(struct ctf *c, struct packet *p, uint64_t ts)
{
	if (reserve(c, HEADER_SIZE + CONTEXT_SIZE))
		return -1;
	c->packet = c->len;
	c->len += HEADER_SIZE + CONTEXT_SIZE;
	p->begin = p->end = p->last = ts;
	p->open = true;
	return 0;
}

/* The packet's header and context, now that its end is known; then written when it is time. */
static int packet_end(struct ctf *c, struct packet *p)
{
	size_t len = c->len, size = c->len - c->packet;

	if (!p->open)
		return 0;
	p->open = false;
	c->len = c->packet;
	put32(c, CTF_MAGIC);
	put(c, c->uuid, 16);
	put32(c, p->stream_id);
	put64(c, c->instance);
	put64(c, p->begin);
	put64(c, p->end);
	put64(c, (uint64_t)size * 8); /* content_size, bits */
	put64(c, (uint64_t)size * 8); /* packet_size */
	put64(c, p->seq++);
	put64(c, p->discarded);
	put32(c, p->cpu);
	c->len = len;
	c->packet = len;
	return out_flush(c, false);
}

/* The event's copy plan: adjacent fixed fields copied as one run. */
static struct copy_plan *plan_new(const struct conv_event *ev)
{
	struct copy_plan *pl = malloc(sizeof(*pl) + (ev->nr_fields + 1) * sizeof(pl->ops[0]));

	if (!pl)
		return NULL;
	pl->nr = 0;
	for (size_t i = 0; i < ev->nr_fields; i++) {
		const struct conv_field *f = &ev->fields[i];
		struct copy_op *last = pl->nr ? &pl->ops[pl->nr - 1] : NULL;

		if (f->kind == CONV_STRING || f->kind == CONV_SEQ) {
			pl->ops[pl->nr++] = (struct copy_op){ .field = (int)i };
		} else if (last && last->field < 0 && last->offset + last->size == f->offset) {
			last->size += f->size;
		} else {
			pl->ops[pl->nr++] = (struct copy_op){ .offset = f->offset, .size = f->size,
							      .field = -1 };
		}
	}
	return pl;
}

/* A __data_loc/__rel_loc field: a string up to its NUL, or a length and the elements. */
static void put_dynamic(struct ctf *c, struct conv_input *in, struct conv_event *ev,
			const struct conv_field *f, const unsigned char *rec, uint32_t size)
{
	uint32_t off, len;

	if (conv_loc(in, f, rec, size, &off, &len)) {
		conv_problem(c->cv, in, ev, "event %s:%s: field %s points outside its record; it "
			     "converts as empty", ev->system, ev->name, f->name);
		off = len = 0;
	}
	if (f->kind == CONV_STRING) {
		const unsigned char *nul = memchr(rec + off, 0, len);

		if (nul)
			len = (uint32_t)(nul - (rec + off));
		put(c, rec + off, len);
		c->buf[c->len++] = 0;
	} else {
		len -= len % f->elem_size;
		put32(c, len / f->elem_size);
		put(c, rec + off, len);
	}
}

/* One record into the packet; the room was reserved. */
static void put_record(struct ctf *c, struct packet *p, struct conv_input *in,
		       struct conv_event *ev, const struct copy_plan *pl,
		       const unsigned char *rec, uint32_t size, uint64_t ts)
{
	if (ev->id < ID_EXTENDED && ts >= p->last && ts - p->last <= UINT32_MAX) {
		put16(c, (uint16_t)ev->id);
		put32(c, (uint32_t)ts);
	} else {
		put16(c, ID_EXTENDED);
		put32(c, (uint32_t)ev->id);
		put64(c, ts);
	}
	p->last = p->end = ts;
	put32(c, (uint32_t)p->pid);
	put32(c, UINT32_MAX); /* pid: -1, unknown */
	put(c, p->comm, p->comm_len); /* looked up by the caller */

	if (ev->raw) {
		put32(c, size);
		put(c, rec, size);
		return;
	}
	for (size_t i = 0; i < pl->nr; i++) {
		const struct copy_op *op = &pl->ops[i];

		if (op->field < 0)
			put(c, rec + op->offset, op->size);
		else
			put_dynamic(c, in, ev, &ev->fields[op->field], rec, size);
	}
}

static void stream_name(struct ctf *c, struct conv_input *in, size_t b, uint32_t cpu, char *buf,
			size_t len)
{
	size_t n = 0;

	if (c->cv->nr_in > 1)
		n += (size_t)snprintf(buf + n, len - n, "in%u_", in->index);
	if (b) {
		/* an instance's name, as a file name */
		for (const char *s = in->td.buffers[b].name; *s && n < len - 24; s++)
			buf[n++] = (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
						   (*s >= '0' && *s <= '9') || *s == '-' ?
					   *s : '_';
		buf[n++] = '_';
	}
	snprintf(buf + n, len - n, "cpu%" PRIu32, cpu);
}

/* The event of a record and its plan: NULL when out of memory (said). */
static struct conv_event *record_event(struct ctf *c, struct conv_input *in,
				       const unsigned char *rec, uint32_t size,
				       const struct copy_plan **pl)
{
	uint16_t id = tracedat_u16(&in->td, rec);
	struct conv_event *ev = in->events[id];

	/* the common case first: an event with a format, a record of its size */
	if (!ev || ev->raw || size < ev->min_size || !c->plans[id]) {
		ev = conv_event(c->cv, in, rec, size);
		if (!ev)
			return NULL;
		if (!c->plans[id] && !(c->plans[id] = plan_new(ev))) {
			tool_error(c->cv->verb, "out of memory");
			return NULL;
		}
	}
	*pl = c->plans[id];
	return ev;
}

/*
 * The records of one page into packets: 0 and *records their count, or -1 (said; a damaged
 * record's reason in err for the caller to say).
 */
static int convert_page(struct ctf *c, struct packet *p, struct conv_input *in, struct td_page *pg,
			unsigned char **pad, uint64_t *records, char *err, size_t errlen)
{
	struct conv *cv = c->cv;
	const struct tracedat *td = &in->td;
	struct td_event e;
	bool first = true;
	int got;

	*records = 0;
	while ((got = tracedat_page_next(td, pg, &e, err, errlen)) == 1) {
		uint64_t ts = td->tsc_mult ? tracedat_ts(td, e.ts) : e.ts + (uint64_t)td->ts_offset;
		const unsigned char *rec = e.data;
		uint32_t size = e.size;
		const struct copy_plan *pl;
		struct conv_event *ev = record_event(c, in, rec, size, &pl);
		int pid;

		if (!ev)
			return -1;
		if (first || e.missed) {
			/* a page is a packet; a loss starts a packet, whose count then says it */
			first = false;
			if (packet_end(c, p))
				return -1;
			if (e.missed > 0 && !p->seq) {
				/*
				 * A reader counts what was lost between two packets: a loss before
				 * the first one needs an empty packet before it to count from.
				 */
				if (packet_start(c, p, ts) || packet_end(c, p))
					return -1;
			}
			if (e.missed > 0)
				p->discarded += (uint64_t)e.missed;
			if (packet_start(c, p, ts))
				return -1;
		}
		if (ts < p->end) {
			/* a reader's clock cannot run back within a stream: say it, keep order */
			conv_problem(cv, in, NULL, "CPU %" PRIu32 ": a record's time goes back "
				     "from %" PRIu64 " to %" PRIu64 " ns; it keeps the earlier time",
				     p->cpu, p->end, ts);
			ts = p->end;
		}
		if (!ev->raw && size < ev->min_size) {
			/* too short for its format (said): its missing bytes read as zeros */
			free(*pad);
			*pad = calloc(1, ev->min_size);
			if (!*pad)
				goto oom;
			memcpy(*pad, rec, size);
			rec = *pad;
			size = ev->min_size;
		}
		pid = conv_pid(in, rec);
		if (pid != p->pid || !p->comm) {
			p->pid = pid;
			p->comm = conv_comm(in, pid);
			p->comm_len = strlen(p->comm) + 1;
		}
		/* at worst every dynamic field spans the whole record */
		if (reserve(c, 64 + p->comm_len + size + ev->nr_fields * ((size_t)size + 8)))
			goto oom;
		put_record(c, p, in, ev, pl, rec, size, ts);
		ev->count++;
		++*records;
	}
	if (got < 0) {
		tool_error(cv->verb, "%s", err);
		return -1;
	}
	return 0;
oom:
	tool_error(cv->verb, "out of memory");
	return -1;
}

static int write_stream(struct ctf *c, struct conv_input *in, size_t b, uint32_t cpu,
			unsigned char *pages, uint64_t run)
{
	struct conv *cv = c->cv;
	const struct tracedat *td = &in->td;
	const struct td_cpu *tc = &td->buffers[b].cpus[cpu];
	struct packet p = { .cpu = cpu, .stream_id = in->index, .pid = -1 };
	unsigned char *pad = NULL;
	char name[128], err[512];
	int ret = -1;

	stream_name(c, in, b, cpu, name, sizeof(name));
	c->name = name;
	c->len = c->packet = 0;
	c->written = c->writeback = 0;
	c->fd = openat(c->dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (c->fd < 0) {
		tool_error(cv->verb, "%s/%s: %s", c->dirname, name, strerror(errno));
		return -1;
	}
	for (uint64_t first = 0; first < tc->nr_pages; first += run) {
		uint64_t n = tc->nr_pages - first < run ? tc->nr_pages - first : run;

		if (tracedat_read_pages(td, b, cpu, first, n, pages, err, sizeof(err)))
			goto bad;
		for (uint64_t i = 0; i < n; i++) {
			struct td_page pg;
			uint64_t records;

			if (tracedat_page_begin(td, b, cpu, first + i, pages + i * td->page_size,
						&pg, err, sizeof(err)))
				goto bad;
			if (convert_page(c, &p, in, &pg, &pad, &records, err, sizeof(err)))
				goto out;
			if (conv_tick_page(cv, records))
				goto out;
		}
	}
	if (packet_end(c, &p) || out_flush(c, true))
		goto out;
	if (fsync(c->fd) && errno != EINVAL) {
		tool_error(cv->verb, "%s/%s: %s", c->dirname, name, strerror(errno));
		goto out;
	}
	ret = 0;
	goto out;
bad:
	tool_error(cv->verb, "%s", err);
out:
	free(pad);
	if (close(c->fd) && !ret) {
		tool_error(cv->verb, "%s/%s: %s", c->dirname, name, strerror(errno));
		ret = -1;
	}
	c->fd = -1;
	c->instance++;
	return ret;
}

/* ---- the metadata ------------------------------------------------------------------- */

static void tsdl_string(FILE *f, const char *s)
{
	putc('"', f);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20 || ch >= 0x7f)
			fprintf(f, "\\x%02x", ch);
		else
			putc(ch, f);
	}
	putc('"', f);
}

/* A field name as a TSDL identifier; the leading '_' is the one readers take off. */
static void tsdl_ident(FILE *f, const char *prefix, const char *s)
{
	fputs(prefix, f);
	for (; *s; s++)
		putc((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		     (*s >= '0' && *s <= '9') || *s == '_' ? *s : '_', f);
}

static void tsdl_int(FILE *f, uint32_t bytes, bool is_signed, int base, bool big_endian)
{
	/* a reader shows a signed integer in hex as its two's complement: -5 as 0xFFFFFFFB */
	if (is_signed)
		base = 10;
	fprintf(f, "integer { size = %u; align = 8; signed = %s; base = %d; byte_order = %s; }",
		bytes * 8, is_signed ? "true" : "false", base, big_endian ? "be" : "le");
}

/* Whether a symbol's value fits the field: a CTF enumeration refuses one that does not. */
static bool sym_fits(const struct conv_field *fd, unsigned long long v)
{
	unsigned int bits = fd->size * 8;

	if (bits >= 64)
		return true;
	if (fd->is_signed) {
		long long s = (long long)v, lim = 1LL << (bits - 1);

		return s >= -lim && s < lim;
	}
	return v < (1ULL << bits);
}

static void tsdl_field(FILE *f, const struct conv_input *in, const struct conv_field *fd)
{
	bool be = in->td.big_endian;

	fputs("\t\t", f);
	switch (fd->kind) {
	case CONV_INT:
		if (fd->symbolic && fd->nr_syms) {
			size_t n = 0;

			fputs("enum : ", f);
			tsdl_int(f, fd->size, fd->is_signed, fd->base, be);
			fputs(" {", f);
			for (size_t i = 0; i < fd->nr_syms; i++) {
				bool dup = false;

				for (size_t k = 0; k < i; k++)
					dup |= !strcmp(fd->syms[k].str, fd->syms[i].str);
				if (dup || !sym_fits(fd, fd->syms[i].value))
					continue;
				fputs(n++ ? ", " : " ", f);
				tsdl_string(f, fd->syms[i].str);
				if (fd->is_signed)
					fprintf(f, " = %lld", (long long)fd->syms[i].value);
				else
					fprintf(f, " = %llu", fd->syms[i].value);
			}
			fputs(" } ", f);
		} else {
			tsdl_int(f, fd->size, fd->is_signed, fd->base, be);
			putc(' ', f);
		}
		tsdl_ident(f, "_", fd->name);
		break;
	case CONV_CHARS:
		fputs("integer { size = 8; align = 8; signed = false; encoding = UTF8; } ", f);
		tsdl_ident(f, "_", fd->name);
		fprintf(f, "[%u]", fd->count);
		break;
	case CONV_ARRAY:
	case CONV_BYTES:
		tsdl_int(f, fd->elem_size, fd->is_signed, fd->kind == CONV_BYTES ? 16 : fd->base,
			 be);
		putc(' ', f);
		tsdl_ident(f, "_", fd->name);
		fprintf(f, "[%u]", fd->count);
		break;
	case CONV_STRING:
		fputs("string ", f);
		tsdl_ident(f, "_", fd->name);
		break;
	case CONV_SEQ:
		fputs("uint32_t ", f);
		tsdl_ident(f, "__", fd->name);
		fputs("_length;\n\t\t", f);
		tsdl_int(f, fd->elem_size, fd->is_signed, fd->base, be);
		putc(' ', f);
		tsdl_ident(f, "_", fd->name);
		putc('[', f);
		tsdl_ident(f, "__", fd->name);
		fputs("_length]", f);
		break;
	}
	fputs(";\n", f);
}

static void uuid_text(const unsigned char *u, char *buf)
{
	sprintf(buf, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12],
		u[13], u[14], u[15]);
}

static int write_metadata(struct ctf *c)
{
	struct conv *cv = c->cv;
	bool mono = !*c->clock || !strcmp(c->clock, "mono");
	char uuid[40], host[256] = "";
	int fd;
	FILE *f;

	fd = openat(c->dirfd, "metadata", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		    0644);
	f = fd < 0 ? NULL : fdopen(fd, "w");
	if (!f) {
		tool_error(cv->verb, "%s/metadata: %s", c->dirname, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	uuid_text(c->uuid, uuid);
	fprintf(f, "/* CTF 1.8 */\n\n"
		"typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
		"typealias integer { size = 16; align = 8; signed = false; } := uint16_t;\n"
		"typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
		"typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n"
		"typealias integer { size = 32; align = 8; signed = true; } := int32_t;\n\n"
		"trace {\n\tmajor = 1;\n\tminor = 8;\n\tuuid = \"%s\";\n\tbyte_order = %s;\n"
		"\tpacket.header := struct {\n\t\tuint32_t magic;\n\t\tuint8_t uuid[16];\n"
		"\t\tuint32_t stream_id;\n\t\tuint64_t stream_instance_id;\n\t};\n};\n\n",
		uuid, __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ? "be" : "le");
	gethostname(host, sizeof(host) - 1);
	fputs("env {\n\ttracer_name = \"tpoint\";\n\ttracer_version = ", f);
	tsdl_string(f, TPOINT_VERSION);
	fputs(";\n\thostname = ", f);
	tsdl_string(f, host);
	fputs(";\n\tinput = ", f);
	tsdl_string(f, cv->in[0].file);
	fputs(";\n\ttrace_clock = ", f);
	tsdl_string(f, *c->clock ? c->clock : "mono");
	fputs(";\n};\n\n", f);
	if (mono)
		fprintf(f, "clock {\n\tname = \"monotonic\";\n\tuuid = \"%s\";\n"
			"\tdescription = \"CLOCK_MONOTONIC, ns since the machine booted\";\n"
			"\tfreq = 1000000000;\n\tprecision = 1;\n\toffset_s = 0;\n\toffset = 0;\n"
			"\tabsolute = false;\n};\n\n", monotonic_uuid);
	else {
		/* another trace clock: a class of its own name, which lines up with nothing */
		fputs("clock {\n\tname = ", f);
		tsdl_ident(f, "", c->clock);
		fputs(";\n\tdescription = ", f);
		tsdl_string(f, c->clock);
		fputs(";\n\tfreq = 1000000000;\n\tprecision = 1;\n\toffset_s = 0;\n"
		      "\toffset = 0;\n\tabsolute = false;\n};\n\n", f);
	}
	for (int bits = 32; bits <= 64; bits += 32) {
		fprintf(f, "typealias integer { size = %d; align = 8; signed = false; map = clock.",
			bits);
		tsdl_ident(f, "", mono ? "monotonic" : c->clock);
		fprintf(f, ".value; } := uint%d_clock_t;\n", bits);
	}
	putc('\n', f);
	for (size_t i = 0; i < cv->nr_in; i++) {
		struct conv_input *in = &cv->in[i];

		fprintf(f, "stream {\n\tid = %zu;\n"
			"\tpacket.context := struct {\n"
			"\t\tuint64_clock_t timestamp_begin;\n\t\tuint64_clock_t timestamp_end;\n"
			"\t\tuint64_t content_size;\n\t\tuint64_t packet_size;\n"
			"\t\tuint64_t packet_seq_num;\n\t\tuint64_t events_discarded;\n"
			"\t\tuint32_t cpu_id;\n\t};\n"
			"\tevent.header := struct {\n"
			"\t\tenum : uint16_t { compact = 0 ... 65534, extended = 65535 } id;\n"
			"\t\tvariant <id> {\n"
			"\t\t\tstruct { uint32_clock_t timestamp; } compact;\n"
			"\t\t\tstruct { uint32_t id; uint64_clock_t timestamp; } extended;\n"
			"\t\t} v;\n\t};\n"
			"\tevent.context := struct {\n\t\tint32_t _tid;\n\t\tint32_t _pid;\n"
			"\t\tstring _comm;\n\t};\n};\n\n", i);
		for (int id = 0; id < 0x10000; id++) {
			struct conv_event *ev = in->events[id];
			char label[600];

			if (!ev)
				continue;
			snprintf(label, sizeof(label), "%s:%s", ev->system, ev->name);
			fputs("event {\n\tname = ", f);
			tsdl_string(f, label);
			fprintf(f, ";\n\tid = %d;\n\tstream_id = %zu;\n\tfields := struct {\n", id, i);
			if (ev->raw)
				fputs("\t\tuint32_t __raw_length;\n"
				      "\t\tuint8_t _raw[__raw_length];\n", f);
			for (size_t k = 0; !ev->raw && k < ev->nr_fields; k++)
				tsdl_field(f, in, &ev->fields[k]);
			fputs("\t};\n};\n\n", f);
		}
	}
	if (fflush(f) || ferror(f) || fsync(fd)) {
		tool_error(cv->verb, "%s/metadata: writing: %s", c->dirname, strerror(errno));
		fclose(f);
		return -1;
	}
	if (fclose(f)) {
		tool_error(cv->verb, "%s/metadata: writing: %s", c->dirname, strerror(errno));
		return -1;
	}
	return 0;
}

int ctf_write(struct conv *cv, int dirfd, const char *dirname)
{
	struct ctf c = { .cv = cv, .dirfd = dirfd, .dirname = dirname, .fd = -1 };
	int ret = -1;

	c.clock = cv->in[0].td.clock;
	for (size_t i = 0; i < cv->nr_in; i++) {
		struct tracedat *td = &cv->in[i].td;

		if (strcmp(td->clock, c.clock) &&
		    !(!strcmp(td->clock, "mono") && !*c.clock) &&
		    !(!*td->clock && !strcmp(c.clock, "mono"))) {
			tool_error(cv->verb, "%s: recorded with the %s clock, %s with the %s clock: "
				   "their times cannot share one clock class", td->name,
				   *td->clock ? td->clock : "mono", cv->in[0].file,
				   *c.clock ? c.clock : "mono");
			return -1;
		}
		if (!td->ts_in_ns)
			tool_error(cv->verb, "%s: note: its times are %s clock counts, not ns; the "
				   "CTF clock says 1 GHz all the same", td->name, td->clock);
	}
	if (getrandom(c.uuid, sizeof(c.uuid), 0) != sizeof(c.uuid)) {
		for (size_t i = 0; i < sizeof(c.uuid); i++)
			c.uuid[i] = (unsigned char)rand();
	}
	c.uuid[6] = (c.uuid[6] & 0x0f) | 0x40; /* a random (version 4) UUID */
	c.uuid[8] = (c.uuid[8] & 0x3f) | 0x80;
	c.plans = calloc(0x10000, sizeof(*c.plans));
	if (!c.plans)
		goto oom;
	for (size_t i = 0; i < cv->nr_in; i++) {
		struct tracedat *td = &cv->in[i].td;
		/* whole pages, at least one, whatever their size */
		uint64_t run = READ_RUN / td->page_size ? READ_RUN / td->page_size : 1;
		unsigned char *pages = malloc(run * td->page_size);

		if (!pages)
			goto oom;
		for (size_t b = 0; b < td->nr_buffers; b++) {
			for (uint32_t cpu = 0; cpu < td->nr_cpus; cpu++) {
				if (td->buffers[b].cpus[cpu].nr_pages &&
				    write_stream(&c, &cv->in[i], b, cpu, pages, run)) {
					free(pages);
					goto out;
				}
			}
		}
		free(pages);
		/* the next input's ids are its own */
		for (size_t id = 0; id < 0x10000; id++) {
			free(c.plans[id]);
			c.plans[id] = NULL;
		}
	}
	conv_progress_end(cv);
	ret = write_metadata(&c);
	goto out;
oom:
	tool_error(cv->verb, "out of memory");
out:
	conv_progress_end(cv);
	for (size_t id = 0; c.plans && id < 0x10000; id++)
		free(c.plans[id]);
	free(c.plans);
	free(c.buf);
	return ret;
}
