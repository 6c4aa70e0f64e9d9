// SPDX-License-Identifier: MIT
/*
 * kprint_test - the tool's kernel text for the helpers libtraceevent 1.7.1 prints its own way
 * (tools/tpoint/kprint.c), at their edges, through libtraceevent itself: a format is
 * rewritten, parsed and a hand-made record printed, as `tpoint report` does.
 *
 * The expectations follow the kernel's printing code (Linux 6.1): trace_print_array_seq()
 * "{0x%x,...}" ("0x%llx" for 8 bytes, "{}" when empty); bitmap_string() for "%*pb" and
 * bitmasks -- 32-bit chunks, most significant first, the first one zero-padded only to the
 * hex digits of the bits it has ((nr_bits % 32 + 3) / 4), nothing for 0 bits;
 * bitmap_list_string() for "%*pbl" -- runs "a" or "a-b" joined by ',', nothing when empty.
 */
#include "testutil.h"
#include <event-parse.h>
#include <trace-seq.h>
#include "kprint.h"

static const char header[] =
	"name: k\nID: 1000\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:__data_loc unsigned long[] bits;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:__data_loc int[] list;\toffset:12;\tsize:4;\tsigned:0;\n"
	"\tfield:int w;\toffset:16;\tsize:4;\tsigned:1;\n"
	"\tfield:__data_loc u64[] big;\toffset:20;\tsize:4;\tsigned:0;\n\n"
	"print fmt: ";

static int id = 1000;

/* Rewrite and parse the print fmt `fmt`, print one record, compare with `want`. */
static void check(const char *fmt, const void *rec, int size, const char *want)
{
	struct tep_handle *tep = tep_alloc();
	struct tep_record r = { 0 };
	struct trace_seq s;
	char text[2048], *k;
	size_t len;
	int n;

	REQUIRE(tep && !kprint_register(tep), "tep_alloc, kprint_register");
	tep_set_long_size(tep, 8);
	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	n = snprintf(text, sizeof(text), "%s%s\n", header, fmt);
	k = kprint_rewrite(text, (size_t)n, &len);
	REQUIRE(k, "kprint_rewrite");
	CHECK(tep_parse_event(tep, k, len, "sys") == 0, "parse of %s", k + strlen(header));
	r.data = (void *)rec;
	r.size = size;
	trace_seq_init(&s);
	tep_print_event(tep, &s, &r, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&s);
	CHECK(!strcmp(s.buffer, want), "%s\n\tgot  '%s'\n\twant '%s'\n\tparsed %s", fmt, s.buffer,
	      want, k + strlen(header));
	trace_seq_destroy(&s);
	free(k);
	tep_free(tep);
}

struct rec {
	uint16_t type;
	uint8_t flags, preempt;
	int32_t pid;
	uint32_t bits_loc, list_loc;
	int32_t w;
	uint32_t big_loc;
	uint64_t bits[2];
	uint32_t list[3];
	uint64_t big[2];
};

static struct rec make(uint64_t b0, uint64_t b1, int nbits_words, int nlist, int w)
{
	struct rec r = { .type = (uint16_t)id, .pid = 1, .w = w };

	r.bits_loc = (uint32_t)offsetof(struct rec, bits) | (uint32_t)(nbits_words * 8) << 16;
	r.list_loc = (uint32_t)offsetof(struct rec, list) | (uint32_t)(nlist * 4) << 16;
	r.big_loc = (uint32_t)offsetof(struct rec, big) | 16u << 16;
	r.bits[0] = b0;
	r.bits[1] = b1;
	r.list[0] = 1;
	r.list[1] = 2;
	r.list[2] = 0xffffffff;
	r.big[0] = 0x123456789abcdefULL;
	r.big[1] = 0;
	return r;
}

int main(void)
{
	static const char all[] =
		"\"a=%s b=(%*pb) l=(%*pbl) c=(%s) big=%s s=\\\"__print_array(x) %%*pbl\\\"\", "
		"__print_array(__get_dynamic_array(list), __get_dynamic_array_len(list) / 4, 4), "
		"REC->w, __get_dynamic_array(bits), REC->w, __get_dynamic_array(bits), "
		"__get_cpumask(bits), __print_array(__get_dynamic_array(big), 2, 8)";
	struct rec r;

	/* bits 0, 1, 32, 34 of 64; 36 bits wide: a first chunk of 4 bits */
	r = make(0x500000003ULL, 0, 1, 3, 36);
	check(all, &r, sizeof(r),
	      "a={0x1,0x2,0xffffffff} b=(5,00000003) l=(0-1,32,34) c=(00000005,00000003) "
	      "big={0x123456789abcdef,0x0} s=\"__print_array(x) %*pbl\"");
	/* nothing: an empty array, a width of 0, no bit set */
	r = make(0, 0, 1, 0, 0);
	check(all, &r, sizeof(r),
	      "a={} b=() l=() c=(00000000,00000000) big={0x123456789abcdef,0x0} "
	      "s=\"__print_array(x) %*pbl\"");
	/* 128 bits all ones, listed as one run; a width past the mask lists what it has */
	r = make(~0ULL, ~0ULL, 2, 1, 200);
	check("\"l=(%*pbl) b=(%*pb)\", REC->w, __get_dynamic_array(bits), 128, "
	      "__get_bitmask(bits)", &r, sizeof(r),
	      "l=(0-127) b=(ffffffff,ffffffff,ffffffff,ffffffff)");
	/* runs of one and of two; a width that cuts a run */
	r = make(0x1dULL, 0, 1, 1, 4);
	check("\"l=(%*pbl)\", REC->w, __get_dynamic_array(bits)", &r, sizeof(r), "l=(0,2-3)");
	/* the same as tpoint writes it for libtraceevent (lib/format.c): the width a literal,
	 * the getter saying list (cpumask) or words (bitmask) */
	check("\"l=(%.0s%s) b=(%.0s%s)\", \"REC->w\", __get_cpumask(bits), \" REC->w \", "
	      "__get_bitmask(bits)", &r, sizeof(r), "l=(0,2-3) b=(d)");
	/* a "%.0s%s" of anything else is what it says */
	check("\"x=(%.0s%s)\", \"REC->w\", \"y\"", &r, sizeof(r), "x=(y)");
	/* sizeof(int) and sizeof(long long): libtraceevent 1.7.1 parses them with a token it
	 * freed (ASan stops it); given their values, and a "sizeof(int)" in the text stays */
	r = make(0, 0, 1, 3, 0);
	check("\"a=%s n=%d s=sizeof(int)\", __print_array(__get_dynamic_array(list), "
	      "__get_dynamic_array_len(list) / sizeof(int), sizeof( unsigned  int )), "
	      "sizeof(long long)", &r, sizeof(r), "a={0x1,0x2,0xffffffff} n=8 s=sizeof(int)");
	/* a pointer that is not a field's bitmap is left to libtraceevent, as it was */
	r = make(1, 0, 1, 1, 8);
	check("\"n=%d %*pbl\", REC->w, 8, REC->w", &r, sizeof(r), "n=8 0x8bl");
	return tu_finish();
}
