/* SPDX-License-Identifier: MIT */
/* What the benchmarks report of a case's batches: the median, and the range. */
#ifndef BENCH_MEDIAN_H
#define BENCH_MEDIAN_H

#include <stdlib.h>
#include <string.h>

#define BENCH_MAX_REPS 99

static int bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static inline void bench_summarise(const double *ns, int reps, double *med, double *min,
				   double *max)
{
	double v[BENCH_MAX_REPS];

	memcpy(v, ns, sizeof(double) * (size_t)reps);
	qsort(v, (size_t)reps, sizeof(double), bench_cmp_double);
	*min = v[0];
	*max = v[reps - 1];
	*med = reps % 2 ? v[reps / 2] : (v[reps / 2 - 1] + v[reps / 2]) / 2;
}

#endif
