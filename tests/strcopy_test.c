// SPDX-License-Identifier: MIT
/*
 * strcopy_test - __string's copy, every length around the inline path's bound.
 *
 * The inline path copies a string itself (tpoint_copy_short(): 16-byte moves and an
 * overlapping last one, shorter moves under 16 bytes), up to TPOINT_INLINE_COPY_MAX bytes
 * of payload; longer records go out of line, to memcpy(). Each string, of every length from
 * 0 to past that bound, ends at the last byte before a page the process may not read, so
 * that a copy reading one byte too far crashes; trace-cmd must read each back exactly.
 */
#include <sys/mman.h>
#include "testutil.h"

#define CREATE_TRACE_POINTS
#include <trace/events/tpt_str.h>

#define MAX_LEN ((int)TPOINT_INLINE_COPY_MAX + 80)

struct seen {
	uint64_t only, after, bad;
};

static void fill(char *s, uint32_t len, uint32_t salt)
{
	for (uint32_t i = 0; i < len; i++)
		s[i] = (char)('a' + (i * 7 + salt) % 26);
	s[len] = 0;
}

static int check_line(const struct tu_line *l, void *arg)
{
	static char want[MAX_LEN + 1];
	struct seen *s = arg;
	const char *text = l->text;
	uint32_t len;
	int n = -1;

	if (!strcmp(l->name, "str_after")) {
		if (sscanf(text, "%d ", &n) != 1 || n < 0 || n > MAX_LEN)
			goto bad;
		text = strchr(text, ' ') ? strchr(text, ' ') + 1 : "";
		len = (uint32_t)n;
		fill(want, len, len + 1);
		s->after++;
	} else {
		len = (uint32_t)(s->only++);
		fill(want, len, len);
	}
	if (strcmp(text, want) != 0)
		goto bad;
	return 0;
bad:
	if (s->bad++ < 5)
		tu_note("%s: \"%.40s...\" (%zu bytes) is not the string of length %d", l->name,
			l->text, strlen(l->text), n);
	return 0;
}

int main(void)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t room = ((MAX_LEN + 1 + (size_t)page - 1) / (size_t)page) * (size_t)page;
	char *map = mmap(NULL, room + (size_t)page, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct tpoint_event_stats only, after;
	struct seen seen = { 0 };
	struct tu_report rep;
	int ret;

	tu_require_trace_cmd();
	REQUIRE(map != MAP_FAILED, "mmap: %s", strerror(errno));
	REQUIRE(mprotect(map + room, (size_t)page, PROT_NONE) == 0, "mprotect: %s",
		strerror(errno));
	CHECK(tpoint_enable("tpt_str:*") == 2, "enable both events");
	ret = tpoint_record_start("strcopy.dat");
	REQUIRE(ret == 0, "tpoint_record_start: %s", strerror(-ret));
	for (uint32_t len = 0; len <= (uint32_t)MAX_LEN; len++) {
		char *s = map + room - len - 1; /* its NUL is the last readable byte */

		fill(s, len, len);
		trace_str_only(s);
		fill(s, len, len + 1);
		trace_str_after((int)len, s);
	}
	ret = tpoint_record_stop();
	REQUIRE(ret == 0, "tpoint_record_stop: %s", strerror(-ret));
	REQUIRE(tu_stats("tpt_str", "str_only", &only) == 0, "stats of str_only");
	REQUIRE(tu_stats("tpt_str", "str_after", &after) == 0, "stats of str_after");
	CHECK(only.recorded == (uint64_t)MAX_LEN + 1 && after.recorded == (uint64_t)MAX_LEN + 1 &&
		      only.lost + after.lost == 0,
	      "recorded %" PRIu64 " and %" PRIu64 ", lost %" PRIu64 "; want %d each, none lost",
	      only.recorded, after.recorded, only.lost + after.lost, MAX_LEN + 1);

	tu_report_each("strcopy.dat", check_line, &seen, &rep);
	CHECK(rep.status == 0 && rep.malformed == 0 && seen.bad == 0 &&
		      seen.only == (uint64_t)MAX_LEN + 1 && seen.after == (uint64_t)MAX_LEN + 1,
	      "trace-cmd: status %d, %" PRIu64 " malformed, %" PRIu64 " wrong, %" PRIu64
	      " and %" PRIu64 " records read; want %d each", rep.status, rep.malformed, seen.bad,
	      seen.only, seen.after, MAX_LEN + 1);
	tu_note("strings of 0 to %d bytes, each before an unreadable page, read back exactly",
		MAX_LEN);
	return tu_finish();
}
