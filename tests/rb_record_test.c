// SPDX-License-Identifier: MIT
/*
 * rb_record_test - the ring-buffer record codec (lib/fmt/rb_record.c) on its own: the strict
 * decoder on each form the kernel writes (little and big endian), on every length that
 * runs past the commit, the time each record leaves on the running clock, and the trusted
 * reader (tp_rb_next) on what the encoder writes; the page header decoder (tp_rb_page_decode)
 * on longs of 4 and 8 bytes, both byte orders, and each bound of the page.
 *
 * Exit 0 when every check passes; each failed check prints one line (tests/testutil.h).
 */
#include "testutil.h"
#include <stdio.h>
#include <string.h>

#include "fmt/rb_record.h"

static unsigned char page[256];
static size_t used;

static void put32(uint32_t v, bool big)
{
	if (big)
		v = __builtin_bswap32(v);
	memcpy(page + used, &v, 4);
	used += 4;
}

static void header(unsigned int type_len, uint32_t delta, bool big)
{
	put32(big ? type_len << TPOINT_DELTA_BITS | delta : delta << TPOINT_TYPE_LEN_BITS | type_len,
	      big);
}

/* A page of every form, in either byte order: walked, each record and the clock checked. */
static void every_form(bool big)
{
	unsigned int flags = big ? TP_RB_BIG_ENDIAN : 0;
	struct tp_rb_rec r;
	uint64_t ts = 1000;
	uint32_t off = 0;
	const char *bad;

	used = 0;
	header(3, 5, big);			/* data, type_len 3: 12 bytes of payload */
	put32(7, big), put32(0, big), put32(0, big);
	header(RB_TYPE_TIME_EXTEND, 1, big);	/* + (2 << 27) + 1 */
	put32(2, big);
	header(0, 4, big);			/* type_len 0: array[0] = 10 + 4, payload 12 */
	put32(14, big);
	put32(9, big), put32(0, big), put32(0, big);
	header(RB_TYPE_PADDING, 6, big);	/* a discarded event: 8 bytes from array[0] */
	put32(8, big);
	put32(0, big);
	header(RB_TYPE_TIME_STAMP, 3, big);	/* absolute: (1 << 27) | 3, top bits kept */
	put32(1, big);

	bad = tp_rb_decode(page, (uint32_t)used, off, flags, &r);
	CHECK(!bad && r.type_len == 3 && r.size == 12 && r.payload == 4 && r.next == 16 &&
	      tp_rb_is_data(&r), "short data record (%s)", bad ? bad : "");
	tp_rb_apply_time(&r, &ts);
	CHECK(ts == 1005, "clock after data: %llu", (unsigned long long)ts);
	off = r.next;
	bad = tp_rb_decode(page, (uint32_t)used, off, flags, &r);
	CHECK(!bad && r.type_len == RB_TYPE_TIME_EXTEND && r.next == 24 && !tp_rb_is_data(&r),
	      "time extend");
	tp_rb_apply_time(&r, &ts);
	CHECK(ts == 1005 + (2ull << 27) + 1, "clock after extend");
	off = r.next;
	bad = tp_rb_decode(page, (uint32_t)used, off, flags, &r);
	CHECK(!bad && r.type_len == 0 && r.size == 12 && r.payload == 32 && r.next == 44,
	      "long data record (%s, size %u)", bad ? bad : "", r.size);
	tp_rb_apply_time(&r, &ts);
	off = r.next;
	bad = tp_rb_decode(page, (uint32_t)used, off, flags, &r);
	CHECK(!bad && r.type_len == RB_TYPE_PADDING && r.next == 56, "padding (%s)",
	      bad ? bad : "");
	tp_rb_apply_time(&r, &ts);
	CHECK(ts == 1005 + (2ull << 27) + 1 + 4 + 6, "padding's delta counts");
	off = r.next;
	ts |= 0x0800000000000000ull | (0xf8ull << 56);
	bad = tp_rb_decode(page, (uint32_t)used, off, flags, &r);
	CHECK(!bad && r.type_len == RB_TYPE_TIME_STAMP && r.next == 64, "time stamp");
	tp_rb_apply_time(&r, &ts);
	CHECK(ts == ((0xf8ull << 56) | (1ull << 27) | 3), "clock after a time stamp: %llx",
	      (unsigned long long)ts);
	CHECK(r.next == used, "walked the page");
}

static void expect_bad(uint32_t commit, const char *want, const char *what)
{
	struct tp_rb_rec r;
	const char *bad = tp_rb_decode(page, commit, 0, 0, &r);

	CHECK(bad && !strcmp(bad, want), "%s: got '%s'", what, bad ? bad : "(accepted)");
}

/* Each length that runs past the commit is refused with its reason. */
static void refusals(void)
{
	used = 0;
	header(3, 0, false);
	expect_bad(3, "the event header runs past the commit", "3 bytes");
	expect_bad(12, "the event runs past the commit", "payload past commit");
	used = 0;
	header(1, 0, false);
	expect_bad(8, "a record shorter than the 8-byte common header", "4-byte payload");
	used = 0;
	header(0, 0, false);
	expect_bad(6, "the event's length word runs past the commit", "length word");
	put32(3, false);
	expect_bad(16, "a data event's length is smaller than its length word", "array0 3");
	used = 0;
	header(RB_TYPE_PADDING, 1, false);
	put32(2, false);
	expect_bad(16, "padding shorter than its own length word", "padding 2");
	used = 0;
	header(RB_TYPE_PADDING, 1, false);
	put32(100, false);
	expect_bad(16, "padding runs past the commit", "padding 100");
}

/* In a live kernel page, padding with no delta is the rest of the page, its length unread. */
static void live_padding(void)
{
	struct tp_rb_rec r;
	const char *bad;

	used = 0;
	header(RB_TYPE_PADDING, 0, false);
	put32(0, false);
	bad = tp_rb_decode(page, 40, 0, TP_RB_PAD_ENDS_PAGE, &r);
	CHECK(!bad && r.next == 40, "tail padding ends the page");
	bad = tp_rb_decode(page, 40, 0, 0, &r);
	CHECK(bad, "in a file, the same padding is refused");
}

/* The trusted reader takes what the encoder writes: data records and time extends. */
static void trusted(void)
{
	char buf[64];
	const char *p = buf, *data;
	uint64_t clock = 0, hdr = tpoint_record_header(3, 8 + 8);
	uint32_t ext[2], size;

	tp_rb_time_extend(5ull << 27 | 9, ext);
	CHECK(tp_rb_delta_too_wide(5ull << 27) && !tp_rb_delta_too_wide(9), "too wide");
	memcpy(buf, ext, 8);
	memcpy(buf + 8, &hdr, 8);
	memset(buf + 16, 0x5a, 8);
	CHECK(tp_rb_record_len(ext[0], ext[1]) == 8, "extend length");
	CHECK(tp_rb_next(&p, buf + 24, &clock, &data, &size) == 1 && size == 8 &&
	      data == buf + 16 && clock == (5ull << 27) + 9 + 3 && p == buf + 24,
	      "trusted read: size %u clock %llu", size, (unsigned long long)clock);
	CHECK(tp_rb_next(&p, buf + 24, &clock, &data, &size) == 0, "end");
	/* the strict decoder reads the same bytes the same way */
	{
		struct tp_rb_rec r;
		uint64_t ts = 0;
		uint32_t off = 0;

		while (off < 24 && !tp_rb_decode((const unsigned char *)buf, 24, off, 0, &r)) {
			tp_rb_apply_time(&r, &ts);
			off = r.next;
		}
		CHECK(off == 24 && ts == clock && r.size == 8 && r.payload == 16,
		      "strict read of the encoder's bytes");
	}
}

/* A page header at the start of page[]: time stamp, a long of commit and flags. */
static void page_header(uint64_t ts, uint64_t word, unsigned int long_size, bool big)
{
	memset(page, 0, sizeof(page));
	if (big != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)) {
		ts = __builtin_bswap64(ts);
		word = long_size == 8 ? __builtin_bswap64(word) : __builtin_bswap32((uint32_t)word);
	}
	memcpy(page, &ts, 8);
	if (long_size == 8) {
		memcpy(page + 8, &word, 8);
	} else {
		uint32_t w = (uint32_t)word;

		memcpy(page + 8, &w, 4);
	}
}

/* The lost-event count after commit bytes of records. */
static void page_count(uint64_t count, uint32_t commit, unsigned int long_size, bool big)
{
	unsigned char *at = page + 8 + long_size + commit;

	if (long_size == 8) {
		if (big != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__))
			count = __builtin_bswap64(count);
		memcpy(at, &count, 8);
	} else {
		uint32_t c = (uint32_t)count;

		if (big != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__))
			c = __builtin_bswap32(c);
		memcpy(at, &c, 4);
	}
}

/* Each long size and byte order: the fields, and the lost-event count after the records. */
static void page_fields(unsigned int long_size, bool big)
{
	unsigned int flags = big ? TP_RB_BIG_ENDIAN : 0;
	uint32_t psize = (uint32_t)sizeof(page), room = psize - 8 - long_size;
	struct tp_rb_page pg;
	enum tp_rb_page_fault f;

	page_header(0x0123456789abcdefull, 40, long_size, big);
	f = tp_rb_page_decode(page, psize, long_size, flags, &pg);
	CHECK(f == TP_RB_PAGE_OK && pg.ts == 0x0123456789abcdefull && pg.commit == 40 &&
	      pg.data == 8 + long_size && !pg.missed && !pg.counted && pg.lost == 0,
	      "long %u%s: plain page (%d)", long_size, big ? " big" : "", f);

	page_header(7, 40 | RB_MISSED_EVENTS, long_size, big);
	f = tp_rb_page_decode(page, psize, long_size, flags, &pg);
	CHECK(f == TP_RB_PAGE_OK && pg.missed && !pg.counted, "long %u%s: lost, not counted",
	      long_size, big ? " big" : "");

	page_header(7, 40 | RB_MISSED_EVENTS | RB_MISSED_STORED, long_size, big);
	page_count(long_size == 8 ? 0x8000000000000003ull : 0xfffffffdu, 40, long_size, big);
	f = tp_rb_page_decode(page, psize, long_size, flags, &pg);
	CHECK(f == TP_RB_PAGE_OK && pg.missed && pg.counted &&
	      pg.lost == (long_size == 8 ? 0x8000000000000003ull : 0xfffffffdu),
	      "long %u%s: the count as stored: %llx", long_size, big ? " big" : "",
	      (unsigned long long)pg.lost);

	/* the stored-count flag alone says nothing: no events were lost */
	page_header(7, 40 | RB_MISSED_STORED, long_size, big);
	f = tp_rb_page_decode(page, psize, long_size, flags, &pg);
	CHECK(f == TP_RB_PAGE_OK && !pg.missed && !pg.counted, "stored flag alone");

	/* the bounds: the records fill the page; the count just fits, or runs past it */
	page_header(7, room, long_size, big);
	f = tp_rb_page_decode(page, psize, long_size, flags, &pg);
	CHECK(f == TP_RB_PAGE_OK && pg.commit == room, "commit == room");
	page_header(7, room + 1, long_size, big);
	f = tp_rb_page_decode(page, psize, long_size, flags, &pg);
	CHECK(f == TP_RB_PAGE_COMMIT_PAST && pg.commit == room + 1, "commit past the page");
	page_header(7, (room - long_size) | RB_MISSED_EVENTS | RB_MISSED_STORED, long_size, big);
	page_count(5, room - long_size, long_size, big);
	f = tp_rb_page_decode(page, psize, long_size, flags, &pg);
	CHECK(f == TP_RB_PAGE_OK && pg.counted && pg.lost == 5, "count ends the page");
	page_header(7, (room - long_size + 1) | RB_MISSED_EVENTS | RB_MISSED_STORED, long_size,
		    big);
	f = tp_rb_page_decode(page, psize, long_size, flags, &pg);
	CHECK(f == TP_RB_PAGE_COUNT_PAST && pg.missed && !pg.counted &&
	      pg.commit == room - long_size + 1, "count past the page");
	/* the flags above the commit are not part of it */
	page_header(7, 8 | (1u << 29) | RB_MISSED_EVENTS, long_size, big);
	f = tp_rb_page_decode(page, psize, long_size, flags, &pg);
	CHECK(f == TP_RB_PAGE_OK && pg.commit == 8, "commit masked: %u", pg.commit);
}

/* A long of another size, or a page smaller than its own header, is no page. */
static void page_layout(void)
{
	struct tp_rb_page pg;

	page_header(1, 0, 8, false);
	CHECK(tp_rb_page_decode(page, sizeof(page), 2, 0, &pg) == TP_RB_PAGE_LAYOUT, "long 2");
	CHECK(tp_rb_page_decode(page, sizeof(page), 16, 0, &pg) == TP_RB_PAGE_LAYOUT, "long 16");
	CHECK(tp_rb_page_decode(page, 15, 8, 0, &pg) == TP_RB_PAGE_LAYOUT, "page of 15, long 8");
	CHECK(tp_rb_page_decode(page, 16, 8, 0, &pg) == TP_RB_PAGE_OK && pg.commit == 0,
	      "a header alone, no records");
	CHECK(tp_rb_page_decode(page, 11, 4, 0, &pg) == TP_RB_PAGE_LAYOUT, "page of 11, long 4");
}

int main(void)
{
	every_form(false);
	every_form(true);
	refusals();
	live_padding();
	trusted();
	for (unsigned int l = 4; l <= 8; l += 4) {
		page_fields(l, false);
		page_fields(l, true);
	}
	page_layout();
	return tu_finish();
}
