/* SPDX-License-Identifier: MIT */
/*
 * hist_set.h - the kernel's hist triggers working together: variables shared between
 * triggers, onmatch() actions and synthetic events ("latency between two events").
 *
 * A set holds events (each with its fields, as the filter describes them), synthetic events
 * (defined as the kernel's `synthetic_events` file defines them: "name u64 lat; pid_t pid"),
 * and hist triggers on both. Hits come in time order; each applies every trigger of its event
 * as the kernel's event_hist_trigger() does: the filter, the key, the references to other
 * triggers' variables (a hit whose references do not all resolve counts nothing), the
 * histogram entry, this trigger's variables, then the onmatch() actions, whose synthetic hit
 * goes through the synthetic event's own triggers at once.
 *
 * Threads: build the set on one thread (tp_hist_set_new(), then _event, _synthetic,
 * _trigger, in that order of dependence), then hit it from any number of threads, each with
 * a context of its own (tp_hist_set_context(), given back when it ends): the histograms are one table per context
 * (hist_table.c, a single writer each, merged by tp_hist_set_table()), and the variables are
 * one store per trigger shared by every thread (hist_vars.c: a table of fixed size, keys
 * inserted by compare-and-swap, values by atomic stores and exchanges), so that a start seen
 * by one thread pairs with its end seen by another. No lock and no allocation on the hit
 * path but a context's first claim, which maps its tables (so that a set for many threads
 * costs what the threads that come use). A set does not change once hit: to change
 * triggers, build another set and retire this one when no thread can hold it.
 */
#ifndef TPOINT_HIST_SET_H
#define TPOINT_HIST_SET_H

#include "hist.h"

#pragma GCC visibility push(hidden)

#define HIST_SET_EVENTS_MAX 64
#define HIST_SET_TRIGGERS_MAX 64
#define HIST_SYNTH_SYSTEM "synthetic"       /* the kernel's SYNTH_SYSTEM */
#define HIST_SYNTH_REC_MAX (8 + HIST_SYNTH_FIELDS_MAX * 8 + 4 * HIST_STR_VAR_MAX)

/* A synthetic event's definition, parsed (hist_synth.c). */
struct hist_synth_field {
	char name[HIST_NAME_MAX];
	char type[HIST_NAME_MAX];  /* "u64", "pid_t", "char[16]", "unsigned int", ... */
	uint16_t offset, size;     /* in the record; a char[N] takes STR_VAR_LEN_MAX bytes */
	bool is_signed, is_string;
};

struct hist_synth {
	char name[HIST_NAME_MAX];
	unsigned nfields;
	struct hist_synth_field fields[HIST_SYNTH_FIELDS_MAX];
	uint32_t rec_size;         /* the record: the 8 common bytes, then the fields */
	/* The fields as the filter and hist_parse() see them, the common ones first. */
	unsigned nfilter_fields;
	struct filter_field filter_fields[4 + HIST_SYNTH_FIELDS_MAX];
};

/*
 * "name type field[; type field...]" as the kernel's create_or_delete_synth_event() reads
 * it: the types of synth_field_size() (s64, u64, ..., int, unsigned long, pid_t, gfp_t, bool,
 * char[N]), a record laid out as synth_event_define_fields() lays it out. 0, or -EINVAL with
 * err filled: the kernel's words ("Invalid type", ...), the column and the token.
 */
int tp_hist_synth_parse(const char *def, struct hist_synth *out, struct hist_error *err);

struct hist_set;
struct hist_ctx;

/* A set for at most `contexts` threads. NULL with errno ENOMEM. */
struct hist_set *tp_hist_set_new(unsigned contexts);
void tp_hist_set_free(struct hist_set *set);

/*
 * An event ("system:event") with its fields (the common ones included, offsets from
 * common_type; the array must outlive the set). Its index, or -1 (ENOMEM, or too many).
 * The same name again gives the same index.
 */
int tp_hist_set_event(struct hist_set *set, const char *name, const struct filter_field *fields,
		      size_t nfields);
/* The index of an event (synthetic ones are "synthetic:NAME"), or -1. */
int tp_hist_set_find_event(const struct hist_set *set, const char *name);

/* A synthetic event from its definition: its index, or -1 with err filled. */
int tp_hist_set_synthetic(struct hist_set *set, const char *def, struct hist_error *err);
/* The definition of a synthetic event, NULL for another event. */
const struct hist_synth *tp_hist_set_synth(const struct hist_set *set, int event);

/*
 * A "hist:..." trigger on an event: parsed (tp_hist_parse()), its references found among
 * the triggers already in the set and its actions' synthetic events checked, with the
 * kernel's refusals ("Couldn't find variable", "Param type doesn't match synthetic event
 * field type", ...). Its variable store is allocated here, its tables (one per context) as
 * contexts are claimed (here for those claimed already). Its
 * index, or -1 with err filled (and errno EINVAL or ENOMEM). A trigger that says :pause
 * starts paused; :cont, :clear and !hist (which act on a trigger that exists) are refused.
 */
int tp_hist_set_trigger(struct hist_set *set, int event, const char *trigger,
			struct hist_error *err);

unsigned tp_hist_set_triggers(const struct hist_set *set);
const struct hist_spec *tp_hist_set_spec(const struct hist_set *set, unsigned trigger);
int tp_hist_set_trigger_event(const struct hist_set *set, unsigned trigger);
const char *tp_hist_set_event_name(const struct hist_set *set, int event);
/* :pause and :cont of a trigger while threads hit it. */
void tp_hist_set_pause(struct hist_set *set, unsigned trigger, bool paused);
/* Hits whose variables found no room in the trigger's store (its size= entries are taken). */
uint64_t tp_hist_set_var_drops(const struct hist_set *set, unsigned trigger);

/*
 * Whether a hit of the event must bring its time (some trigger reads common_timestamp, or
 * makes synthetic hits whose triggers may), and its CPU: the hot path reads the clock and
 * the CPU only when asked to.
 */
bool tp_hist_set_needs_time(const struct hist_set *set, int event);
bool tp_hist_set_needs_cpu(const struct hist_set *set, int event);

/*
 * A context for the calling thread, or NULL when all are taken; given back when the thread
 * ends, so that another thread goes on with its tables (one writer at a time: a context's
 * counts are kept, the histograms lose nothing).
 */
struct hist_ctx *tp_hist_set_context(struct hist_set *set);
void tp_hist_set_context_release(struct hist_ctx *ctx);

/* What a hit brings: the record (from common_type), its time, CPU and thread's name. */
struct hist_set_hit {
	const void *rec;
	uint32_t size;
	uint32_t cpu;
	uint64_t ts_ns;
	const char *comm;
	void *user; /* the caller's, given to the synthetic records' callback */
};

/*
 * A function the set calls with each synthetic event's record as an action makes it (`rec`,
 * `size` bytes from common_type, which holds the set's index of the event, `event`), on the
 * hitting thread, before the synthetic event's own triggers see it; `user` is the hit's.
 * Set before the set is hit.
 */
void tp_hist_set_on_synth(struct hist_set *set,
			  void (*fn)(void *arg, void *user, int event, const void *rec,
				     uint32_t size),
			  void *arg);

/*
 * One hit of event `event` (its every trigger, and the synthetic events it makes). Hits of
 * one context come from one thread; hits of several contexts may come at once. Nothing
 * locks or allocates.
 */
void tp_hist_set_hit(struct hist_set *set, struct hist_ctx *ctx, int event,
		     const struct hist_set_hit *hit);

/*
 * A trigger's histogram: every context's table merged into a new one (the caller frees it
 * with tp_hist_table_free(); print it with tp_hist_print()). May run while threads hit.
 * NULL with errno ENOMEM.
 */
struct hist_table *tp_hist_set_table(const struct hist_set *set, unsigned trigger);

/*
 * A set rebuilt from another (trigger_linked.c: a trigger added or removed beside this
 * one), as the kernel's triggers go on counting whatever is added beside them. For a
 * trigger `tt` of `to` that is `ft` of `from` (the same text on the same event; -1 unless
 * their keys, values and variables are laid out alike):
 *  - tp_hist_set_share_vars(), before `to` is hit: its variables are from's store, shared
 *    (a start seen by the old set pairs with its end seen by the new);
 *  - tp_hist_set_absorb(), once `from` is hit no more: what from's trigger counted (its
 *    contexts' tables and its own base) goes into to's base, which tp_hist_set_table() adds
 *    to to's contexts. Not while to's table is read (the caller's lock).
 * tp_hist_set_merge_trigger(): a trigger's tables and base added into `dst`, e.g. a set not
 * yet absorbed, while it may still be hit.
 */
int tp_hist_set_share_vars(struct hist_set *to, unsigned tt, struct hist_set *from,
			   unsigned ft);
int tp_hist_set_absorb(struct hist_set *to, unsigned tt, const struct hist_set *from,
		       unsigned ft);
void tp_hist_set_merge_trigger(struct hist_table *dst, const struct hist_set *set,
			       unsigned trigger);

/*
 * The short form of a latency histogram (`--latency sys:start,sys:end --key F [--by G]`):
 * the synthetic event and the three triggers it stands for, written into `synth` and
 * `triggers` (';'-separated "system:event:hist:..." items). `start_fields`/`end_fields` type
 * the key and G (G a field of the end event, or else of the start event). 0, or -1 with
 * `err` saying why.
 */
int tp_hist_latency_expand(const char *pair, const char *key, const char *by,
			   const struct filter_field *start_fields, size_t nstart,
			   const struct filter_field *end_fields, size_t nend, char *synth,
			   size_t synth_len, char *triggers, size_t triggers_len, char *err,
			   size_t err_len);

#pragma GCC visibility pop

#endif
