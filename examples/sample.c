/* SPDX-License-Identifier: MIT */
/*
 * Fires every event of the tutorial header once (see trace/events/sample.h), and shows an
 * in-process probe: register_trace_<name>() calls a function of yours on every hit, as in
 * the kernel.
 *
 *	TPOINT_EVENTS='sample:*' TPOINT_RECORD=sample.dat ./sample && tpoint report sample.dat
 */
#include <stdio.h>

/* This file creates the events; any other file would only include the header. */
#define CREATE_TRACE_POINTS
#include "trace/events/sample.h"

static void on_read(void *data, const char *file, unsigned long offset, unsigned int len)
{
	int *reads = data;

	(*reads)++;
	printf("probe: read of %s at %lu (%u bytes)\n", file, offset, len);
}

int main(void)
{
	const struct sample_point p = { 3, 4 };
	const unsigned char mac[6] = { 0x00, 0x16, 0x3e, 0x12, 0x34, 0x56 };
	const int values[3] = { 10, 20, 30 };
	int reads = 0;

	register_trace_sample_read(on_read, &reads);
	trace_sample_every_field(1, "first", &p, mac, values, 3,
				 SAMPLE_FLAG_READ | SAMPLE_FLAG_SYNC, COLOR_GREEN);
	trace_sample_large(100);  /* condition false: counted, not recorded */
	trace_sample_large(65536);
	trace_sample_read("data.bin", 0, 512);
	trace_sample_write_unaligned("data.bin", 4096, 512); /* aligned: skipped */
	trace_sample_write_unaligned("data.bin", 100, 512);
	trace_sample_sync("data.bin", 0, 0);
	unregister_trace_sample_read(on_read, &reads);
	printf("sample: events fired; the probe saw %d read%s\n", reads, reads == 1 ? "" : "s");
	return 0;
}
