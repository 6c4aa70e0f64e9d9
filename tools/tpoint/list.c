// SPDX-License-Identifier: MIT
/*
 * tpoint list - the events compiled into a program, shared library or object file, read from
 * its "tpoint_meta" section without running it.
 *
 * The ELF headers are parsed here rather than with libelf: we need one section by name, and
 * the file may be anything the user points at, so every offset and size is checked against
 * the file before it is used. Files of any ELF class and byte order are read; records of a
 * foreign byte order are swapped into ours before lib/format.c sees them.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "control_client.h"
#include "fmt/control_msg.h"
#include "escape.h"
#include "options.h"
#include "tool.h"
#include "../../lib/format.h"
#include "../../lib/meta_read.h"
#include "../../lib/print_fmt_check.h"

/* Placeholder ids for --format: the runtime numbers events from here too, in load order. */
#define LIST_FIRST_ID TPOINT_FIRST_ID

/* the help names the first placeholder ID */
_Static_assert(LIST_FIRST_ID == 28672, "list's --help says 28672 (0x7000)");

static const struct opts_spec list_opts = {
	.verb = "list",
	.usage = (const char *const[]){ "tpoint list [--format] [--check] FILE...",
					"tpoint list -p PID [--format]", NULL },
	.about = "List the tracepoints compiled into each FILE (an executable, a shared library\n"
		 "or an object file), read from its tpoint_meta section without running it:\n"
		 "each event as system:name, its TP_CONDITION source text if it has one, its\n"
		 "fields, and its USDT probe as bpftrace and perf name it (usdt:FILE:system:name)\n"
		 "unless the file was built with -DTPOINT_NO_USDT.\n",
	.opts = (const struct opt[]){
		/* -f is the filter everywhere else (and in trace-cmd); trace-cmd list's -F
		 * shows an event's fields */
		{ 'F', 'F', "format", OPT_NO_VALUE, NULL,
		  "print each event's tracefs format text instead (what trace.dat\n"
		  "files carry). The IDs are placeholders, numbered from 28672\n"
		  "(0x7000) in the order of the file; a recording numbers events\n"
		  "as they register, so its IDs may differ.", 'f' },
		{ 'c', 'c', "check", OPT_NO_VALUE, NULL,
		  "check that libtraceevent (trace-cmd, KernelShark, perf) can\n"
		  "render each event's print fmt; print one line per event that\n"
		  "it cannot, and nothing else unless --format is also given.\n"
		  "Exit 1 if any cannot.", 0 },
		OPT_PID("list the events of a running process instead, with whether\n"
			"each is enabled and its filter; --format gives their format\n"
			"texts with the process's own IDs."),
		OPT_END,
	},
	.after = "Exit status: 0 on success, 1 if a FILE could not be read or a check failed,\n"
		 "2 on a usage error.\n",
};
/* ---- ELF ---- */

/*
 * The file is read with pread(), only the parts we need: the ELF header, the section header
 * table, the section name table and tpoint_meta. Not mmap: a file truncated while we read it
 * (a build rewriting it) would kill the tool with SIGBUS instead of giving an error.
 */
struct elf {
	int fd;
	uint64_t size;
	bool is64;
	bool swap; /* the file's byte order is not ours */
};

struct section {
	uint64_t name, type, flags, offset, size, link;
};

static bool host_is_le(void)
{
	const uint16_t one = 1;

	return *(const unsigned char *)&one == 1;
}

static uint16_t get16(const struct elf *e, const void *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return e->swap ? __builtin_bswap16(v) : v;
}

static uint32_t get32(const struct elf *e, const void *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return e->swap ? __builtin_bswap32(v) : v;
}

static uint64_t get64(const struct elf *e, const void *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return e->swap ? __builtin_bswap64(v) : v;
}

/* Does [off, off + len) lie inside the file? */
static bool in_file(const struct elf *e, uint64_t off, uint64_t len)
{
	return off <= e->size && len <= e->size - off;
}

/* Read exactly len bytes at off: 0, or -EIO when the file is shorter than it said. */
static int read_at(const struct elf *e, uint64_t off, size_t len, void *buf)
{
	char *p = buf;

	while (len) {
		ssize_t n = pread(e->fd, p, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -EIO;
		p += n;
		off += (uint64_t)n;
		len -= (size_t)n;
	}
	return 0;
}

/* malloc'ed copy of [off, off + len), padded with zeros to a multiple of 8; NULL on error
 * with *why set. The padding reads as zero words between records. */
static char *read_range(const struct elf *e, uint64_t off, uint64_t len, const char **why)
{
	char *buf;

	*why = NULL;
	if (!in_file(e, off, len) || len > SIZE_MAX - 8) {
		*why = "runs past the end of the file (truncated?)";
		return NULL;
	}
	/* calloc(0) may return NULL; an empty section still gets a buffer. */
	buf = calloc(1, len ? ((size_t)len + 7) & ~(size_t)7 : 8);
	if (!buf) {
		*why = "out of memory";
		return NULL;
	}
	if (read_at(e, off, (size_t)len, buf)) {
		free(buf);
		*why = "could not be read (file truncated while reading?)";
		return NULL;
	}
	return buf;
}

/* Section header i of the table in memory, read field by field so both classes share code. */
static void get_section(const struct elf *e, const unsigned char *table, uint64_t entsize,
			uint64_t i, struct section *s)
{
	const unsigned char *p = table + i * entsize;

	if (e->is64) {
		s->name = get32(e, p + offsetof(Elf64_Shdr, sh_name));
		s->type = get32(e, p + offsetof(Elf64_Shdr, sh_type));
		s->flags = get64(e, p + offsetof(Elf64_Shdr, sh_flags));
		s->offset = get64(e, p + offsetof(Elf64_Shdr, sh_offset));
		s->size = get64(e, p + offsetof(Elf64_Shdr, sh_size));
		s->link = get32(e, p + offsetof(Elf64_Shdr, sh_link));
	} else {
		s->name = get32(e, p + offsetof(Elf32_Shdr, sh_name));
		s->type = get32(e, p + offsetof(Elf32_Shdr, sh_type));
		s->flags = get32(e, p + offsetof(Elf32_Shdr, sh_flags));
		s->offset = get32(e, p + offsetof(Elf32_Shdr, sh_offset));
		s->size = get32(e, p + offsetof(Elf32_Shdr, sh_size));
		s->link = get32(e, p + offsetof(Elf32_Shdr, sh_link));
	}
}

/*
 * Find and read the section `want` (tpoint_meta, or the USDT notes). Returns 1 with *contents
 * (malloc'ed, 8-aligned, zero-padded) and *len set, 0 when the file has no such section, or
 * -EINVAL with *why saying what is wrong with the file.
 */
static int read_section(struct elf *e, const char *want, char **contents, uint64_t *len,
			const char **why)
{
	unsigned char id[sizeof(Elf64_Ehdr)];
	uint64_t shoff, shentsize, shnum, shstrndx, minent;
	unsigned char *table = NULL;
	char *names = NULL;
	struct section strtab, s;
	const char *what;
	int ret = 0;

	memset(id, 0, sizeof(id));
	if (e->size < EI_NIDENT || read_at(e, 0, e->size < sizeof(id) ? e->size : sizeof(id), id) ||
	    memcmp(id, ELFMAG, SELFMAG)) {
		*why = "not an ELF file";
		return -EINVAL;
	}
	if (id[EI_CLASS] != ELFCLASS32 && id[EI_CLASS] != ELFCLASS64) {
		*why = "unknown ELF class";
		return -EINVAL;
	}
	if (id[EI_DATA] != ELFDATA2LSB && id[EI_DATA] != ELFDATA2MSB) {
		*why = "unknown ELF byte order";
		return -EINVAL;
	}
	e->is64 = id[EI_CLASS] == ELFCLASS64;
	e->swap = (id[EI_DATA] == ELFDATA2LSB) != host_is_le();
	if (e->size < (e->is64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr))) {
		*why = "truncated ELF header";
		return -EINVAL;
	}
	if (e->is64) {
		shoff = get64(e, id + offsetof(Elf64_Ehdr, e_shoff));
		shentsize = get16(e, id + offsetof(Elf64_Ehdr, e_shentsize));
		shnum = get16(e, id + offsetof(Elf64_Ehdr, e_shnum));
		shstrndx = get16(e, id + offsetof(Elf64_Ehdr, e_shstrndx));
		minent = sizeof(Elf64_Shdr);
	} else {
		shoff = get32(e, id + offsetof(Elf32_Ehdr, e_shoff));
		shentsize = get16(e, id + offsetof(Elf32_Ehdr, e_shentsize));
		shnum = get16(e, id + offsetof(Elf32_Ehdr, e_shnum));
		shstrndx = get16(e, id + offsetof(Elf32_Ehdr, e_shstrndx));
		minent = sizeof(Elf32_Shdr);
	}
	if (!shoff)
		return 0; /* no section headers at all (sstrip'ed): nothing to find */
	if (shentsize < minent) {
		*why = "bad section header table";
		return -EINVAL;
	}
	if (!in_file(e, shoff, shentsize)) {
		*why = "section header table runs past the end of the file (truncated?)";
		return -EINVAL;
	}
	/* Extended numbering (0xff00 sections or more): the counts are kept in section 0. */
	table = (unsigned char *)read_range(e, shoff, shentsize, &what);
	if (!table) {
		*why = "bad section header table";
		return -EINVAL;
	}
	get_section(e, table, shentsize, 0, &s);
	free(table);
	if (!shnum)
		shnum = s.size;
	if (shstrndx == SHN_XINDEX)
		shstrndx = s.link;
	if (!shnum)
		return 0;
	if (shnum > (e->size - shoff) / shentsize) {
		*why = "section header table runs past the end of the file (truncated?)";
		return -EINVAL;
	}
	if (shstrndx >= shnum) {
		*why = "bad section name table index";
		return -EINVAL;
	}
	table = (unsigned char *)read_range(e, shoff, shnum * shentsize, &what);
	if (!table) {
		*why = "section header table could not be read";
		return -EINVAL;
	}
	get_section(e, table, shentsize, shstrndx, &strtab);
	names = strtab.type == SHT_NOBITS ? NULL : read_range(e, strtab.offset, strtab.size, &what);
	if (!names) {
		*why = "section name table runs past the end of the file (truncated?)";
		ret = -EINVAL;
		goto out;
	}

	for (uint64_t i = 1; i < shnum; i++) {
		const char *name;

		get_section(e, table, shentsize, i, &s);
		if (s.name >= strtab.size)
			continue;
		name = names + s.name;
		if (strnlen(name, strtab.size - s.name) != strlen(want) ||
		    memcmp(name, want, strlen(want)))
			continue;
		ret = -EINVAL;
		if (s.type == SHT_NOBITS) {
			*why = "tpoint_meta section has no contents in the file";
		} else if (s.flags & SHF_COMPRESSED) {
			*why = "tpoint_meta section is compressed, which is not supported";
		} else if (!(*contents = read_range(e, s.offset, s.size, &what))) {
			*why = what && !strcmp(what, "out of memory") ? what
				: "tpoint_meta section runs past the end of the file (truncated?)";
		} else {
			*len = s.size;
			ret = 1;
		}
		break;
	}
out:
	free(names);
	free(table);
	return ret;
}

/*
 * Put the records of a file of the other byte order into ours, in place. Swapping stops at
 * the first record that does not look right: tpoint_meta_next() then reports it as corrupt.
 */
static void swap_records(char *b, size_t n)
{
	size_t off = 0;

	while (n - off >= 8) {
		struct tpoint_meta_hdr *h = (struct tpoint_meta_hdr *)(void *)(b + off);
		uint64_t zero = 0;

		if (!memcmp(h, &zero, 8)) {
			off += 8;
			continue;
		}
		if (n - off < sizeof(*h))
			return;
		h->magic = __builtin_bswap64(h->magic);
		h->kind = __builtin_bswap16(h->kind);
		h->version = __builtin_bswap16(h->version);
		h->size = __builtin_bswap32(h->size);
		if (h->magic != TPOINT_META_MAGIC || h->size < sizeof(*h) || (h->size & 7) ||
		    h->size > n - off)
			return;
		/* Another version's numbers lie elsewhere: left, for list_section() to name. */
		if (h->version != TPOINT_META_VERSION)
			return;
		if (h->kind == TPOINT_META_CLASS && h->size >= sizeof(struct tpoint_meta_class)) {
			struct tpoint_meta_class *c = (struct tpoint_meta_class *)h;
			struct tpoint_meta_field *f = (struct tpoint_meta_field *)(c + 1);
			size_t room = (h->size - sizeof(*c)) / sizeof(*f);

			c->nfields = __builtin_bswap32(c->nfields);
			c->payload_size = __builtin_bswap32(c->payload_size);
			for (size_t i = 0; i < c->nfields && i < room; i++) {
				f[i].align = __builtin_bswap16(f[i].align);
				f[i].size = __builtin_bswap16(f[i].size);
				f[i].reserved = __builtin_bswap16(f[i].reserved);
				f[i].array_len = __builtin_bswap32(f[i].array_len);
			}
		} else if (h->kind == TPOINT_META_ENUM && h->size >= sizeof(struct tpoint_meta_enum)) {
			struct tpoint_meta_enum *m = (struct tpoint_meta_enum *)h;

			m->value = (int64_t)__builtin_bswap64((uint64_t)m->value);
		}
		/* an event record holds strings alone */
		off += h->size;
	}
}

/* ---- listing ---- */

/* The file's stapsdt notes (section .note.stapsdt), or none. */
struct usdt_notes {
	const struct elf *e;
	const unsigned char *b;
	uint64_t len;
};

/*
 * The number of arguments of the probe system:name, or -1 if the notes have none: notes of
 * type 3, owner "stapsdt", whose description is three addresses, then the provider, the
 * name and the argument text, each NUL-terminated.
 */
static int usdt_probe_args(const struct usdt_notes *n, const char *system, const char *name)
{
	uint64_t off = 0, addrs = n->e && n->e->is64 ? 24 : 12;

	while (n->b && n->len - off >= 12) {
		uint64_t namesz = get32(n->e, n->b + off), descsz = get32(n->e, n->b + off + 4);
		uint64_t type = get32(n->e, n->b + off + 8);
		uint64_t desc = off + 12 + ((namesz + 3) & ~3ull);
		uint64_t next = desc + ((descsz + 3) & ~3ull);

		if (namesz > n->len || descsz > n->len || next > n->len)
			return -1; /* corrupt: list the events without probes */
		if (type == 3 && namesz == 8 && !memcmp(n->b + off + 12, "stapsdt", 8) &&
		    descsz > addrs) {
			const char *p = (const char *)n->b + desc + addrs;
			const char *end = (const char *)n->b + desc + descsz;
			const char *prov = p, *pname = NULL, *args = NULL;

			for (; p < end && *p; p++)
				;
			if (p < end)
				pname = ++p;
			for (; p < end && *p; p++)
				;
			if (p < end)
				args = ++p;
			for (; p < end && *p; p++)
				;
			if (args && p < end && !strcmp(prov, system) && !strcmp(pname, name)) {
				int count = 0;

				for (const char *a = args; *a; a++)
					count += (a == args || a[-1] == ' ') && *a != ' ';
				return count;
			}
		}
		off = next;
	}
	return -1;
}

struct list_opts {
	struct usdt_notes notes;
	bool format;
	bool check;
	bool headings; /* several files: name each before its events */
	bool first;    /* no heading printed yet */
};

/* The enum records of the section (pointing into it); -EINVAL if any record is corrupt, so
 * that a section is either listed whole or refused. */
static int collect_enums(const char *b, const char *end, struct tpoint_enum **out, size_t *nout)
{
	const struct tpoint_meta_hdr *h;
	struct tpoint_enum *enums = NULL, *grown;
	size_t n = 0, cap = 0;
	const char *cur = b;
	int r;

	while ((r = tpoint_meta_next(&cur, end, &h)) > 0) {
		const struct tpoint_meta_enum *m = (const struct tpoint_meta_enum *)h;

		if (h->kind != TPOINT_META_ENUM)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			grown = realloc(enums, cap * sizeof(*enums));
			if (!grown) {
				free(enums);
				return -ENOMEM;
			}
			enums = grown;
		}
		enums[n++] = (struct tpoint_enum){ tpoint_meta_enum_system(m),
						   tpoint_meta_enum_name(m), m->value };
	}
	if (r < 0) {
		free(enums);
		return r;
	}
	*out = enums;
	*nout = n;
	return 0;
}

/* The file's words (names, types, conditions): escaped on a terminal, as they are piped. */
static void put_words(const char *before, const char *s, const char *after)
{
	fputs(before, stdout);
	text_put(stdout, s);
	fputs(after, stdout);
}

static void print_field(const struct tpoint_meta_field *f, const char *type, const char *name)
{
	put_words(f->kind == TPOINT_FIELD_DYNAMIC ? "  field: __data_loc " : "  field: ", type,
		  f->kind == TPOINT_FIELD_DYNAMIC ? "[] " : " ");
	text_put(stdout, name);
	if (f->kind == TPOINT_FIELD_ARRAY)
		printf("[%u]", (unsigned)f->array_len);
	putchar('\n');
}

/*
 * The version of the record at p when it is a tpoint_meta record of another version than
 * this tool reads (an object built with another tpoint's headers), else 0.
 */
static unsigned other_version(const char *p, const char *end)
{
	const struct tpoint_meta_hdr *h = (const struct tpoint_meta_hdr *)(const void *)p;

	if ((size_t)(end - p) < sizeof(*h) || h->magic != TPOINT_META_MAGIC ||
	    h->version == TPOINT_META_VERSION)
		return 0;
	return h->version;
}

/*
 * Returns 0, or 1 when some event failed its check or could not be described. stdout is
 * flushed before each error so that the two streams stay in order on one terminal or pipe.
 */
static int list_section(const char *file, const char *b, const char *end,
			const struct list_opts *o)
{
	const struct tpoint_meta_hdr *h;
	struct tpoint_enum *enums = NULL;
	size_t nenums = 0;
	const char *cur = b;
	unsigned id = LIST_FIRST_ID;
	bool printed = false; /* a format text is out: the next one gets a blank line first */
	int r, bad = 0;
	char why[256];

	r = collect_enums(b, end, &enums, &nenums);
	if (r == -ENOMEM) {
		fflush(stdout);
		tool_error("list", "%s: out of memory", file);
		return 1;
	}
	if (r < 0) {
		/* collect_enums walked the same records: find the bad offset again to say it. */
		unsigned v;

		while (tpoint_meta_next(&cur, end, &h) > 0)
			;
		fflush(stdout);
		v = other_version(cur, end);
		if (v)
			tool_error("list", "%s: its tpoint_meta records are of version %u (built "
				   "with %s tpoint), this tpoint reads version %u: rebuild it with "
				   "this tpoint's headers", file, v,
				   v < TPOINT_META_VERSION ? "an older" : "a newer",
				   TPOINT_META_VERSION);
		else
			tool_error("list", "%s: corrupt tpoint_meta section (bad record at offset "
				   "%#zx)", file, (size_t)(cur - b));
		return 1;
	}

	while (tpoint_meta_next(&cur, end, &h) > 0) {
		const struct tpoint_meta_event *e = (const struct tpoint_meta_event *)h;
		const struct tpoint_meta_class *c;
		const char *cond, *print, *system, *name, *class_name;
		char *fmt = NULL, *subst;

		if (h->kind != TPOINT_META_EVENT)
			continue;
		system = tpoint_meta_event_system(e);
		name = tpoint_meta_event_name(e);
		class_name = tpoint_meta_event_class(e);
		c = tpoint_meta_find_class(b, end, system, class_name);
		if (!c) {
			fflush(stdout);
			tool_error("list", "%s: %s:%s: its class %s is missing from the file", file,
				   system, name, class_name);
			bad = 1;
			id++;
			continue;
		}
		/* --check builds the format too: a layout error would make the runtime refuse it. */
		if (o->format || o->check) {
			fmt = tpoint_format_build(c, e, id, enums, nenums);
			if (!fmt) {
				fflush(stdout);
				tool_error("list", "%s: %s:%s: %s", file, system, name,
					   errno == EINVAL ? "field layout disagrees with the "
							     "record size in the file"
							   : strerror(errno));
				bad = 1;
				id++;
				continue;
			}
		}
		if (o->format) {
			if (printed)
				putchar('\n');
			if (text_tty(stdout))
				text_write_escaped(stdout, fmt, strlen(fmt), true);
			else
				fputs(fmt, stdout);
			printed = true;
		} else if (!o->check) {
			const struct tpoint_meta_field *f = tpoint_meta_class_fields(c);
			const char *names = tpoint_meta_class_field_strings(c);

			put_words("", system, ":");
			put_words("", name, "\n");
			if (strcmp(class_name, name))
				put_words("  class: ", class_name, "\n");
			cond = tpoint_meta_event_condition(e);
			if (*cond)
				put_words("  condition: ", cond, "\n");
			for (uint32_t i = 0; i < c->nfields; i++) {
				const char *type = names, *field = tpoint_meta_str_next(type);

				names = tpoint_meta_str_next(field);
				print_field(&f[i], type, field);
			}
			int nargs = usdt_probe_args(&o->notes, system, name);

			if (nargs >= 0) {
				put_words("  usdt: usdt:", file, ":");
				put_words("", system, ":");
				put_words("", name, "");
				printf(" (%d argument%s)\n", nargs, nargs == 1 ? "" : "s");
			}
		}
		free(fmt);
		id++;

		if (!o->check)
			continue;
		print = tpoint_meta_event_print(e);
		if (!*print)
			print = tpoint_meta_class_print(c);
		subst = tpoint_print_fmt_subst(print, system, enums, nenums);
		if (!subst) {
			fflush(stdout);
			tool_error("list", "%s: out of memory", file);
			bad = 1;
			continue;
		}
		if (tpoint_print_fmt_check(subst, why, sizeof(why))) {
			put_words("", system, ":");
			put_words("", name, ": print fmt not renderable by libtraceevent: ");
			put_words("", why, "\n");
			bad = 1;
		}
		free(subst);
	}
	free(enums);
	return bad;
}

/* Returns 0, or 1 after saying what went wrong with the file or its events. */
static int list_file(const char *file, struct list_opts *o)
{
	struct elf e = { .fd = -1 };
	struct stat st;
	const char *why = NULL, *nwhy = NULL;
	char *buf = NULL, *notes = NULL;
	uint64_t len = 0, nlen = 0;
	int r;

	/* O_NONBLOCK: a FIFO is refused below, not waited on for a writer here. */
	e.fd = open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (e.fd < 0) {
		tool_error("list", "%s: %s", file, strerror(errno));
		return 1;
	}
	if (fstat(e.fd, &st)) {
		tool_error("list", "%s: %s", file, strerror(errno));
		close(e.fd);
		return 1;
	}
	if (!S_ISREG(st.st_mode)) {
		tool_error("list", "%s: not a regular file", file);
		close(e.fd);
		return 1;
	}
	e.size = (uint64_t)st.st_size;
	r = read_section(&e, TPOINT_META_SECTION, &buf, &len, &why);
	if (r > 0 && read_section(&e, ".note.stapsdt", &notes, &nlen, &nwhy) > 0)
		o->notes = (struct usdt_notes){ &e, (const unsigned char *)notes, nlen };
	close(e.fd);
	if (r <= 0) {
		if (r < 0)
			tool_error("list", "%s: %s", file, why);
		else
			tool_error("list", "%s: no tpoint events (no tpoint_meta section)", file);
		return 1;
	}
	if (e.swap)
		swap_records(buf, (size_t)len);
	if (o->headings) {
		put_words(o->first ? "" : "\n", file, ":\n");
		o->first = false;
	}
	r = list_section(file, buf, buf + len, o);
	o->notes = (struct usdt_notes){ NULL, NULL, 0 };
	free(notes);
	free(buf);
	return r;
}

/* The events of a running process, through its control socket. */
static int list_process(pid_t pid, bool format)
{
	struct ctl_conn conn;
	char err[512] = "", *text, *cur;
	struct ctl_event_row row;
	int ret;

	if (ctl_connect(pid, &conn, err, sizeof(err)) < 0) {
		tool_error("list", "%s", err);
		return EXIT_FAIL;
	}
	ret = ctl_request(&conn, format ? CTL_FORMATS : CTL_LIST, NULL, &text, err, sizeof(err));
	ctl_close(&conn);
	if (ret < 0) {
		tool_error("list", "process %d: %s", (int)pid, err);
		return EXIT_FAIL;
	}
	/* The process's own words: escaped on a terminal, as they are through a pipe. */
	if (format) {
		if (text_tty(stdout))
			text_write_escaped(stdout, text, strlen(text), true);
		else
			fputs(text, stdout);
		free(text);
		return EXIT_OK;
	}
	for (cur = text; tp_ctl_event_row_next(&cur, &row);) {
		text_put(stdout, row.event);
		printf("%s%s\n", row.enabled ? "  [enabled]" : "",
		       row.refusal != CTL_REFUSAL_NONE ? "  [refused]" : "");
		if (row.refusal != CTL_REFUSAL_NONE) {
			char why[600];

			ctl_refusal_text(&row, why, sizeof(why));
			fputs("  refused: stays off, ", stdout);
			text_put(stdout, why);
			putchar('\n');
		}
		if (*row.condition) {
			fputs("  condition: ", stdout);
			text_put(stdout, row.condition);
			putchar('\n');
		}
		if (*row.filter) {
			fputs("  filter: ", stdout);
			text_put(stdout, row.filter);
			putchar('\n');
		}
		if (*row.triggers) {
			fputs("  triggers: ", stdout);
			text_put(stdout, row.triggers);
			putchar('\n');
		}
	}
	free(text);
	return EXIT_OK;
}

/*
 * For `tpoint record`: the events of `file`, each with "" or why libtraceevent cannot render
 * its print format (then the runtime keeps it off). 1 when the file has a tpoint_meta
 * section, 0 when it has none or cannot be read (nothing is said), -ENOMEM.
 */
int elf_events(const char *file, elf_event_fn fn, void *arg)
{
	struct elf e = { .fd = -1 };
	struct stat st;
	const char *why = NULL, *cur;
	const struct tpoint_meta_hdr *h;
	struct tpoint_enum *enums = NULL;
	size_t nenums = 0;
	char *buf = NULL, reason[256];
	uint64_t len = 0;
	int r;

	e.fd = open(file, O_RDONLY | O_CLOEXEC);
	if (e.fd < 0)
		return 0;
	if (fstat(e.fd, &st) || !S_ISREG(st.st_mode)) {
		close(e.fd);
		return 0;
	}
	e.size = (uint64_t)st.st_size;
	r = read_section(&e, TPOINT_META_SECTION, &buf, &len, &why);
	close(e.fd);
	if (r <= 0)
		return 0;
	if (e.swap)
		swap_records(buf, (size_t)len);
	r = collect_enums(buf, buf + len, &enums, &nenums);
	if (r < 0) {
		free(buf);
		return r == -ENOMEM ? r : 0;
	}
	cur = buf;
	while (tpoint_meta_next(&cur, buf + len, &h) > 0) {
		const struct tpoint_meta_event *ev = (const struct tpoint_meta_event *)h;
		const struct tpoint_meta_class *c;
		const char *print, *system;
		char *subst;

		if (h->kind != TPOINT_META_EVENT)
			continue;
		system = tpoint_meta_event_system(ev);
		c = tpoint_meta_find_class(buf, buf + len, system, tpoint_meta_event_class(ev));
		if (!c)
			continue;
		print = tpoint_meta_event_print(ev);
		if (!*print)
			print = tpoint_meta_class_print(c);
		subst = tpoint_print_fmt_subst(print, system, enums, nenums);
		reason[0] = 0;
		if (subst && tpoint_print_fmt_check(subst, reason, sizeof(reason)) == 0)
			reason[0] = 0;
		else if (!reason[0])
			snprintf(reason, sizeof(reason), "out of memory");
		free(subst);
		fn(system, tpoint_meta_event_name(ev), reason, arg);
	}
	free(enums);
	free(buf);
	return 1;
}

int cmd_list(int argc, char **argv)
{
	struct opts opts;
	struct list_opts o = { 0 };
	int c, status = EXIT_OK;
	pid_t pid = 0;

	opts_start(&opts, &list_opts, argc, argv);
	while ((c = opts_next(&opts)) != OPTS_END) {
		switch (c) {
		case 'p':
			pid = ctl_parse_one_pid("list", opts.value, pid);
			if (pid < 0)
				return EXIT_USAGE;
			break;
		case 'F':
			o.format = true;
			break;
		case 'c':
			o.check = true;
			break;
		default:
			return opts_exit(c);
		}
	}
	optind = opts.ind;
	if (pid) {
		if (optind < argc || o.check) {
			tool_error("list", "-p lists a process: no FILE and no --check with it");
			return EXIT_USAGE;
		}
		return list_process(pid, o.format);
	}
	if (optind >= argc) {
		tool_error("list", "no FILE given; try 'tpoint list --help'");
		return EXIT_USAGE;
	}
	/* Several files: a heading for each, so the output says which events are whose. A
	 * bare --check prints only problems, which name their event already. */
	o.headings = argc - optind > 1 && (o.format || !o.check);
	o.first = true;
	for (int i = optind; i < argc; i++) {
		if (list_file(argv[i], &o))
			status = EXIT_FAIL;
		/* Keep our stdout and the errors on stderr in order when both go to a terminal. */
		fflush(stdout);
	}
	return status;
}
