/* SPDX-License-Identifier: MIT */
/*
 * A TP_printk that libtraceevent cannot render (%c, ^) must never become a silent
 * "[FAILED TO PARSE]" in a report: the event is refused at registration, with a message
 * naming it, and stays disabled; the other events of the file work.
 */
#include "testutil.h"

#define CREATE_TRACE_POINTS
#include "trace/events/badfmt.h"

/* Before the registration constructor (default priority) of this object. */
__attribute__((constructor(101))) static void hear_log(void)
{
	tpoint_set_log(tu_log_gather, NULL);
}

int main(void)
{
	int failed = 0;
	struct tpoint_event_stats st[8];
	int n;

	n = tpoint_enable("badfmt:*");
	if (n != 3) {
		printf("FAIL: tpoint_enable matched %d events, expected 3\n", n);
		failed = 1;
	}
	if (tpoint_record_start("badfmt.dat") < 0) {
		printf("FAIL: cannot start recording\n");
		return 1;
	}
	if (trace_badfmt_char_enabled() || trace_badfmt_xor_enabled()) {
		printf("FAIL: an event with an unrenderable print format was enabled\n");
		failed = 1;
	}
	if (!trace_badfmt_fine_enabled()) {
		printf("FAIL: the good event of the same header is not enabled\n");
		failed = 1;
	}
	trace_badfmt_char('x');
	trace_badfmt_xor(1);
	trace_badfmt_fine(7);
	tpoint_record_stop();
	n = tpoint_stats(st, 8);
	for (int i = 0; i < n; i++) {
		unsigned long long want = !strcmp(st[i].name, "badfmt_fine");

		if (st[i].recorded != want) {
			printf("FAIL: %s recorded %llu, expected %llu\n", st[i].name,
			       (unsigned long long)st[i].recorded, want);
			failed = 1;
		}
	}
	printf("%s", tu_logged);
	if (!strstr(tu_logged, "badfmt:badfmt_char") || !strstr(tu_logged, "%c") ||
	    !strstr(tu_logged, "badfmt:badfmt_xor")) {
		printf("FAIL: the refusal was not logged naming the events and the construct\n");
		failed = 1;
	}
	return failed;
}
