/* SPDX-License-Identifier: MIT */
/*
 * control_msg_test - the control protocol's messages and the files' counter rows
 * (lib/fmt/control_msg.c) on their own: each written as the bytes the library has always
 * sent (and files hold), read back equal, and text cut short or made of garbage read
 * without a crash, into "malformed" or a row of what is there.
 *
 * Exit 0 when every check passes.
 */
#define _GNU_SOURCE
#include "testutil.h"
#include "fmt/control_msg.h"

/* The text t holds, as a string ("" for none). */
static const char *text_of(const struct ctl_text *t)
{
	return t->buf ? t->buf : "";
}

static bool same(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

static void hello(void)
{
	struct ctl_text t = { 0 };
	struct ctl_hello h = { 123, 4, 2, "cat", "spool:/tmp/x" }, got;

	tp_ctl_hello_put(&t, &h);
	CHECK(same(text_of(&t), "123\tcat\t4\t2\tspool:/tmp/x\n"), "hello: '%s'", text_of(&t));
	tp_ctl_hello_parse(t.buf, &got);
	CHECK(got.pid == 123 && got.events == 4 && got.enabled == 2 && same(got.comm, "cat") &&
	      same(got.recording, "spool:/tmp/x"), "hello round trip");
	tp_ctl_text_free(&t);

	char cut[] = "77\tsh";

	tp_ctl_hello_parse(cut, &got);
	CHECK(got.pid == 77 && same(got.comm, "sh") && got.events == -1 && got.enabled == -1 &&
	      !got.recording, "hello cut short: what is there, the rest unknown");
	char junk[] = "x\t\t-3\t99999999999999999999999";

	tp_ctl_hello_parse(junk, &got);
	CHECK(got.pid == -1 && got.events == -1 && got.enabled == -1, "hello: no numbers");
}

static void list(void)
{
	struct ctl_text t = { 0 };
	struct ctl_event_row rows[] = {
		{ .id = 28673, .system = "tpt", .event = "a", .enabled = true, .condition = "x > 1",
		  .filter = "n == 2" },
		{ .id = 28674, .event = "tpt:b", .condition = "", .filter = "",
		  .refusal = CTL_REFUSAL_REG, .reg_error = -5 },
		{ .id = 28675, .event = "tpt:c", .condition = "", .filter = "",
		  .refusal = CTL_REFUSAL_FORMAT, .why = "unknown function 'f'" },
		{ .id = 28676, .event = "tpt:d", .condition = "", .filter = "",
		  .refusal = CTL_REFUSAL_FORMAT },
		{ .id = 28677, .event = "tpt:e", .condition = "", .filter = "",
		  .triggers = "hist:keys=id:vals=hitcount:sort=hitcount:size=2048 [active]" },
	};
	/* Minor version 2 added the triggers, last: version 1's reader stops before them. */
	const char *want = "28673\ttpt:a\t1\tx > 1\tn == 2\t\t\n"
			   "28674\ttpt:b\t0\t\t\treg function returned -5\t\n"
			   "28675\ttpt:c\t0\t\t\tunknown function 'f'\t\n"
			   "28676\ttpt:d\t0\t\t\trefused\t\n"
			   "28677\ttpt:e\t0\t\t\t\thist:keys=id:vals=hitcount:sort=hitcount:"
			   "size=2048 [active]\n";
	struct ctl_event_row r;
	char *cur;
	int n = 0;

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		tp_ctl_event_row_put(&t, &rows[i]);
	CHECK(same(text_of(&t), want), "list: the bytes of today: '%s'", text_of(&t));
	for (cur = t.buf; tp_ctl_event_row_next(&cur, &r); n++) {
		const struct ctl_event_row *w = &rows[n];
		char event[64];

		snprintf(event, sizeof(event), "%s%s%s", w->system ? w->system : "",
			 w->system ? ":" : "", w->event);
		CHECK(r.id == w->id && same(r.event, event) && r.enabled == w->enabled &&
		      same(r.condition, w->condition) && same(r.filter, w->filter) &&
		      r.refusal == w->refusal && r.reg_error == w->reg_error && !r.system &&
		      same(r.triggers, w->triggers ? w->triggers : ""),
		      "list row %d round trip", n);
	}
	CHECK(n == 5, "list: 5 rows, got %d", n);
	CHECK(same(rows[2].why, "unknown function 'f'"), "list: why kept");
	tp_ctl_text_free(&t);

	/* an older process: no refused field; lines with no event are no rows */
	char old[] = "5\tsys:e\t1\tc\n\njunk\n7\tsys:f\n";

	cur = old;
	CHECK(tp_ctl_event_row_next(&cur, &r) == 1 && r.id == 5 && r.enabled &&
	      same(r.condition, "c") && same(r.filter, "") && r.refusal == CTL_REFUSAL_NONE &&
	      same(r.triggers, ""),
	      "list: an older process's row");
	CHECK(tp_ctl_event_row_next(&cur, &r) == 1 && r.id == 7 && same(r.event, "sys:f") &&
	      !r.enabled, "list: a row of two fields");
	CHECK(tp_ctl_event_row_next(&cur, &r) == 0, "list: its end");
	int reg;

	CHECK(tp_ctl_refusal_of("reg function returned -22\033[2J", &reg) == CTL_REFUSAL_REG &&
	      reg == -22, "refusal: reg() with trailing words");
	CHECK(tp_ctl_refusal_of("", &reg) == CTL_REFUSAL_NONE && tp_ctl_refusal_of(NULL, &reg) == 0,
	      "refusal: none");
}

static void stats(void)
{
	struct ctl_text t = { 0 };
	struct ctl_stat_row w = { .system = "tpt", .event = "a", .v = { 9, 1, 2, 5, 1 },
				  .condition = "x > 1", .usdt = 3 };
	struct ctl_stat_row r;
	char *cur;

	tp_ctl_stat_row_put(&t, &w, CTL_ROW_SOCKET);
	CHECK(same(text_of(&t), "tpt:a\t9\t1\t2\t5\t1\tx > 1\t3\n"), "stats: '%s'", text_of(&t));
	cur = t.buf;
	CHECK(tp_ctl_stat_row_next(&cur, &r) == 1 && same(r.event, "tpt:a") && r.v[0] == 9 &&
	      r.v[1] == 1 && r.v[2] == 2 && r.v[3] == 5 && r.v[4] == 1 &&
	      same(r.condition, "x > 1") && r.usdt == 3, "stats round trip");
	CHECK(tp_ctl_stat_row_next(&cur, &r) == 0, "stats: its end");
	tp_ctl_text_free(&t);

	w.v[0] = UINT64_MAX / 10;
	tp_ctl_stat_row_put(&t, &w, CTL_ROW_FILE);
	CHECK(same(text_of(&t), "tpt:a\t1844674407370955161\t1\t2\t5\t1\tx > 1\n"),
	      "file stats: '%s'", text_of(&t));
	t.buf[t.len - 1] = 0;
	CHECK(tp_ctl_stat_row_parse(t.buf, &r, CTL_ROW_FILE) == 0 && r.v[0] == UINT64_MAX / 10 &&
	      same(r.condition, "x > 1") && r.usdt == 0, "file stats round trip");
	tp_ctl_text_free(&t);

	char tabbed[] = "s:e\t1\t2\t3\t4\t5\ta\tb";
	CHECK(tp_ctl_stat_row_parse(tabbed, &r, CTL_ROW_FILE) == 0 && same(r.condition, "a\tb"),
	      "file stats: the condition keeps its tab");
	char old[] = "s:e\t1\t2\t3\t4\t5";
	CHECK(tp_ctl_stat_row_parse(old, &r, CTL_ROW_SOCKET) == 0 && same(r.condition, ""),
	      "stats of an older process: no condition");
	char old2[] = "s:e\t1\t2\t3\t4\t5";
	CHECK(tp_ctl_stat_row_parse(old2, &r, CTL_ROW_FILE) == CTL_ROW_MALFORMED,
	      "file stats need the condition");
	char nocolon[] = "se\t1\t2\t3\t4\t5\t";
	CHECK(tp_ctl_stat_row_parse(nocolon, &r, CTL_ROW_FILE) == CTL_ROW_MALFORMED,
	      "stats: no system");
	char empty[] = "\t1\t2\t3\t4\t5\t";
	CHECK(tp_ctl_stat_row_parse(empty, &r, CTL_ROW_FILE) == CTL_ROW_MALFORMED,
	      "stats: no event");
	char nan[] = "s:e\t1\t2\tx\t4\t5\t";
	CHECK(tp_ctl_stat_row_parse(nan, &r, CTL_ROW_FILE) == CTL_ROW_NOT_NUMBER + CTL_FILTERED,
	      "stats: filtered is not a number");
	char neg[] = "s:e\t-1\t2\t3\t4\t5\t";
	CHECK(tp_ctl_stat_row_parse(neg, &r, CTL_ROW_FILE) == CTL_ROW_NOT_NUMBER + CTL_HITS,
	      "stats: a sign is not a number");
	char big[] = "s:e\t18446744073709551615\t2\t3\t4\t5\t";
	CHECK(tp_ctl_stat_row_parse(big, &r, CTL_ROW_FILE) == CTL_ROW_NOT_NUMBER,
	      "stats: 20 digits are too many, as files were always read");
	char badusdt[] = "s:e\t1\t2\t3\t4\t5\tc\tz";
	CHECK(tp_ctl_stat_row_parse(badusdt, &r, CTL_ROW_SOCKET) == CTL_ROW_MALFORMED,
	      "stats: usdt is not a number");
}

static void notes(void)
{
	struct ctl_text t = { 0 };
	struct ctl_note_row rows[] = {
		{ .system = "tpt", .event = "a", .too_big = 4 },
		{ .event = "tpt:b", .refusal = CTL_REFUSAL_FORMAT },
		{ .event = "tpt:c", .refusal = CTL_REFUSAL_REG, .reg_error = -5 },
	};
	struct ctl_note_row r;
	char *cur, *line;
	int n = 0;

	for (int i = 0; i < 3; i++)
		tp_ctl_note_row_put(&t, &rows[i]);
	CHECK(same(text_of(&t), "tpt:a\t4\t0\ntpt:b\t0\t1\ntpt:c\t0\treg -5\n"), "notes: '%s'",
	      text_of(&t));
	for (cur = t.buf; (line = strsep(&cur, "\n")) && *line; n++)
		CHECK(tp_ctl_note_row_parse(line, &r) == 0 && r.too_big == rows[n].too_big &&
		      r.refusal == rows[n].refusal && r.reg_error == rows[n].reg_error,
		      "note %d round trip", n);
	CHECK(n == 3, "notes: 3 rows");
	tp_ctl_text_free(&t);
	char cut[] = "tpt:a\t4";
	CHECK(tp_ctl_note_row_parse(cut, &r) == CTL_ROW_MALFORMED, "notes: cut short");
}

static void requests(void)
{
	struct ctl_text t = { 0 };
	struct ctl_filter_req f;
	struct ctl_attach_req a;
	struct ctl_attach_reply ar;
	struct ctl_jump j;

	tp_ctl_filter_req_put(&t, &(struct ctl_filter_req){ "tpt:a", "n > 2\tx" });
	CHECK(same(text_of(&t), "tpt:a\tn > 2\tx"), "filter request");
	CHECK(tp_ctl_filter_req_parse(t.buf, &f) == 0 && same(f.event, "tpt:a") &&
	      same(f.expr, "n > 2\tx"), "filter round trip");
	tp_ctl_text_free(&t);
	char nofilter[] = "tpt:a";
	CHECK(tp_ctl_filter_req_parse(nofilter, &f) == CTL_ROW_MALFORMED, "filter: no tab");

	tp_ctl_attach_req_put(&t, &(struct ctl_attach_req){ "/tmp/s", "tpt:*", "discard", true,
							  "0" });
	CHECK(same(text_of(&t), "/tmp/s\ttpt:*\tdiscard\t1\t0"), "attach request");
	CHECK(tp_ctl_attach_req_parse(t.buf, &a) == 0 && same(a.spool, "/tmp/s") &&
	      same(a.globs, "tpt:*") && same(a.mode, "discard") && a.live &&
	      same(a.pool_bytes, "0"), "attach round trip");
	tp_ctl_text_free(&t);
	char rel[] = "tmp/s\ta\tdiscard\t0\t0", four[] = "/tmp/s\ta\tdiscard\t0";
	CHECK(tp_ctl_attach_req_parse(rel, &a) == CTL_ROW_MALFORMED, "attach: relative spool");
	CHECK(tp_ctl_attach_req_parse(four, &a) == CTL_ROW_MALFORMED, "attach: four fields");

	tp_ctl_attach_reply_put(&t, &(struct ctl_attach_reply){ 64, 4096, 8192 });
	CHECK(same(text_of(&t), "64\t4096\t8192"), "attach reply");
	CHECK(tp_ctl_attach_reply_parse(t.buf, &ar) == 0 && ar.npages == 64 &&
	      ar.page_size == 4096 && ar.meta_offset == 8192, "attach reply round trip");
	CHECK(tp_ctl_attach_reply_parse("64\t4096", &ar) == CTL_ROW_MALFORMED, "attach reply cut");
	tp_ctl_text_free(&t);

	tp_ctl_jump_put(&t, &(struct ctl_jump){ 12, 2, "text not writable" });
	CHECK(same(text_of(&t), "12\t2\ttext not writable\n"), "jump");
	CHECK(tp_ctl_jump_parse(t.buf, &j) == 0 && j.sites == 12 && j.checked == 2 &&
	      same(j.reason, "text not writable"), "jump round trip");
	tp_ctl_text_free(&t);
	char nojump[] = "x\t1\n";
	CHECK(tp_ctl_jump_parse(nojump, &j) == CTL_ROW_MALFORMED, "jump: no number");
}

static void places(void)
{
	char dir[64], path[128];
	long pid;

	tp_ctl_dir_in_runtime(dir, sizeof(dir), "/run/user/1000");
	CHECK(same(dir, "/run/user/1000/tpoint"), "runtime dir: %s", dir);
	tp_ctl_dir_in_tmp(dir, sizeof(dir), 1000);
	CHECK(same(dir, "/tmp/tpoint-1000"), "tmp dir: %s", dir);
	tp_ctl_socket_path(path, sizeof(path), dir, 42);
	CHECK(same(path, "/tmp/tpoint-1000/42.sock"), "socket: %s", path);
	CHECK(tp_ctl_socket_name("42.sock", &pid) && pid == 42, "a socket's name");
	CHECK(!tp_ctl_socket_name("42.sock~", &pid) && !tp_ctl_socket_name("-1.sock", &pid) &&
	      !tp_ctl_socket_name(".sock", &pid), "not a socket's name");
	CHECK(tp_ctl_dir_in_tmp(dir, 8, 1000) >= 8, "a place cut short is said");
}

static void limit(void)
{
	struct ctl_text t = { .max = 8192 };

	for (int i = 0; i < 1000; i++)
		tp_ctl_text_add(&t, "%s", "0123456789");
	CHECK(t.oom && t.len <= 8192 && t.len % 10 == 0, "text: its limit, whole pieces only");
	tp_ctl_text_free(&t);
	CHECK(!t.buf && !t.oom && t.max == 8192, "text: freed, the limit kept");
}

/* Every prefix of a well-formed text, and bytes of every value: no crash, no overread. */
static void garbage(void)
{
	const char *good = "28673\ttpt:a\t1\tx\tn\treg function returned -5\n"
			   "tpt:a\t9\t1\t2\t5\t1\tx > 1\t3\n";
	size_t len = strlen(good);
	unsigned seed = 1;

	for (size_t cut = 0; cut <= len; cut++) {
		for (int kind = 0; kind < 6; kind++) {
			char *s = strndup(good, cut), *cur = s;
			struct ctl_event_row er;
			struct ctl_stat_row sr;
			struct ctl_note_row nr;
			struct ctl_hello h;
			struct ctl_jump j;
			struct ctl_attach_req a;

			switch (kind) {
			case 0: while (tp_ctl_event_row_next(&cur, &er)) {} break;
			case 1: while (tp_ctl_stat_row_next(&cur, &sr)) {} break;
			case 2: tp_ctl_note_row_parse(s, &nr); break;
			case 3: tp_ctl_hello_parse(s, &h); break;
			case 4: tp_ctl_jump_parse(s, &j); break;
			case 5: tp_ctl_attach_req_parse(s, &a); break;
			}
			free(s);
		}
	}
	for (int i = 0; i < 2000; i++) {
		char s[64], *cur = s;
		struct ctl_event_row er;
		struct ctl_stat_row sr;

		for (size_t k = 0; k < sizeof(s) - 1; k++) {
			seed = seed * 1103515245 + 12345;
			s[k] = "\t\n:0123456789a-"[(seed >> 16) % 15];
		}
		s[sizeof(s) - 1] = 0;
		while (tp_ctl_stat_row_next(&cur, &sr)) {}
		for (size_t k = 0; k < sizeof(s) - 1; k++) {
			seed = seed * 1103515245 + 12345;
			s[k] = "\t\n:0123456789a-"[(seed >> 16) % 15];
		}
		cur = s;
		while (tp_ctl_event_row_next(&cur, &er)) {}
	}
	CHECK(1, "cut and garbage text read without a crash");
}

int main(void)
{
	hello();
	list();
	stats();
	notes();
	requests();
	places();
	limit();
	garbage();
	return tu_finish();
}
