/*
 * blobcache.c - blocks assembled ahead and kept by their source text (see
 * blobcache.h).
 */
#include "t32/core/blobcache.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/gen.h"

/* ---- the blobs kept ---- */

#define KEEP_BYTES (512ull << 20)	/* images kept at most, bytes */
#define KEEP_BLOBS 4096			/* ... and blobs */
#define PUT_BYTES (32u << 20)		/* images assembled alone kept at most, bytes */

struct entry {
	uint64_t hash;
	char *text;
	struct t32_blob blob;
	unsigned long used;	/* when it was last put or got */
};

static struct entry *kept;
static size_t nkept;
static unsigned long long kept_bytes;
static unsigned long ticks;
static struct t32_blobs_stats stats;

static uint64_t hash_of(const char *text)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (const unsigned char *c = (const unsigned char *)text; *c; c++)
		h = (h ^ *c) * 0x100000001b3ull;
	return h;
}

static int blob_copy(const struct t32_blob *from, struct t32_blob *to)
{
	*to = *from;
	to->image = malloc(from->size ? from->size : 1);
	to->item_off = malloc((from->hdr.nitems + 1) * sizeof(uint64_t));
	if (!to->image || !to->item_off) {
		t32_blob_free(to);
		return -1;
	}
	memcpy(to->image, from->image, from->size);
	memcpy(to->item_off, from->item_off, (from->hdr.nitems + 1) * sizeof(uint64_t));
	return 0;
}

static struct entry *find(const char *text)
{
	uint64_t h = hash_of(text);

	for (size_t i = 0; i < nkept; i++)
		if (kept[i].hash == h && strcmp(kept[i].text, text) == 0)
			return &kept[i];
	return NULL;
}

int t32_blobs_get(const char *text, struct t32_blob *out)
{
	struct entry *e = find(text);

	if (!e || blob_copy(&e->blob, out))
		return -1;
	e->used = ++ticks;
	return 0;
}

static void drop(size_t i)
{
	kept_bytes -= kept[i].blob.size;
	free(kept[i].text);
	t32_blob_free(&kept[i].blob);
	kept[i] = kept[--nkept];
}

/* Keep b itself (not a copy) under text; b is emptied either way. */
static void keep(const char *text, struct t32_blob *b)
{
	struct entry *e;

	if (find(text) || b->size > KEEP_BYTES) {
		t32_blob_free(b);
		return;
	}
	/* the least recently used give way */
	while (nkept && (nkept >= KEEP_BLOBS || kept_bytes + b->size > KEEP_BYTES)) {
		size_t old = 0;

		for (size_t i = 1; i < nkept; i++)
			if (kept[i].used < kept[old].used)
				old = i;
		drop(old);
	}
	if (!kept && !(kept = calloc(KEEP_BLOBS, sizeof(*kept)))) {
		t32_blob_free(b);
		return;
	}
	e = &kept[nkept];
	e->text = strdup(text);
	if (!e->text) {
		t32_blob_free(b);
		return;
	}
	e->hash = hash_of(text);
	e->blob = *b;
	e->used = ++ticks;
	memset(b, 0, sizeof(*b));
	kept_bytes += e->blob.size;
	nkept++;
}

void t32_blobs_put(const char *text, const struct t32_blob *b)
{
	struct t32_blob copy;

	/* a large body is rarely assembled twice: not worth its copy */
	if (b->size <= PUT_BYTES && !find(text) && blob_copy(b, &copy) == 0)
		keep(text, &copy);
}

static void items_forget(void);

void t32_blobs_clear(void)
{
	while (nkept)
		drop(nkept - 1);
	items_forget();
}

void t32_blobs_stats(struct t32_blobs_stats *st)
{
	*st = stats;
}

/* ---- assembling ahead ---- */

int t32_one_by_one(void)
{
	const char *v = getenv("T32_ONE_BY_ONE");

	return v && *v && strcmp(v, "0") != 0;
}

/* What the item run found of one item text. */
enum item_state { ITEM_NEW, ITEM_CODE, ITEM_WHOLE, ITEM_REFUSED };

struct item {
	char *text;
	uint64_t hash;
	unsigned stmts;
	int placed;		/* its text says its bytes depend on where it lies ($, align) */
	enum item_state state;	/* ITEM_CODE: code[0..len) is one copy, wherever it lies;
				 * ITEM_WHOLE: its bytes depend on where it lies (assemble the
				 * block whole); ITEM_REFUSED: nasm refused it alone or
				 * twice in a row (a label) */
	unsigned char *code;
	size_t len;
};

/* A block to assemble ahead. */
struct pending {
	const struct t32_spec *spec;
	char *text;		/* its source as t32_generate writes it: the key */
	struct t32_gen gen;	/* what nasm reads: the text, or the body's places */
	size_t *items;		/* its items' indices in the item list */
	int splice;		/* its items' code goes into places */
	int fast;		/* padded at once (fast_pads), the code's padding filled after */
	int done;		/* kept, or left out */
};

/*
 * The item texts met so far, with what their run found: a sweep's next rows
 * mostly repeat its texts, whose code is then known without a run.
 */
#define KEEP_ITEMS 8192
static struct item *known;
static size_t nknown, capknown;

static void items_forget(void)
{
	for (size_t i = 0; i < nknown; i++) {
		free(known[i].text);
		free(known[i].code);
	}
	nknown = 0;
}

static size_t item_index(struct item **items, size_t *n, size_t *cap, const struct t32_item *it)
{
	uint64_t h = hash_of(it->text);
	char *text;

	for (size_t i = 0; i < *n; i++)
		if ((*items)[i].hash == h && (*items)[i].stmts == it->stmts &&
		    strcmp((*items)[i].text, it->text) == 0)
			return i;
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 64;
		struct item *p = realloc(*items, c * sizeof(*p));

		if (!p)
			return SIZE_MAX;
		*items = p;
		*cap = c;
	}
	if (!(text = strdup(it->text)))
		return SIZE_MAX;
	/* an alignment, or an address of its own, is placed code: never copied */
	(*items)[*n] = (struct item){ text, h, it->stmts,
				      strcasestr(it->text, "align") || strchr(it->text, '$'),
				      ITEM_NEW, NULL, 0 };
	return (*n)++;
}

static unsigned count_nl(const char *t)
{
	unsigned n = 0;

	for (; *t; t++)
		n += *t == '\n';
	return n;
}

/*
 * One nasm run over the new items of which[0..m): each once, then twice in a
 * row at another place, behind a header of their offsets.  0 with the states
 * set; -1 with *refused the item nasm named (m when it named none).
 */
static int item_run(struct item *items, const size_t *which, size_t m, size_t *refused)
{
	char *src = NULL;
	size_t len = 0, bad;
	FILE *f = open_memstream(&src, &len);
	struct t32_gen g = { 0 };
	const struct t32_gen *gens[1] = { &g };
	struct t32_blob b;
	struct t32_fault fault;
	unsigned line;
	int rc = -1;

	*refused = m;
	g.nitems = m;
	g.item_line = calloc(m, sizeof(unsigned));
	g.item_lines = calloc(m, sizeof(unsigned));
	if (!f || !g.item_line || !g.item_lines)
		goto out;
	/* a block of the generator's shape: a header of offsets, then the copies */
	fprintf(f, "BITS 64\ndefault rel\n" T32_GEN_ORG_LINE "header:\n\tdb 'T32BLK', 0, 1\n"
		   "\tdq entry, data_start, image_end, 0, 0, 0, 0, %zu\n", 4 * m - 1);
	for (size_t k = 0; k < m; k++)
		fprintf(f, "\tdq t32_%zu_one, t32_%zu_gap, t32_%zu_two, t32_%zu_end\n", k, k, k, k);
	fputs("entry:\n", f);
	line = 7 + (unsigned)m;
	for (size_t k = 0; k < m; k++) {
		char *one = NULL, *two = NULL;

		if (t32_gen_item(items[which[k]].text, items[which[k]].stmts, 1, &one) ||
		    t32_gen_item(items[which[k]].text, items[which[k]].stmts, 2, &two)) {
			free(one);
			free(two);
			goto out;
		}
		fprintf(f, "t32_%zu_one:\n%st32_%zu_gap:\n\tdb 0xcc, 0xcc, 0xcc\nt32_%zu_two:\n%s"
			   "t32_%zu_end:\n", k, one, k, k, two, k);
		g.item_line[k] = line + 1;
		g.item_lines[k] = 5 + count_nl(one) + count_nl(two);
		line += g.item_lines[k];
		free(one);
		free(two);
	}
	fputs("\talign 4096, db 0xcc\ndata_start:\n\talign 4096, db 0\nimage_end:\n", f);
	if (fclose(f))
		goto out;
	f = NULL;
	stats.item_runs++;
	if (t32_assemble_batch((const char *const *)&src, gens, 1, &b, &fault, &bad)) {
		if (fault.kind == T32_FAIL_ASSEMBLE && fault.item >= 0)
			*refused = (size_t)fault.item;
		goto out;
	}
	for (size_t k = 0; k < m; k++) {
		struct item *it = &items[which[k]];
		const uint64_t *o = b.item_off + 4 * k;
		size_t one = o[1] - o[0];
		int whole = b.hdr.nitems != 4 * m - 1 || o[1] < o[0] || o[3] < o[2] ||
			    o[3] > b.size || o[3] - o[2] != 2 * one;
		/* every copy the same bytes, wherever it lies: its code alone will do */
		int same = !whole && memcmp(b.image + o[0], b.image + o[2], one) == 0 &&
			   memcmp(b.image + o[0], b.image + o[2] + one, one) == 0;

		it->state = ITEM_WHOLE;
		if (it->placed || !same)
			continue;
		it->code = malloc(one ? one : 1);
		if (!it->code)
			continue;
		memcpy(it->code, b.image + o[0], one);
		it->len = one;
		it->state = ITEM_CODE;
	}
	t32_blob_free(&b);
	rc = 0;
out:
	if (f)
		fclose(f);
	free(src);
	free(g.item_line);
	free(g.item_lines);
	return rc;
}

/*
 * The new items' code: one run over them all; an item nasm refuses is set
 * apart (ITEM_REFUSED) and the run repeated without it, a few times at most;
 * after that, and when nasm names none, the rest are assembled whole.
 */
static void assemble_items(struct item *items, size_t n)
{
	size_t *which = calloc(n ? n : 1, sizeof(size_t));

	for (int tries = 0; which && tries < 8; tries++) {
		size_t m = 0, refused;

		for (size_t i = 0; i < n; i++)
			if (items[i].state == ITEM_NEW)
				which[m++] = i;
		if (!m || item_run(items, which, m, &refused) == 0)
			break;
		if (refused == m)
			break;
		items[which[refused]].state = ITEM_REFUSED;
	}
	for (size_t i = 0; i < n; i++)
		if (items[i].state == ITEM_NEW)
			items[i].state = ITEM_WHOLE;
	free(which);
}

/* Blocks a batch holds at most, and the images' bytes (nasm's output is capped). */
#define BATCH_BLOCKS 256
#define BATCH_BYTES (T32_IMAGE_MAX / 2)

/*
 * Pad g's code and data at once (T32_GEN_FAST_PAD for both paddings, zeros);
 * 0, or -1 with the text left as it was when it lacks either.
 */
static int fast_pads(struct t32_gen *g)
{
	char *code = strstr(g->text, "\n" T32_GEN_CODE_PAD);
	char *data = strstr(g->text, "\n" T32_GEN_DATA_PAD);
	size_t lc = strlen(T32_GEN_CODE_PAD), ld = strlen(T32_GEN_DATA_PAD);
	size_t lf = strlen(T32_GEN_FAST_PAD);
	char *text;

	if (!code || !data || data < code || lc <= lf || ld <= lf)
		return -1;
	text = malloc(g->len + 1);
	if (!text)
		return -1;
	/* the same lines, shorter: line numbers stay */
	snprintf(text, g->len + 1, "%.*s\n%s%.*s\n%s%s", (int)(code - g->text), g->text,
		 T32_GEN_FAST_PAD, (int)(data - code - 1 - lc), code + 1 + lc, T32_GEN_FAST_PAD,
		 data + 1 + ld);
	free(g->text);
	g->text = text;
	g->len = strlen(text);
	return 0;
}

/*
 * The code's padding of an image padded at once: the zeros between its last
 * instruction (the harness's ret) and its data become int3, as nasm writes
 * them.  0, or -1 when the code does not end with the ret.
 */
static int pad_code(struct t32_blob *b)
{
	uint64_t end = b->hdr.data;

	while (end > b->hdr.body_end && b->image[end - 1] == 0)
		end--;
	if (end == 0 || b->image[end - 1] != 0xc3)
		return -1;
	memset(b->image + end, 0xcc, b->hdr.data - end);
	return 0;
}

/* Fill each place of a spliced block with its item's code, repeated; 0, or -1. */
static int fill(struct t32_blob *b, const struct pending *p, const struct item *items)
{
	if (b->hdr.nitems != p->spec->nitems)
		return -1;
	for (size_t i = 0; i < p->spec->nitems; i++) {
		const struct item *it = &items[p->items[i]];
		uint64_t at = b->item_off[i], reps = p->spec->items[i].reps;

		if (b->item_off[i + 1] < at || b->item_off[i + 1] - at != reps * it->len ||
		    b->item_off[i + 1] > b->hdr.data)
			return -1;
		for (uint64_t r = 0; r < reps; r++, at += it->len)
			memcpy(b->image + at, it->code, it->len);
	}
	return 0;
}

/*
 * One batch: the blocks p[0..n) not done, in one nasm run; a block nasm refuses
 * is left out and the run repeated without it, a few times at most.
 */
static void assemble_blocks(struct pending *p, size_t n, const struct item *items)
{
	const char **srcs = calloc(n ? n : 1, sizeof(char *));
	const struct t32_gen **gens = calloc(n ? n : 1, sizeof(struct t32_gen *));
	size_t *which = calloc(n ? n : 1, sizeof(size_t));
	struct t32_blob *out = calloc(n ? n : 1, sizeof(struct t32_blob));

	for (int tries = 0; srcs && gens && which && out && tries < 8; tries++) {
		struct t32_fault f;
		size_t m = 0, bad;

		for (size_t i = 0; i < n; i++)
			if (!p[i].done) {
				which[m] = i;
				srcs[m] = p[i].gen.text;
				gens[m++] = &p[i].gen;
			}
		if (!m)
			break;
		stats.batches++;
		if (t32_assemble_batch(srcs, gens, m, out, &f, &bad) == 0) {
			for (size_t k = 0; k < m; k++) {
				struct pending *q = &p[which[k]];

				q->done = 1;
				if ((q->splice && fill(&out[k], q, items)) ||
				    (q->fast && pad_code(&out[k]))) {
					t32_blob_free(&out[k]);
					continue;
				}
				stats.blocks++;
				stats.spliced += (unsigned long)q->splice;
				keep(q->text, &out[k]);
			}
			break;
		}
		if (bad >= m)
			break;
		p[which[bad]].done = 1;
		stats.left_out++;
	}
	free(srcs);
	free(gens);
	free(which);
	free(out);
}

/* The source of p's block with its body's places, when every item's code is known. */
static int placed_source(struct pending *p, const struct item *items, int dither)
{
	struct t32_gen_opts go = { .shape = T32_GEN_TIMED, .dither = dither, .unroll = 1 };
	uint64_t *bytes = calloc(p->spec->nitems + 1, sizeof(uint64_t));
	int rc;

	if (!bytes)
		return -1;
	for (size_t i = 0; i < p->spec->nitems; i++) {
		const struct item *it = &items[p->items[i]];

		if (it->state != ITEM_CODE ||
		    (it->len && p->spec->items[i].reps > T32_IMAGE_MAX / it->len)) {
			free(bytes);
			return -1;
		}
		bytes[i] = p->spec->items[i].reps * it->len;
	}
	go.item_bytes = bytes;
	rc = t32_generate(p->spec, &go, &p->gen);
	free(bytes);
	return rc;
}

size_t t32_blobs_prepare(const struct t32_spec *const *specs, size_t n, int dither)
{
	struct t32_gen_opts go = { .shape = T32_GEN_TIMED, .dither = dither, .unroll = 1 };
	struct pending *p = calloc(n ? n : 1, sizeof(*p));
	size_t np = 0, have = 0;

	if (!p || t32_spec_raw_nasm() || t32_one_by_one()) {
		free(p);
		return 0;
	}
	if (nknown > KEEP_ITEMS)
		items_forget();
	/* the blocks not kept yet, each once */
	for (size_t i = 0; i < n; i++) {
		struct t32_gen g;
		int dup = 0;

		if (t32_generate(specs[i], &go, &g))
			continue;
		for (size_t k = 0; k < np && !dup; k++)
			dup = strcmp(p[k].text, g.text) == 0;
		if (dup || find(g.text)) {
			have += !dup;
			t32_gen_free(&g);
			continue;
		}
		p[np].spec = specs[i];
		p[np].text = g.text;
		g.text = NULL;
		t32_gen_free(&g);
		p[np].items = calloc(specs[i]->nitems + 1, sizeof(size_t));
		if (!p[np].items) {
			free(p[np].text);
			continue;
		}
		for (size_t k = 0; k < specs[i]->nitems; k++)
			p[np].items[k] = item_index(&known, &nknown, &capknown, &specs[i]->items[k]);
		np++;
	}
	/* each new item's code once; then each block with its places, or whole */
	assemble_items(known, nknown);
	for (size_t i = 0; i < np; i++) {
		int refused = 0;

		for (size_t k = 0; k < p[i].spec->nitems; k++)
			refused |= p[i].items[k] == SIZE_MAX ||
				   known[p[i].items[k]].state == ITEM_REFUSED;
		/* nasm refuses an item alone: the block alone will say why, when it is asked for */
		if (refused) {
			p[i].done = 1;
			continue;
		}
		p[i].splice = placed_source(&p[i], known, dither) == 0;
		if (!p[i].splice && t32_generate(p[i].spec, &go, &p[i].gen))
			p[i].done = 1;
		else
			p[i].fast = fast_pads(&p[i].gen) == 0;
	}
	/* in batches of bounded size */
	for (size_t from = 0; from < np;) {
		size_t to = from;
		unsigned long long bytes = 0;

		while (to < np && to - from < BATCH_BLOCKS &&
		       (to == from || bytes + p[to].gen.insns * 16 + 16384 <= BATCH_BYTES)) {
			bytes += p[to].gen.insns * 16 + 16384;
			to++;
		}
		assemble_blocks(p + from, to - from, known);
		from = to;
	}
	for (size_t i = 0; i < np; i++) {
		have += find(p[i].text) != NULL;
		free(p[i].text);
		free(p[i].items);
		t32_gen_free(&p[i].gen);
	}
	free(p);
	return have;
}
