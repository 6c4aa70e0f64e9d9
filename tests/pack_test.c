// SPDX-License-Identifier: MIT
/*
 * pack_test - the packing of spool pages (lib/pack.h), alone.
 *
 * A reference packer written here, a byte at a time from the format's description, is what
 * every packer (the portable one, and the machine's where it has one: AVX-512 VBMI2 on
 * x86-64) must match byte for byte, on page-like
 * records, on random bytes with runs of zeros, on every length up to a page (multiples of
 * 8, as records are) and on lags short and long; unpacking gives the bytes back, with the
 * portable expander and with the machine's. Damaged input -- cut short at every length, a
 * length over 8, a length for a word past the end, bytes left over, a lag of 0 or of no
 * whole words, a length of no whole words -- is refused by both, never read past (run it
 * under make check SANITIZE=1 to have that checked too).
 */
#include "testutil.h"
#include "pack.h"

#define MAXN TPOINT_PAGE_DATA

static size_t ref_pack(const uint8_t *in, uint32_t n, uint32_t lag, uint8_t *out)
{
	size_t o = 0;

	for (uint32_t i = 0; i < n; i += PACK_BLOCK) {
		uint32_t k = n - i < PACK_BLOCK ? n - i : PACK_BLOCK, lengths = 0;
		size_t at = o + 4;

		for (uint32_t j = 0; j < k; j += 8) {
			uint8_t d[8];
			uint32_t len = 0;

			for (uint32_t b = 0; b < 8; b++) {
				d[b] = in[i + j + b] ^ (i + j >= lag ? in[i + j + b - lag] : 0);
				if (d[b])
					len = b + 1;
			}
			lengths |= len << (j / 8 * 4);
			memcpy(out + at, d, len);
			at += len;
		}
		memcpy(out + o, &lengths, 4);
		o = at;
	}
	return o;
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Records as a thread writes them: 40-byte 3 x u64 events, now and then a longer one. */
static void page_like(uint8_t *b, uint32_t n)
{
	uint64_t i = next() & 0xffff;
	uint32_t off = 0;

	memset(b, 0, n);
	while (off + 8 <= n) {
		uint32_t total = (next() & 15) ? 40 : 72, w[2];

		if (off + total > n)
			total = (n - off) & ~7u;
		if (total < 16)
			break;
		w[0] = (uint32_t)((30 + (next() & 7)) << 5);
		w[1] = total - 4;
		memcpy(b + off, w, 8);
		uint64_t fields[8] = { (1234ull << 32) | 42, i, i * 3, i ^ 0x5a5a5a5a, i, i, i, i };

		memcpy(b + off + 8, fields, total - 8);
		off += total;
		i++;
	}
}

static void random_bytes(uint8_t *b, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		b[i] = (next() % 3) ? 0 : (uint8_t)next();
}

static uint8_t in[MAXN], ref[PACK_BOUND(MAXN)], got[PACK_BOUND(MAXN)], back[MAXN];
static pack_expand_fn expanders[2];
static int nexp;
static pack_fn packers[2];
static int npack;

/*
 * Unpack with every expander: how many gave back `want` (the first n bytes of it), or, with
 * want NULL, how many refused.
 */
static int decode_each(const uint8_t *p, size_t size, uint32_t n, uint32_t lag,
		       const uint8_t *want)
{
	int good = 0;

	for (int e = 0; e < nexp; e++) {
		int rc;

		memset(back, 0xa5, sizeof(back));
		rc = tp_pack_decode_with(expanders[e], p, size, n, lag, back);
		good += want ? rc == 0 && !memcmp(back, want, n) : rc < 0;
	}
	return good;
}

/* One input: every packer agrees with the reference, and it unpacks. 0 if all held. */
static int one(uint32_t n, uint32_t lag, const char *what)
{
	size_t rsize = ref_pack(in, n, lag, ref);

	if (decode_each(ref, rsize, n, lag, in) != nexp) {
		CHECK(0, "%s, %u bytes, lag %u: the reference packing does not unpack", what, n, lag);
		return 1;
	}
	for (int k = 0; k < npack; k++) {
		size_t gsize = packers[k](in, n, lag, got);

		if (gsize != rsize || memcmp(got, ref, rsize)) {
			CHECK(0, "%s, %u bytes, lag %u: packer %d's %zu bytes differ from the "
			      "reference's %zu", what, n, lag, k, gsize, rsize);
			return 1;
		}
	}
	return 0;
}

int main(void)
{
	uint32_t lags[] = { 8, 16, 40, 64, 72, 128, 4000, MAXN };
	int fails = 0, cases = 0;
	size_t psize, total_in = 0, total_out = 0;

	expanders[nexp++] = tp_pack_expand_portable;
	packers[npack++] = tp_pack_portable;
#ifdef PACK_ARCH
	if (tp_pack_arch_expander())
		expanders[nexp++] = tp_pack_arch_expander();
	if (tp_pack_arch_encoder())
		packers[npack++] = tp_pack_arch_encoder();
#endif
	CHECK(tp_pack_encoder() == packers[npack - 1],
	      "tp_pack_encoder() picks the machine's packer where it has one, else the portable one");
	tu_note("packers and expanders: the portable ones%s", nexp > 1 || npack > 1 ?
		" and the machine's" : " (this machine has none of its own)");
	for (uint32_t n = 0; n <= MAXN && fails < 5; n += n < 400 ? 8 : 488) {
		for (size_t l = 0; l < sizeof(lags) / sizeof(lags[0]); l++) {
			random_bytes(in, n);
			fails += one(n, lags[l], "random");
			page_like(in, n);
			fails += one(n, lags[l], "records");
			cases += 2;
		}
	}
	for (int r = 0; r < 200 && fails < 5; r++) {
		page_like(in, MAXN);
		fails += one(MAXN, tp_pack_lag((const char *)in, MAXN), "a page");
		total_in += MAXN;
		total_out += ref_pack(in, MAXN, tp_pack_lag((const char *)in, MAXN), ref);
		cases++;
	}
	CHECK(fails == 0, "%d cases agree and unpack", cases);
	tu_note("page-like records pack to %.1f %% of their size", 100.0 * total_out / total_in);

	/* The lag: the first record's length, else 8. */
	page_like(in, MAXN);
	CHECK(tp_pack_lag((const char *)in, MAXN) == 40 || tp_pack_lag((const char *)in, MAXN) == 72,
	      "lag of records: %u", tp_pack_lag((const char *)in, MAXN));
	CHECK(tp_pack_lag((const char *)in, 4) == 8, "lag of too few bytes: 8");
	memset(in, 0xff, 8);
	CHECK(tp_pack_lag((const char *)in, MAXN) == 8, "lag of a record of no sane length: 8");

	/* Damaged: every cut, a stray bit, bytes left over, no lag. */
	page_like(in, 1000);
	psize = ref_pack(in, 1000, 40, ref);
	int refused = 0;

	for (size_t cut = 0; cut < psize; cut++) {
		uint8_t *shortened = malloc(cut ? cut : 1); /* exact size: ASan sees an over-read */

		memcpy(shortened, ref, cut);
		refused += decode_each(shortened, cut, 1000, 40, NULL);
		free(shortened);
	}
	CHECK(refused == (int)psize * nexp, "cut short: %d of %zu cuts refused", refused,
	      psize * (size_t)nexp);
	/* The last block's lengths: 1000 % 64 = 40 bytes, 5 words. */
	uint32_t lengths, count;
	uint64_t spread;
	size_t last = 0, at = 0;

	for (uint32_t i = 0; i < 1000; i += PACK_BLOCK) {
		last = at;
		if (pack_block_lengths(ref, psize, &at, 1000 - i < PACK_BLOCK ? 5 : 8, &spread,
				       &count) < 0)
			break;
		at += count;
	}
	memcpy(&lengths, ref + last, 4);
	memcpy(got, ref, psize);
	memcpy(got + last, &(uint32_t){ lengths | 1u << 20 }, 4); /* a sixth word's byte */
	got[psize] = 7;
	CHECK(decode_each(got, psize + 1, 1000, 40, NULL) == nexp, "a length for a word past "
	      "the last: refused");
	memcpy(got, ref, psize);
	memcpy(got + last, &(uint32_t){ (lengths & ~0xfu) | 9u }, 4);
	/* With the bytes a 9 would take: only the length itself is wrong. */
	CHECK(decode_each(got, psize + 9 - (lengths & 0xfu), 1000, 40, NULL) == nexp,
	      "a length of 9: refused");
	memcpy(got, ref, psize);
	got[psize] = 7;
	CHECK(decode_each(got, psize + 1, 1000, 40, NULL) == nexp, "a byte left over: refused");
	CHECK(decode_each(ref, psize, 1000, 0, NULL) == nexp, "lag 0: refused");
	CHECK(decode_each(ref, psize, 1000, 36, NULL) == nexp, "a lag of no whole words: refused");
	CHECK(decode_each(ref, psize, 996, 40, NULL) == nexp, "a length of no whole words: "
	      "refused");
	CHECK(decode_each(ref, psize, 1000, 40, in) == nexp, "the undamaged packing unpacks");
	CHECK(tp_pack_decode(ref, psize, 1000, 40, back) == 0 && !memcmp(back, in, 1000),
	      "and tp_pack_decode() picks an expander that unpacks it");
	return tu_finish();
}
