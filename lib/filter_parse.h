/* SPDX-License-Identifier: MIT */
/*
 * filter_parse.h - the filter compiler's parse tree, shared by its parser (filter_parse.c:
 * the expression to a tree, and the tree back to its canonical text) and its code generator
 * (filter.c: the tree to a program). Not for anyone else: filter.h is the filter's interface.
 */
#ifndef TPOINT_FILTER_PARSE_H
#define TPOINT_FILTER_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "filter.h"
#include "filter_program.h"

enum op_kind { OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE, OP_BAND, OP_GLOB };

enum node_type { N_PRED, N_AND, N_OR, N_NOT };

#define NONE UINT32_MAX

struct node {
	uint8_t type;
	uint32_t child;  /* N_AND, N_OR: first operand; N_NOT: the operand */
	uint32_t next;   /* the next operand of the parent N_AND or N_OR */
	uint32_t pred;   /* N_PRED: index in parser.cp */
	uint32_t npreds; /* tests in the subtree */
};

/* A test as parsed. */
struct cpred {
	const struct filter_field *field;
	uint8_t op;
	uint32_t vpos, vlen; /* the value as written, quotes included */
	uint32_t spos, slen; /* strings: the bytes between the quotes */
	uint64_t val;
	uint32_t seg, nseg;
};

struct parser {
	const char *s;
	uint32_t len;
	uint32_t pos;
	const char *event;
	const struct filter_field *fields;
	size_t nfields;
	char *err;
	size_t errlen;
	int rc;
	unsigned depth;
	/*
	 * Sized from the expression's length, which bounds each count: a test takes at least
	 * three bytes, && and || two, ! one, and a pattern element or '*' at least one.
	 */
	uint32_t cap;
	struct node *nodes;
	uint32_t nnodes;
	struct cpred *cp;
	uint32_t ncp;
	struct fseg *segs;
	uint32_t nsegs;
	uint16_t *elems;
	uint32_t nelems;
	uint8_t (*classes)[32];
	uint32_t nclasses;
};

/* The first error is the one to tell: -EINVAL with the message in p->err, once. */
__attribute__((format(printf, 2, 3))) void tp_filter_fail(struct parser *p, const char *fmt, ...);
/* -ENOMEM, "out of memory compiling the filter", unless an error was told already. */
void tp_filter_fail_nomem(struct parser *p);

/*
 * Parse p->s (p->len bytes, at most FILTER_MAX_LEN) against p->fields: p->rc, 0 with *root
 * the tree's root. The tree's arrays are the parser's until tp_filter_parse_free().
 */
int tp_filter_parse(struct parser *p, uint32_t *root);
void tp_filter_parse_free(struct parser *p);

/* The canonical text of the tree at root into buf (NULL: only counted): its length. */
size_t tp_filter_tree_text(const struct parser *p, uint32_t root, char *buf);

#endif
