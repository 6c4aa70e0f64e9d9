/* SPDX-License-Identifier: MIT */
/*
 * The build matrix's calling file, valid C and C++: two threads hit every event of
 * tpt_matrix.h ROUNDS times each (defined in defs.c, perhaps in the other language), in both
 * call forms, and a probe counts what the events deliver. Prints the probe's count; the
 * script reads the recording back.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <trace/events/tpt_matrix.h>

#define ROUNDS 1000

static unsigned long probe_hits;

static void count_kv(void *data, int op, const char *key, unsigned long len)
{
	(void)op;
	(void)key;
	(void)len;
	__atomic_fetch_add((unsigned long *)data, 1, __ATOMIC_RELAXED);
}

static void *hit_all(void *arg)
{
	char key[16];

	(void)arg;
	for (int i = 0; i < ROUNDS; i++) {
		snprintf(key, sizeof(key), "k%d", i);
		trace_matrix_kv(i % 2 ? MATRIX_PUT : MATRIX_GET, key, (unsigned long)i);
		trace_matrix_even(i);                       /* the condition keeps half */
		tpoint_trace(matrix_read, 3, i, "/data/r"); /* the macro form */
		trace_matrix_write(2, i % 2 ? i : -i, "/data/w"); /* half have bytes > 0 */
		trace_matrix_sync(1, 0, "/data/s");
	}
	return NULL;
}

int main(void)
{
	pthread_t t;

	if (register_trace_matrix_kv(count_kv, &probe_hits)) {
		fprintf(stderr, "register_trace_matrix_kv failed\n");
		return 1;
	}
	if (pthread_create(&t, NULL, hit_all, NULL)) {
		fprintf(stderr, "pthread_create failed\n");
		return 1;
	}
	hit_all(NULL);
	pthread_join(t, NULL);
	unregister_trace_matrix_kv(count_kv, &probe_hits);
	printf("probe %lu enabled %d\n", probe_hits, (int)trace_matrix_read_enabled());
	return 0;
}
