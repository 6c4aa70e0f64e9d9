/* SPDX-License-Identifier: MIT */
/* The jump-label call site of bench/jump.c: this file alone is built with jump labels. */
#define TPOINT_JUMP_LABEL
#include "trace/events/bench_jump.h"
#include "jump_sites.h"

BENCH_JUMP_LOOP(loop_jump_label, trace_jump_off(i, i * 3, i ^ 0x5a5a5a5aull))
