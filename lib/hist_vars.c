/* SPDX-License-Identifier: MIT */
/*
 * hist_vars.c - a trigger's variables, one entry per key, shared by every thread that hits
 * the trigger (see hist_vars.h).
 *
 * The kernel keeps a trigger's variables in its histogram's entries (tracing_map_elt.vars[]);
 * here the histograms are one per thread, so the variables live apart, in one table all
 * threads share: a start seen by one thread must pair with its end seen by another. The table
 * is made once (2^bits entries, twice as many slots, as tracing_map sizes itself) and never
 * grows or frees an entry, as the kernel's map never frees one; a key that finds no room sets
 * nothing.
 *
 * No lock. A slot is claimed with a compare-and-swap from empty to busy, its key written, and
 * then published with a release store of the key's hash tag; a reader that meets a busy slot
 * waits for the few stores of the key (the writer holds no lock and is never stopped by
 * another). A variable is a value and a "set" word: set stores the value, then the word with
 * release; a read loads the word with acquire, a read-once exchanges it with 0 (so that of two
 * ends racing for one start, one gets it: tracing_map_read_var_once()). Two starts of one key
 * racing: the later value wins, as it would in the kernel's one map.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include "hist_vars.h"

#define SLOT_EMPTY 0ull
#define SLOT_BUSY 1ull
#define SLOT_READY 2ull /* or'ed with the hash's high 32 bits */

struct hist_vars {
	unsigned owners;                   /* sets that hold it (tp_hist_vars_hold()) */
	unsigned key_size, nvars;
	uint32_t max_entries, nslots, used;
	uint32_t entry_size;               /* bytes a slot holds: key, set words, values */
	uint32_t off[HIST_VARS_MAX];       /* each value's offset in an entry */
	uint16_t room[HIST_VARS_MAX];      /* 0: a number; else a string's bytes */
	uint64_t *slots;
	unsigned char *data;
};

struct hist_vars *tp_hist_vars_new(unsigned key_size, unsigned bits, const uint16_t *room,
				   unsigned nvars)
{
	struct hist_vars *v = calloc(1, sizeof(*v));
	uint32_t off;

	if (!v || nvars > HIST_VARS_MAX)
		goto fail;
	v->owners = 1;
	v->key_size = key_size;
	v->nvars = nvars;
	v->max_entries = 1u << bits;
	v->nslots = 2u << bits;
	off = key_size + 8 * nvars; /* the key, then one set word a variable */
	for (unsigned i = 0; i < nvars; i++) {
		v->room[i] = room[i];
		v->off[i] = off;
		off += room[i] ? (room[i] + 7u) & ~7u : 8;
	}
	v->entry_size = off;
	v->slots = calloc(v->nslots, sizeof(*v->slots));
	v->data = calloc(v->nslots, v->entry_size);
	if (!v->slots || !v->data)
		goto fail;
	return v;
fail:
	tp_hist_vars_free(v);
	errno = ENOMEM;
	return NULL;
}

struct hist_vars *tp_hist_vars_hold(struct hist_vars *v)
{
	v->owners++;
	return v;
}

void tp_hist_vars_free(struct hist_vars *v)
{
	if (!v || --v->owners)
		return;
	free(v->slots);
	free(v->data);
	free(v);
}

/* A slot's word once its key is whole (the writer's few stores take no time to wait for). */
static uint64_t ready_word(uint64_t *slot)
{
	uint64_t s;
	unsigned spins = 0;

	while ((s = __atomic_load_n(slot, __ATOMIC_ACQUIRE)) == SLOT_BUSY)
		if (++spins % 64 == 0)
			sched_yield();
	return s;
}

void *tp_hist_vars_entry(struct hist_vars *v, const unsigned char *key, bool create)
{
	uint64_t h = tp_hist_key_hash(key, v->key_size);
	uint64_t tag = (h & 0xffffffff00000000ull) | SLOT_READY;
	uint32_t mask = v->nslots - 1, i = (uint32_t)h & mask;

	for (uint32_t probes = 0; probes < v->nslots;) {
		unsigned char *entry = v->data + (size_t)i * v->entry_size;
		uint64_t s = ready_word(&v->slots[i]);

		if (s == SLOT_EMPTY) {
			uint64_t expected = SLOT_EMPTY;

			if (!create)
				return NULL;
			/* Room first: an entry is never given back, as in the kernel's map. */
			if (__atomic_fetch_add(&v->used, 1, __ATOMIC_RELAXED) >= v->max_entries) {
				__atomic_fetch_sub(&v->used, 1, __ATOMIC_RELAXED);
				return NULL;
			}
			if (__atomic_compare_exchange_n(&v->slots[i], &expected, SLOT_BUSY, false,
							__ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE)) {
				memcpy(entry, key, v->key_size);
				__atomic_store_n(&v->slots[i], tag, __ATOMIC_RELEASE);
				return entry;
			}
			/* Another thread took the slot: look at it again (it may be our key). */
			__atomic_fetch_sub(&v->used, 1, __ATOMIC_RELAXED);
			continue;
		}
		if (s == tag && tp_hist_keys_equal(entry, key, v->key_size))
			return entry;
		i = (i + 1) & mask;
		probes++;
	}
	return NULL;
}

static uint64_t *set_word(const struct hist_vars *v, void *entry, unsigned var)
{
	return (uint64_t *)((unsigned char *)entry + v->key_size) + var;
}

static uint64_t *value_words(const struct hist_vars *v, void *entry, unsigned var)
{
	return (uint64_t *)((unsigned char *)entry + v->off[var]);
}

void tp_hist_vars_set(struct hist_vars *v, void *entry, unsigned var, uint64_t value)
{
	__atomic_store_n(value_words(v, entry, var), value, __ATOMIC_RELAXED);
	__atomic_store_n(set_word(v, entry, var), 1, __ATOMIC_RELEASE);
}

void tp_hist_vars_set_str(struct hist_vars *v, void *entry, unsigned var, const char *s,
			  size_t len)
{
	uint64_t *w = value_words(v, entry, var);
	size_t room = v->room[var];
	char buf[HIST_STR_VAR_MAX + 8] = { 0 };

	/* strscpy(str, val_str, size): at most room - 1 bytes, then a NUL. */
	if (len > room - 1)
		len = room - 1;
	for (size_t i = 0; i < len && s[i]; i++)
		buf[i] = s[i];
	for (size_t i = 0; i < (room + 7) / 8; i++) {
		uint64_t x;

		memcpy(&x, buf + 8 * i, 8);
		__atomic_store_n(&w[i], x, __ATOMIC_RELAXED);
	}
	__atomic_store_n(set_word(v, entry, var), 1, __ATOMIC_RELEASE);
}

bool tp_hist_vars_get(struct hist_vars *v, void *entry, unsigned var, bool once,
		      uint64_t *value, char *str)
{
	uint64_t *set = set_word(v, entry, var), *w = value_words(v, entry, var);

	if (once ? !__atomic_exchange_n(set, 0, __ATOMIC_ACQ_REL)
		 : !__atomic_load_n(set, __ATOMIC_ACQUIRE))
		return false;
	if (!v->room[var]) {
		*value = __atomic_load_n(w, __ATOMIC_RELAXED);
		return true;
	}
	for (size_t i = 0; i < (v->room[var] + 7u) / 8; i++) {
		uint64_t x = __atomic_load_n(&w[i], __ATOMIC_RELAXED);

		memcpy(str + 8 * i, &x, 8);
	}
	str[v->room[var] - 1] = 0;
	*value = (uint64_t)(uintptr_t)str;
	return true;
}

unsigned tp_hist_vars_used(const struct hist_vars *v)
{
	return __atomic_load_n(&v->used, __ATOMIC_RELAXED);
}
