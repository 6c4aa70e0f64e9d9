// SPDX-License-Identifier: MIT
/*
 * rb_record_test - the ring-buffer record codec (lib/fmt/rb_record.c) on its own: the strict
 * decoder on each form the kernel writes (little and big endian), on every length that
 * runs past the commit, the time each record leaves on the running clock, and the trusted
 * reader (tp_rb_next) on what the encoder writes.
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

int main(void)
{
	every_form(false);
	every_form(true);
	refusals();
	live_padding();
	trusted();
	return tu_finish();
}
