/* SPDX-License-Identifier: MIT */
/*
 * c11_test - the definition headers compile as ISO C11 (-std=c11, not gnu11) with
 * -Wall -Wextra -Werror, on both sides: this file creates the tutorial's events and calls
 * them; the recording is then read back by trace-cmd.
 */
#include "testutil.h"

#define CREATE_TRACE_POINTS
#include "trace/events/sample.h"

static int count(const struct tu_line *l, void *arg)
{
	(void)l;
	++*(int *)arg;
	return 0;
}

int main(void)
{
	const struct sample_point p = { 1, 2 };
	const unsigned char mac[6] = { 1, 2, 3, 4, 5, 6 };
	const int values[2] = { 7, 8 };
	struct tu_report r;
	int n = 0;

	tu_require_trace_cmd();
	CHECK(tpoint_enable("sample") == 5, "the system name enables its 5 events");
	REQUIRE(tpoint_record_start("c11.dat") == 0, "start");
	trace_sample_every_field(1, "c11", &p, mac, values, 2, SAMPLE_FLAG_WRITE, COLOR_BLUE);
	trace_sample_large(1);
	trace_sample_large(8192);
	trace_sample_read("f", 0, 1);
	CHECK(tpoint_record_stop() == 0, "stop");
	tu_report_each("c11.dat", count, &n, &r);
	CHECK(r.status == 0 && n == 3, "trace-cmd reads the 3 recorded events (got %d)", n);
	tu_note("built with -std=c11 -Wall -Wextra -Werror; %d events read back", n);
	return tu_finish();
}
