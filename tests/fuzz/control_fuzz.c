// SPDX-License-Identifier: MIT
/*
 * control_fuzz - libFuzzer harness for the control protocol's parsers (lib/fmt/control_msg.c):
 * what a process answers reaches the tool (root's, too), and what a client sends reaches the
 * process, so every parser takes anyone's bytes.
 *
 *   clang -std=gnu11 -g -fsanitize=fuzzer,address,undefined -Ilib -Iinclude \
 *	tests/fuzz/control_fuzz.c lib/fmt/control_msg.c -o control_fuzz
 *
 * An input's first byte picks the message, the rest is its text, copied into a buffer of
 * exactly its size with the NUL, so ASan catches any read past it. Besides not crashing,
 * leaking or hanging, what a parser accepts must write back and read again the same.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fmt/control_msg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int cond)
{
	if (!cond)
		abort();
}

static int same(const char *a, const char *b)
{
	return !strcmp(a ? a : "", b ? b : "");
}

/* A row read from the text is written and read again: the same row. */
static void event_rows(char *s)
{
	struct ctl_event_row r, again;
	char *cur = s;

	while (tp_ctl_event_row_next(&cur, &r)) {
		struct ctl_text t = { 0 };
		char *c2;

		/* a row whose fields hold no newline or tab of their own goes out as it came */
		if (strpbrk(r.event, "\n") || !*r.event)
			continue;
		tp_ctl_event_row_put(&t, &r);
		c2 = t.buf;
		check(!t.oom && tp_ctl_event_row_next(&c2, &again) == 1);
		check(again.id == r.id && same(again.event, r.event) &&
		      again.enabled == r.enabled && same(again.condition, r.condition) &&
		      same(again.filter, r.filter) && again.refusal == r.refusal &&
		      again.reg_error == r.reg_error);
		tp_ctl_text_free(&t);
	}
}

static void stat_rows(char *s)
{
	struct ctl_stat_row r, again;
	char *cur = s;
	int got;

	while ((got = tp_ctl_stat_row_next(&cur, &r))) {
		struct ctl_text t = { 0 };
		char *c2;

		if (got < 0)
			continue;
		tp_ctl_stat_row_put(&t, &r, CTL_ROW_SOCKET);
		c2 = t.buf;
		check(!t.oom && tp_ctl_stat_row_next(&c2, &again) == 1);
		check(same(again.event, r.event) && !memcmp(again.v, r.v, sizeof(r.v)) &&
		      same(again.condition, r.condition) && again.usdt == r.usdt);
		tp_ctl_text_free(&t);
	}
}

static void file_row(char *s)
{
	struct ctl_stat_row r, again;
	struct ctl_text t = { 0 };

	if (strchr(s, '\n') || tp_ctl_stat_row_parse(s, &r, CTL_ROW_FILE))
		return;
	tp_ctl_stat_row_put(&t, &r, CTL_ROW_FILE);
	check(!t.oom && t.len && t.buf[t.len - 1] == '\n');
	t.buf[t.len - 1] = 0;
	check(tp_ctl_stat_row_parse(t.buf, &again, CTL_ROW_FILE) == 0);
	check(same(again.event, r.event) && !memcmp(again.v, r.v, sizeof(r.v)) &&
	      same(again.condition, r.condition));
	tp_ctl_text_free(&t);
}

static void others(char *s, int kind)
{
	struct ctl_note_row n;
	struct ctl_hello h;
	struct ctl_jump j;
	struct ctl_attach_req a;
	struct ctl_attach_reply ar;
	struct ctl_filter_req f;

	switch (kind) {
	case 0: tp_ctl_note_row_parse(s, &n); break;
	case 1: tp_ctl_hello_parse(s, &h); break;
	case 2: tp_ctl_jump_parse(s, &j); break;
	case 3: tp_ctl_attach_req_parse(s, &a); break;
	case 4: tp_ctl_attach_reply_parse(s, &ar); break;
	default: tp_ctl_filter_req_parse(s, &f); break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s;
	int kind;

	if (!size)
		return 0;
	kind = data[0] % 9;
	s = malloc(size);
	if (!s)
		return 0;
	memcpy(s, data + 1, size - 1);
	s[size - 1] = 0;
	if (kind == 0)
		event_rows(s);
	else if (kind == 1)
		stat_rows(s);
	else if (kind == 2)
		file_row(s);
	else
		others(s, kind - 3);
	free(s);
	return 0;
}
