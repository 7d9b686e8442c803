/*
 * table.c - read instruction tables (the .tbl files in data/) and expand throughput templates.
 *
 * A line is `name | insn | key=value ... | key=value ...`; '#' starts a comment,
 * `# source:` and `# applies to:` comments are kept.  The extras are a table of
 * keys with one parser each, so a new key is one row.
 */
#include "t32/io/table.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "t32/spec.h"
#include "t32/util.h"

#define MAX_REGS 16		/* registers in one placeholder class */
#define MAX_CYCLES 1e6		/* largest expected latency or rtp we accept, cycles */

/*
 * A placeholder class: `{key}` in a template, and the registers it rotates over.
 * Classes of one register file share a numbering (`file`), so a register named
 * literally in one width keeps the others off it.
 */
enum reg_file { FILE_GPR, FILE_VEC, FILE_K, FILE_MM, NFILES };
struct reg_class {
	char key;
	enum reg_file file;
	const char *summary;
	const char *names[MAX_REGS];	/* rotation order; NULL-terminated if short */
};

/*
 * General-purpose classes share one numbering (t32_gprs order, rsp left out), so a
 * literal `al` in a template keeps {r} off rax; vector classes share xmmN/ymmN.
 */
static const struct reg_class reg_classes[] = {
	{ 'r', FILE_GPR, "64-bit general-purpose", { "rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp",
		"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15" } },
	{ 'e', FILE_GPR, "32-bit general-purpose", { "eax", "ebx", "ecx", "edx", "esi", "edi", "ebp",
		"r8d", "r9d", "r10d", "r11d", "r12d", "r13d", "r14d", "r15d" } },
	{ 'w', FILE_GPR, "16-bit general-purpose", { "ax", "bx", "cx", "dx", "si", "di", "bp",
		"r8w", "r9w", "r10w", "r11w", "r12w", "r13w", "r14w", "r15w" } },
	{ 'b', FILE_GPR, "8-bit general-purpose", { "al", "bl", "cl", "dl", "sil", "dil", "bpl",
		"r8b", "r9b", "r10b", "r11b", "r12b", "r13b", "r14b", "r15b" } },
	{ 'x', FILE_VEC, "xmm", { "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7",
		"xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15" } },
	{ 'y', FILE_VEC, "ymm", { "ymm0", "ymm1", "ymm2", "ymm3", "ymm4", "ymm5", "ymm6", "ymm7",
		"ymm8", "ymm9", "ymm10", "ymm11", "ymm12", "ymm13", "ymm14", "ymm15" } },
	{ 'z', FILE_VEC, "zmm", { "zmm0", "zmm1", "zmm2", "zmm3", "zmm4", "zmm5", "zmm6", "zmm7",
		"zmm8", "zmm9", "zmm10", "zmm11", "zmm12", "zmm13", "zmm14", "zmm15" } },
	/* k0 means "no mask" in a masking position: the rotation starts at k1 */
	{ 'k', FILE_K, "AVX-512 mask", { "k1", "k2", "k3", "k4", "k5", "k6", "k7" } },
	/* mm0 holds the first TSC reading with STORE x: the rotation leaves it out */
	{ 'm', FILE_MM, "MMX", { "mm1", "mm2", "mm3", "mm4", "mm5", "mm6", "mm7" } },
};
#define NCLASSES (sizeof(reg_classes) / sizeof(reg_classes[0]))

/* The class behind placeholder `{key}`, or NULL. */
static const struct reg_class *find_class(char key)
{
	for (size_t i = 0; i < NCLASSES; i++)
		if (reg_classes[i].key == key)
			return &reg_classes[i];
	return NULL;
}

/* Other spellings of general-purpose registers that block a rotation slot. */
static const struct {
	const char *name;
	unsigned slot;
} gpr_aliases[] = {
	{ "ah", 0 }, { "bh", 1 }, { "ch", 2 }, { "dh", 3 },
};

/*
 * Registers a template names literally, as bit masks over rotation slots (one mask
 * per register file), so the rotation leaves them alone: a template
 * `add {r}, [rbx]` must never turn rbx into something that is not a pointer.
 */
static void literal_regs(const char *tpl, unsigned mask[NFILES])
{
	const char *p = tpl;

	memset(mask, 0, NFILES * sizeof(mask[0]));
	while (*p) {
		char word[16];
		size_t len = 0;

		if (*p == '{') {
			const char *close = strchr(p, '}');

			p = close ? close + 1 : p + 1;
			continue;
		}
		if (!isalpha((unsigned char)*p)) {
			p++;
			continue;
		}
		while (isalnum((unsigned char)p[len]) || p[len] == '_')
			len++;
		if (len < sizeof(word)) {
			memcpy(word, p, len);
			word[len] = 0;
			for (size_t c = 0; c < NCLASSES; c++)
				for (unsigned s = 0; s < MAX_REGS && reg_classes[c].names[s]; s++)
					if (strcasecmp(word, reg_classes[c].names[s]) == 0)
						mask[reg_classes[c].file] |= 1u << s;
			for (size_t a = 0; a < sizeof(gpr_aliases) / sizeof(gpr_aliases[0]); a++)
				if (strcasecmp(word, gpr_aliases[a].name) == 0)
					mask[FILE_GPR] |= 1u << gpr_aliases[a].slot;
		}
		p += len;
	}
}

/* Register k of class c in rotation, skipping slots in mask; NULL if none is left. */
static const char *rotate(const struct reg_class *c, unsigned mask, unsigned long k,
			  unsigned *period)
{
	unsigned free_slots[MAX_REGS], nfree = 0;

	for (unsigned s = 0; s < MAX_REGS && c->names[s]; s++)
		if (!(mask & (1u << s)))
			free_slots[nfree++] = s;
	if (period)
		*period = nfree;
	if (!nfree)
		return NULL;
	return c->names[free_slots[k % nfree]];
}

/*
 * Check a template's placeholders and work out its period: the fewest free
 * registers among the classes it uses (1 when it uses none).  0, or -1 with why.
 */
static int check_template(const char *tpl, unsigned *period, char *why, size_t len)
{
	unsigned mask[NFILES], best = 0;

	literal_regs(tpl, mask);
	for (const char *p = tpl; *p; p++) {
		const struct reg_class *c;
		unsigned n;

		if (*p == '}') {
			snprintf(why, len, "'}' without '{' in tp template");
			return -1;
		}
		if (*p != '{')
			continue;
		if (p[1] == 0 || p[2] != '}') {
			snprintf(why, len, "bad placeholder '%.4s' (one of {r} {e} {w} {b} {x} {y} {z} {k} {m})", p);
			return -1;
		}
		c = find_class(p[1]);
		if (!c) {
			snprintf(why, len, "unknown placeholder '%.3s' (one of {r} {e} {w} {b} {x} {y} {z} {k} {m})", p);
			return -1;
		}
		rotate(c, mask[c->file], 0, &n);
		if (!n) {
			snprintf(why, len, "tp template leaves no %s register for '{%c}'",
				 c->summary, c->key);
			return -1;
		}
		if (!best || n < best)
			best = n;
		p += 2;
	}
	*period = best ? best : 1;
	return 0;
}

/* Substitute placeholders left to right; all of one copy use the same rotation index k. */
int t32_form_tp_expand(const struct t32_form *f, unsigned long k, char *buf, size_t len)
{
	unsigned mask[NFILES];
	size_t used = 0;

	if (!f->tp || !len)
		return -1;
	literal_regs(f->tp, mask);
	for (const char *p = f->tp; *p; p++) {
		const char *piece = NULL;
		size_t plen;
		char one[2] = { *p, 0 };

		if (p[0] == '{' && p[1] && p[2] == '}') {
			const struct reg_class *c = find_class(p[1]);

			if (c)
				piece = rotate(c, mask[c->file], k, NULL);
			if (!piece)
				return -1;
			p += 2;
		} else {
			piece = one;
		}
		plen = strlen(piece);
		if (used + plen >= len)
			return -1;
		memcpy(buf + used, piece, plen);
		used += plen;
	}
	buf[used] = 0;
	return 0;
}

/* Parse a cycle count for lat= or rtp=: a finite number in [0, MAX_CYCLES]. */
static int parse_cycles(const char *text, double *out)
{
	return t32_parse_real(text, 0, MAX_CYCLES, out);
}

/* Instruction text is instructions (t32_insn_check); 0, or -1 with why. */
static int check_insn(const char *text, char *why, size_t len)
{
	const char *reason;
	char word[64];

	if (t32_insn_check(text, word, sizeof(word), &reason) == 0)
		return 0;
	snprintf(why, len, "not an instruction '%s': %s", word, reason);
	return -1;
}

/* A key a line may carry; `rest` keys take the rest of their field as value. */
struct table_key {
	const char *key;
	int rest;
	int (*parse)(struct t32_form *f, const char *value, char *why, size_t len);
	const char *summary;
};

/* lat=CYCLES */
static int key_lat(struct t32_form *f, const char *value, char *why, size_t len)
{
	if (parse_cycles(value, &f->lat) == 0)
		return 0;
	snprintf(why, len, "bad latency '%s' (cycles, 0 to %g)", value, MAX_CYCLES);
	return -1;
}

/* rtp=CYCLES */
static int key_rtp(struct t32_form *f, const char *value, char *why, size_t len)
{
	if (parse_cycles(value, &f->rtp) == 0)
		return 0;
	snprintf(why, len, "bad reciprocal throughput '%s' (cycles, 0 to %g)", value, MAX_CYCLES);
	return -1;
}

/* A key's text, checked, kept in the form (freed with it); -1 with why when out of memory. */
static int keep_value(char **dst, const char *value, char *why, size_t len)
{
	*dst = strdup(value);
	if (*dst)
		return 0;
	snprintf(why, len, "out of memory");
	return -1;
}

/* init= is checked with the spec's own parser, so a table can only say what --init can. */
static int key_init(struct t32_form *f, const char *value, char *why, size_t len)
{
	struct t32_spec scratch;

	memset(&scratch, 0, sizeof(scratch));
	if (!*value) {
		snprintf(why, len, "empty init (REG=VALUE[,REG=VALUE]...)");
		return -1;
	}
	if (t32_spec_parse_init(&scratch, value, why, len))
		return -1;
	return keep_value(&f->init, value, why, len);
}

/*
 * Why a form has no chain, by the word after `chain=none:`.  The generator
 * (t32/core/tablegen.c) writes these; a sweep's skipped latency row says the reason.
 */
static const struct {
	const char *word;
	const char *why;
} nochain_reasons[] = {
	{ "flags", "it writes only flags, and no copy reads them as it writes them" },
	{ "merge", "its destination is read only for the lanes it does not write: a chain "
		   "would time that merge, not the operation" },
	{ "constant", "its result depends on nothing it writes (an immediate, an address "
		      "without a register, memory the chain does not touch)" },
	{ "unread", "nothing it writes is read by the next copy" },
};
#define NREASONS (sizeof(nochain_reasons) / sizeof(nochain_reasons[0]))

const char *t32_form_nochain_reason(const struct t32_form *f)
{
	if (f->nochain >= 2 && (size_t)f->nochain - 2 < NREASONS)
		return nochain_reasons[f->nochain - 2].why;
	return "the form has no dependency chain";
}

/* chain=none[:WHY]: the form has no dependency chain; latency mode skips it, saying why */
static int key_chain(struct t32_form *f, const char *value, char *why, size_t len)
{
	if (strcmp(value, "none") == 0) {
		f->nochain = 1;
		return 0;
	}
	if (strncmp(value, "none:", 5) == 0)
		for (size_t i = 0; i < NREASONS; i++)
			if (strcmp(value + 5, nochain_reasons[i].word) == 0) {
				f->nochain = (int)i + 2;
				return 0;
			}
	snprintf(why, len, "bad chain '%s' (chain=none, or none:flags, none:merge, none:constant, "
		 "none:unread)", value);
	return -1;
}

static const struct table_key *key_at(const char *p);

/*
 * tp=TEMPLATE takes the rest of its field, so `tp=add {r}, 1 lat=1` would swallow
 * the lat=; say so instead of handing nasm a broken line later.
 */
static int key_tp(struct t32_form *f, const char *value, char *why, size_t len)
{
	if (!*value) {
		snprintf(why, len, "empty tp template");
		return -1;
	}
	for (const char *p = value + 1; *p; p++) {
		const struct table_key *k;

		if (!isspace((unsigned char)p[-1]) || !(k = key_at(p)))
			continue;
		snprintf(why, len, "tp= takes the rest of its field; put '%s=' in a field of its own",
			 k->key);
		return -1;
	}
	if (check_insn(value, why, len) || check_template(value, &f->tp_period, why, len))
		return -1;
	return keep_value(&f->tp, value, why, len);
}

static const struct table_key table_keys[] = {
	{ "lat", 0, key_lat, "expected latency, core cycles" },
	{ "rtp", 0, key_rtp, "expected reciprocal throughput, core cycles" },
	{ "init", 0, key_init, "register start values, REG=VALUE[,REG=VALUE]..." },
	{ "chain", 0, key_chain, "chain=none[:WHY]: no dependency chain, throughput only" },
	{ "tp", 1, key_tp, "throughput template with register placeholders" },
};
#define NKEYS (sizeof(table_keys) / sizeof(table_keys[0]))

/* The key whose `key=` starts at p, or NULL. */
static const struct table_key *key_at(const char *p)
{
	for (size_t i = 0; i < NKEYS; i++) {
		size_t n = strlen(table_keys[i].key);

		if (strncmp(p, table_keys[i].key, n) == 0 && p[n] == '=')
			return &table_keys[i];
	}
	return NULL;
}

/* Parse one extras field (`lat=3 rtp=1`, `tp=imul {r}, {r}`) into f; seen marks keys. */
static int parse_extras(struct t32_form *f, char *field, unsigned *seen, char *why, size_t len)
{
	char *p = field;

	while (*p) {
		const struct table_key *k = NULL;
		char *key, *value, *eq;
		size_t i;

		while (isspace((unsigned char)*p))
			p++;
		if (!*p)
			break;
		key = p;
		while (*p && !isspace((unsigned char)*p) && *p != '=')
			p++;
		if (*p != '=') {
			char *w = key;

			while (*p && !isspace((unsigned char)*p))
				p++;
			if (*p)
				*p++ = 0;
			snprintf(why, len, "expected key=value, not '%s'", w);
			return -1;
		}
		eq = p;
		*eq = 0;
		for (i = 0; i < NKEYS; i++)
			if (strcmp(key, table_keys[i].key) == 0)
				k = &table_keys[i];
		if (!k) {
			snprintf(why, len, "unknown key '%s'", key);
			return -1;
		}
		i = (size_t)(k - table_keys);
		if (*seen & (1u << i)) {
			snprintf(why, len, "key '%s' given twice", key);
			return -1;
		}
		*seen |= 1u << i;
		value = eq + 1;
		if (k->rest) {
			value = t32_trim(value);
			p = value + strlen(value);
		} else {
			p = value;
			while (*p && !isspace((unsigned char)*p))
				p++;
			if (*p)
				*p++ = 0;
		}
		if (k->parse(f, value, why, len))
			return -1;
	}
	return 0;
}

/* Is s a valid form name: letters, digits and - _ . + only? */
static int good_name(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("-_.+", *s))
			return 0;
	return 1;
}

/* Free what a form owns (not the form itself). */
static void form_free(struct t32_form *f)
{
	free(f->name);
	free(f->insn);
	free(f->init);
	free(f->tp);
}

/* Parse one form line (comment already cut off) into f.  0, or -1 with why. */
static int parse_form(char *line, struct t32_form *f, char *why, size_t len)
{
	char *fields[16];
	size_t nf = 0;
	unsigned seen = 0;
	char *p = line;

	for (;;) {
		char *bar = strchr(p, '|');

		if (nf == sizeof(fields) / sizeof(fields[0])) {
			snprintf(why, len, "too many '|' fields");
			return -1;
		}
		if (bar)
			*bar = 0;
		fields[nf++] = t32_trim(p);
		if (!bar)
			break;
		p = bar + 1;
	}
	if (nf < 2 || !*fields[1]) {
		snprintf(why, len, "no instruction (name | insn | key=value...)");
		return -1;
	}
	if (!good_name(fields[0])) {
		snprintf(why, len, "bad form name '%s' (letters, digits, - _ . +)", fields[0]);
		return -1;
	}
	if (strpbrk(fields[1], "{}")) {
		snprintf(why, len, "placeholder in instruction '%s' (they belong in tp=)", fields[1]);
		return -1;
	}
	if (check_insn(fields[1], why, len))
		return -1;
	f->name = strdup(fields[0]);
	f->insn = strdup(fields[1]);
	if (!f->name || !f->insn) {
		snprintf(why, len, "out of memory");
		return -1;
	}
	for (size_t i = 2; i < nf; i++) {
		if (!*fields[i]) {
			snprintf(why, len, "empty field %zu", i + 1);
			return -1;
		}
		if (parse_extras(f, fields[i], &seen, why, len))
			return -1;
	}
	return 0;
}

/* Append a copy of text to a string list; 0 or -1. */
static int list_add(char ***list, size_t *n, const char *text)
{
	char **grown = realloc(*list, (*n + 1) * sizeof(**list));

	if (!grown)
		return -1;
	*list = grown;
	grown[*n] = strdup(text);
	if (!grown[*n])
		return -1;
	(*n)++;
	return 0;
}

#define HEADER_MAX 65536	/* bytes of one header comment with its continuations */
#define HEADER_LINES 4096	/* `# source:` (or `# applies to:`) comments kept */

/*
 * Append ' ' + text to the last entry of a string list (a continuation line),
 * whose length the caller keeps in *len.  Text past HEADER_MAX is left out, so an
 * endless continuation costs neither memory nor time without bound.
 */
static int list_extend(char **list, size_t n, const char *text, size_t *len)
{
	size_t old = *len, add = strlen(text);
	char *grown;

	if (old + add + 2 > HEADER_MAX)
		return 0;
	grown = realloc(list[n - 1], old + add + 2);
	if (!grown)
		return -1;
	*len = old + 1 + add;
	grown[old] = ' ';
	strcpy(grown + old + 1, text);
	list[n - 1] = grown;
	return 0;
}

/* The header comments we keep, as a table. */
static const struct {
	const char *prefix;	/* after '#' and spaces */
	size_t list;		/* 0 = source, 1 = applies */
} header_keys[] = {
	{ "source:", 0 },
	{ "applies to:", 1 },
};

/*
 * Keep `# source:` / `# applies to:` comments.  A comment indented by two or more
 * spaces (or a tab) right after one of them continues it.  *last is the list the
 * previous line went to (-1: none).
 */
static int header_line(struct t32_table *t, const char *comment, int *last, size_t *len)
{
	char ***lists[2] = { &t->source, &t->applies };
	size_t *counts[2] = { &t->nsource, &t->napplies };
	const char *body = comment;
	char *text;
	int rc = 0;

	while (*body == ' ' || *body == '\t')
		body++;
	for (size_t i = 0; i < sizeof(header_keys) / sizeof(header_keys[0]); i++) {
		size_t plen = strlen(header_keys[i].prefix);

		if (strncasecmp(body, header_keys[i].prefix, plen) == 0) {
			size_t l = header_keys[i].list;

			text = strdup(body + plen);
			if (!text)
				return -1;
			/* past HEADER_LINES, further header lines are left out, as above */
			if (*counts[l] < HEADER_LINES)
				rc = list_add(lists[l], counts[l], t32_trim(text));
			else
				l = 2;
			free(text);
			*last = l < 2 ? (int)l : -1;
			if (!rc && l < 2)
				*len = strlen((*lists[l])[*counts[l] - 1]);
			return rc;
		}
	}
	if (*last >= 0 && *body && (comment[0] == '\t' || strncmp(comment, "  ", 2) == 0)) {
		text = strdup(body);
		if (!text)
			return -1;
		rc = list_extend(*lists[*last], *counts[*last], t32_trim(text), len);
		free(text);
		return rc;
	}
	*last = -1;
	return 0;
}

/* Order of form indices by name, then by index (qsort_r with the table as context). */
static int by_name_cmp(const void *a, const void *b, void *ctx)
{
	const struct t32_table *t = ctx;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	int c = strcmp(t->forms[i].name, t->forms[j].name);

	return c ? c : (i > j) - (i < j);
}

/*
 * Sort the forms' names once: lookups are then a binary search, and a name given
 * twice shows as neighbours (a search per line is quadratic in a 40k-form table).
 * The first line that repeats a name is the error.  0, or -2 with err.
 */
static int index_names(struct t32_table *t, char *err, size_t errlen)
{
	size_t dup = SIZE_MAX, first = 0;

	t->by_name = malloc(t->n * sizeof(*t->by_name));
	if (!t->by_name) {
		snprintf(err, errlen, "out of memory reading '%s'", t->path);
		t32_table_free(t);
		return -1;
	}
	for (size_t i = 0; i < t->n; i++)
		t->by_name[i] = i;
	qsort_r(t->by_name, t->n, sizeof(*t->by_name), by_name_cmp, t);
	for (size_t k = 1, run = 0; k < t->n; k++) {
		if (strcmp(t->forms[t->by_name[k]].name, t->forms[t->by_name[run]].name)) {
			run = k;
			continue;
		}
		if (t->by_name[k] < dup) {
			dup = t->by_name[k];
			first = t->by_name[run];
		}
	}
	if (dup != SIZE_MAX) {
		snprintf(err, errlen, "bad line %u in '%s' (form '%s' already defined on line %u)",
			 t->forms[dup].line, t->path, t->forms[dup].name, t->forms[first].line);
		t32_table_free(t);
		return -2;
	}
	return 0;
}

/* Parse a whole table held in memory (t32_table_load reads the file, then comes here). */
int t32_table_parse(const char *text, const char *path, struct t32_table *t, char *err,
		    size_t errlen)
{
	size_t textlen = strlen(text);
	char *copy = malloc(textlen + 1), *line, *next, *end;
	size_t cap = 0;
	unsigned lineno = 0;
	int last_header = -1;
	size_t header_len = 0;	/* length of the header comment a continuation extends */

	memset(t, 0, sizeof(*t));
	t->path = strdup(path);
	if (!copy || !t->path) {
		free(copy);
		snprintf(err, errlen, "out of memory reading '%s'", path);
		t32_table_free(t);
		return -1;
	}
	memcpy(copy, text, textlen + 1);
	end = copy + textlen;
	for (line = copy; line; line = next) {
		char why[256] = "";
		char *hash, *body;
		struct t32_form f;

		/* memchr within the known length: a line costs its own bytes only */
		next = memchr(line, '\n', (size_t)(end - line));
		if (next)
			*next++ = 0;
		else if (!*line)
			break;
		lineno++;
		hash = strchr(line, '#');
		if (hash)
			*hash = 0;
		body = t32_trim(line);
		if (!*body && hash) {
			if (header_line(t, hash + 1, &last_header, &header_len))
				goto nomem;
			continue;
		}
		last_header = -1;
		if (!*body)
			continue;
		memset(&f, 0, sizeof(f));
		f.lat = f.rtp = NAN;
		f.line = lineno;
		if (parse_form(body, &f, why, sizeof(why)) != 0 && !*why)
			snprintf(why, sizeof(why), "out of memory");
		if (*why) {
			snprintf(err, errlen, "bad line %u in '%s' (%s)", lineno, path, why);
			form_free(&f);
			free(copy);
			t32_table_free(t);
			return -2;
		}
		if (t->n == cap) {
			struct t32_form *grown;

			cap = cap ? 2 * cap : 32;
			grown = realloc(t->forms, cap * sizeof(*grown));
			if (!grown) {
				form_free(&f);
				goto nomem;
			}
			t->forms = grown;
		}
		t->forms[t->n++] = f;
	}
	free(copy);
	if (!t->n) {
		snprintf(err, errlen, "empty table '%s' (no forms, only comments or blank lines)", path);
		t32_table_free(t);
		return -2;
	}
	return index_names(t, err, errlen);
nomem:
	snprintf(err, errlen, "out of memory reading '%s'", path);
	free(copy);
	t32_table_free(t);
	return -1;
}

/* Read the file whole (tables are small), refuse binary data, then parse the text. */
const char *t32_table_locate(const char *name, char *buf, size_t len)
{
	if (!access(name, F_OK) || strchr(name, '/'))
		return name;
	snprintf(buf, len, "%s/%s", t32_datadir(), name);
	if (!access(buf, R_OK))
		return buf;
	snprintf(buf, len, "%s/%s.tbl", t32_datadir(), name);
	if (!access(buf, R_OK))
		return buf;
	return name;
}

int t32_table_load(const char *path, struct t32_table *t, char *err, size_t errlen)
{
	FILE *fp = fopen(path, "r");
	char *text = NULL;
	size_t len = 0, cap = 0;
	int rc;

	memset(t, 0, sizeof(*t));
	if (!fp) {
		snprintf(err, errlen, "cannot open table '%s' (%s)", path, strerror(errno));
		return -1;
	}
	for (;;) {
		size_t got;

		if (cap - len < 4096) {
			char *grown = realloc(text, cap ? 2 * cap : 65536);

			if (!grown) {
				free(text);
				fclose(fp);
				snprintf(err, errlen, "out of memory reading '%s'", path);
				return -1;
			}
			text = grown;
			cap = cap ? 2 * cap : 65536;
		}
		got = fread(text + len, 1, cap - len - 1, fp);
		/* an endless or binary file stops here, not when memory runs out */
		if (memchr(text + len, 0, got))
			snprintf(err, errlen, "not a text file '%s'", path);
		else if (len + got > T32_TABLE_MAX_BYTES)
			snprintf(err, errlen, "table too large '%s' (more than %u MiB)", path,
				 T32_TABLE_MAX_BYTES >> 20);
		if (memchr(text + len, 0, got) || len + got > T32_TABLE_MAX_BYTES) {
			free(text);
			fclose(fp);
			return -2;
		}
		len += got;
		if (got == 0)
			break;
	}
	if (ferror(fp)) {
		snprintf(err, errlen, "cannot read table '%s' (%s)", path, strerror(errno));
		free(text);
		fclose(fp);
		return -1;
	}
	fclose(fp);
	text[len] = 0;
	rc = t32_table_parse(text, path, t, err, errlen);
	free(text);
	return rc;
}

/* Free everything the table owns and leave it empty, safe to free again. */
void t32_table_free(struct t32_table *t)
{
	for (size_t i = 0; i < t->n; i++)
		form_free(&t->forms[i]);
	for (size_t i = 0; i < t->nsource; i++)
		free(t->source[i]);
	for (size_t i = 0; i < t->napplies; i++)
		free(t->applies[i]);
	t32_free_all(t->forms, t->source, t->applies, t->path, t->by_name);
	memset(t, 0, sizeof(*t));
}

/* A binary search in the sorted names; a table built by hand is searched in order. */
const struct t32_form *t32_table_find(const struct t32_table *t, const char *name)
{
	size_t lo = 0, hi = t->n;

	if (!t->by_name) {
		for (size_t i = 0; i < t->n; i++)
			if (strcmp(t->forms[i].name, name) == 0)
				return &t->forms[i];
		return NULL;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(t->forms[t->by_name[mid]].name, name);

		if (!c)
			return &t->forms[t->by_name[mid]];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* FNV-1a, 64 bits. */
static uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ c[i]) * 0x100000001b3ull;
	return h;
}

uint64_t t32_table_hash(const struct t32_table *t)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < t->n; i++) {
		const struct t32_form *f = &t->forms[i];
		const char *parts[] = { f->name, f->insn, f->init ? f->init : "", f->tp ? f->tp : "" };

		for (size_t k = 0; k < 4; k++)
			h = fnv1a(h, parts[k], strlen(parts[k]) + 1);
		h = fnv1a(h, &f->lat, sizeof(f->lat));
		h = fnv1a(h, &f->rtp, sizeof(f->rtp));
		if (f->nochain)
			h = fnv1a(h, "chain=none", 11);
	}
	return h;
}
