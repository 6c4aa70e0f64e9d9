/* SPDX-License-Identifier: MIT */
/*
 * hist_table.c - a histogram's entries (see hist.h), in memory mapped once.
 *
 * Like the kernel's tracing_map: 1 << map_bits entries and twice as many hash slots (so the
 * open addressing never runs more than half full and a probe always ends), a key made of the
 * keys' values side by side (each in a room that is a multiple of 8 bytes: a number as a u64,
 * a string cut to its room less one byte and padded with NULs), and one u64 sum per value,
 * hitcount first. An entry is never removed, only the whole table cleared. A hit whose key is
 * new when every entry is taken is counted in `drops`; any other counted hit in `hits`, as
 * tracing_map_insert() counts them.
 *
 * One thread updates a table; nothing here locks. tp_hist_table_merge() adds a table into
 * another, for the per-thread tables of a program, and may read a table while its thread
 * goes on hitting it: the writer makes an entry whole (key, name) before it publishes the
 * count of entries with a release store, and every counter is stored as a relaxed atomic
 * (on x86-64 and arm64 the same plain load, add and store as without), so that the reader,
 * loading the count with acquire, sees whole keys and sums at most a few hits behind.
 * Clearing is the writer's own business (the reader must not read a table being cleared).
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include "hist.h"

/* A counter that only its thread writes and other threads may read (see the top). */
static inline void bump(uint64_t *c, uint64_t v)
{
	__atomic_store_n(c, __atomic_load_n(c, __ATOMIC_RELAXED) + v, __ATOMIC_RELAXED);
}

static inline uint64_t peek(const uint64_t *c)
{
	return __atomic_load_n(c, __ATOMIC_RELAXED);
}

struct hist_table {
	const struct hist_spec *spec;
	size_t bytes;       /* of its mapping */
	bool one_num_key;   /* one numeric key, no filter, no .execname: tp_hist_hit()'s fast way */
	bool one_str_key;   /* one string key, no filter, no .execname: another */
	bool plain_vals;    /* every value a field as it is (no modifier, no expression) */
	uint32_t max_elts;  /* entries */
	uint32_t nslots;    /* hash slots: 2 * max_elts */
	uint32_t n;         /* entries used */
	bool paused;
	uint64_t hits, drops;
	/*
	 * Per slot: the key hash's high 32 bits, then the entry index + 1 (0: free). A probe
	 * reads the slots alone, and an entry's key only when the hash bits agree.
	 */
	uint64_t *slots;
	unsigned char *keys;  /* max_elts * spec->key_size */
	uint64_t *sums;       /* max_elts * spec->nvals */
	char *comms;          /* max_elts * HIST_COMM_LEN, when a key has .execname */
};

static bool has_execname(const struct hist_spec *s)
{
	for (unsigned i = 0; i < s->nkeys; i++)
		if (s->keys[i].mods & HIST_MOD_EXECNAME)
			return true;
	return false;
}

/* Rounded up to 64 bytes: each array of the table starts on a cache line of its own. */
static size_t line_up(size_t n)
{
	return (n + 63) & ~(size_t)63;
}

static size_t table_bytes(const struct hist_spec *spec, size_t max)
{
	return line_up(sizeof(struct hist_table)) + line_up(2 * max * sizeof(uint64_t)) +
	       line_up(max * spec->key_size) + line_up(max * spec->nvals * sizeof(uint64_t)) +
	       (has_execname(spec) ? line_up(max * HIST_COMM_LEN) : 0);
}

/*
 * One anonymous mapping for all of it: zeroed by the kernel, touched page by page as entries
 * are used (a program's per-thread tables cost what their keys fill, not 1 << map_bits
 * entries each), and async-signal-safe, as a thread's first hit may be in a handler.
 */
struct hist_table *tp_hist_table_new_with(const struct hist_spec *spec, size_t extra,
					  void **extra_out)
{
	size_t max = (size_t)1 << spec->map_bits, bytes = table_bytes(spec, max);
	char *mem = mmap(NULL, bytes + extra, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct hist_table *t;
	size_t at = line_up(sizeof(*t));

	if (mem == MAP_FAILED) {
		errno = ENOMEM;
		return NULL;
	}
	t = (struct hist_table *)(void *)mem;
	t->spec = spec;
	t->bytes = bytes + extra;
	t->max_elts = (uint32_t)max;
	t->nslots = (uint32_t)(2 * max);
	t->slots = (uint64_t *)(void *)(mem + at);
	at += line_up(2 * max * sizeof(uint64_t));
	t->keys = (unsigned char *)(mem + at);
	at += line_up(max * spec->key_size);
	t->sums = (uint64_t *)(void *)(mem + at);
	at += line_up(max * spec->nvals * sizeof(uint64_t));
	t->comms = has_execname(spec) ? mem + at : NULL;
	t->one_num_key = spec->nkeys == 1 && spec->key_size == 8 && !spec->filter &&
			 !has_execname(spec) && spec->keys[0].src != HIST_SRC_STR_ARRAY &&
			 spec->keys[0].src != HIST_SRC_STR_DYN;
	t->plain_vals = true;
	for (unsigned i = 1; i < spec->nvals; i++)
		if (spec->vals[i].src != HIST_SRC_NUM || spec->vals[i].mods)
			t->plain_vals = false;
	t->one_str_key = spec->nkeys == 1 && !spec->filter && !has_execname(spec) &&
			 (spec->keys[0].src == HIST_SRC_STR_ARRAY ||
			  spec->keys[0].src == HIST_SRC_STR_DYN);
	if (extra_out)
		*extra_out = mem + bytes;
	return t;
}

struct hist_table *tp_hist_table_new(const struct hist_spec *spec)
{
	return tp_hist_table_new_with(spec, 0, NULL);
}

void tp_hist_table_free(struct hist_table *t)
{
	if (t)
		munmap(t, t->bytes);
}

/* A record's integer field, as the kernel's hist_field_{s,u}{8,16,32,64} read it. */
static inline __attribute__((always_inline)) uint64_t read_num(const struct hist_field *f, const struct hist_hit *h)
{
	const unsigned char *p = (const unsigned char *)h->rec + f->offset;

	if ((uint32_t)f->offset + f->size > h->size)
		return 0;
	switch (f->size) {
	case 1: {
		uint8_t v = p[0];

		return f->is_signed ? (uint64_t)(int64_t)(int8_t)v : v;
	}
	case 2: {
		uint16_t v;

		memcpy(&v, p, 2);
		return f->is_signed ? (uint64_t)(int64_t)(int16_t)v : v;
	}
	case 4: {
		uint32_t v;

		memcpy(&v, p, 4);
		return f->is_signed ? (uint64_t)(int64_t)(int32_t)v : v;
	}
	default: {
		uint64_t v;

		memcpy(&v, p, 8);
		return v;
	}
	}
}

/* ilog2(roundup_pow_of_two(v)) as the kernel computes it on a 64-bit machine. */
static uint64_t log2_up(uint64_t v)
{
	if (v <= 1 || v > (1ull << 63))
		return 0; /* 0 and 1: 2^0; over 2^63 the kernel's shift wraps to 1 */
	return (uint64_t)(64 - __builtin_clzll(v - 1));
}

/*
 * hist_field_div() and, for a constant divisor, hist_field_get_div_fn()'s choice: a shift for
 * a power of two, else for a divisor up to 2^20 and a dividend below 2^20 a multiplication
 * and a shift that rounds up (the kernel's div_by_mult_and_shift(): its numbers, exactly).
 */
static uint64_t divide(const struct hist_field *divisor, uint64_t a, uint64_t b)
{
	const uint64_t shift = 20;

	if (!b)
		return (uint64_t)-1;
	if (!(b & (b - 1)))
		return a >> __builtin_ctzll(b);
	if (divisor->src == HIST_SRC_CONST && b <= (1ull << shift) && a < (1ull << shift)) {
		uint64_t mult = (1ull << shift) / b;

		return (a * mult + ((1ull << shift) - 1)) >> shift;
	}
	return a / b;
}

uint64_t tp_hist_operate(char op, const struct hist_field *divisor, uint64_t a, uint64_t b)
{
	switch (op) {
	case '+':
		return a + b;
	case '-':
		return a - b;
	case '*':
		return a * b;
	default:
		return divide(divisor, a, b);
	}
}

/* An expression's number: hist_field_plus() and the others. */
static uint64_t expr_value(const struct hist_spec *s, const struct hist_field *f,
			   const struct hist_hit *h)
{
	const struct hist_field *x = &s->nodes[f->operands[0]], *y;
	uint64_t a = tp_hist_field_value(s, x, h);

	if (f->op == 'u')
		return (uint64_t) - (int64_t)a;
	y = &s->nodes[f->operands[1]];
	return tp_hist_operate((char)f->op, y, a, tp_hist_field_value(s, y, h));
}

/* A field's number for a hit: the kernel's hist_fn_call() for the kinds we have. */
/* Inline, as are the key's making and finding: a hit makes no call. */
static inline __attribute__((always_inline)) uint64_t field_value(const struct hist_spec *s, const struct hist_field *f,
			    const struct hist_hit *h)
{
	uint64_t v;

	switch (f->src) {
	case HIST_SRC_CONST:
		return f->constant;
	case HIST_SRC_REF:
		return h->refs ? h->refs[f->ref] : 0;
	case HIST_SRC_EXPR:
		return expr_value(s, f, h);
	case HIST_SRC_NUM:
		v = read_num(f, h);
		break;
	case HIST_SRC_TIMESTAMP:
		/* ns2usecs() rounds to the nearest microsecond. */
		v = s->ts_usecs ? (h->ts_ns + 500) / 1000 : h->ts_ns;
		break;
	case HIST_SRC_CPU:
		v = h->cpu;
		break;
	case HIST_SRC_HITCOUNT:
		return 1;
	default:
		return 0;
	}
	if (f->mods & HIST_MOD_LOG2)
		return log2_up(v);
	if (f->mods & HIST_MOD_BUCKETS)
		return v / f->buckets * f->buckets;
	return v;
}

uint64_t tp_hist_field_value(const struct hist_spec *s, const struct hist_field *f,
			     const struct hist_hit *h)
{
	return field_value(s, f, h);
}

/* A string key into its room: at most room - 1 bytes, stopping at a NUL or the record's end. */
static void copy_string(unsigned char *dst, size_t room, const unsigned char *rec, uint32_t size,
			uint32_t off, uint32_t len)
{
	if (off >= size)
		return;
	if (len > size - off)
		len = size - off;
	if (len > room - 1)
		len = (uint32_t)(room - 1);
	for (uint32_t i = 0; i < len && rec[off + i]; i++)
		dst[i] = rec[off + i];
}

static inline __attribute__((always_inline)) void build_key(const struct hist_spec *s, const struct hist_hit *h, unsigned char *key)
{
	for (unsigned i = 0; i < s->nkeys; i++) {
		const struct hist_field *k = &s->keys[i];
		unsigned char *dst = key + k->key_offset;
		const unsigned char *rec = h->rec;
		uint32_t item;
		uint64_t v;

		switch (k->src) {
		case HIST_SRC_STR_ARRAY:
			memset(dst, 0, k->key_size); /* a number's word is written whole */
			copy_string(dst, k->key_size, rec, h->size, k->offset, k->size);
			break;
		case HIST_SRC_STR_DYN:
			memset(dst, 0, k->key_size);
			if ((uint32_t)k->offset + 4 > h->size)
				break;
			memcpy(&item, rec + k->offset, 4);
			copy_string(dst, k->key_size, rec, h->size, item & 0xffff, item >> 16);
			break;
		default:
			v = field_value(s, k, h);
			memcpy(dst, &v, 8);
			break;
		}
	}
}

/*
 * The key's hash, over its words up to the last that is not zero: a string key's padding is
 * not hashed, so that the hit of a short string hashes only its own words (hit_one_str_key()),
 * and any key hashes the same whichever way it was made.
 */
static inline __attribute__((always_inline)) uint64_t hash_words(const unsigned char *key,
								 size_t nwords)
{
	uint64_t h = 0x9e3779b97f4a7c15ull;

	for (size_t i = 0; i < nwords; i++) {
		uint64_t w;

		memcpy(&w, key + 8 * i, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	h ^= h >> 29;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 32;
	return h;
}

static uint64_t hash_key(const unsigned char *key, size_t size)
{
	size_t n = size / 8;

	for (uint64_t w; n; n--) {
		memcpy(&w, key + 8 * (n - 1), 8);
		if (w)
			break;
	}
	return hash_words(key, n);
}

/*
 * The entry of `key`, made if new and there is room: its index, or -1 when the table is full.
 * Linear probing over twice as many slots as entries always finds the key or a free slot.
 */
static inline __attribute__((always_inline)) int64_t find_or_add(struct hist_table *t, const unsigned char *key, uint64_t hash,
			   const char *comm)
{
	size_t ks = t->spec->key_size;
	uint32_t mask = t->nslots - 1, i = (uint32_t)hash & mask;
	uint64_t tag = hash & 0xffffffff00000000ull;
	uint32_t e;

	for (;; i = (i + 1) & mask) {
		uint64_t slot = t->slots[i];

		e = (uint32_t)slot;
		if (!e)
			break;
		if ((slot & 0xffffffff00000000ull) == tag &&
		    tp_hist_keys_equal(t->keys + (size_t)(e - 1) * ks, key, ks))
			return e - 1;
	}
	e = t->n;
	if (e == t->max_elts)
		return -1;
	memcpy(t->keys + (size_t)e * ks, key, ks);
	if (t->comms) {
		char *c = t->comms + (size_t)e * HIST_COMM_LEN;

		strncpy(c, comm ? comm : "<...>", HIST_COMM_LEN - 1);
	}
	t->slots[i] = tag | (e + 1);
	/* Release: a reader that sees the entry sees its key and name. */
	__atomic_store_n(&t->n, e + 1, __ATOMIC_RELEASE);
	return e;
}

/* The values that are more than a field as it is (count_hit()'s uncommon way). */
static __attribute__((noinline)) int sum_values(const struct hist_spec *s, uint64_t *sums,
						const struct hist_hit *h)
{
	for (unsigned i = 1; i < s->nvals; i++)
		bump(&sums[i], field_value(s, &s->vals[i], h));
	return 1;
}

/* The sums of entry e: its hitcount, and each value's. */
static inline __attribute__((always_inline)) int count_hit(struct hist_table *t, int64_t e,
							   const struct hist_hit *h)
{
	const struct hist_spec *s = t->spec;
	uint64_t *sums;

	if (e < 0) {
		bump(&t->drops, 1);
		return -1;
	}
	bump(&t->hits, 1);
	sums = t->sums + (size_t)e * s->nvals;
	bump(&sums[0], 1);
	if (!t->plain_vals)
		return sum_values(s, sums, h);
	/* The common case: the fields read as they are, with no call that saves registers. */
	for (unsigned i = 1; i < s->nvals; i++)
		bump(&sums[i], read_num(&s->vals[i], h));
	return 1;
}

/* A key seen for the first time, out of the common way's registers. */
static __attribute__((noinline, cold)) int hit_new_key(struct hist_table *t,
						     const struct hist_hit *h, uint64_t key,
						     uint64_t hash)
{
	return count_hit(t, find_or_add(t, (const unsigned char *)&key, hash, NULL), h);
}

/*
 * The common case, one number as the key (a pid, a size's log2): the key is a word in a
 * register, its hash and probe made for one word, with what find_or_add() does for any key
 * (the same hash, slots and entries, so that merging and printing see no difference).
 */
static __attribute__((noinline)) int hit_one_num_key(struct hist_table *t,
						    const struct hist_hit *h)
{
	const struct hist_field *f = &t->spec->keys[0];
	/* A key of an expression or a reference is rare: its call saves registers for all. */
	uint64_t key = f->src == HIST_SRC_EXPR || f->src == HIST_SRC_REF
			       ? tp_hist_field_value(t->spec, f, h)
			       : field_value(t->spec, f, h);
	uint64_t hash = hash_words((const unsigned char *)&key, key != 0);
	uint32_t mask = t->nslots - 1, i = (uint32_t)hash & mask, e;
	uint64_t tag = hash & 0xffffffff00000000ull;

	for (;; i = (i + 1) & mask) {
		uint64_t slot = t->slots[i], k;

		e = (uint32_t)slot;
		if (!e)
			break;
		memcpy(&k, t->keys + (size_t)(e - 1) * 8, 8);
		if ((slot & 0xffffffff00000000ull) == tag && k == key)
			return count_hit(t, e - 1, h);
	}
	return hit_new_key(t, h, key, hash);
}

/*
 * One string as the key (a path, a name): its words alone are copied, hashed and compared,
 * not the room's 256 bytes; a new entry gets the key padded whole, as find_or_add() keeps it.
 */
static __attribute__((noinline)) int hit_one_str_key(struct hist_table *t,
						    const struct hist_hit *h)
{
	const struct hist_field *k = &t->spec->keys[0];
	const unsigned char *rec = h->rec;
	uint64_t words[HIST_KEY_SIZE_MAX / 8];
	uint32_t off = k->offset, len = k->size, item, nwords, mask, i, e;
	size_t room = k->key_size, n;
	const unsigned char *nul;
	uint64_t hash, tag;

	if (k->src == HIST_SRC_STR_DYN) {
		if ((uint32_t)k->offset + 4 > h->size) {
			off = h->size; /* an empty key */
		} else {
			memcpy(&item, rec + k->offset, 4);
			off = item & 0xffff;
			len = item >> 16;
		}
	}
	if (off >= h->size)
		len = 0;
	else if (len > h->size - off)
		len = h->size - off;
	if (len > room - 1)
		len = (uint32_t)(room - 1);
	nul = len ? memchr(rec + off, 0, len) : NULL;
	n = nul ? (size_t)(nul - (rec + off)) : len;
	nwords = (uint32_t)(n / 8 + 1); /* the string and its NUL */
	words[nwords - 1] = 0;
	memcpy(words, rec + off, n);
	hash = hash_key((const unsigned char *)words, (size_t)nwords * 8);
	mask = t->nslots - 1;
	tag = hash & 0xffffffff00000000ull;
	for (i = (uint32_t)hash & mask;; i = (i + 1) & mask) {
		uint64_t slot = t->slots[i];

		e = (uint32_t)slot;
		if (!e)
			break;
		if ((slot & 0xffffffff00000000ull) == tag &&
		    tp_hist_keys_equal(t->keys + (size_t)(e - 1) * room, (const unsigned char *)words,
			       (size_t)nwords * 8))
			return count_hit(t, e - 1, h);
	}
	memset(words + nwords, 0, room - (size_t)nwords * 8);
	return count_hit(t, find_or_add(t, (const unsigned char *)words, hash, NULL), h);
}

void tp_hist_build_key(const struct hist_spec *s, const struct hist_hit *h, unsigned char *key)
{
	build_key(s, h, key);
}

uint64_t tp_hist_key_hash(const unsigned char *key, size_t size)
{
	return hash_key(key, size);
}

bool tp_hist_passes(const struct hist_table *t, const struct hist_hit *h)
{
	const struct hist_spec *s = t->spec;

	return !t->paused && (!s->filter || filter_match(s->filter, h->rec, h->size));
}

int tp_hist_add(struct hist_table *t, const struct hist_hit *h, const unsigned char *key)
{
	return count_hit(t, find_or_add(t, key, hash_key(key, t->spec->key_size), h->comm), h);
}

/* Any key: made whole in a buffer of the largest key's size. */
static __attribute__((noinline)) int hit_any_key(struct hist_table *t, const struct hist_hit *h)
{
	const struct hist_spec *s = t->spec;
	unsigned char key[HIST_KEY_SIZE_MAX];
	int64_t e;

	if (s->filter && !filter_match(s->filter, h->rec, h->size))
		return 0;
	build_key(s, h, key);
	e = find_or_add(t, key, hash_key(key, s->key_size), h->comm);
	return count_hit(t, e, h);
}

/*
 * Tail calls only: the common ways save none of the registers and none of the stack that
 * the general one needs.
 */
int tp_hist_hit(struct hist_table *t, const struct hist_hit *h)
{
	if (t->paused)
		return 0;
	if (t->one_num_key)
		return hit_one_num_key(t, h);
	if (t->one_str_key)
		return hit_one_str_key(t, h);
	return hit_any_key(t, h);
}

void tp_hist_table_pause(struct hist_table *t, bool paused)
{
	t->paused = paused;
}

bool tp_hist_table_paused(const struct hist_table *t)
{
	return t->paused;
}

void tp_hist_table_clear(struct hist_table *t)
{
	memset(t->slots, 0, t->nslots * sizeof(*t->slots));
	memset(t->sums, 0, (size_t)t->max_elts * t->spec->nvals * sizeof(*t->sums));
	memset(t->keys, 0, (size_t)t->max_elts * t->spec->key_size);
	__atomic_store_n(&t->n, 0, __ATOMIC_RELEASE);
	t->hits = t->drops = 0;
}

void tp_hist_table_merge(struct hist_table *dst, const struct hist_table *src)
{
	size_t ks = src->spec->key_size;
	unsigned nvals = src->spec->nvals;
	uint64_t kept = 0, lost = 0, drops = peek(&src->drops);
	/* Acquire: the entries below n are whole (find_or_add()'s release). */
	uint32_t n = __atomic_load_n(&src->n, __ATOMIC_ACQUIRE);

	/*
	 * A table's hits are the sum of its entries' hitcounts; counting them from the sums
	 * read keeps the merged Hits equal to its entries' even while src's thread hits it.
	 */
	for (uint32_t i = 0; i < n; i++) {
		const char *comm = src->comms ? src->comms + (size_t)i * HIST_COMM_LEN : NULL;
		const unsigned char *key = src->keys + i * ks;
		const uint64_t *from = src->sums + (size_t)i * nvals;
		uint64_t sums[HIST_VALS_MAX];
		int64_t e;

		for (unsigned v = 0; v < nvals; v++)
			sums[v] = peek(&from[v]);
		e = find_or_add(dst, key, hash_key(key, ks), comm);
		if (e < 0) {
			lost += sums[0];
			continue;
		}
		kept += sums[0];
		for (unsigned v = 0; v < nvals; v++)
			bump(&dst->sums[(size_t)e * nvals + v], sums[v]);
	}
	bump(&dst->hits, kept);
	bump(&dst->drops, drops + lost);
}

const struct hist_spec *tp_hist_table_spec(const struct hist_table *t)
{
	return t->spec;
}

uint64_t tp_hist_table_hits(const struct hist_table *t)
{
	return peek(&t->hits);
}

uint64_t tp_hist_table_drops(const struct hist_table *t)
{
	return peek(&t->drops);
}

unsigned tp_hist_table_entries(const struct hist_table *t)
{
	return __atomic_load_n(&t->n, __ATOMIC_ACQUIRE);
}

const unsigned char *tp_hist_entry_key(const struct hist_table *t, unsigned i)
{
	return t->keys + (size_t)i * t->spec->key_size;
}

const uint64_t *tp_hist_entry_sums(const struct hist_table *t, unsigned i)
{
	return t->sums + (size_t)i * t->spec->nvals;
}

const char *tp_hist_entry_comm(const struct hist_table *t, unsigned i)
{
	return t->comms ? t->comms + (size_t)i * HIST_COMM_LEN : "(no comm)";
}

uint64_t tp_hist_key_num(const struct hist_field *k, const unsigned char *key)
{
	uint64_t v;

	memcpy(&v, key + k->key_offset, 8);
	return v;
}
