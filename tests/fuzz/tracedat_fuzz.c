// SPDX-License-Identifier: MIT
/*
 * tracedat_fuzz - libFuzzer harness for the trace.dat reader of `tpoint report`
 * (tools/tpoint/tracedat_read.c) and the report behind it (tools/tpoint/report.c: the
 * counters' options; render.c: the records handed to libtraceevent under tep_guard.c).
 * Built by tests/fuzz/run.sh, linked with libtraceevent.
 *
 * An input is a file `tpoint report` is given: anything. It is first validated from a heap
 * buffer of exactly its size with tracedat_parse() (ASan sees any read past its end), and
 * when accepted every record of every buffer and CPU is walked and every format's print
 * fields checked, as the report does; the promise of the reader is that nothing it accepted
 * can make those go out of bounds. Then the whole report runs on it, `tpoint report FILE`
 * `tpoint report --stats FILE` and `tpoint report --json FILE` (the converter's typed
 * fields: convert_input.c, json.c), and both with a selection (-e, -f, --cpu, --from:
 * report_select.c, select.c, the filter compiled against the file's formats), from a memfd
 * named /proc/self/fd/N, its output thrown away. libtraceevent itself is not instrumented: what it does wrong inside is not seen.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tool.h"
#include "tracedat_read.h"

#include "tool_stubs.h"

/*
 * libtraceevent 1.7.1 leaks what it allocated for a format it fails to parse (and the guard
 * leaks on purpose what it held when a trap jumped out of it): not the report's leaks.
 */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libtraceevent.so\n";
}

static int dat_fd;
static char dat_path[32];

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	dat_fd = fuzz_input_file("trace.dat", dat_path, sizeof(dat_path));
	return 0;
}

/* What the reader promises of a file it accepted: every page and record can be walked. */
static void walk(const struct tracedat *td)
{
	char why[256];

	for (size_t i = 0; i < td->nr_formats; i++)
		tracedat_check_print_fields(&td->formats[i], why, sizeof(why));
	for (size_t b = 0; b < td->nr_buffers; b++) {
		for (uint32_t cpu = 0; cpu < td->nr_cpus; cpu++) {
			const struct td_cpu *c = &td->buffers[b].cpus[cpu];
			struct td_cursor cur;
			struct td_event ev;
			uint64_t n = 0;

			for (uint64_t p = 0; p < c->nr_pages; p++)
				if (!tracedat_page(td, b, cpu, p))
					abort(); /* a page it counted is not there */
			tracedat_cursor_init(&cur, td, b, cpu);
			while (tracedat_next_event(&cur, &ev) > 0) {
				const unsigned char *pg = tracedat_page(td, b, cpu, cur.page);

				/* (a version 7 file's page is in a chunk decompressed) */
				if (ev.size < 8 || !pg || ev.data < pg ||
				    ev.data + ev.size > pg + td->page_size)
					abort(); /* a record outside its page */
				tracedat_ts(td, ev.ts);
				n++;
			}
			if (n != c->nr_events)
				abort(); /* the walk disagrees with the validation's count */
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tracedat td;
	char err[512];

	if (tracedat_parse(&td, "fuzz.dat", data, size, err, sizeof(err)) == 0) {
		walk(&td);
		tracedat_close(&td);
	}
	if (ftruncate(dat_fd, 0) || (size && pwrite(dat_fd, data, size, 0) != (ssize_t)size))
		abort();
	for (int mode = 0; mode < 5; mode++) {
		char *argv[] = { (char *)"report", (char *)"--stats", dat_path, NULL };
		/* a selection (report_select.c): each file's formats compiled, each record judged */
		char *sel[] = { (char *)"report", (char *)"-e", (char *)"*",
				(char *)"-f", (char *)"common_pid != 1", (char *)"--cpu",
				(char *)"0-1", (char *)"--from", (char *)"0.000001",
				mode == 4 ? (char *)"--json" : dat_path, dat_path, NULL };

		if (mode >= 3) {
			cmd_report(mode == 4 ? 11 : 10, sel);
		} else if (mode == 1) {
			cmd_report(3, argv);
		} else if (mode == 2) {
			argv[1] = (char *)"--json"; /* the converter's reading (json.c) */
			cmd_report(3, argv);
		} else {
			argv[1] = dat_path;
			argv[2] = NULL;
			cmd_report(2, argv);
		}
	}
	fflush(stdout);
	return 0;
}
