/* SPDX-License-Identifier: MIT */
/* lib/hist_names_self.c: .sym keys of the process's own histograms, named from its maps. */
#ifndef TPOINT_HIST_NAMES_SELF_H
#define TPOINT_HIST_NAMES_SELF_H

#include "hidden.h"
#include "hist.h"

/* Names for tp_hist_print() and tp_hist_print_json(); NULL out of memory (then the
 * kernel's fallbacks). Free with tp_hist_names_self_free(). */
HIDDEN struct hist_names *tp_hist_names_self_new(void);
HIDDEN void tp_hist_names_self_free(struct hist_names *names);

#endif
