/* SPDX-License-Identifier: MIT */
/* The LTTng-UST provider's probes, in a file of their own as LTTng documents it. */
#define TRACEPOINT_CREATE_PROBES
#define TRACEPOINT_DEFINE
#include "lttng_tp.h"
