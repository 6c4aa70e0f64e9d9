// SPDX-License-Identifier: MIT
/* tracefs_format - the text of a tracefs "format" file: see tracefs_format.h. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracefs_format.h"

static bool ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* The line at p (up to end): its end, the '\n' or end. */
static const char *line_end(const char *p, const char *end)
{
	const char *eol = memchr(p, '\n', (size_t)(end - p));

	return eol ? eol : end;
}

/* Finds s (NUL-terminated) in [p, end): its start, or NULL. */
static const char *find_in(const char *p, const char *end, const char *s)
{
	size_t n = strlen(s);

	for (; (size_t)(end - p) >= n; p++)
		if (!memcmp(p, s, n))
			return p;
	return NULL;
}

static const char *skip_space(const char *p, const char *end)
{
	while (p < end && isspace((unsigned char)*p))
		p++;
	return p;
}

/* " KEY:N;" at *p: the number, *p past the ';'. Signed numbers only where minus is true. */
static bool key_number(const char **p, const char *end, const char *key, bool minus,
		       long long *v)
{
	const char *q = skip_space(*p, end);
	size_t kl = strlen(key), digits = 0;
	bool neg = false;

	if ((size_t)(end - q) < kl || memcmp(q, key, kl))
		return false;
	q = skip_space(q + kl, end);
	if (minus && q < end && (*q == '-' || *q == '+'))
		neg = *q++ == '-';
	*v = 0;
	while (q < end && isdigit((unsigned char)*q) && digits < 18) {
		*v = *v * 10 + (*q++ - '0');
		digits++;
	}
	if (!digits || q >= end || *q != ';')
		return false;
	if (neg)
		*v = -*v;
	*p = q + 1;
	return true;
}

int tp_tracefs_next_field(const char *text, size_t len, size_t *pos, struct tracefs_field *f)
{
	const char *end = text + len;

	while (*pos < len) {
		const char *p = text + *pos, *eol = line_end(p, end);
		const char *decl = find_in(p, eol, "field:"), *semi, *type, *name, *q;
		long long offset, size, sign;

		*pos = (size_t)(eol - text) + (eol < end);
		if (!decl)
			continue;
		decl += 6;
		semi = memchr(decl, ';', (size_t)(eol - decl));
		if (!semi)
			continue;
		q = semi + 1;
		if (!key_number(&q, eol, "offset:", false, &offset) ||
		    !key_number(&q, eol, "size:", false, &size) ||
		    !key_number(&q, eol, "signed:", true, &sign))
			continue;
		memset(f, 0, sizeof(*f));
		type = skip_space(decl, semi);
		f->dynamic = (size_t)(semi - type) > 11 && !memcmp(type, "__data_loc ", 11);
		if (f->dynamic)
			type += 11;
		/* the name: after the declaration's last space */
		for (name = semi; name > type && name[-1] != ' '; name--)
			;
		if (name == type)
			continue;
		f->type = type;
		f->type_len = (size_t)(name - 1 - type);
		q = memchr(type, '[', f->type_len); /* "__data_loc char[] name" */
		if (q)
			f->type_len = (size_t)(q - type);
		f->name = name;
		f->name_len = (size_t)(semi - name);
		q = memchr(name, '[', f->name_len);
		f->array = q != NULL;
		if (q)
			f->name_len = (size_t)(q - name);
		if (!f->name_len)
			continue; /* "int ;", "char [16];": no name to find it by */
		f->offset = (unsigned long)offset;
		f->size = (unsigned long)size;
		f->is_signed = sign != 0;
		return 1;
	}
	return 0;
}

int tp_tracefs_field_layout(const char *text, size_t len, const char *name, unsigned long *offset,
			 unsigned long *size)
{
	const char *p = text, *end = text + len;
	size_t nlen = strlen(name);

	while (p < end) {
		const char *eol = line_end(p, end);
		const char *semi, *q, *word;
		char num[24];

		semi = memchr(p, ';', (size_t)(eol - p));
		/*
		 * The declaration's last word, right before the first ';'. (Its byte before is
		 * word[-1], not semi[-nlen - 1]: that index is a size_t that wraps, which UBSan
		 * rightly calls pointer overflow.)
		 */
		word = semi && (size_t)(semi - p) >= nlen ? semi - nlen : NULL;

		if (word && !memcmp(word, name, nlen) && (word == p || !ident_char(word[-1]))) {
			const char *keys[2] = { "offset:", "size:" };
			unsigned long *vals[2] = { offset, size };

			for (int k = 0; k < 2; k++) {
				size_t kl = strlen(keys[k]), n = 0;

				q = semi;
				while (q + kl <= eol && memcmp(q, keys[k], kl))
					q++;
				if (q + kl > eol)
					return -1;
				q += kl;
				while (q < eol && n < sizeof(num) - 1 && isdigit((unsigned char)*q))
					num[n++] = *q++;
				if (!n || n >= sizeof(num) - 1)
					return -1;
				num[n] = '\0';
				*vals[k] = strtoul(num, NULL, 10);
			}
			return 0;
		}
		p = eol + 1;
	}
	return -1;
}

bool tp_tracefs_has_field(const char *text, size_t len, const char *name, size_t name_len)
{
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *eol = line_end(p, end);
		const char *q, *semi;

		q = p;
		while (q < eol && (*q == '\t' || *q == ' '))
			q++;
		if ((size_t)(eol - q) > 6 && !memcmp(q, "field:", 6) &&
		    (semi = memchr(q, ';', (size_t)(eol - q)))) {
			const char *e = semi, *b;

			/* "char name[16]" and "__data_loc char[] path": skip a trailing [..] */
			while (e > q && e[-1] == ' ')
				e--;
			if (e > q && e[-1] == ']') {
				while (e > q && e[-1] != '[')
					e--;
				if (e > q)
					e--;
			}
			b = e;
			while (b > q && ident_char(b[-1]))
				b--;
			if ((size_t)(e - b) == name_len && !memcmp(b, name, name_len))
				return true;
		}
		p = eol + 1;
	}
	return false;
}

enum tracefs_header_error tp_tracefs_parse_header(const char *text, size_t len,
					       struct tracefs_header *h)
{
	const char *p = text, *end = text + len, *eol;
	unsigned long id = 0;
	size_t digits = 0;

	memset(h, 0, sizeof(*h));
	if (len < 6 || memcmp(p, "name: ", 6))
		return TRACEFS_HEADER_NO_NAME;
	p += 6;
	eol = memchr(p, '\n', (size_t)(end - p));
	if (!eol || eol == p || eol - p > 255)
		return TRACEFS_HEADER_BAD_NAME;
	h->name = p;
	h->name_len = (size_t)(eol - p);
	p = eol + 1;
	if (end - p < 4 || memcmp(p, "ID: ", 4))
		return TRACEFS_HEADER_NO_ID;
	p += 4;
	while (p < end && isdigit((unsigned char)*p) && digits < 6) {
		id = id * 10 + (unsigned long)(*p++ - '0');
		digits++;
	}
	if (!digits || p >= end || *p != '\n' || id > 0xffff)
		return TRACEFS_HEADER_BAD_ID;
	h->id = (unsigned int)id;
	return TRACEFS_HEADER_OK;
}

int tp_tracefs_check_print_fields(const char *text, size_t len, char *why, size_t whylen)
{
	const char *p = text, *end = p + len;
	const char *fmt = NULL;

	for (const char *q = p; q + 10 <= end; q++) {
		if ((q == p || q[-1] == '\n') && !memcmp(q, "print fmt:", 10)) {
			fmt = q + 10;
			break;
		}
	}
	if (!fmt)
		return 0; /* libtraceevent marks such a format failed, which the report says */
	for (p = fmt; p < end; p++) {
		const char *q, *name;

		if (*p == '"' || *p == '\'') {
			char quote = *p;

			/* a literal: backslash escapes, as libtraceevent's tokenizer reads them */
			for (p++; p < end && *p != quote; p++)
				if (*p == '\\')
					p++;
			continue;
		}
		if (end - p < 3 || memcmp(p, "REC", 3) || (p > fmt && ident_char(p[-1])) ||
		    (end - p > 3 && ident_char(p[3])))
			continue;
		q = p + 3;
		while (q < end && (*q == ' ' || *q == '\t'))
			q++;
		if (q < end && *q == ')')
			q++;
		while (q < end && (*q == ' ' || *q == '\t'))
			q++;
		if (end - q < 2 || memcmp(q, "->", 2))
			continue;
		q += 2;
		while (q < end && (*q == ' ' || *q == '\t'))
			q++;
		name = q;
		while (q < end && ident_char(*q))
			q++;
		if (q == name)
			continue;
		if (!tp_tracefs_has_field(text, len, name, (size_t)(q - name))) {
			snprintf(why, whylen, "the print fmt uses REC->%.*s, which is not a field",
				 (int)(q - name > 64 ? 64 : q - name), name);
			return -1;
		}
		p = q - 1;
	}
	return 0;
}

int tp_tracefs_field_kind(const struct tracefs_field *f)
{
	bool is_char = (f->type_len == 4 && !memcmp(f->type, "char", 4)) ||
		       (f->type_len == 10 && !memcmp(f->type, "const char", 10)) ||
		       (f->type_len == 13 && !memcmp(f->type, "unsigned char", 13));

	if (f->dynamic)
		return is_char ? 2 : -1;
	if (f->array)
		return is_char ? 1 : -1;
	return f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8 ? 0 : -1;
}
