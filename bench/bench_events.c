/* SPDX-License-Identifier: MIT */
/*
 * The benchmark's events are defined here, in a file of their own, as a real program does:
 * the loops in hotpath.c then reach __tpoint_hit_*() across a translation unit, so the
 * compiler cannot specialise the hit functions for the benchmark's arguments or learn which
 * registers they leave alone (-fipa-cp, -fipa-ra), which would flatter the figures.
 */
#define CREATE_TRACE_POINTS
#include "trace/events/bench.h"
