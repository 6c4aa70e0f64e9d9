/* SPDX-License-Identifier: MIT */
/*
 * How many events a process registers at most: the registry's slots (registry.h) and every
 * array kept per event index (the per-thread counters, one array of this many slots mapped
 * lazily; the triggers' sets). A constant of its own, so that those arrays' files need not
 * stand above the registry.
 */
#ifndef TPOINT_EVENT_LIMITS_H
#define TPOINT_EVENT_LIMITS_H

#define TPOINT_MAX_EVENTS 4096u

#endif
