// SPDX-License-Identifier: MIT
/*
 * synth_format_test - a synthetic event as an ordinary event (lib/synth_format.c): its print
 * fmt, its meta records as the registry's format builder (lib/format.c) reads them, and its
 * module's table entry.
 *
 * The expected print fmt follows the kernel's __set_synth_event_print_fmt()
 * (kernel/trace/trace_events_synth.c): a quoted list of "NAME=FMT" joined by ", ", FMT from
 * synth_field_fmt() (s64 %lld, u64 %llu, s32/s16/s8/int/char/bool/pid_t %d, u32/u16/u8/
 * unsigned char/unsigned int %u, long %ld, unsigned long %lu, gfp_t %x, char[N] %s since
 * mainline's commit e1a453a57bc7, which dropped "%.*s" there), then ", REC->NAME" for each
 * field. The offsets are synth_event_define_fields()': 8, then one u64 per number, and
 * STR_VAR_LEN_MAX (256) bytes per char[N]; each number's size is its type's.
 */
#include "testutil.h"
#include "format.h"
#include "meta_read.h"
#include "print_fmt_check.h"
#include "synth_format.h"

static struct hist_synth *parse(const char *def)
{
	static struct hist_synth syn;
	struct hist_error err;

	CHECK(tp_hist_synth_parse(def, &syn, &err) == 0, "'%s': %s", def, err.msg);
	return &syn;
}

static void check_print_fmt(const char *def, const char *want)
{
	char buf[1024];
	const struct hist_synth *syn = parse(def);
	size_t need = tp_synth_print_fmt(syn, NULL, 0);

	tp_synth_print_fmt(syn, buf, sizeof(buf));
	CHECK(!strcmp(buf, want), "'%s':\n got  %s\n want %s", def, buf, want);
	CHECK(need == strlen(want), "'%s': needs %zu, not %zu", def, need, strlen(want));
	/* Cut short: the length it needs all the same, and a terminated prefix. */
	CHECK(tp_synth_print_fmt(syn, buf, 8) == need && strlen(buf) == 7, "'%s' in 8 bytes", def);
}

int main(void)
{
	char why[256];

	check_print_fmt("wakeup_lat u64 lat; pid_t pid",
			"\"lat=%llu, pid=%d\", REC->lat, REC->pid");
	check_print_fmt("all s64 a; u64 b; s32 c; u32 d; s16 e; u16 f; s8 g; u8 h; char i; "
			"unsigned char j; int k; unsigned int l; long m; unsigned long n; bool o; "
			"pid_t p; gfp_t q; char r[16]",
			"\"a=%lld, b=%llu, c=%d, d=%u, e=%d, f=%u, g=%d, h=%u, i=%d, j=%u, k=%d, "
			"l=%u, m=%ld, n=%lu, o=%d, p=%d, q=%x, r=%s\", REC->a, REC->b, REC->c, "
			"REC->d, REC->e, REC->f, REC->g, REC->h, REC->i, REC->j, REC->k, REC->l, "
			"REC->m, REC->n, REC->o, REC->p, REC->q, REC->r");
	tu_note("the print fmt is the kernel's __set_synth_event_print_fmt()'s, every type");

	/* The block: a module of one event whose table entry reaches its descriptor and
	 * records, which the format builder reads as a compiled event's. */
	struct synth_block *b = tp_synth_block_new(parse("lat u64 lat; pid_t pid; char cmd[16]; "
							 "u8 flag"));
	REQUIRE(b != NULL, "no block");
	CHECK(b->mod.abi == TPOINT_ABI && b->mod.events_end - b->mod.events_begin == 1 &&
	      b->ev.abi == TPOINT_ABI && !b->ev.registered, "the module and its descriptor");
	CHECK(tpoint_event_ref_at(&b->ref.event) == &b->ev, "the entry's descriptor");
	const struct tpoint_meta_class *c = tpoint_event_ref_at(&b->ref.class_meta);
	const struct tpoint_meta_event *e = tpoint_event_ref_at(&b->ref.meta);
	const char *cur = b->mod.meta_begin;
	const struct tpoint_meta_hdr *h;
	int n = 0;

	while (tpoint_meta_next(&cur, b->mod.meta_end, &h) > 0)
		n++;
	CHECK(n == 2 && cur == b->mod.meta_end, "the section: %d valid records", n);
	CHECK(!strcmp(tpoint_meta_event_system(e), "synthetic") &&
	      !strcmp(tpoint_meta_event_name(e), "lat"), "the event's names");
	char *fmt = tpoint_format_build(c, e, 0x7001, NULL, 0);
	const char *want =
		"name: lat\n"
		"ID: 28673\n"
		"format:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
		"\n"
		"\tfield:u64 lat;\toffset:8;\tsize:8;\tsigned:0;\n"
		"\tfield:pid_t pid;\toffset:16;\tsize:4;\tsigned:1;\n"
		"\tfield:char cmd[256];\toffset:24;\tsize:256;\tsigned:0;\n"
		"\tfield:u8 flag;\toffset:280;\tsize:1;\tsigned:0;\n"
		"\n"
		"print fmt: \"lat=%llu, pid=%d, cmd=%s, flag=%u\", REC->lat, REC->pid, REC->cmd, "
		"REC->flag\n";
	REQUIRE(fmt != NULL, "the format builder refused the records");
	CHECK(!strcmp(fmt, want), "the format:\n--- got\n%s--- want\n%s", fmt, want);
	CHECK(tpoint_print_fmt_check(tpoint_meta_class_print(c), why, sizeof(why)) == 0,
	      "libtraceevent's rules: %s", why);
	free(fmt);
	tu_note("the format: the kernel's offsets, each number its size, a char[N] in 256 bytes");

	struct synth_block *same = tp_synth_block_new(parse("lat u64 lat;pid_t pid; char cmd[16];  u8 flag"));
	struct synth_block *other = tp_synth_block_new(parse("lat u64 lat; pid_t pid"));

	REQUIRE(same && other, "no block");
	CHECK(tp_synth_block_same(b, same) && !tp_synth_block_same(b, other),
	      "the same fields are the same record, others not");
	free(b);
	free(same);
	free(other);
	return tu_finish();
}
