/* SPDX-License-Identifier: MIT */
/*
 * hist_vars.h - a trigger's variables by key, one store shared by all threads, no lock, no
 * allocation after tp_hist_vars_new() (hist_vars.c says how). hist_set.c uses it.
 */
#ifndef TPOINT_HIST_VARS_H
#define TPOINT_HIST_VARS_H

#include "hist.h"

#pragma GCC visibility push(hidden)

struct hist_vars;

/*
 * A store for keys of key_size bytes (a multiple of 8), 2^bits of them at most, each with
 * nvars variables: room[i] 0 for a number, else a string's bytes (at most HIST_STR_VAR_MAX).
 * NULL with errno ENOMEM.
 */
struct hist_vars *tp_hist_vars_new(unsigned key_size, unsigned bits, const uint16_t *room,
				   unsigned nvars);
/*
 * One more owner of the store (a set rebuilt from the one that made it: a start seen by the
 * old set pairs with its end seen by the new); tp_hist_vars_free() frees it with the last.
 * Owners are taken and let go by one thread at a time (the set's builder and freer).
 */
struct hist_vars *tp_hist_vars_hold(struct hist_vars *v);
void tp_hist_vars_free(struct hist_vars *v);

/* The entry of a key (made if `create` and there is room), or NULL. */
void *tp_hist_vars_entry(struct hist_vars *v, const unsigned char *key, bool create);

/* Sets a number, or a string (at most its room less one byte is kept). */
void tp_hist_vars_set(struct hist_vars *v, void *entry, unsigned var, uint64_t value);
void tp_hist_vars_set_str(struct hist_vars *v, void *entry, unsigned var, const char *s,
			  size_t len);

/*
 * Reads a variable if it is set (once: and unsets it). A string is copied into str (its
 * room) and *value points to it, as the kernel's references hold a string's address.
 */
bool tp_hist_vars_get(struct hist_vars *v, void *entry, unsigned var, bool once,
		      uint64_t *value, char *str);

/* The entries taken. */
unsigned tp_hist_vars_used(const struct hist_vars *v);

#pragma GCC visibility pop

#endif
