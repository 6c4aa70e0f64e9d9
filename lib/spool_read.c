/* SPDX-License-Identifier: MIT */
/* The spool reader: see spool_read.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "crc32c.h"
#include "pack.h"
#include "ringbuf.h"
#include "spool_read.h"

int tp_spool_header_check(const void *bytes, size_t len, size_t *at, char *why, size_t whylen)
{
	const struct spool_file_header *h = bytes;

	*at = 0;
	if (len < sizeof(*h)) {
		snprintf(why, whylen, "%zu bytes, too short for a spool's header (%zu bytes)", len,
			 sizeof(*h));
		return -1;
	}
	if (memcmp(h->magic, SPOOL_MAGIC, sizeof(SPOOL_MAGIC))) {
		snprintf(why, whylen, "not a tpoint spool (no \"%s\" magic)", SPOOL_MAGIC);
		return -1;
	}
	if (h->version != SPOOL_VERSION) {
		*at = offsetof(struct spool_file_header, version);
		if (h->version && h->version < SPOOL_VERSION)
			snprintf(why, whylen, "spool version %u, written by an older tpoint (this "
				 "one reads version %u, whose chunks have checksums): read it with "
				 "the tpoint that wrote it", h->version, SPOOL_VERSION);
		else
			snprintf(why, whylen, "spool version %u, expected %u", h->version,
				 SPOOL_VERSION);
		return -1;
	}
	if (h->crc != tp_spool_header_crc(h)) {
		*at = offsetof(struct spool_file_header, crc);
		snprintf(why, whylen, "the spool's header is damaged (its checksum is 0x%08x, "
			 "its bytes' 0x%08x): nothing in it is read", h->crc,
			 tp_spool_header_crc(h));
		return -1;
	}
	return 0;
}

uint32_t tp_spool_header_crc(const struct spool_file_header *h)
{
	struct spool_file_header z = *h;

	z.crc = 0;
	return tp_crc32c(0, &z, sizeof(z));
}

uint32_t tp_spool_chunk_crc(const struct spool_chunk *c, const void *a, size_t alen,
			    const void *b, size_t blen)
{
	struct spool_chunk z = *c;
	uint32_t crc;

	z.crc = 0;
	crc = tp_crc32c(0, &z, sizeof(z));
	crc = tp_crc32c(crc, a, alen);
	return blen ? tp_crc32c(crc, b, blen) : crc;
}

int tp_spool_chunk_check(const struct spool_chunk *c, const void *body, uint64_t left,
			 char *why, size_t whylen)
{
	uint32_t crc;

	if (c->size > SPOOL_CHUNK_MAX) {
		snprintf(why, whylen, "%s chunk (type %u) of %u bytes, more than any (%u): "
			 "damage; the %llu bytes from here to the end are not read",
			 tp_spool_chunk_name(c->type), c->type, c->size, SPOOL_CHUNK_MAX,
			 (unsigned long long)left);
		return -1;
	}
	crc = tp_spool_chunk_crc(c, body, ((size_t)c->size + 7u) & ~(size_t)7u, NULL, 0);
	if (crc != c->crc) {
		snprintf(why, whylen, "%s chunk (type %u) of %u bytes with checksum 0x%08x, its "
			 "bytes' 0x%08x: damage; the %llu bytes from here to the end are not read",
			 tp_spool_chunk_name(c->type), c->type, c->size, c->crc, crc,
			 (unsigned long long)left);
		return -1;
	}
	return 0;
}

const char *tp_spool_chunk_name(uint32_t type)
{
	static const char *const names[] = {
		[SPOOL_EVENT] = "event", [SPOOL_COMM] = "thread name", [SPOOL_CLOCK] = "clock",
		[SPOOL_RECORDS] = "records", [SPOOL_STATS] = "counts", [SPOOL_END] = "end",
		[SPOOL_PAGE] = "page", [SPOOL_PAGE_PACKED] = "packed page",
		[SPOOL_SYNCED] = "synced", [SPOOL_NOTES] = "notes",
		[SPOOL_TRACING] = "tracing_on",
	};

	return type < sizeof(names) / sizeof(names[0]) && names[type] ? names[type] : "unknown";
}

int tp_spool_records_check(uint32_t type, const struct spool_records *r, uint32_t size, char *why,
			   size_t whylen)
{
	if (!r || size < sizeof(*r)) {
		snprintf(why, whylen, "%s chunk of %u bytes, shorter than its header (%zu)",
			 tp_spool_chunk_name(type), size, sizeof(*r));
		return -1;
	}
	if (r->cpu >= SPOOL_MAX_CPUS) {
		snprintf(why, whylen, "%s chunk of CPU %u (at most %u)", tp_spool_chunk_name(type),
			 r->cpu, SPOOL_MAX_CPUS - 1);
		return -1;
	}
	if (type == SPOOL_PAGE &&
	    (r->end_off < r->start_off || r->end_off - r->start_off != size - sizeof(*r))) {
		snprintf(why, whylen, "page chunk of %u bytes says it holds bytes %u..%u of a page",
			 size, r->start_off, r->end_off);
		return -1;
	}
	return 0;
}

/* The NUL-terminated string at *p, or NULL if it runs past end. */
static const char *next_string(const char **p, const char *end)
{
	const char *s = *p;
	const char *nul = s && s < end ? memchr(s, 0, (size_t)(end - s)) : NULL;

	*p = nul ? nul + 1 : NULL;
	return nul ? s : NULL;
}

/*
 * Only printable ASCII (and, where allowed, tabs and newlines): the names and conditions
 * become lines of a trace.dat's options and formats, and libtraceevent takes any other byte
 * of a format text as its end (the reader of `tpoint report` refuses such a file).
 */
static bool plain_text(const char *s, bool layout)
{
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if ((ch < 0x20 || ch > 0x7e) && !(layout && (ch == '\t' || ch == '\n')))
			return false;
	}
	return true;
}

/* u16 id, u16 0, then system\0 name\0 condition\0 format\0. */
static int decode_event(const char *p, uint32_t size, struct spool_event_def *e)
{
	const char *end = p + size;

	if (size < 8)
		return -1;
	memcpy(&e->id, p, 2);
	p += 4;
	e->system = next_string(&p, end);
	e->name = next_string(&p, end);
	e->condition = next_string(&p, end);
	e->format = next_string(&p, end);
	if (!e->system || !e->name || !e->condition || !e->format || e->id < TPOINT_FIRST_ID)
		return -1;
	if (!plain_text(e->system, false) || !plain_text(e->name, false) ||
	    !plain_text(e->condition, false) || !plain_text(e->format, true))
		return -1;
	/* As the library makes them: the writers size their lines by this. */
	if (strlen(e->system) >= TPOINT_NAME_MAX || strlen(e->name) >= TPOINT_NAME_MAX)
		return -1;
	return strstr(e->format, "format:") ? 0 : -1;
}

/* The payload of a whole chunk, checked for what its type says. */
static enum spool_step decode_chunk(struct spool_item *it, char *why, size_t whylen)
{
	const char *body = it->body;
	uint32_t size = it->size;

	switch (it->type) {
	case SPOOL_EVENT:
		if (decode_event(body, size, &it->event) == 0)
			return SPOOL_STEP_CHUNK;
		snprintf(why, whylen, "event chunk of %u bytes: not an id and four strings of "
			 "printable text (system, name, condition, format), names of at most %u "
			 "characters", size, TPOINT_NAME_MAX - 1);
		return SPOOL_STEP_BAD;
	case SPOOL_COMM:
		if (size > 4 && memchr(body + 4, 0, size - 4)) {
			memcpy(&it->comm.tid, body, 4);
			it->comm.name = body + 4;
			return SPOOL_STEP_CHUNK;
		}
		snprintf(why, whylen, "thread name chunk of %u bytes: no thread id and name", size);
		return SPOOL_STEP_BAD;
	case SPOOL_CLOCK:
		if (size == sizeof(it->clock)) {
			memcpy(&it->clock, body, sizeof(it->clock));
			return SPOOL_STEP_CHUNK;
		}
		snprintf(why, whylen, "clock chunk of %u bytes, expected %zu", size,
			 sizeof(it->clock));
		return SPOOL_STEP_BAD;
	case SPOOL_STATS:
	case SPOOL_NOTES: {
		size_t each = it->type == SPOOL_STATS ? sizeof(struct spool_stat) :
							sizeof(struct spool_note);

		if (size % each == 0) {
			it->count = size / each;
			return SPOOL_STEP_CHUNK;
		}
		snprintf(why, whylen, "%s chunk of %u bytes, not a multiple of %zu",
			 tp_spool_chunk_name(it->type), size, each);
		return SPOOL_STEP_BAD;
	}
	case SPOOL_SYNCED:
		if (size == 8) {
			memcpy(&it->synced, body, 8);
			return SPOOL_STEP_CHUNK;
		}
		snprintf(why, whylen, "synced chunk of %u bytes, expected 8", size);
		return SPOOL_STEP_BAD;
	case SPOOL_END:
		return SPOOL_STEP_CHUNK;
	case SPOOL_TRACING: /* an index, then at least one clock reading */
		if (size >= 16 && size % 8 == 0) {
			it->count = size / 8 - 1;
			return SPOOL_STEP_CHUNK;
		}
		snprintf(why, whylen, "tracing_on chunk of %u bytes, expected an index and "
			 "clock readings (8 bytes each)", size);
		return SPOOL_STEP_BAD;
	case SPOOL_RECORDS:
	case SPOOL_PAGE:
	case SPOOL_PAGE_PACKED:
		it->records = size >= sizeof(*it->records) ? (const void *)body : NULL;
		return tp_spool_records_check(it->type, it->records, size, why, whylen) ?
			       SPOOL_STEP_BAD : SPOOL_STEP_CHUNK;
	default:
		snprintf(why, whylen, "chunk of unknown type %u (%u bytes)", it->type, size);
		return SPOOL_STEP_BAD;
	}
}

enum spool_step tp_spool_next(struct spool_walk *w, struct spool_item *item, char *why,
			      size_t whylen)
{
	struct spool_chunk c;
	size_t left = w->off < w->len ? w->len - w->off : 0;
	uint64_t span, file_left;

	memset(item, 0, sizeof(*item));
	item->off = w->off;
	if (!left)
		return SPOOL_STEP_END;
	if (left < sizeof(c)) {
		snprintf(why, whylen, "%zu bytes after the last chunk, too few for a chunk", left);
		return SPOOL_STEP_CUT;
	}
	memcpy(&c, w->bytes + w->off, sizeof(c));
	item->type = c.type;
	item->size = c.size;
	file_left = w->file_len > w->off ? w->file_len - w->off : left;
	if (c.size > SPOOL_CHUNK_MAX) {
		tp_spool_chunk_check(&c, NULL, file_left, why, whylen);
		return SPOOL_STEP_DAMAGED;
	}
	span = tp_spool_chunk_span(&c, left);
	if (!span) {
		snprintf(why, whylen, "%s chunk (type %u) of %u bytes, but the file has %zu left: "
			 "the last %zu bytes are not read", tp_spool_chunk_name(c.type), c.type,
			 c.size, left - sizeof(c), left);
		return SPOOL_STEP_CUT;
	}
	item->body = w->bytes + w->off + sizeof(c);
	if (tp_spool_chunk_check(&c, item->body, file_left, why, whylen))
		return SPOOL_STEP_DAMAGED;
	w->off += span;
	return decode_chunk(item, why, whylen);
}

/* ---- records ---- */

void tp_spool_iter_init(struct spool_iter *it, uint32_t type, const char *body, uint32_t size,
			char *unpacked)
{
	const struct spool_records *h = (const void *)body;

	it->p = body + sizeof(*h);
	it->end = body + size;
	it->raw = type == SPOOL_PAGE || type == SPOOL_PAGE_PACKED;
	it->damaged = false;
	if (size < sizeof(*h)) {
		it->p = it->end;
		it->damaged = true;
		return;
	}
	it->clock = h->clock;
	if (type == SPOOL_PAGE_PACKED) {
		uint32_t n = h->end_off - h->start_off;

		/* Damaged (a range no page has, a packing of something else): no records. */
		if (!unpacked || h->end_off < h->start_off || n > SPOOL_UNPACKED_MAX ||
		    tp_pack_decode((const uint8_t *)it->p, size - sizeof(*h), n, h->lag,
				   (uint8_t *)unpacked) < 0) {
			it->p = it->end;
			it->damaged = true;
			return;
		}
		it->p = unpacked;
		it->end = unpacked + n;
	}
}

int tp_spool_iter_next(struct spool_iter *it, uint64_t *clock, const char **data, uint32_t *size)
{
	const struct spool_record *r = (const void *)it->p;

	if (it->raw) {
		if (!tp_rb_next(&it->p, it->end, &it->clock, data, size))
			return 0;
		*clock = it->clock;
		return 1;
	}
	if (it->p + sizeof(*r) > it->end || r->size < 8 ||
	    r->size > (size_t)(it->end - it->p) - sizeof(*r) || r->size > TPOINT_MAX_PAYLOAD ||
	    r->size % 8)
		return 0; /* damaged: what follows cannot be found */
	*clock = r->clock;
	*data = it->p + sizeof(*r);
	*size = r->size;
	it->p += sizeof(*r) + r->size;
	return 1;
}

/* ---- time ---- */

void tp_spool_clock_init(struct spool_clock *c, const struct spool_file_header *h, size_t max)
{
	memset(c, 0, sizeof(*c));
	c->identity = !strncmp(h->clock_name, "mono", sizeof(h->clock_name));
	c->max = max;
	c->sorted = true;
}

static int cmp_sample(const void *a, const void *b)
{
	const struct clock_sample *x = a, *y = b;

	return x->clock < y->clock ? -1 : x->clock > y->clock;
}

/* In clock order, each clock once (the first sample of it). */
static void settle(struct spool_clock *c)
{
	size_t kept = 0;

	if (c->sorted)
		return;
	qsort(c->samples, c->n, sizeof(*c->samples), cmp_sample);
	for (size_t i = 0; i < c->n; i++)
		if (!kept || c->samples[i].clock != c->samples[kept - 1].clock)
			c->samples[kept++] = c->samples[i];
	c->n = kept;
	c->sorted = true;
}

int tp_spool_clock_add(struct spool_clock *c, struct clock_sample s)
{
	if (c->n && c->sorted && s.clock == c->samples[c->n - 1].clock)
		return 0;
	if (c->max && c->n >= c->max) {
		/* Keep the first (the long baseline for anything older) and the newer half. */
		settle(c);
		memmove(c->samples + 1, c->samples + 1 + c->n / 2,
			(c->n - 1 - c->n / 2) * sizeof(*c->samples));
		c->n -= c->n / 2;
	}
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 64;
		struct clock_sample *n;

		if (c->max && cap > c->max)
			cap = c->max;
		n = realloc(c->samples, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		c->samples = n;
		c->cap = cap;
	}
	/* Samples come nearly in order (a live reader's own and the spool's interleave): they
	 * are sorted when next needed. */
	if (c->n && s.clock <= c->samples[c->n - 1].clock)
		c->sorted = false;
	c->samples[c->n++] = s;
	return 0;
}

uint64_t tp_spool_clock_ns(struct spool_clock *c, uint64_t raw)
{
	const struct clock_sample *lo, *hi;
	__int128 ns;

	if (c->identity || !c->n)
		return raw;
	settle(c);
	lo = &c->samples[0];
	hi = &c->samples[c->n - 1];
	if (c->n == 1) {
		ns = (__int128)lo->mono + (int64_t)(raw - lo->clock);
	} else {
		if (raw > lo->clock && raw < hi->clock) {
			size_t a = 0, b = c->n - 1;

			while (b - a > 1) {
				size_t m = a + (b - a) / 2;

				if (c->samples[m].clock <= raw)
					a = m;
				else
					b = m;
			}
			lo = &c->samples[a];
			hi = &c->samples[b];
		}
		/* Settled: hi->clock > lo->clock. */
		ns = (__int128)lo->mono + (__int128)(int64_t)(raw - lo->clock) *
						  (int64_t)(hi->mono - lo->mono) /
						  (__int128)(hi->clock - lo->clock);
	}
	return ns < 0 ? 0 : ns > (__int128)UINT64_MAX ? UINT64_MAX : (uint64_t)ns;
}

void tp_spool_clock_free(struct spool_clock *c)
{
	free(c->samples);
	c->samples = NULL;
	c->n = c->cap = 0;
}
