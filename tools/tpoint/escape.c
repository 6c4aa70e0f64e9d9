/* SPDX-License-Identifier: MIT */
/* Text from others made safe for a terminal (escape.h). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "escape.h"

/*
 * Length of the valid UTF-8 sequence at s (at most n bytes) for a printable code point
 * (>= U+00A0), or 0.
 */
static size_t utf8_printable(const unsigned char *s, size_t n)
{
	size_t len = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 && s[0] < 0xf0 ? 3 :
		     s[0] >= 0xc2 && s[0] < 0xe0 ? 2 : 0;
	unsigned cp;

	if (!len || len > n)
		return 0;
	cp = s[0] & (0x7f >> len);
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < 0xa0 || (len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

/* A byte that goes out as it is, in every form of the text. */
static inline bool plain(unsigned char c, bool lines)
{
	return (c >= 0x20 && c < 0x7f && c != '\\') || (lines && (c == '\n' || c == '\t'));
}

/*
 * The n >= 1 bytes at p begin with something that is not plain(): its shown form into out
 * (up to 4 bytes: \xHH, \\, or a UTF-8 character), its length in *olen. Returns how many
 * bytes of p it stands for.
 */
static size_t escape_one(const unsigned char *p, size_t n, char *out, size_t *olen)
{
	static const char hex[] = "0123456789abcdef";
	size_t u = p[0] >= 0x80 ? utf8_printable(p, n) : 0;

	if (u) {
		memcpy(out, p, u);
		*olen = u;
		return u;
	}
	out[0] = '\\';
	if (p[0] == '\\') {
		out[1] = '\\';
		*olen = 2;
	} else {
		out[1] = 'x';
		out[2] = hex[p[0] >> 4];
		out[3] = hex[p[0] & 15];
		*olen = 4;
	}
	return 1;
}

const char *text_escaped(const char *s, char *out, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t o = 0, n = strlen(s);

	while (n && o + 5 < len) {
		size_t used = 1, olen = 1;

		if (plain(*p, false))
			out[o] = (char)*p;
		else
			used = escape_one(p, n, out + o, &olen);
		o += olen;
		p += used;
		n -= used;
	}
	out[o] = 0;
	return out;
}

bool text_tty(FILE *f)
{
	static signed char tty[3] = { -1, -1, -1 };
	int fd = fileno(f);

	if (fd < 0 || fd > 2)
		return fd >= 0 && isatty(fd);
	if (tty[fd] < 0)
		tty[fd] = (signed char)isatty(fd);
	return tty[fd];
}

const char *text_for(FILE *f, const char *s, char *buf, size_t len)
{
	return text_tty(f) ? text_escaped(s, buf, len) : s;
}

void text_write_escaped(FILE *f, const char *s, size_t n, bool lines)
{
	const unsigned char *p = (const unsigned char *)s;

	while (n) {
		size_t run = 0, used, olen;
		char out[4];

		/* most text is plain: one write for each run of it */
		while (run < n && plain(p[run], lines))
			run++;
		if (run) {
			fwrite(p, 1, run, f);
			p += run;
			n -= run;
			continue;
		}
		used = escape_one(p, n, out, &olen);
		fwrite(out, 1, olen, f);
		p += used;
		n -= used;
	}
}

void text_put(FILE *f, const char *s)
{
	if (text_tty(f))
		text_write_escaped(f, s, strlen(s), false);
	else
		fputs(s, f);
}
