// SPDX-License-Identifier: MIT
/*
 * format_test - the record reader and format builder (lib/meta_read.c, lib/format.c) on the
 * records the compiler really emits for the example's writeback events, on hand-made records
 * (padding, layouts, enums, corruption), and the print-format checker
 * (lib/print_fmt_check.c) on a table of formats libtraceevent can and cannot render.
 *
 * Standalone: the runtime symbols the CREATE_TRACE_POINTS code references are stubbed here.
 *	gcc -std=gnu11 -Wall -Wextra -Werror -Iinclude -Ilib -Iexamples tests/format_test.c \
 *		lib/format.c lib/meta_read.c lib/print_fmt_check.c -o format_test && ./format_test
 * Exit 0 when every check passes; each failure is printed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CREATE_TRACE_POINTS
#include "trace/events/writeback.h"

#include "format.h"
#include "meta_read.h"
#include "print_fmt_check.h"

/* ---- stubs for the runtime: this test never enables an event ---- */

__thread struct tpoint_tls TPOINT_TLS;
static const struct tpoint_module *registered;

int tpoint_make_room_v1(struct tpoint_event *ev, uint32_t total)
{
	(void)ev, (void)total;
	return 0;
}
void tpoint_filter_commit_v2(struct tpoint_event *ev, struct tpoint_stream *s, uint32_t size)
{
	(void)ev, (void)s, (void)size;
}
void tpoint_commit_slow_v1(struct tpoint_event *ev, struct tpoint_stream *s, uint32_t size)
{
	(void)ev, (void)s, (void)size;
}
struct tpoint_counters *tpoint_counters_slow_v1(struct tpoint_event *ev)
{
	static struct tpoint_counters sink;

	(void)ev;
	return &sink;
}
void tpoint_count_lost_v1(struct tpoint_event *ev)
{
	(void)ev;
}
void tpoint_module_register(const struct tpoint_module *m)
{
	registered = m;
}
void tpoint_module_unregister(const struct tpoint_module *m)
{
	(void)m;
}
int tpoint_probe_register(struct tpoint_event *ev, void (*func)(void), void *data)
{
	(void)ev, (void)func, (void)data;
	return -ENOSYS;
}
int tpoint_probe_unregister(struct tpoint_event *ev, void (*func)(void), void *data)
{
	(void)ev, (void)func, (void)data;
	return -ENOSYS;
}

/* ---- checking ---- */

static int failures;

#define CHECK(cond)                                                                          \
	do {                                                                                 \
		if (!(cond)) {                                                               \
			fprintf(stderr, "%s:%d: FAILED: %s\n", __FILE__, __LINE__, #cond);   \
			failures++;                                                          \
		}                                                                            \
	} while (0)

static void check_text(int line, const char *what, const char *got, const char *want)
{
	size_t i = 0;

	if (got && !strcmp(got, want))
		return;
	failures++;
	fprintf(stderr, "%s:%d: FAILED: %s\n", __FILE__, line, what);
	if (!got) {
		fprintf(stderr, "  got NULL (errno %d)\n", errno);
		return;
	}
	while (got[i] && got[i] == want[i])
		i++;
	fprintf(stderr, "  first difference at byte %zu\n--- want:\n%s\n--- got:\n%s\n---\n", i,
		want, got);
}
#define CHECK_TEXT(what, got, want) check_text(__LINE__, what, got, want)

#define COMMON_FIELDS                                                                        \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"                \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"                \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"        \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"

/* ---- the compiler's records ---- */

static const struct tpoint_meta_event *find_event(const char *b, const char *e, const char *name)
{
	const struct tpoint_meta_hdr *h;

	while (tpoint_meta_next(&b, e, &h) > 0)
		if (h->kind == TPOINT_META_EVENT &&
		    !strcmp(tpoint_meta_event_name((const struct tpoint_meta_event *)h), name))
			return (const struct tpoint_meta_event *)h;
	return NULL;
}

static void test_compiled(void)
{
	const char *b = __start_tpoint_meta, *e = __stop_tpoint_meta, *cur;
	const struct tpoint_meta_hdr *h;
	const struct tpoint_meta_event *ev;
	const struct tpoint_meta_class *c;
	int n = 0, r;
	char *fmt, why[200];

	CHECK(b && e && b < e);
	if (!b || !e || b >= e)
		return;
	/* The constructor handed the runtime the same bounds. */
	CHECK(registered && registered->meta_begin == b && registered->meta_end == e);

	for (cur = b; (r = tpoint_meta_next(&cur, e, &h)) > 0;)
		n++;
	CHECK(r == 0);
	CHECK(n == 4); /* two classes, two events */

	ev = find_event(b, e, "writeback_inode_dirty");
	CHECK(ev != NULL);
	if (!ev)
		return;
	CHECK(!strcmp(tpoint_meta_event_system(ev), "writeback") &&
	      !strcmp(tpoint_meta_event_class(ev), "writeback_inode_dirty"));
	CHECK_TEXT("condition", tpoint_meta_event_condition(ev),
		   "flags & (I_DIRTY_SYNC | I_DIRTY_DATASYNC | I_DIRTY_PAGES)");
	CHECK_TEXT("no print override", tpoint_meta_event_print(ev), "");
	c = tpoint_meta_find_class(b, e, "writeback", "writeback_inode_dirty");
	CHECK(c != NULL);
	if (!c)
		return;
	CHECK(c->nfields == 3 && c->payload_size == 28);

	fmt = tpoint_format_build(c, ev, 0x8000, NULL, 0);
	CHECK_TEXT("writeback_inode_dirty format", fmt,
		   "name: writeback_inode_dirty\n"
		   "ID: 32768\n"
		   "format:\n" COMMON_FIELDS
		   "\n"
		   "\tfield:u32 dev;\toffset:8;\tsize:4;\tsigned:0;\n"
		   "\tfield:u64 ino;\toffset:16;\tsize:8;\tsigned:0;\n"
		   "\tfield:u32 flags;\toffset:24;\tsize:4;\tsigned:0;\n"
		   "\n"
		   "print fmt: \"dev %d:%d ino %lu flags %d %s\", "
		   "((unsigned int) ((REC->dev) >> 20)), "
		   "((unsigned int) ((REC->dev) & ((1U << 20) - 1))), "
		   "(unsigned long) REC->ino, REC->flags, "
		   "__print_flags(REC->flags, \"|\", { (1 << 0), \"DIRTY-SYNC\" }, "
		   "{ (1 << 1), \"DIRTY-DATASYNC\" }, { (1 << 2), \"DIRTY-PAGES\" }, "
		   "{ (1 << 3), \"NEW\" }, { (1 << 4), \"WILL-FREE\" }, { (1 << 5), \"FREEING\" }, "
		   "{ (1 << 6), \"CLEAR\" }, { (1 << 7), \"SYNC\" }, { (1 << 8), \"REFERENCED\" })\n");
	free(fmt);
	CHECK(tpoint_print_fmt_check(tpoint_meta_class_print(c), why, sizeof(why)) == 0);

	ev = find_event(b, e, "writeback_write");
	c = tpoint_meta_find_class(b, e, "writeback", "writeback_write");
	CHECK(ev && c);
	if (!ev || !c)
		return;
	CHECK_TEXT("unconditional", tpoint_meta_event_condition(ev), "");
	fmt = tpoint_format_build(c, ev, 0x8001, NULL, 0);
	{
		char want[1024];

		snprintf(want, sizeof(want),
			 "name: writeback_write\nID: 32769\nformat:\n" COMMON_FIELDS "\n"
			 "\tfield:u64 ino;\toffset:8;\tsize:8;\tsigned:0;\n"
			 "\tfield:long bytes;\toffset:16;\tsize:%zu;\tsigned:1;\n"
			 "\tfield:__data_loc char[] path;\toffset:%zu;\tsize:4;\tsigned:%d;\n"
			 "\n"
			 "print fmt: \"ino %%lu bytes %%ld path %%s\", (unsigned long) REC->ino, "
			 "REC->bytes, __get_str(path)\n",
			 sizeof(long), 16 + sizeof(long), (char)-1 < 0);
		CHECK_TEXT("writeback_write format", fmt, want);
	}
	free(fmt);
	CHECK(tpoint_print_fmt_check(tpoint_meta_class_print(c), why, sizeof(why)) == 0);

	/* An event handed another class is refused. */
	ev = find_event(b, e, "writeback_inode_dirty");
	errno = 0;
	CHECK(tpoint_format_build(c, ev, 1, NULL, 0) == NULL && errno == EINVAL);
}

/* ---- hand-made records ---- */

static _Alignas(8) char sect[8192];
static size_t used;

static void pad(size_t n)
{
	memset(sect + used, 0, n);
	used += n;
}

static struct tpoint_meta_hdr *put(size_t size, uint16_t kind)
{
	struct tpoint_meta_hdr *h = (struct tpoint_meta_hdr *)(void *)(sect + used);

	size = (size + 7) & ~(size_t)7;
	memset(h, 0, size);
	h->magic = TPOINT_META_MAGIC;
	h->kind = kind;
	h->version = TPOINT_META_VERSION;
	h->size = (uint32_t)size;
	used += size;
	return h;
}

/* A field of a hand-made class: its fixed part and its two strings. */
struct field_spec {
	const char *type, *name;
	struct tpoint_meta_field f;
};

static char *put_str(char *p, const char *s)
{
	size_t n = strlen(s) + 1;

	memcpy(p, s, n);
	return p + n;
}

static struct tpoint_meta_class *put_class(const char *sys, const char *name,
					   const struct field_spec *f, uint32_t nf,
					   uint32_t payload, const char *print)
{
	size_t size = sizeof(struct tpoint_meta_class) + nf * sizeof(f->f) + strlen(sys) + 1 +
		      strlen(name) + 1 + strlen(print) + 1;
	struct tpoint_meta_class *c;
	struct tpoint_meta_field *mf;
	char *p;

	for (uint32_t i = 0; i < nf; i++)
		size += strlen(f[i].type) + strlen(f[i].name) + 2;
	c = (struct tpoint_meta_class *)put(size, TPOINT_META_CLASS);
	c->nfields = nf;
	c->payload_size = payload;
	mf = (struct tpoint_meta_field *)(c + 1);
	for (uint32_t i = 0; i < nf; i++)
		mf[i] = f[i].f;
	p = put_str(put_str((char *)(mf + nf), sys), name);
	for (uint32_t i = 0; i < nf; i++)
		p = put_str(put_str(p, f[i].type), f[i].name);
	put_str(p, print);
	return c;
}

static struct tpoint_meta_event *put_event(const char *sys, const char *name, const char *cls,
					   const char *cond, const char *print)
{
	size_t size = sizeof(struct tpoint_meta_event) + strlen(sys) + strlen(name) + strlen(cls) +
		      strlen(cond) + strlen(print) + 5;
	struct tpoint_meta_event *e = (struct tpoint_meta_event *)put(size, TPOINT_META_EVENT);

	put_str(put_str(put_str(put_str(put_str((char *)(e + 1), sys), name), cls), cond), print);
	return e;
}

static struct tpoint_meta_enum *put_enum(const char *sys, const char *name, int64_t v)
{
	struct tpoint_meta_enum *m = (struct tpoint_meta_enum *)put(
		sizeof(*m) + strlen(sys) + strlen(name) + 2, TPOINT_META_ENUM);

	put_str(put_str((char *)(m + 1), sys), name);
	m->value = v;
	return m;
}

/* Overwrite a record from string `from` to its end: that string and the rest lose their NUL. */
static void smear(struct tpoint_meta_hdr *h, const char *from)
{
	memset((char *)from, 'x', (size_t)((const char *)h + h->size - from));
}

#define FIELD(t, n, k, sz, al, sg, len) { t, n, { al, sz, sg, k, 0, len } }

/* 64 characters: with its NUL one more than a name may have. */
#define LONG_NAME "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"

static const struct field_spec mixed[] = {
	FIELD("u8", "a", TPOINT_FIELD_PLAIN, 1, 1, 0, 0),
	FIELD("s16", "b", TPOINT_FIELD_ARRAY, 6, 2, 1, 3),
	FIELD("u64", "c", TPOINT_FIELD_PLAIN, 8, 8, 0, 0),
	FIELD("char", "s", TPOINT_FIELD_DYNAMIC, 4, 4, 0, 0),
};

static const struct field_spec long_type[] = {
	FIELD("u8", "a", TPOINT_FIELD_PLAIN, 1, 1, 0, 0),
	FIELD(LONG_NAME, "b", TPOINT_FIELD_PLAIN, 1, 1, 0, 0),
};

static void test_handmade(void)
{
	const struct tpoint_meta_hdr *h;
	struct tpoint_meta_class *c;
	struct tpoint_meta_event *e, *e2;
	const char *cur, *end;
	char *fmt;
	int r;

	used = 0;
	c = put_class("t", "mixed", mixed, 4, 28,
		      "\"a=%u s=%s\", REC->a, __get_str(s)");
	pad(16); /* linker padding */
	e = put_event("t", "ev_plain", "mixed", "a > 1", "");
	e2 = put_event("t", "ev_print", "mixed", "",
		       "\"m=%d %s\", REC->a == MODE_A, __print_symbolic(REC->a, { MODE_A, \"A\" }, "
		       "{ MODE_B, \"B\" }), \"MODE_A\", REC->MODE_A, sizeof(struct foo), MODE_AB, "
		       "x.MODE_A, MODE_A_1, 0xMODE_A");
	put_enum("t", "MODE_A", 1);
	put_enum("other", "MODE_B", 99);
	put_enum("t", "MODE_B", -2);
	put_enum("t", "sizeof(struct foo)", 24);
	pad(8);
	end = sect + used;

	/* The walk: padding skipped, every record, then the end. */
	const struct tpoint_meta_hdr *seen[8];
	int n = 0;

	cur = sect;
	while ((r = tpoint_meta_next(&cur, end, &h)) > 0 && n < 8)
		seen[n++] = h;
	CHECK(r == 0 && n == 7 && cur == end);
	CHECK(n >= 3 && seen[0] == &c->hdr && seen[1] == &e->hdr && seen[2] == &e2->hdr);
	CHECK(tpoint_meta_find_class(sect, end, "t", "mixed") == c);
	CHECK(tpoint_meta_find_class(sect, end, "u", "mixed") == NULL);
	CHECK(tpoint_meta_find_class(sect, end, "t", "nope") == NULL);
	CHECK(!strcmp(tpoint_meta_event_condition(e), "a > 1"));

	fmt = tpoint_format_build(c, e, 7, NULL, 0);
	CHECK_TEXT("mixed layout", fmt,
		   "name: ev_plain\nID: 7\nformat:\n" COMMON_FIELDS "\n"
		   "\tfield:u8 a;\toffset:8;\tsize:1;\tsigned:0;\n"
		   "\tfield:s16 b[3];\toffset:10;\tsize:6;\tsigned:1;\n"
		   "\tfield:u64 c;\toffset:16;\tsize:8;\tsigned:0;\n"
		   "\tfield:__data_loc char[] s;\toffset:24;\tsize:4;\tsigned:0;\n"
		   "\nprint fmt: \"a=%u s=%s\", REC->a, __get_str(s)\n");
	free(fmt);

	/* Enums of the same system, whole words outside literals and member names. */
	struct tpoint_enum enums[8];
	size_t ne = 0;

	for (cur = sect; tpoint_meta_next(&cur, end, &h) > 0;) {
		const struct tpoint_meta_enum *m = (const struct tpoint_meta_enum *)h;

		if (h->kind == TPOINT_META_ENUM)
			enums[ne++] = (struct tpoint_enum){ tpoint_meta_enum_system(m),
							    tpoint_meta_enum_name(m), m->value };
	}
	CHECK(ne == 4);
	fmt = tpoint_format_build(c, e2, 8, enums, ne);
	CHECK(fmt && strstr(fmt, "name: ev_print\n"));
	CHECK_TEXT("enum substitution", fmt ? strstr(fmt, "print fmt: ") : NULL,
		   "print fmt: \"m=%d %s\", REC->a == 1, __print_symbolic(REC->a, { 1, \"A\" }, "
		   "{ -2, \"B\" }), \"MODE_A\", REC->MODE_A, 24, MODE_AB, x.MODE_A, MODE_A_1, "
		   "0xMODE_A\n");
	free(fmt);

	/* A layout that disagrees with the compiler's record size. */
	c->payload_size = 32; /* tail padding to the 8-byte alignment: fine */
	fmt = tpoint_format_build(c, e, 7, NULL, 0);
	CHECK(fmt != NULL);
	free(fmt);
	c->payload_size = 40;
	errno = 0;
	CHECK(tpoint_format_build(c, e, 7, NULL, 0) == NULL && errno == EINVAL);
	c->payload_size = 24;
	errno = 0;
	CHECK(tpoint_format_build(c, e, 7, NULL, 0) == NULL && errno == EINVAL);
	c->payload_size = 28;
	((struct tpoint_meta_field *)(c + 1))[2].align = 3;
	errno = 0;
	CHECK(tpoint_format_build(c, e, 7, NULL, 0) == NULL && errno == EINVAL);
	((struct tpoint_meta_field *)(c + 1))[2].align = 8;
}

/* Each corruption must give -EINVAL with the cursor on the bad record. */
static void expect_corrupt(int line, const char *what, size_t len)
{
	const struct tpoint_meta_hdr *h;
	const char *cur = sect;
	int r;

	/* The first record of sect is a good class; the second is the damaged one. */
	r = tpoint_meta_next(&cur, sect + len, &h);
	if (r != 1) {
		fprintf(stderr, "%s:%d: FAILED: %s: first record gives %d\n", __FILE__, line, what, r);
		failures++;
		return;
	}
	const char *bad = cur;

	r = tpoint_meta_next(&cur, sect + len, &h);
	if (r != -EINVAL || cur != bad) {
		fprintf(stderr, "%s:%d: FAILED: %s: got %d, cursor %+td from the bad record\n",
			__FILE__, line, what, r, cur - bad);
		failures++;
	}
}

static void test_corrupt(void)
{
	struct tpoint_meta_hdr *h;
	struct tpoint_meta_class *c;
	struct tpoint_meta_event *e;
	struct tpoint_meta_enum *m;
	size_t at;

#define FRESH_CLASS()                                                                        \
	(used = 0, put_class("t", "good", mixed, 1, 9, "\"\""), at = used,                   \
	 c = put_class("t", "bad", mixed, 4, 28, "\"x\""))
#define FRESH_EVENT() (used = 0, put_class("t", "good", mixed, 1, 9, "\"\""), at = used, \
		       e = put_event("t", "ev", "good", "cond", "\"p\""))
	(void)at;

	FRESH_CLASS();
	c->hdr.magic ^= 1;
	expect_corrupt(__LINE__, "bad magic", used);
	FRESH_CLASS();
	c->hdr.version = 1;
	expect_corrupt(__LINE__, "version 1", used);
	FRESH_CLASS();
	c->hdr.version = TPOINT_META_VERSION + 1;
	expect_corrupt(__LINE__, "a later version", used);
	FRESH_CLASS();
	c->hdr.kind = 9;
	expect_corrupt(__LINE__, "kind 9", used);
	FRESH_CLASS();
	c->hdr.size += 4;
	expect_corrupt(__LINE__, "size not a multiple of 8", used + 8);
	FRESH_CLASS();
	c->hdr.size += 8;
	expect_corrupt(__LINE__, "size past the end", used);
	FRESH_CLASS();
	c->hdr.size = 8;
	expect_corrupt(__LINE__, "size below the header", used);
	FRESH_CLASS();
	c->hdr.size = sizeof(*c) - 8;
	expect_corrupt(__LINE__, "class smaller than its struct", used);
	FRESH_CLASS();
	c->nfields = 7; /* 84 bytes of fields: no room for 17 strings in the 88 left */
	expect_corrupt(__LINE__, "nfields past the record", used);
	FRESH_CLASS();
	c->nfields = 0xffffffffu;
	expect_corrupt(__LINE__, "nfields overflow", used);
	FRESH_CLASS();
	smear(&c->hdr, tpoint_meta_class_name(c));
	expect_corrupt(__LINE__, "class name without NUL", used);
	FRESH_CLASS();
	smear(&c->hdr, tpoint_meta_str_next(tpoint_meta_class_field_strings(c)));
	expect_corrupt(__LINE__, "field name without NUL", used);
	used = 0;
	put_class("t", "good", mixed, 1, 9, "\"\"");
	put_class("t", "bad", long_type, 2, 10, "\"\"");
	expect_corrupt(__LINE__, "field type longer than TPOINT_NAME_MAX", used);
	used = 0;
	put_class("t", "good", mixed, 1, 9, "\"\"");
	put_class("t", LONG_NAME, mixed, 1, 9, "\"\"");
	expect_corrupt(__LINE__, "class name longer than TPOINT_NAME_MAX", used);
	FRESH_CLASS();
	((struct tpoint_meta_field *)(c + 1))[1].kind = TPOINT_FIELD_KIND_MAX + 1;
	expect_corrupt(__LINE__, "field kind past the last", used);
	FRESH_CLASS();
	smear(&c->hdr, tpoint_meta_class_print(c));
	expect_corrupt(__LINE__, "print without NUL", used);

	FRESH_EVENT();
	smear(&e->hdr, tpoint_meta_event_print(e));
	expect_corrupt(__LINE__, "print override without NUL", used);
	FRESH_EVENT();
	smear(&e->hdr, tpoint_meta_event_condition(e));
	expect_corrupt(__LINE__, "condition without NUL", used);
	FRESH_EVENT();
	smear(&e->hdr, tpoint_meta_event_class(e));
	expect_corrupt(__LINE__, "class_name without NUL", used);
	used = 0;
	put_class("t", "good", mixed, 1, 9, "\"\"");
	put_event("t", LONG_NAME, "good", "", "");
	expect_corrupt(__LINE__, "event name longer than TPOINT_NAME_MAX", used);
	used = 0;
	put_class("t", "good", mixed, 1, 9, "\"\"");
	e = put_event("t", "ev", "good", "", "");
	e->hdr.size = sizeof(*e);
	expect_corrupt(__LINE__, "event without its strings", sizeof(*e) + at);

	used = 0;
	put_class("t", "good", mixed, 1, 9, "\"\"");
	m = put_enum("t", "E", 1);
	smear(&m->hdr, tpoint_meta_enum_name(m));
	expect_corrupt(__LINE__, "enum name without NUL", used);

	/* A truncated header at the end of the section. */
	used = 0;
	put_class("t", "good", mixed, 1, 9, "\"\"");
	h = put(sizeof(*h), TPOINT_META_ENUM);
	expect_corrupt(__LINE__, "header cut short", used - 4);
	(void)h;

	/* A misaligned cursor is refused rather than read through a misaligned struct. */
	const char *cur = sect + 4;
	const struct tpoint_meta_hdr *rec;

	CHECK(tpoint_meta_next(&cur, sect + used, &rec) == -EINVAL);
	/* Empty and all-zero sections simply end. */
	cur = sect;
	CHECK(tpoint_meta_next(&cur, sect, &rec) == 0);
	memset(sect, 0, 64);
	cur = sect;
	CHECK(tpoint_meta_next(&cur, sect + 60, &rec) == 0 && cur == sect + 60);
}

/* ---- the print-format checker ---- */

static const char *const renderable[] = {
	"\"plain\"",
	"  \"x=%u\", REC->x",
	"\"%d %u %x %#x %08x %5u %-5u %%\", REC->a, REC->a, REC->a, REC->a, REC->a, REC->a, REC->a",
	"\"%-8s %.3s %*d %.*s\", REC->s, REC->s, 4, REC->a, 2, REC->s",
	"\"%lu %llu %lld %zu %hd %hhx\", REC->a, REC->a, REC->a, REC->a, REC->a, REC->a",
	"\"%p %pS %ps %pF %pI4 %pM %pU\", REC->p, REC->p, REC->p, REC->p, REC->p, REC->p, REC->p",
	"\"tab\\t quote\\\" %%c not a conversion\"",
	"\"a\" \"b %u\", REC->x",
	"\"%u\", ((unsigned int) ((REC->dev) >> 20))",
	"\"%s\", __print_flags(REC->a & 0xf, \"|\", { 1 << 2, \"B2\" }, { 0x1ULL, \"B0\" })",
	"\"%s\", __print_symbolic(REC->op, { 0, \"CREATE\" }, { 1, \"^ -> %c (\" })",
	("\"%s %s\", __print_hex(__get_dynamic_array(buf), __get_dynamic_array_len(buf)), "
	 "__print_hex_str(__get_dynamic_array(buf), 4)"),
	"\"%s\", __print_array(__get_dynamic_array(v), 3, 4)",
	"\"%s %s %s\", __get_str(s), __get_rel_str(r), __get_bitmask(m)",
	"\"%s\", __get_cpumask(c)",
	"\"%d %d %d\", sizeof(int), sizeof( long ), sizeof(REC->field)",
	"\"%d\", __builtin_expect(REC->a, 1) ? REC->a : -REC->a",
	"\"%s\", REC->a > 1 && !(REC->b || REC->c) ? \"yes\" : __get_str(s)",
	"\"%x\", REC->mac[2]",
};

static const struct {
	const char *fmt;
	const char *why; /* a substring of the reason */
} unrenderable[] = {
	{ "REC->a", "does not start with a string literal" },
	{ "", "does not start with a string literal" },
	{ "\"x=%c\", REC->c", "\"%c\": libtraceevent prints >c<" },
	{ "\"%-3c\", REC->c", "\"%-3c\"" },
	{ "\"%f\", REC->f", "\"%f\": libtraceevent has no floating-point" },
	{ "\"%5.2e\", REC->f", "\"%5.2e\"" },
	{ "\"%g\", REC->f", "\"%g\"" },
	{ "\"%La\", REC->f", "\"%La\"" },
	{ "\"%px\", REC->p", "\"%px\": libtraceevent prints the pointer followed by a literal 'x'" },
	{ "\"%pK\", REC->p", "\"%pK\"" },
	{ "\"%u\", REC->a ^ REC->b", "'^' (xor)" },
	{ "\"%u\", ((struct foo *)REC->ip)->x", "'->' other than REC->field" },
	{ "\"%u\", REC->a->b", "'->' other than REC->field" },
	{ "\"%u\", p->x", "'->' other than REC->field" },
	{ "\"%u\", sizeof(u64)", "sizeof(u64): libtraceevent knows only" },
	{ "\"%u\", sizeof(REC->a + 1)", "sizeof(REC->a + 1)" },
	{ "\"%u\", MAJOR(REC->dev)", "MAJOR(): a function or macro libtraceevent does not know" },
	{ "\"%u\", (unsigned int) jbd2_dev_to_name (REC->dev)", "jbd2_dev_to_name()" },
	{ "\"%u\", __print_flags(REC->f, \"|\", { FOO(1), \"x\" })", "FOO()" },
	{ "\"%u", "unterminated string literal" },
	{ "\"%u\", __get_str(\"x)", "unterminated string literal" },
	{ "\"%u\", (REC->a", "unbalanced parentheses" },
	{ "\"%u\", REC->a)", "unbalanced parentheses" },
	{ "\"say \"hi\"\", REC->a", "unexpected text after the format string" },
	{ "\"%\"", "incomplete conversion" },
};

static void test_check(void)
{
	char why[256];

	for (size_t i = 0; i < sizeof(renderable) / sizeof(renderable[0]); i++) {
		why[0] = 0;
		if (tpoint_print_fmt_check(renderable[i], why, sizeof(why))) {
			fprintf(stderr, "%s: FAILED: rejected renderable print fmt %s: %s\n",
				__FILE__, renderable[i], why);
			failures++;
		}
	}
	for (size_t i = 0; i < sizeof(unrenderable) / sizeof(unrenderable[0]); i++) {
		int r;

		why[0] = 0;
		r = tpoint_print_fmt_check(unrenderable[i].fmt, why, sizeof(why));
		if (r != -EINVAL || !strstr(why, unrenderable[i].why) || strchr(why, '\n')) {
			fprintf(stderr,
				"%s: FAILED: print fmt %s: got %d \"%s\", want -EINVAL \"...%s...\"\n",
				__FILE__, unrenderable[i].fmt, r, why, unrenderable[i].why);
			failures++;
		}
	}
	/* A short buffer truncates the reason but still says no; a NULL one is allowed. */
	CHECK(tpoint_print_fmt_check("\"%f\"", why, 4) == -EINVAL && strlen(why) == 3);
	CHECK(tpoint_print_fmt_check("\"%f\"", NULL, 0) == -EINVAL);
}

int main(void)
{
	test_compiled();
	test_handmade();
	test_corrupt();
	test_check();
	if (failures) {
		fprintf(stderr, "format_test: %d check(s) FAILED\n", failures);
		return 1;
	}
	printf("format_test: all checks passed\n");
	return 0;
}
