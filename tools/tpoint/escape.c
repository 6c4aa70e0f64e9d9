/* SPDX-License-Identifier: MIT */
/* Text from others made safe for a terminal (tpoint ps, tpoint top). */
#include <stdio.h>
#include <string.h>
#include "escape.h"

/* Length of the valid UTF-8 sequence at s for a printable code point (>= U+00A0), or 0. */
static size_t utf8_printable(const unsigned char *s)
{
	size_t n = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;
	unsigned cp;

	if (!n || s[0] >= 0xf5)
		return 0;
	cp = s[0] & (0x7f >> n);
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < 0xa0 || (n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

/* s as it may be printed: control bytes, C1 controls and bad UTF-8 as \xHH, '\' as \\. */
const char *text_escaped(const char *s, char *out, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t o = 0;

	while (*p && o + 5 < len) {
		size_t n = *p >= 0x80 ? utf8_printable(p) : 0;

		if (n) {
			memcpy(out + o, p, n);
			o += n;
			p += n;
		} else if (*p < 0x20 || *p >= 0x7f) {
			o += (size_t)snprintf(out + o, len - o, "\\x%02x", *p++);
		} else if (*p == '\\') {
			out[o++] = '\\';
			out[o++] = *p++;
		} else {
			out[o++] = (char)*p++;
		}
	}
	out[o] = 0;
	return out;
}
