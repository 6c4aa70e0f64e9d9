// SPDX-License-Identifier: MIT
/*
 * ustack_names - the names of user stacks' addresses (ustack_names.h).
 *
 * An address becomes a file and an offset through the mappings recorded with the stacks
 * (the last one recorded for that process and address wins: records come in time order),
 * the offset a virtual address through the file's PT_LOAD segments, and that a name
 * through its function symbols: the greatest at or below it, if the address is inside its
 * size. The files are read as they are on disk now, untrusted: regular files only, every
 * table checked against the file's size; a file that cannot be read names nothing.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ustack_names.h"

struct sym {
	uint64_t value, size;
	const char *name; /* in the file's mapping */
};

struct seg {
	uint64_t offset, vaddr, filesz;
};

struct elf_file {
	char *path;
	const char *base;
	void *map;
	size_t size;
	struct sym *syms;
	size_t nsyms;
	struct seg *segs;
	size_t nsegs;
};

struct map {
	uint32_t tgid;
	uint64_t start, end, pgoff;
	size_t file; /* index in files */
};

struct ustack_names {
	struct map *maps;
	size_t nmaps, maps_cap;
	struct elf_file *files;
	size_t nfiles, files_cap;
};

static bool in_file(const struct elf_file *f, uint64_t off, uint64_t len)
{
	return off <= f->size && len <= f->size - off;
}

static int cmp_sym(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	return (x->value > y->value) - (x->value < y->value);
}

/* The function symbols of one table (SHT_SYMTAB or SHT_DYNSYM) and its strings. */
static void take_symbols(struct elf_file *f, const Elf64_Shdr *tab, const Elf64_Shdr *str)
{
	const char *img = f->map;
	size_t n;
	struct sym *more;

	if (tab->sh_entsize != sizeof(Elf64_Sym) || !in_file(f, tab->sh_offset, tab->sh_size) ||
	    !in_file(f, str->sh_offset, str->sh_size) || !str->sh_size ||
	    img[str->sh_offset + str->sh_size - 1] != '\0')
		return;
	n = tab->sh_size / sizeof(Elf64_Sym);
	more = realloc(f->syms, (f->nsyms + n) * sizeof(*more));
	if (!more)
		return;
	f->syms = more;
	for (size_t i = 0; i < n; i++) {
		Elf64_Sym s;

		memcpy(&s, img + tab->sh_offset + i * sizeof(s), sizeof(s));
		if ((ELF64_ST_TYPE(s.st_info) != STT_FUNC &&
		     ELF64_ST_TYPE(s.st_info) != STT_GNU_IFUNC) ||
		    s.st_shndx == SHN_UNDEF || !s.st_value || s.st_name >= str->sh_size)
			continue;
		f->syms[f->nsyms++] = (struct sym){ s.st_value, s.st_size,
						    img + str->sh_offset + s.st_name };
	}
}

/* The file's tables, if it is a 64-bit ELF file of this machine's byte order. */
static void read_elf(struct elf_file *f)
{
	const char *img = f->map;
	Elf64_Ehdr eh;
	Elf64_Shdr *sh;
	int symtab = -1, dynsym = -1;

	if (f->size < sizeof(eh))
		return;
	memcpy(&eh, img, sizeof(eh));
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB :
				    ELFDATA2MSB))
		return;
	if (eh.e_phentsize == sizeof(Elf64_Phdr) &&
	    in_file(f, eh.e_phoff, (uint64_t)eh.e_phnum * sizeof(Elf64_Phdr)) &&
	    (f->segs = calloc(eh.e_phnum ? eh.e_phnum : 1, sizeof(*f->segs)))) {
		for (unsigned i = 0; i < eh.e_phnum; i++) {
			Elf64_Phdr ph;

			memcpy(&ph, img + eh.e_phoff + i * sizeof(ph), sizeof(ph));
			if (ph.p_type == PT_LOAD)
				f->segs[f->nsegs++] = (struct seg){ ph.p_offset, ph.p_vaddr,
								    ph.p_filesz };
		}
	}
	if (eh.e_shentsize != sizeof(Elf64_Shdr) ||
	    !in_file(f, eh.e_shoff, (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr)))
		return;
	sh = calloc(eh.e_shnum ? eh.e_shnum : 1, sizeof(*sh));
	if (!sh)
		return;
	memcpy(sh, img + eh.e_shoff, (size_t)eh.e_shnum * sizeof(*sh));
	for (int i = 0; i < eh.e_shnum; i++) {
		if (sh[i].sh_type == SHT_SYMTAB && symtab < 0)
			symtab = i;
		if (sh[i].sh_type == SHT_DYNSYM && dynsym < 0)
			dynsym = i;
	}
	/* .symtab has every function, .dynsym the exported ones: one of them, the fuller. */
	int use = symtab >= 0 ? symtab : dynsym;

	if (use >= 0 && sh[use].sh_link < eh.e_shnum)
		take_symbols(f, &sh[use], &sh[sh[use].sh_link]);
	free(sh);
	if (f->nsyms > 1)
		qsort(f->syms, f->nsyms, sizeof(*f->syms), cmp_sym);
}

/*
 * The path comes from the file: no /proc, /sys or /dev file is read for a name (some are
 * regular files whose reading does more than read), nor anything but a regular file.
 */
static void open_elf(struct elf_file *f)
{
	int fd;
	struct stat st;

	if (!strncmp(f->path, "/proc/", 6) || !strncmp(f->path, "/sys/", 5) ||
	    !strncmp(f->path, "/dev/", 5))
		return;
	fd = open(f->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);

		if (m != MAP_FAILED) {
			f->map = m;
			f->size = (size_t)st.st_size;
			read_elf(f);
		}
	}
	close(fd);
}

static size_t file_index(struct ustack_names *s, const char *path)
{
	for (size_t i = 0; i < s->nfiles; i++)
		if (!strcmp(s->files[i].path, path))
			return i;
	if (s->nfiles == s->files_cap) {
		size_t cap = s->files_cap ? 2 * s->files_cap : 16;
		struct elf_file *n = realloc(s->files, cap * sizeof(*n));

		if (!n)
			return SIZE_MAX;
		s->files = n;
		s->files_cap = cap;
	}
	struct elf_file *f = &s->files[s->nfiles];

	memset(f, 0, sizeof(*f));
	f->path = strdup(path);
	if (!f->path)
		return SIZE_MAX;
	f->base = strrchr(f->path, '/') ? strrchr(f->path, '/') + 1 : f->path;
	return s->nfiles++;
}

int tp_ustack_names_add_map(struct ustack_names *s, uint32_t tgid, uint64_t start, uint64_t end,
		       uint64_t pgoff, const char *path)
{
	size_t file;

	for (size_t i = 0; i < s->nmaps; i++) {
		struct map *m = &s->maps[i];

		if (m->tgid == tgid && m->start == start && m->end == end && m->pgoff == pgoff &&
		    !strcmp(s->files[m->file].path, path))
			return 0; /* written again: known */
	}
	file = file_index(s, path);
	if (file == SIZE_MAX)
		return -1;
	if (s->nmaps == s->maps_cap) {
		size_t cap = s->maps_cap ? 2 * s->maps_cap : 32;
		struct map *n = realloc(s->maps, cap * sizeof(*n));

		if (!n)
			return -1;
		s->maps = n;
		s->maps_cap = cap;
	}
	s->maps[s->nmaps++] = (struct map){ tgid, start, end, pgoff, file };
	return 0;
}

static const struct sym *find_sym(const struct elf_file *f, uint64_t vaddr)
{
	size_t lo = 0, hi = f->nsyms;

	while (lo < hi) { /* the first symbol above vaddr */
		size_t mid = lo + (hi - lo) / 2;

		if (f->syms[mid].value <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* A symbol of size 0 (hand-written assembly) covers up to the next one. */
	if (lo && (!f->syms[lo - 1].size || vaddr - f->syms[lo - 1].value < f->syms[lo - 1].size))
		return &f->syms[lo - 1];
	return NULL;
}

int tp_ustack_names_symbol(struct ustack_names *s, uint32_t tgid, uint64_t addr,
			  struct ustack_symbol *out)
{
	const struct map *m = NULL;

	for (size_t i = s->nmaps; i-- > 0;)
		if (s->maps[i].tgid == tgid && addr >= s->maps[i].start && addr < s->maps[i].end) {
			m = &s->maps[i];
			break;
		}
	if (!m)
		return 0;
	struct elf_file *f = &s->files[m->file];
	uint64_t off = addr - m->start + m->pgoff;

	*out = (struct ustack_symbol){ .file = f->base, .path = f->path, .file_offset = off };
	if (!f->map && !f->syms)
		open_elf(f);
	for (size_t i = 0; i < f->nsegs; i++) {
		const struct seg *g = &f->segs[i];

		if (off >= g->offset && off - g->offset < g->filesz) {
			const struct sym *sym = find_sym(f, off - g->offset + g->vaddr);

			if (!sym)
				break;
			out->name = sym->name;
			out->offset = off - g->offset + g->vaddr - sym->value;
			out->size = sym->size;
			return 2;
		}
	}
	return 1;
}

void tp_ustack_names_name(struct ustack_names *s, uint32_t tgid, uint64_t addr, char *buf,
			  size_t len)
{
	struct ustack_symbol sym;

	switch (tp_ustack_names_symbol(s, tgid, addr, &sym)) {
	case 0:
		snprintf(buf, len, "0x%" PRIx64, addr);
		break;
	case 1:
		snprintf(buf, len, "[%s+0x%" PRIx64 "]", sym.file, sym.file_offset);
		break;
	default:
		snprintf(buf, len, "%s+0x%" PRIx64 " [%s]", sym.name, sym.offset, sym.file);
		break;
	}
}

struct ustack_names *tp_ustack_names_new(void)
{
	return calloc(1, sizeof(struct ustack_names));
}

void tp_ustack_names_free(struct ustack_names *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nfiles; i++) {
		if (s->files[i].map)
			munmap(s->files[i].map, s->files[i].size);
		free(s->files[i].syms);
		free(s->files[i].segs);
		free(s->files[i].path);
	}
	free(s->files);
	free(s->maps);
	free(s);
}
