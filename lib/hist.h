/* SPDX-License-Identifier: MIT */
/*
 * hist.h - the kernel's histogram triggers ("hist:keys=common_pid:vals=bytes"), for programs.
 *
 * Three parts, each in its own file:
 *
 *  - hist_parse.c reads the trigger text with the kernel's grammar and checks it against an
 *    event's fields (the filter's field list, lib/filter.h), giving a `struct hist_spec`.
 *    Refusals carry the kernel's wording where it has one (trace_events_hist.c's HIST_ERR_*
 *    list), the 1-based column and the token.
 *  - hist_table.c aggregates records into a table whose size is fixed at creation
 *    (`size=`): no allocation, no lock, no system call after tp_hist_table_new(). A key that
 *    finds no free entry is counted in `drops`, as the kernel's tracing_map counts it.
 *    A table is updated by one thread; tp_hist_table_merge() adds it into another, and may
 *    do so from another thread while its own goes on hitting it (not while it clears it).
 *  - hist_print.c prints a table exactly as the kernel's `hist` file does, and
 *    hist_json.c as one JSON object.
 *
 * Records are laid out as the filter reads them: from common_type (offset 0), with
 * common_pid at offset 4. libc only, so that the runtime can link it.
 */
#ifndef TPOINT_HIST_H
#define TPOINT_HIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "filter.h"

#pragma GCC visibility push(hidden)

/* The kernel's limits (kernel/trace/tracing_map.h, trace_events_hist.c). */
#define HIST_KEYS_MAX 3      /* TRACING_MAP_KEYS_MAX */
#define HIST_VALS_MAX 3      /* TRACING_MAP_VALS_MAX: hitcount and two more */
#define HIST_SORT_KEYS_MAX 2 /* TRACING_MAP_SORT_KEYS_MAX */
#define HIST_BITS_MIN 7      /* size=128 */
#define HIST_BITS_MAX 17     /* size=131072 */
#define HIST_BITS_DEFAULT 11 /* size=2048 */
#define HIST_STR_MAX 256     /* MAX_FILTER_STR_VAL: a __data_loc string key's room */
/* HIST_KEY_SIZE_MAX: MAX_FILTER_STR_VAL plus a 16-deep stack trace of 8-byte words. */
#define HIST_KEY_SIZE_MAX (HIST_STR_MAX + 16 * 8)
#define HIST_COMM_LEN 16     /* TASK_COMM_LEN: what .execname keeps of a thread's name */
#define HIST_NAME_MAX 64     /* a field's name, as the filter's fields are named */
#define HIST_VARS_MAX 16     /* TRACING_MAP_VARS_MAX: variables of a trigger */
#define HIST_REFS_MAX 16     /* variable references of a trigger (var_refs[]) */
#define HIST_NODES_MAX 16    /* the operands of a trigger's expressions */
#define HIST_SUBEXPR_MAX 3   /* "Too many subexpressions (3 max)" */
#define HIST_ACTIONS_MAX 8   /* HIST_ACTIONS_MAX */
#define HIST_SYNTH_FIELDS_MAX 64 /* SYNTH_FIELDS_MAX: a synthetic event's fields, an action's params */
#define HIST_STR_VAR_MAX 256 /* STR_VAR_LEN_MAX: a string variable's room */

/* Where a key's or value's number comes from. */
enum hist_src {
	HIST_SRC_NUM,       /* an integer field of the record (1, 2, 4 or 8 bytes) */
	HIST_SRC_STR_ARRAY, /* char name[N] */
	HIST_SRC_STR_DYN,   /* __data_loc char[] */
	HIST_SRC_TIMESTAMP, /* common_timestamp: the hit's time */
	HIST_SRC_CPU,       /* common_cpu */
	HIST_SRC_HITCOUNT,  /* 1 a hit: vals[0], or "hitcount.percent" as a value */
	HIST_SRC_CONST,     /* a number written in the trigger: `constant` */
	HIST_SRC_REF,       /* $var: the hit's refs[ref] (hist_set.c resolves them) */
	HIST_SRC_EXPR,      /* `op` of the spec's nodes[operands[0]] (and [1]) */
};

/* Modifiers (".hex", ...). The order is the kernel's get_hist_field_flags(): it names one. */
enum hist_mod {
	HIST_MOD_HEX = 1u << 0,
	HIST_MOD_SYM = 1u << 1,
	HIST_MOD_SYM_OFFSET = 1u << 2,
	HIST_MOD_EXECNAME = 1u << 3,
	HIST_MOD_SYSCALL = 1u << 4,
	HIST_MOD_LOG2 = 1u << 5,
	HIST_MOD_BUCKETS = 1u << 6,
	HIST_MOD_USECS = 1u << 7,
	HIST_MOD_PERCENT = 1u << 8,
	HIST_MOD_GRAPH = 1u << 9,
};

/* One key or value. */
struct hist_field {
	char name[HIST_NAME_MAX]; /* as the kernel prints it: "common_cpu" for "cpu" */
	uint8_t src;              /* enum hist_src */
	uint8_t is_signed;        /* HIST_SRC_NUM: sign-extend */
	uint16_t offset;          /* the record field's, from common_type */
	uint16_t size;            /* the record field's */
	uint32_t mods;            /* enum hist_mod */
	uint64_t buckets;         /* .buckets=N */
	uint16_t key_offset;      /* keys: where it lies in the key */
	uint16_t key_size;        /* keys: its room there, a multiple of 8 */
	/* Variables and expressions (hist_parse_vars.c): */
	uint8_t op;               /* HIST_SRC_EXPR: '+', '-', '*', '/', or 'u' for -(x) */
	uint8_t ref;              /* HIST_SRC_REF: index in the spec's refs[] */
	int8_t operands[2];       /* HIST_SRC_EXPR: indices in the spec's nodes[] */
	uint64_t constant;        /* HIST_SRC_CONST; a constant divisor of '/' */
};

/* A variable: "name=expr" among a trigger's attributes, or made for an action's parameter. */
struct hist_var {
	char name[HIST_NAME_MAX];
	char text[HIST_STR_MAX];  /* the expression as the kernel prints it (expr_str()) */
	struct hist_field f;      /* how a hit computes it */
	bool hidden;              /* a field variable for an action: not in the trigger info */
	uint16_t str_size;        /* a string's room (0: a number) */
};

/* A variable reference ($var, or system.event.$var): hist_set.c finds the variable. */
struct hist_ref {
	char system[HIST_NAME_MAX], event[HIST_NAME_MAX]; /* "" when not given */
	char var[HIST_NAME_MAX];
	bool read_once;           /* an operand: reading it unsets it (tracing_map_read_var_once) */
	bool param;               /* an action's parameter: this trigger's own variables first */
	uint8_t action;           /* param: the action whose onmatch() event is looked at next */
	unsigned column;          /* of the name after '$', for errors */
};

/* onmatch(system.event).trace(synth,params...) or the older .synth(params...). */
struct hist_action {
	char system[HIST_NAME_MAX], event[HIST_NAME_MAX];
	char synth[HIST_NAME_MAX];
	bool trace_keyword;       /* the ".trace(name,...)" form */
	unsigned column;          /* of the synthetic event's name */
	unsigned nparams;
	char *params[HIST_SYNTH_FIELDS_MAX];      /* as written (the kernel prints them so) */
	uint8_t param_ref[HIST_SYNTH_FIELDS_MAX]; /* each one's reference in refs[] */
	uint16_t param_col[HIST_SYNTH_FIELDS_MAX]; /* each one's column */
};

/* A sort key: index 0 is hitcount, 1..nvals-1 the values, then the keys. */
struct hist_sort_key {
	uint8_t idx;
	bool descending;
};

/* A parsed, checked trigger. Immutable once made: threads may share it. */
struct hist_spec {
	char *event;    /* "sys:event" as given, or NULL */
	char *name;     /* name=NAME: NAME, or NULL */
	char *clock;    /* clock=, "global" by default */
	bool remove;    /* "!hist:" */
	bool pause, cont, clear, nohitcount;
	bool timestamps; /* some field reads common_timestamp */
	bool ts_usecs;   /* some field reads common_timestamp.usecs: all of them are in µs */
	bool cpu;        /* some field reads common_cpu: the hit must say its CPU */
	unsigned map_bits;
	unsigned nkeys, nvals, nsort;
	struct hist_field keys[HIST_KEYS_MAX];
	struct hist_field vals[HIST_VALS_MAX]; /* vals[0] is hitcount */
	struct hist_sort_key sort[HIST_SORT_KEYS_MAX];
	unsigned key_size;   /* sum of the keys' key_size */
	char *filter_text;   /* after "if", as given (stripped), or NULL */
	struct filter *filter;
	/* Variables, expressions, references and actions (hist_parse_vars.c): */
	unsigned nvars, nrefs, nnodes, nactions;
	struct hist_var vars[HIST_VARS_MAX];
	struct hist_ref refs[HIST_REFS_MAX];
	struct hist_field nodes[HIST_NODES_MAX];
	struct hist_action actions[HIST_ACTIONS_MAX];
	char *text;          /* the trigger as given, for the columns of later refusals */
};

/* Codes of refusals: the kernel's HIST_ERR_* where it has one, then ours. */
enum hist_err {
	HIST_ERR_NONE = 0,
	HIST_ERR_BAD_FIELD_MODIFIER,  /* "Invalid field modifier" */
	HIST_ERR_FIELD_NOT_FOUND,     /* "Couldn't find field" */
	HIST_ERR_EMPTY_ASSIGNMENT,    /* "Empty assignment" */
	HIST_ERR_INVALID_SORT_MODIFIER, /* "Invalid sort modifier" */
	HIST_ERR_EMPTY_SORT_FIELD,    /* "Empty sort field" */
	HIST_ERR_TOO_MANY_SORT_FIELDS, /* "Too many sort fields (Max = 2)" */
	HIST_ERR_INVALID_SORT_FIELD,  /* "Sort field must be a key or a val" */
	HIST_ERR_INVALID_REF_KEY,     /* "Using variable references in keys not supported" */
	HIST_ERR_NEED_NOHC_VAL,       /* "Non-hitcount value is required for 'nohitcount'" */
	HIST_ERR_TOO_MANY_VARS,       /* "Too many variables defined" */
	HIST_ERR_DUPLICATE_VAR,       /* "Variable already defined" */
	HIST_ERR_VAR_NOT_UNIQUE,      /* "Variable name not unique, need to use fully ..." */
	HIST_ERR_MALFORMED_ASSIGNMENT, /* "Malformed assignment" */
	HIST_ERR_TOO_MANY_SUBEXPR,    /* "Too many subexpressions (3 max)" */
	HIST_ERR_TIMESTAMP_MISMATCH,  /* "Timestamp units in expression don't match" */
	HIST_ERR_TOO_MANY_FIELD_VARS, /* "Too many field variables defined" */
	HIST_ERR_SYNTH_EVENT_NOT_FOUND, /* "Couldn't find synthetic event" */
	HIST_ERR_SYNTH_TYPE_MISMATCH, /* "Param type doesn't match synthetic event field type" */
	HIST_ERR_SYNTH_COUNT_MISMATCH, /* "Param count doesn't match synthetic event field count" */
	HIST_ERR_FIELD_VAR_PARSE_FAIL, /* "Couldn't parse field variable" */
	HIST_ERR_TOO_MANY_PARAMS,     /* "Too many action params" */
	HIST_ERR_PARAM_NOT_FOUND,     /* "Couldn't find param" */
	HIST_ERR_INVALID_PARAM,       /* "Invalid action param" */
	HIST_ERR_ACTION_NOT_FOUND,    /* "No action found" */
	HIST_ERR_NO_CLOSING_PAREN,    /* "No closing paren found" */
	HIST_ERR_SUBSYS_NOT_FOUND,    /* "Missing subsystem" */
	HIST_ERR_INVALID_SUBSYS_EVENT, /* "Invalid subsystem or event name" */
	HIST_ERR_VAR_NOT_FOUND,       /* "Couldn't find variable" */
	HIST_ERR_INVALID_STR_OPERAND, /* "String type can not be an operand in expression" */
	HIST_ERR_EXPECT_NUMBER,       /* "Expecting numeric literal" */
	HIST_ERR_UNARY_MINUS_SUBEXPR, /* "Unary minus not supported in sub-expressions" */
	HIST_ERR_DIVISION_BY_ZERO,    /* "Division by zero" */
	HIST_ERR_ACTION_MISMATCH,     /* "Handler doesn't support action" */
	/* For whoever registers triggers (the parser cannot know the others): */
	HIST_ERR_TRIGGER_EEXIST,      /* "Hist trigger already exists" */
	HIST_ERR_TRIGGER_ENOENT_CLEAR, /* "Can't clear or continue a nonexistent hist trigger" */
	HIST_ERR_NAMED_MISMATCH,      /* "Named hist trigger doesn't match existing named ..." */
	/* Where the kernel answers EINVAL with no message, or has no such case: */
	HIST_ERR_NOT_HIST,            /* the text does not start with "hist:" */
	HIST_ERR_NO_KEYS,
	HIST_ERR_TOO_MANY_KEYS,
	HIST_ERR_TOO_MANY_VALS,
	HIST_ERR_KEY_TOO_LARGE,
	HIST_ERR_BAD_SIZE,
	HIST_ERR_UNKNOWN_ATTR,
	HIST_ERR_BAD_FILTER,
	HIST_ERR_STRING_VAL,
	HIST_ERR_UNSUPPORTED,         /* onmax, onchange, stacktrace, ...: not here */
	HIST_ERR_BAD_EXPR,            /* an expression the kernel refuses without a message */
	HIST_ERR_BAD_SYNTH,           /* a synthetic event's definition: msg has the kernel's words */
	HIST_ERR_KEYS_MISMATCH,       /* a reference between triggers whose keys differ */
	HIST_ERR_NOMEM,
};

struct hist_error {
	enum hist_err code;
	unsigned column;  /* 1-based, in the trigger text; 0 when it names no place */
	char msg[512];    /* "Couldn't find field at column 10: 'foo'" */
};

/*
 * Parse `trigger` ("hist:keys=...[ if FILTER]", or "!hist:..." to remove) for the event
 * whose fields are fields[nfields] (the common ones included, as tp_filter_compile() wants
 * them). `event` ("sys:event") names it in messages and may be NULL. 0 with *out set, or
 * -EINVAL / -ENOMEM with *err filled.
 */
int tp_hist_parse(const char *trigger, const char *event, const struct filter_field *fields,
		  size_t nfields, struct hist_spec **out, struct hist_error *err);
void tp_hist_spec_free(struct hist_spec *s);

/* The message of a code: the kernel's words where it has some. */
const char *tp_hist_err_text(enum hist_err code);

/* Fills *e: "MESSAGE[ at column N][: DETAIL]" (column 0: none), as the parser words them. */
void tp_hist_error_at(struct hist_error *e, enum hist_err code, unsigned column,
		      const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* The text of a value, variable or operand as the kernel prints it (hist_field_print()). */
void tp_hist_field_text(const struct hist_spec *s, const struct hist_field *f, char *buf,
			size_t len);

/* The kernel's "trigger info" text: "hist:keys=...:vals=...:sort=...:size=N [active]\n". */
int tp_hist_spec_print(FILE *out, const struct hist_spec *s, bool paused);

/* ---- the table ---- */

struct hist_table;

/* What a hit brings besides the record. */
struct hist_hit {
	const void *rec;   /* from common_type */
	uint32_t size;     /* bytes of rec: fields beyond it read as 0, strings are cut */
	uint32_t cpu;      /* common_cpu (read only when spec->cpu) */
	uint64_t ts_ns;    /* common_timestamp, in nanoseconds (only when spec->timestamps) */
	const char *comm;  /* the hitting thread's name, for .execname; NULL: "<...>" */
	const uint64_t *refs; /* the values of spec->refs[] (hist_set.c), or NULL */
};

/* A table of 1 << spec->map_bits entries, all allocated here. NULL with errno ENOMEM. */
struct hist_table *tp_hist_table_new(const struct hist_spec *spec);
/* The same, with `extra` bytes (8-byte aligned, zeroed) of the caller's in the same memory,
 * at *extra_out, freed with the table. One mmap(): async-signal-safe. */
struct hist_table *tp_hist_table_new_with(const struct hist_spec *spec, size_t extra,
					  void **extra_out);
void tp_hist_table_free(struct hist_table *t);

/*
 * Count one hit: the spec's filter first, then nothing while paused, else the key's entry
 * (created if the table has room) gets its hitcount and sums. 1 counted, 0 filtered out or
 * paused, -1 dropped (no room). No allocation, no lock, no system call.
 */
int tp_hist_hit(struct hist_table *t, const struct hist_hit *h);

/*
 * tp_hist_hit() in its steps, for whoever resolves variables between them (hist_set.c):
 * whether the hit counts at all (filter, pause); the key (spec->key_size bytes); the entry
 * of that key counted (1), or the hit dropped (-1); and one field's number.
 */
bool tp_hist_passes(const struct hist_table *t, const struct hist_hit *h);
void tp_hist_build_key(const struct hist_spec *s, const struct hist_hit *h, unsigned char *key);
int tp_hist_add(struct hist_table *t, const struct hist_hit *h, const unsigned char *key);
uint64_t tp_hist_field_value(const struct hist_spec *s, const struct hist_field *f,
			     const struct hist_hit *h);
/* a op b as the kernel computes it ('/' by `divisor`'s rules: see hist_table.c). */
uint64_t tp_hist_operate(char op, const struct hist_field *divisor, uint64_t a, uint64_t b);

/* A key's hash, and keys compared: whole 8-byte words, inline, without a call to memcmp. */
uint64_t tp_hist_key_hash(const unsigned char *key, size_t size);
static inline bool tp_hist_keys_equal(const unsigned char *a, const unsigned char *b,
				      size_t size)
{
	for (size_t i = 0; i < size; i += 8) {
		uint64_t x, y;

		__builtin_memcpy(&x, a + i, 8);
		__builtin_memcpy(&y, b + i, 8);
		if (x != y)
			return false;
	}
	return true;
}

/* :pause / :cont and :clear (entries, hits and drops back to nothing). */
void tp_hist_table_pause(struct hist_table *t, bool paused);
bool tp_hist_table_paused(const struct hist_table *t);
void tp_hist_table_clear(struct hist_table *t);

/*
 * Add src into dst (same spec, or one with the same keys and values): each of src's entries
 * into dst's entry of the same key, hits and drops added. An entry that finds no room in dst
 * is dropped whole: its hitcount moves from hits to drops, so that hits + drops stays the
 * number of hits that passed the filter. No allocation. src may be hit by its thread
 * meanwhile: the merge sees whole entries, each at most a hit behind, and Hits equal to the
 * hitcounts it took.
 */
void tp_hist_table_merge(struct hist_table *dst, const struct hist_table *src);

/* Reading a table (the printers use these). */
const struct hist_spec *tp_hist_table_spec(const struct hist_table *t);
uint64_t tp_hist_table_hits(const struct hist_table *t);
uint64_t tp_hist_table_drops(const struct hist_table *t);
unsigned tp_hist_table_entries(const struct hist_table *t);
/* Entry i (0 <= i < entries): its key bytes, its sums (nvals of them), its thread name. */
const unsigned char *tp_hist_entry_key(const struct hist_table *t, unsigned i);
const uint64_t *tp_hist_entry_sums(const struct hist_table *t, unsigned i);
const char *tp_hist_entry_comm(const struct hist_table *t, unsigned i);

/* The number a numeric key holds, as the kernel keeps it (a u64; signed fields extended). */
uint64_t tp_hist_key_num(const struct hist_field *k, const unsigned char *key);

/* ---- printing ---- */

/* The one modifier the kernel's get_hist_field_flags() names, in its order; NULL if none. */
const char *tp_hist_mod_name(uint32_t mods);

/* Names for .sym, .sym-offset and .syscall; any may be NULL (then the kernel's fallbacks). */
struct hist_names {
	/* The symbol at addr: "name" (with_offset false) or "name+0xoff/0xsize"; 0 if none. */
	int (*sym)(void *ctx, uint64_t addr, bool with_offset, char *buf, size_t len);
	/* The system call's name, or NULL ("unknown_syscall"). */
	const char *(*syscall)(void *ctx, uint64_t nr);
	void *ctx;
};

/* A .sym / .sym-offset key's text: the resolver's, or the kernel's "0x" and the address. */
const char *tp_hist_sym_text(const struct hist_names *nm, uint64_t addr, bool with_offset,
			     char *buf, size_t len);
/* A .syscall key's name: the resolver's, or the kernel's "unknown_syscall". */
const char *tp_hist_syscall_text(const struct hist_names *nm, uint64_t nr);

/*
 * The entries' order: the spec's sort keys, then the keys themselves ascending (the kernel
 * leaves ties in hash order). A malloc'ed array of entries() indices; NULL with errno ENOMEM
 * (or when the table is empty, with *n 0).
 */
unsigned *tp_hist_sorted(const struct hist_table *t, unsigned *n);

/*
 * The table as the kernel's `hist` file shows one histogram: the header with the trigger
 * info, one line per entry in sort order, the totals. `nth` > 0 puts the blank lines the
 * kernel puts between histograms of one event. 0, or -1 with errno.
 */
int tp_hist_print(FILE *out, const struct hist_table *t, unsigned nth,
		  const struct hist_names *names);

/* The table as one JSON object (hist_json.c documents the keys), and a newline. */
int tp_hist_print_json(FILE *out, const struct hist_table *t, const struct hist_names *names);

#pragma GCC visibility pop

#endif /* TPOINT_HIST_H */
