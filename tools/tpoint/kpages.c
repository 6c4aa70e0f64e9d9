/* SPDX-License-Identifier: MIT */
/* The kernel's raw ring-buffer pages, read back record by record (kpages.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "fmt/rb_record.h"
#include "kpages.h"
#include "tracedat_format.h"

/* The page header of a 64-bit kernel (events/header_page): u64 time stamp, u64 commit. */
#define KPAGE_LONG 8
#define KPAGE_HEADER (8 + KPAGE_LONG)
/* The records as this machine's kernel writes them; padding with no delta ends the page. */
#define KPAGE_DECODE ((__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ? TP_RB_BIG_ENDIAN : 0) | \
		      TP_RB_PAD_ENDS_PAGE)

struct kcpu {
	const char *map;
	size_t maplen;
	size_t len;      /* of whole pages */
	size_t page;     /* offset of the current page */
	uint32_t off;    /* of the next record within the page's data */
	uint32_t commit; /* data bytes of the current page; 0: no page open */
	uint64_t ts;     /* the running time */
	uint64_t lost;   /* to hand on with the next record */
	bool lost_unknown;
};

struct kpages {
	struct kcpu *cpu;
	int ncpus;
	uint32_t page_size;
	uint64_t bad, lost_marks;
	/* A record handed out, padded to a multiple of 8 (the kernel's are of 4). */
	char rec[TPOINT_PAGE_SIZE];
};

struct kpages *kpages_open(const char *dir, int ncpus, int page_size, char *err, size_t errlen)
{
	struct kpages *kp = calloc(1, sizeof(*kp));

	if (!kp || !(kp->cpu = calloc((size_t)ncpus, sizeof(*kp->cpu)))) {
		free(kp);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	kp->ncpus = ncpus;
	kp->page_size = (uint32_t)page_size;
	for (int c = 0; c < ncpus; c++) {
		char path[4096];
		struct stat st;
		int fd;

		snprintf(path, sizeof(path), "%s/kernel-cpu%d.pages", dir, c);
		fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= page_size) {
			void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);

			if (m != MAP_FAILED) {
				kp->cpu[c].map = m;
				kp->cpu[c].maplen = (size_t)st.st_size;
				kp->cpu[c].len = (size_t)st.st_size / kp->page_size * kp->page_size;
			}
		}
		close(fd);
	}
	return kp;
}

void kpages_rewind(struct kpages *kp)
{
	for (int c = 0; c < kp->ncpus; c++) {
		struct kcpu *k = &kp->cpu[c];

		k->page = 0;
		k->off = k->commit = 0;
		k->lost = 0;
		k->lost_unknown = false;
	}
	kp->bad = kp->lost_marks = 0;
}

/* Open the page at k->page: false when it holds nothing to read. */
static bool page_open(struct kpages *kp, struct kcpu *k)
{
	struct tp_rb_page pg;
	enum tp_rb_page_fault fault = tp_rb_page_decode((const unsigned char *)k->map + k->page,
							 kp->page_size, KPAGE_LONG, KPAGE_DECODE,
							 &pg);

	k->off = 0;
	k->commit = 0;
	if (fault == TP_RB_PAGE_LAYOUT || fault == TP_RB_PAGE_COMMIT_PAST) {
		kp->bad++;
		return false;
	}
	k->commit = pg.commit;
	k->ts = pg.ts;
	if (pg.missed) {
		kp->lost_marks++;
		if (pg.counted)
			k->lost += pg.lost;
		else
			k->lost_unknown = true;
	}
	return k->commit > 0;
}

int kpages_next(void *ctx, uint32_t cpu, struct tracedat_extra_rec *rec)
{
	struct kpages *kp = ctx;
	struct kcpu *k;

	if (cpu >= (uint32_t)kp->ncpus)
		return 0;
	k = &kp->cpu[cpu];
	for (;;) {
		const unsigned char *data;
		struct tp_rb_rec ev;
		uint32_t size;

		if (k->off >= k->commit) { /* the next page, if any */
			if (k->commit)
				k->page += kp->page_size;
			k->commit = 0;
			while (k->page + kp->page_size <= k->len && !page_open(kp, k))
				k->page += kp->page_size;
			if (k->page + kp->page_size > k->len)
				return 0;
		}
		data = (const unsigned char *)k->map + k->page + KPAGE_HEADER;
		if (tp_rb_decode(data, k->commit, k->off, KPAGE_DECODE, &ev))
			goto bad;
		tp_rb_apply_time(&ev, &k->ts);
		k->off = ev.next;
		if (!tp_rb_is_data(&ev))
			continue;
		size = ev.size;
		if (size > TPOINT_MAX_PAYLOAD) { /* no room in a page of the file: counted as lost */
			k->lost++;
			continue;
		}
		memcpy(kp->rec, data + ev.payload, size);
		memset(kp->rec + size, 0, 8);
		rec->data = kp->rec;
		rec->size = (size + 7) & ~7u;
		rec->ns = k->ts;
		rec->lost_before = k->lost;
		rec->lost_unknown = k->lost_unknown;
		k->lost = 0;
		k->lost_unknown = false;
		return 1;
bad:
		/* The rest of this page is not read: said in the counts, never passed on. */
		kp->bad++;
		k->off = k->commit;
	}
}

void kpages_count(struct kpages *kp, uint64_t *count)
{
	struct tracedat_extra_rec r;

	kpages_rewind(kp);
	for (int c = 0; c < kp->ncpus; c++)
		while (kpages_next(kp, (uint32_t)c, &r) == 1) {
			uint16_t id;

			memcpy(&id, r.data, 2);
			count[id]++;
		}
}

uint64_t kpages_bad(const struct kpages *kp)
{
	return kp->bad;
}

uint64_t kpages_lost_marks(const struct kpages *kp)
{
	return kp->lost_marks;
}

void kpages_close(struct kpages *kp)
{
	if (!kp)
		return;
	for (int c = 0; c < kp->ncpus; c++)
		if (kp->cpu[c].map)
			munmap((void *)kp->cpu[c].map, kp->cpu[c].maplen);
	free(kp->cpu);
	free(kp);
}
