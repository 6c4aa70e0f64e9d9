/* SPDX-License-Identifier: MIT */
/* What the library's files share and no program sees (-fvisibility=hidden is the default). */
#ifndef TPOINT_HIDDEN_H
#define TPOINT_HIDDEN_H

#define HIDDEN __attribute__((visibility("hidden")))

#endif
