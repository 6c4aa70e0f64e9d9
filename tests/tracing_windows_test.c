// SPDX-License-Identifier: MIT
/*
 * tracing_windows_test - the off windows of a spool's SPOOL_TRACING chunks
 * (lib/fmt/tracing_windows.c) on their own: a record on each side of each switch, the
 * record that fired a switch (stamped at the switch's clock or next to it), a window still
 * open, chunks that overlap, come out of order or follow a lost one, racing switches whose
 * clocks go back.
 */
#include <errno.h>
#include <string.h>
#include "testutil.h"
#include "fmt/tracing_windows.h"

/* A chunk's payload: index, then clocks. */
static int add(struct tracing_windows *w, uint64_t first, const uint64_t *at, size_t n)
{
	uint64_t body[16];

	body[0] = first;
	memcpy(body + 1, at, n * 8);
	return tp_tracing_windows_add(w, body, n);
}

int main(void)
{
	struct tracing_windows w = { 0 };

	CHECK(!tp_tracing_windows_off(&w, 5), "no switches: on");
	CHECK(add(&w, 0, (uint64_t[]){ 100, 200 }, 2) == 0 && w.n == 2, "off at 100, on at 200");
	CHECK(!tp_tracing_windows_off(&w, 99), "before the off: kept");
	CHECK(!tp_tracing_windows_off(&w, 100), "the traceoff's record (at its switch): kept");
	CHECK(tp_tracing_windows_off(&w, 101) && tp_tracing_windows_off(&w, 199), "inside: out");
	CHECK(!tp_tracing_windows_off(&w, 200), "the traceon's record (at its switch): kept");
	CHECK(!tp_tracing_windows_off(&w, 201), "after the on: kept");

	CHECK(add(&w, 1, (uint64_t[]){ 200, 300 }, 2) == 0 && w.n == 3, "an overlapping chunk");
	CHECK(tp_tracing_windows_off(&w, 301) && tp_tracing_windows_off(&w, UINT64_MAX),
	      "a window still open: out to the end");
	CHECK(add(&w, 5, (uint64_t[]){ 900 }, 1) == 0 && w.n == 3,
	      "a chunk after a lost one adds nothing");
	CHECK(add(&w, 0, (uint64_t[]){ 100 }, 1) == 0 && w.n == 3, "an old chunk adds nothing");
	CHECK(add(&w, 3, (uint64_t[]){ 250, 400 }, 2) == 0 && w.n == 5,
	      "racing switches: an on stamped before the off it follows");
	CHECK(!tp_tracing_windows_off(&w, 301), "a window of none");
	CHECK(tp_tracing_windows_off(&w, 401), "the next off holds");
	tp_tracing_windows_free(&w);
	CHECK(w.n == 0 && !w.at, "freed");
	tu_note("tracing windows: edges, open windows, overlapping, late and lost chunks");
	return tu_finish();
}
