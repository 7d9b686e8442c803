/*
 * uarch.c - micro-architecture parameter files and the latency table.
 */
#include "analysis/uarch.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "t32/util.h"

#define FIELD(f) offsetof(struct t32_uarch, f)
#define CLASS_KEYS(c, n)							\
	{ "latency." n, FIELD(latency[c]), 0, 100000, 1,			\
	  "cycles, latency of a " n " instruction without a table entry" },	\
	{ "retire_delay." n, FIELD(retire_delay[c]), 0, 100000, 0,		\
	  "cycles from completing to the earliest retirement (" n ")" }
#define PORT_KEY(c, n)								\
	{ "ports." n, FIELD(ports[c]), 0, 64, 0,				\
	  "units that may start a " n " instruction each cycle (0: unlimited)" }

static const struct t32_uarch_key keys[] = {
	{ "alloc_width", FIELD(alloc_width), 1, 64, 1, "instructions allocated per cycle" },
	{ "retire_width", FIELD(retire_width), 1, 64, 1, "instructions retired per cycle" },
	{ "retire_group", FIELD(retire_group), 1, 4, 0,
	  "instructions that retire together: aligned groups counted from the block's start" },
	{ "rob_size", FIELD(rob_size), 1, 100000, 1, "instructions in flight, at most" },
	{ "load_latency", FIELD(load_latency), 0, 10000, 1, "cycles, L1 hit, [base + index + disp]" },
	{ "load_latency_scaled", FIELD(load_latency_scaled), 0, 10000, 1,
	  "cycles, L1 hit, index register scaled by 2, 4 or 8" },
	{ "load_latency_chase", FIELD(load_latency_chase), 0, 10000, 1,
	  "cycles, [base + 0..2047] whose base comes from a load (0: no fast path)" },
	{ "store_forward_latency", FIELD(store_forward_latency), 0, 10000, 1,
	  "cycles from a store's data to the result of a load of the same address" },
	{ "move_elim", FIELD(move_elim), 0, 1, 1, "1: register moves are eliminated at rename" },
	{ "zero_idioms", FIELD(zero_idioms), 0, 1, 1,
	  "1: zero idioms break dependencies and need no execution" },
	{ "retire_group_any", FIELD(retire_group_any), 0, 1, 0,
	  "1: retire groups may start at any instruction (the mean over their phases); "
	  "0: aligned from the block's first" },
	{ "retire_group_flags", FIELD(retire_group_flags), 0, 1, 0,
	  "1: only instructions that write flags retire in groups (runs of them cut "
	  "into groups of retire_group), every other alone; 0: every instruction" },
	{ "retire_nop_free", FIELD(retire_nop_free), 0, 1, 0,
	  "1: a nop takes no retire slot (it retires in the cycle of the instruction "
	  "before it and holds nothing); 0 or absent: one slot like any other" },
	{ "sample_stray", FIELD(sample_stray), 0, 50, 0,
	  "percent of the samples spread evenly over the block (a sampler whose skid "
	  "varies); 0 or absent: none" },
	{ "opcache_ops", FIELD(opcache_ops), 0, 1000000, 0,
	  "instructions of a loop the op cache holds: a longer loop is decoded each "
	  "time round (0 or absent: every loop runs from it)" },
	{ "decode_width", FIELD(decode_width), 0, 64, 0,
	  "instructions the decoders deliver a cycle, for a loop the op cache does not "
	  "hold (0 or absent: as many as alloc_width)" },
	{ "store_drain", FIELD(store_drain), 0, 100, 0,
	  "cycles from a store's completion until a fence after it, and the end of a "
	  "timed run, may pass it (it does not hold retirement); 0 or absent: none" },
	{ "store_bypass", FIELD(store_bypass), 0, 1, 0,
	  "1: a store whose data comes from a one-cycle integer ALU instruction or a "
	  "load retires with it (it holds retirement only after a multiply and other "
	  "slower producers); 0 or absent: every store holds latency.store and "
	  "retire_delay.store" },
	{ "lock_early", FIELD(lock_early), 0, 1, 0,
	  "1: a locked read-modify-write executes when ready, chained through memory "
	  "(0: at retire)" },
	CLASS_KEYS(T32_CLASS_NOP, "nop"),
	CLASS_KEYS(T32_CLASS_ALU, "alu"),
	CLASS_KEYS(T32_CLASS_LOAD, "load"),
	CLASS_KEYS(T32_CLASS_STORE, "store"),
	CLASS_KEYS(T32_CLASS_MUL, "mul"),
	CLASS_KEYS(T32_CLASS_DIV, "div"),
	CLASS_KEYS(T32_CLASS_VECTOR, "vector"),
	CLASS_KEYS(T32_CLASS_BRANCH, "branch"),
	CLASS_KEYS(T32_CLASS_FENCE, "fence"),
	CLASS_KEYS(T32_CLASS_ATRETIRE, "atretire"),
	CLASS_KEYS(T32_CLASS_SERIAL, "serial"),
	/* the classes that occupy an execution unit; the others never wait for one */
	PORT_KEY(T32_CLASS_ALU, "alu"),
	PORT_KEY(T32_CLASS_LOAD, "load"),
	PORT_KEY(T32_CLASS_STORE, "store"),
	PORT_KEY(T32_CLASS_MUL, "mul"),
	PORT_KEY(T32_CLASS_DIV, "div"),
	PORT_KEY(T32_CLASS_VECTOR, "vector"),
	PORT_KEY(T32_CLASS_BRANCH, "branch"),
	{ NULL, 0, 0, 0, 0, NULL }
};
const struct t32_uarch_key *t32_uarch_keys = keys;

/* Parse an unsigned decimal in [lo, hi] with strtoul and an end pointer. */
static int parse_unsigned(const char *s, unsigned long lo, unsigned long hi, unsigned long *out)
{
	char *end;
	unsigned long v;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

const struct t32_uarch_key *t32_uarch_key_find(const char *key)
{
	for (const struct t32_uarch_key *k = keys; k->key; k++)
		if (strcmp(k->key, key) == 0)
			return k;
	return NULL;
}

int t32_uarch_set_value(struct t32_uarch *u, const char *key, unsigned long value)
{
	const struct t32_uarch_key *k = t32_uarch_key_find(key);

	if (!k || value < k->min || value > k->max)
		return -1;
	*(unsigned *)((char *)u + k->offset) = (unsigned)value;
	return 0;
}

int t32_uarch_get(const struct t32_uarch *u, const char *key, unsigned long *value)
{
	const struct t32_uarch_key *k = t32_uarch_key_find(key);

	if (!k)
		return -1;
	*value = *(const unsigned *)((const char *)u + k->offset);
	return 0;
}

/* Apply key and value text to u; err without a location. */
static int set_text(struct t32_uarch *u, const char *key, const char *value, char *err,
		    size_t errlen)
{
	const struct t32_uarch_key *k;
	unsigned long v;

	if (strcmp(key, "name") == 0) {
		if (!*value || strlen(value) >= sizeof(u->name)) {
			snprintf(err, errlen, "bad name '%s'", value);
			return -1;
		}
		strcpy(u->name, value);
		return 0;
	}
	k = t32_uarch_key_find(key);
	if (!k) {
		snprintf(err, errlen, "unknown key '%s'", key);
		return -1;
	}
	if (parse_unsigned(value, k->min, k->max, &v)) {
		snprintf(err, errlen, "bad value for %s (%u to %u) '%s'", key, k->min, k->max, value);
		return -1;
	}
	*(unsigned *)((char *)u + k->offset) = (unsigned)v;
	return 0;
}

int t32_uarch_set(struct t32_uarch *u, const char *assignment, char *err, size_t errlen)
{
	char buf[256], *eq;

	if (strlen(assignment) >= sizeof(buf) || !(eq = strchr(assignment, '='))) {
		snprintf(err, errlen, "bad setting (key=value) '%s'", assignment);
		return -1;
	}
	strcpy(buf, assignment);
	eq = buf + (eq - assignment);
	*eq = 0;
	return set_text(u, t32_trim(buf), t32_trim(eq + 1), err, errlen);
}

#define TEXT_MAX_LINES 1000000	/* lines in a .uarch or .lat file: an endless one stops here */

/*
 * A line fgets read into buf (size len) that cannot be text: too long, holding a
 * NUL byte (fgets stopped short of a newline and of the end), or past
 * TEXT_MAX_LINES.  1 with the message in err, else 0.
 */
static int text_line_bad(const char *buf, size_t len, FILE *f, unsigned lineno, const char *path,
			 char *err, size_t errlen)
{
	size_t n = strlen(buf);

	if (lineno > TEXT_MAX_LINES)
		snprintf(err, errlen, "%s:%u: more than %d lines", path, lineno, TEXT_MAX_LINES);
	else if (strchr(buf, '\n') || feof(f))
		return 0;
	else if (n + 1 < len)
		snprintf(err, errlen, "%s:%u: a NUL byte (not a text file)", path, lineno);
	else
		snprintf(err, errlen, "%s:%u: line too long '%.40s'", path, lineno, buf);
	return 1;
}

int t32_uarch_parse(struct t32_uarch *u, FILE *f, const char *path, char *err, size_t errlen)
{
	char line[512], msg[300];
	unsigned lineno = 0, name_line = 0;
	unsigned char seen[sizeof(keys) / sizeof(keys[0])] = { 0 };
	unsigned first[sizeof(keys) / sizeof(keys[0])] = { 0 };	/* line each key was given */

	memset(u, 0, sizeof(*u));
	while (fgets(line, sizeof(line), f)) {
		char *p, *eq, *hash;

		lineno++;
		if (text_line_bad(line, sizeof(line), f, lineno, path, err, errlen))
			return -1;
		if ((hash = strchr(line, '#')))
			*hash = 0;
		p = t32_trim(line);
		if (!*p)
			continue;
		eq = strchr(p, '=');
		if (!eq) {
			snprintf(err, errlen, "%s:%u: expected key = value '%s'", path, lineno, p);
			return -1;
		}
		*eq = 0;
		if (set_text(u, t32_trim(p), t32_trim(eq + 1), msg, sizeof(msg))) {
			snprintf(err, errlen, "%s:%u: %s", path, lineno, msg);
			return -1;
		}
		/* a key given twice: which of the two values was meant? */
		if (strcmp(t32_trim(p), "name") == 0 && name_line) {
			snprintf(err, errlen, "%s:%u: key given twice 'name' (first at line %u)", path,
				 lineno, name_line);
			return -1;
		}
		if (strcmp(t32_trim(p), "name") == 0)
			name_line = lineno;
		for (size_t i = 0; keys[i].key; i++)
			if (strcmp(keys[i].key, t32_trim(p)) == 0) {
				if (first[i]) {
					snprintf(err, errlen, "%s:%u: key given twice '%s' (first at line %u)",
						 path, lineno, keys[i].key, first[i]);
					return -1;
				}
				first[i] = lineno;
				seen[i] = 1;
			}
	}
	if (ferror(f)) {
		snprintf(err, errlen, "cannot read '%s' (%s)", path, strerror(errno));
		return -1;
	}
	if (!u->name[0]) {
		snprintf(err, errlen, "%s: missing key 'name'", path);
		return -1;
	}
	for (size_t i = 0; keys[i].key; i++)
		if (keys[i].required && !seen[i]) {
			snprintf(err, errlen, "%s: missing key '%s'", path, keys[i].key);
			return -1;
		}
	return 0;
}

int t32_uarch_load(struct t32_uarch *u, const char *name_or_path, const char *datadir,
		   char *err, size_t errlen)
{
	char path[PATH_MAX];
	FILE *f;
	int rc;

	if (strchr(name_or_path, '/')) {
		snprintf(path, sizeof(path), "%s", name_or_path);
	} else {
		for (const char *p = name_or_path; *p; p++)
			if (!isalnum((unsigned char)*p) && *p != '_' && *p != '-' && *p != '.') {
				snprintf(err, errlen, "bad micro-architecture name '%s'", name_or_path);
				return -1;
			}
		if (!datadir) {
			snprintf(err, errlen, "no data directory to find micro-architecture '%s'",
				 name_or_path);
			return -1;
		}
		snprintf(path, sizeof(path), "%.3800s/uarch/%.200s.uarch", datadir, name_or_path);
	}
	f = fopen(path, "r");
	if (!f) {
		snprintf(err, errlen, "cannot open micro-architecture (%s) '%s'", strerror(errno), path);
		return -1;
	}
	rc = t32_uarch_parse(u, f, path, err, errlen);
	fclose(f);
	return rc;
}

/* Does one operand of a table form match one operand of an instruction form? 2 exact, 1 by kind. */
static int operand_match(const char *pat, const char *op)
{
	if (strcmp(pat, op) == 0)
		return 2;
	if (strcmp(pat, "r") == 0 && op[0] == 'r' && isdigit((unsigned char)op[1]))
		return 1;
	if (strcmp(pat, "m") == 0 && op[0] == 'm' && (op[1] == 0 || isdigit((unsigned char)op[1])))
		return 1;
	if (strcmp(pat, "v") == 0 && (strcmp(op, "xmm") == 0 || strcmp(op, "ymm") == 0 ||
				      strcmp(op, "zmm") == 0))
		return 1;
	return 0;
}

/* Is the word (n bytes) an operand shape: r64, m32, i, xmm, or a kind r, m, v? */
static int is_shape(const char *w, size_t n)
{
	static const char *const words[] = { "r", "m", "i", "v", "xmm", "ymm", "zmm", "k",
					     "mm", "st", "sreg", "?" };

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strlen(words[i]) == n && strncmp(w, words[i], n) == 0)
			return 1;
	if (n >= 2 && (w[0] == 'r' || w[0] == 'm')) {
		for (size_t i = 1; i < n; i++)
			if (!isdigit((unsigned char)w[i]))
				return 0;
		return 1;
	}
	return 0;
}

/* Split "mnem a, b" into the mnemonic (may hold spaces: "lock add") and operands. */
static int split_form(const char *form, char *mnem, size_t mlen, char ops[][16], int maxops)
{
	char buf[64], *p, *tok, *save = NULL;
	int n = 0;

	snprintf(buf, sizeof(buf), "%s", form);
	p = t32_trim(buf);
	/* the operands start after the last word before the first ',' (or the end) */
	{
		char *comma = strchr(p, ','), *lastsp;
		char keep = 0;

		if (comma) {
			keep = *comma;
			*comma = 0;
		}
		lastsp = strrchr(p, ' ');
		if (comma)
			*comma = keep;
		if (!lastsp) {
			snprintf(mnem, mlen, "%s", p);
			return 0;
		}
		/* "lock add" has no operands: only a shape word starts them */
		if (!is_shape(lastsp + 1, comma ? (size_t)(comma - lastsp - 1) : strlen(lastsp + 1))) {
			snprintf(mnem, mlen, "%s", p);
			return 0;
		}
		*lastsp = 0;
		snprintf(mnem, mlen, "%s", t32_trim(p));
		p = lastsp + 1;
	}
	for (tok = strtok_r(p, ",", &save); tok && n < maxops; tok = strtok_r(NULL, ",", &save))
		snprintf(ops[n++], 16, "%s", t32_trim(tok));
	return n;
}

/* The first word of a form, past leading blanks, and its length in *len. */
static const char *first_word(const char *form, size_t *len)
{
	form += strspn(form, " \t");
	*len = strcspn(form, " \t,");
	return form;
}

const struct t32_lat_entry *t32_lattab_find(const struct t32_lattab *t, const char *form)
{
	char mnem[48], pm[48], ops[8][16], pops[8][16];
	int nops = split_form(form, mnem, sizeof(mnem), ops, 8);
	const struct t32_lat_entry *best = NULL;
	int best_score = -1;
	size_t wl, el;
	const char *w = first_word(form, &wl);

	for (size_t i = 0; i < t->n; i++) {
		/*
		 * A mnemonic starts with its form's first word: an entry whose first
		 * word differs cannot match, and is passed over without being split
		 * (a model run looks up every instruction of a loop in the table).
		 */
		const char *ew = first_word(t->e[i].form, &el);
		int np, score = 0;

		if (el != wl || strncmp(ew, w, wl) != 0)
			continue;
		np = split_form(t->e[i].form, pm, sizeof(pm), pops, 8);
		if (strcmp(pm, mnem) != 0)
			continue;
		if (np != 0) {
			if (np != nops)
				continue;
			for (int k = 0; k < np; k++) {
				int m = operand_match(pops[k], ops[k]);

				if (!m) {
					score = -1;
					break;
				}
				score += m;
			}
			if (score < 0)
				continue;
			score += 1;	/* any operand list beats none */
		}
		if (score > best_score) {
			best = &t->e[i];
			best_score = score;
		}
	}
	return best;
}

int t32_lattab_latency(const struct t32_lat_entry *e, const char *uarch, unsigned *cycles)
{
	int found = -1;

	for (size_t i = 0; i < e->nlat; i++) {
		if (strcmp(e->lat[i].name, uarch) == 0) {
			*cycles = e->lat[i].cycles;
			return 0;
		}
		if (!e->lat[i].name[0]) {
			*cycles = e->lat[i].cycles;
			found = 0;
		}
	}
	return found;
}

/*
 * Copy a form into out (len bytes) with its blanks normalised: one space between
 * words and one after each comma, so "imul r64,r64" and "imul r64, r64" match.
 * The copy can be longer than the text; -1 when it does not fit.
 */
static int normalise_form(const char *form, char *out, size_t len)
{
	size_t o = 0;
	int blank = 0;

	for (const char *q = form; *q; q++) {
		if (isspace((unsigned char)*q)) {
			blank = 1;
			continue;
		}
		if (blank && o && out[o - 1] != ' ' && *q != ',') {
			if (o + 1 >= len)
				return -1;
			out[o++] = ' ';
		}
		blank = 0;
		if (o + 1 >= len)
			return -1;
		out[o++] = *q;
		if (*q == ',') {
			if (o + 1 >= len)
				return -1;
			out[o++] = ' ';
		}
	}
	out[o] = 0;
	return 0;
}

/* Parse the latency field: "3", "skylake=10 zen5=3", or a mix. */
static int parse_latencies(struct t32_lat_entry *e, char *field, char *msg, size_t mlen)
{
	char *tok, *save = NULL;

	for (tok = strtok_r(field, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
		char *eq = strchr(tok, '=');
		const char *num = eq ? eq + 1 : tok;
		unsigned long v;

		if (e->nlat >= sizeof(e->lat) / sizeof(e->lat[0])) {
			snprintf(msg, mlen, "too many latencies '%s'", tok);
			return -1;
		}
		if (eq) {
			*eq = 0;
			if (!*tok || strlen(tok) >= sizeof(e->lat[0].name)) {
				snprintf(msg, mlen, "bad micro-architecture name '%s'", tok);
				return -1;
			}
		}
		if (parse_unsigned(num, 0, 100000, &v)) {
			snprintf(msg, mlen, "bad latency (0 to 100000 cycles) '%s'", num);
			return -1;
		}
		snprintf(e->lat[e->nlat].name, sizeof(e->lat[0].name), "%s", eq ? tok : "");
		e->lat[e->nlat].cycles = (unsigned)v;
		e->nlat++;
	}
	if (!e->nlat) {
		snprintf(msg, mlen, "no latency given '%s'", e->form);
		return -1;
	}
	return 0;
}

/* Entry order by form, then by line: a form given twice lies next to itself. */
static const struct t32_lattab *by_form_tab;
static const unsigned *by_form_line;

static int by_form(const void *a, const void *b)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	int c = strcmp(by_form_tab->e[i].form, by_form_tab->e[j].form);

	return c ? c : (by_form_line[i] > by_form_line[j]) - (by_form_line[i] < by_form_line[j]);
}

/* A form given twice (which latency was meant?): 0, or -1 with err naming both lines. */
static int lattab_twice(const struct t32_lattab *t, const unsigned *lines, const char *path,
			char *err, size_t errlen)
{
	size_t *ix = malloc((t->n ? t->n : 1) * sizeof(*ix));
	int rc = 0;

	if (!ix) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < t->n; i++)
		ix[i] = i;
	by_form_tab = t;
	by_form_line = lines;
	qsort(ix, t->n, sizeof(*ix), by_form);
	for (size_t i = 1; i < t->n && !rc; i++)
		if (strcmp(t->e[ix[i]].form, t->e[ix[i - 1]].form) == 0) {
			snprintf(err, errlen, "%s:%u: form given twice '%s' (first at line %u)", path,
				 lines[ix[i]], t->e[ix[i]].form, lines[ix[i - 1]]);
			rc = -1;
		}
	free(ix);
	return rc;
}

int t32_lattab_load(struct t32_lattab *t, const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	char line[512], msg[300];
	unsigned lineno = 0, *lines = NULL;
	size_t cap = 0;

	t->e = NULL;
	t->n = 0;
	if (!f) {
		snprintf(err, errlen, "cannot open latency table (%s) '%s'", strerror(errno), path);
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		char *hash, *p, *bar1, *bar2, *cls;
		struct t32_lat_entry *e;

		lineno++;
		if (text_line_bad(line, sizeof(line), f, lineno, path, err, errlen))
			goto fail;
		if ((hash = strchr(line, '#')))
			*hash = 0;
		p = t32_trim(line);
		if (!*p)
			continue;
		bar1 = strchr(p, '|');
		bar2 = bar1 ? strchr(bar1 + 1, '|') : NULL;
		if (!bar2) {
			snprintf(err, errlen, "%s:%u: expected form | class | latency '%s'", path,
				 lineno, p);
			goto fail;
		}
		*bar1 = *bar2 = 0;
		if (t->n == cap) {
			size_t want = cap ? 2 * cap : 64;
			struct t32_lat_entry *ne = realloc(t->e, want * sizeof(*ne));
			unsigned *nl = ne ? realloc(lines, want * sizeof(*nl)) : NULL;

			if (ne)
				t->e = ne;
			if (nl)
				lines = nl;
			if (!ne || !nl) {
				snprintf(err, errlen, "out of memory");
				goto fail;
			}
			cap = want;
		}
		lines[t->n] = lineno;
		e = &t->e[t->n];
		memset(e, 0, sizeof(*e));
		p = t32_trim(p);
		if (!*p || normalise_form(p, e->form, sizeof(e->form))) {
			snprintf(err, errlen, "%s:%u: bad form (1 to %zu characters once blanks are "
				 "normalised) '%s'", path, lineno, sizeof(e->form) - 1, p);
			goto fail;
		}
		cls = t32_trim(bar1 + 1);
		if (strcmp(cls, "-") == 0) {
			e->cls = -1;
		} else if ((e->cls = t32_class_parse(cls)) < 0) {
			snprintf(err, errlen, "%s:%u: unknown class '%s'", path, lineno, cls);
			goto fail;
		}
		if (parse_latencies(e, bar2 + 1, msg, sizeof(msg))) {
			snprintf(err, errlen, "%s:%u: %s", path, lineno, msg);
			goto fail;
		}
		t->n++;
	}
	if (ferror(f)) {
		snprintf(err, errlen, "cannot read '%s' (%s)", path, strerror(errno));
		goto fail;
	}
	if (lattab_twice(t, lines, path, err, errlen))
		goto fail;
	free(lines);
	fclose(f);
	return 0;
fail:
	free(lines);
	fclose(f);
	t32_lattab_free(t);
	return -1;
}

void t32_lattab_free(struct t32_lattab *t)
{
	free(t->e);
	t->e = NULL;
	t->n = 0;
}

int t32_lattab_prepend(struct t32_lattab *t, const struct t32_lattab *front)
{
	struct t32_lat_entry *e;

	if (!front->n)
		return 0;
	e = malloc((front->n + t->n) * sizeof(*e));
	if (!e)
		return -1;
	memcpy(e, front->e, front->n * sizeof(*e));
	for (size_t i = 0; i < front->n; i++)
		e[i].measured = 1;
	if (t->n)
		memcpy(e + front->n, t->e, t->n * sizeof(*e));
	free(t->e);
	t->e = e;
	t->n += front->n;
	return 0;
}

/*
 * The cores CPUID names.  Sources: Linux arch/x86/kernel/cpu/amd.c
 * (bsp_init_amd, the Zen generations by family and model range) and
 * arch/x86/include/asm/intel-family.h (Intel family 6 models and their cores);
 * Hygon family 0x18 is Zen (arch/x86/kernel/cpu/hygon.c).  On Intel's hybrid
 * parts (Lakefield, Alder, Raptor, Meteor, Arrow, Lunar, Panther Lake) a model
 * holds two cores, told apart by the type in CPUID leaf 0x1A: a row per type.
 *
 * A core without its own .uarch file borrows another's only where a source says
 * the two execute alike, and the choice says so: Zen to Zen 3 take zen4 (the
 * closest in widths, ROB and latencies; Zen 4's execution resources are largely
 * Zen 3's, Chips and Cheese 2022), Zen 6 takes zen5, Palm Cove (Cannon Lake,
 * Skylake with AVX-512) takes skylake; Raptor Cove is Golden Cove with a larger
 * L2 (the Raptor Lake dumps of InstLatX64 time it alike) and Bartlett Lake's
 * P-cores are Raptor Cove; Redwood Cove takes goldencove and Crestmont
 * gracemont (Chips and Cheese, "Intel's Redwood Cove: Baby Steps are Still
 * Steps" and "Meteor Lake's E-Cores: Crestmont Makes Incremental Progress",
 * 2024: the same execution engines, caches and latencies, small changes).
 * Sunny, Willow and Cypress Cove (Ice, Tiger, Rocket Lake) differ from Golden
 * Cove where the model looks (4 integer ALUs, FP add 4, move elimination
 * disabled by microcode), Lion Cove (Arrow, Lunar Lake) too (load latency 4,
 * divps 7, pmulld 6, popcnt 4), and Skymont, Darkmont, Cougar Cove, Tremont
 * and Goldmont Plus have no measured table here: data NULL, generic.uarch and
 * latencies measured in place.
 */
#define AMD "AuthenticAMD"
#define INTEL "GenuineIntel"
#define P T32_CORE_CORE
#define E T32_CORE_ATOM
static const struct t32_uarch_id ids[] = {
	{ AMD, 0x17, 0x00, 0x2f, 0, "zen", "zen4", "Zen, Zen+ (Naples, Summit/Pinnacle/Raven Ridge, Picasso)" },
	{ AMD, 0x17, 0x50, 0x5f, 0, "zen", "zen4", "Zen" },
	{ AMD, 0x17, 0x30, 0x4f, 0, "zen2", "zen4", "Zen 2 (Rome, Castle Peak)" },
	{ AMD, 0x17, 0x60, 0x7f, 0, "zen2", "zen4", "Zen 2 (Renoir, Lucienne, Matisse)" },
	{ AMD, 0x17, 0x90, 0x91, 0, "zen2", "zen4", "Zen 2 (Van Gogh)" },
	{ AMD, 0x17, 0xa0, 0xaf, 0, "zen2", "zen4", "Zen 2 (Mendocino)" },
	{ AMD, 0x19, 0x00, 0x0f, 0, "zen3", "zen4", "Zen 3 (Milan)" },
	{ AMD, 0x19, 0x20, 0x5f, 0, "zen3", "zen4", "Zen 3 (Vermeer, Cezanne, Rembrandt)" },
	{ AMD, 0x19, 0x10, 0x1f, 0, "zen4", "zen4", "Zen 4 (Genoa)" },
	{ AMD, 0x19, 0x60, 0xaf, 0, "zen4", "zen4", "Zen 4 (Raphael, Phoenix, Bergamo)" },
	{ AMD, 0x1a, 0x00, 0x2f, 0, "zen5", "zen5", "Zen 5 (Turin, Strix Point)" },
	{ AMD, 0x1a, 0x40, 0x4f, 0, "zen5", "zen5", "Zen 5 (Granite Ridge)" },
	{ AMD, 0x1a, 0x60, 0x7f, 0, "zen5", "zen5", "Zen 5" },
	{ AMD, 0x1a, 0x50, 0x5f, 0, "zen6", "zen5", "Zen 6" },
	{ AMD, 0x1a, 0x80, 0xaf, 0, "zen6", "zen5", "Zen 6" },
	{ AMD, 0x1a, 0xc0, 0xcf, 0, "zen6", "zen5", "Zen 6" },
	{ "HygonGenuine", 0x18, 0x00, 0xff, 0, "zen", "zen4", "Hygon Dhyana (Zen)" },
	{ INTEL, 6, 0x4e, 0x4e, 0, "skylake", "skylake", "Skylake mobile" },
	{ INTEL, 6, 0x5e, 0x5e, 0, "skylake", "skylake", "Skylake desktop" },
	{ INTEL, 6, 0x55, 0x55, 0, "skylake", "skylake", "Skylake-X, Cascade Lake, Cooper Lake" },
	{ INTEL, 6, 0x8e, 0x8e, 0, "skylake", "skylake", "Kaby/Amber/Whiskey/Coffee Lake mobile" },
	{ INTEL, 6, 0x9e, 0x9e, 0, "skylake", "skylake", "Kaby Lake, Coffee Lake desktop" },
	{ INTEL, 6, 0xa5, 0xa6, 0, "skylake", "skylake", "Comet Lake" },
	{ INTEL, 6, 0x66, 0x66, 0, "palmcove", "skylake", "Cannon Lake" },
	{ INTEL, 6, 0x6a, 0x6a, 0, "sunnycove", NULL, "Ice Lake-SP" },
	{ INTEL, 6, 0x6c, 0x6c, 0, "sunnycove", NULL, "Ice Lake-D" },
	{ INTEL, 6, 0x7d, 0x7e, 0, "sunnycove", NULL, "Ice Lake client" },
	{ INTEL, 6, 0x9d, 0x9d, 0, "sunnycove", NULL, "Ice Lake NNPI" },
	{ INTEL, 6, 0xa7, 0xa7, 0, "cypresscove", NULL, "Rocket Lake" },
	{ INTEL, 6, 0x8c, 0x8d, 0, "willowcove", NULL, "Tiger Lake" },
	{ INTEL, 6, 0x8a, 0x8a, P, "sunnycove", NULL, "Lakefield P-core" },
	{ INTEL, 6, 0x8a, 0x8a, E, "tremont", NULL, "Lakefield E-cores" },
	{ INTEL, 6, 0x97, 0x97, P, "goldencove", "goldencove", "Alder Lake-S P-cores" },
	{ INTEL, 6, 0x97, 0x97, E, "gracemont", "gracemont", "Alder Lake-S E-cores" },
	{ INTEL, 6, 0x9a, 0x9a, P, "goldencove", "goldencove", "Alder Lake-P/U P-cores" },
	{ INTEL, 6, 0x9a, 0x9a, E, "gracemont", "gracemont", "Alder Lake-P/U E-cores" },
	{ INTEL, 6, 0xbe, 0xbe, 0, "gracemont", "gracemont", "Alder Lake-N, Twin Lake (E-cores only)" },
	{ INTEL, 6, 0xb7, 0xb7, P, "goldencove", "goldencove", "Raptor Lake-S P-cores (Raptor Cove)" },
	{ INTEL, 6, 0xb7, 0xb7, E, "gracemont", "gracemont", "Raptor Lake-S E-cores" },
	{ INTEL, 6, 0xba, 0xba, P, "goldencove", "goldencove", "Raptor Lake-P/H P-cores (Raptor Cove)" },
	{ INTEL, 6, 0xba, 0xba, E, "gracemont", "gracemont", "Raptor Lake-P/H E-cores" },
	{ INTEL, 6, 0xbf, 0xbf, P, "goldencove", "goldencove", "Raptor Lake-S (Alder Lake die) P-cores" },
	{ INTEL, 6, 0xbf, 0xbf, E, "gracemont", "gracemont", "Raptor Lake-S (Alder Lake die) E-cores" },
	{ INTEL, 6, 0xd7, 0xd7, 0, "goldencove", "goldencove", "Bartlett Lake (Raptor Cove P-cores only)" },
	{ INTEL, 6, 0x8f, 0x8f, 0, "goldencove", "goldencove", "Sapphire Rapids" },
	{ INTEL, 6, 0xcf, 0xcf, 0, "goldencove", "goldencove", "Emerald Rapids (Raptor Cove)" },
	{ INTEL, 6, 0xaa, 0xaa, P, "redwoodcove", "goldencove", "Meteor Lake-H/U P-cores" },
	{ INTEL, 6, 0xaa, 0xaa, E, "crestmont", "gracemont", "Meteor Lake-H/U E-cores (and LP E-cores)" },
	{ INTEL, 6, 0xac, 0xac, P, "redwoodcove", "goldencove", "Meteor Lake-S P-cores" },
	{ INTEL, 6, 0xac, 0xac, E, "crestmont", "gracemont", "Meteor Lake-S E-cores" },
	{ INTEL, 6, 0xb5, 0xb5, P, "redwoodcove", "goldencove", "Arrow Lake-U P-cores (Meteor Lake die)" },
	{ INTEL, 6, 0xb5, 0xb5, E, "crestmont", "gracemont", "Arrow Lake-U E-cores" },
	{ INTEL, 6, 0xad, 0xae, 0, "redwoodcove", "goldencove", "Granite Rapids" },
	{ INTEL, 6, 0xaf, 0xaf, 0, "crestmont", "gracemont", "Sierra Forest (E-cores only)" },
	{ INTEL, 6, 0xb6, 0xb6, 0, "crestmont", "gracemont", "Grand Ridge (E-cores only)" },
	{ INTEL, 6, 0xc5, 0xc6, P, "lioncove", NULL, "Arrow Lake-S/H P-cores" },
	{ INTEL, 6, 0xc5, 0xc6, E, "skymont", NULL, "Arrow Lake-S/H E-cores (and -H's Crestmont LP E-cores)" },
	{ INTEL, 6, 0xbd, 0xbd, P, "lioncove", NULL, "Lunar Lake P-cores" },
	{ INTEL, 6, 0xbd, 0xbd, E, "skymont", NULL, "Lunar Lake E-cores" },
	{ INTEL, 6, 0xcc, 0xcc, P, "cougarcove", NULL, "Panther Lake P-cores" },
	{ INTEL, 6, 0xcc, 0xcc, E, "darkmont", NULL, "Panther Lake E-cores" },
	{ INTEL, 6, 0xdd, 0xdd, 0, "darkmont", NULL, "Clearwater Forest (E-cores only)" },
	{ INTEL, 6, 0x86, 0x86, 0, "tremont", NULL, "Snow Ridge, Jacobsville" },
	{ INTEL, 6, 0x96, 0x96, 0, "tremont", NULL, "Elkhart Lake" },
	{ INTEL, 6, 0x9c, 0x9c, 0, "tremont", NULL, "Jasper Lake" },
	{ INTEL, 6, 0x7a, 0x7a, 0, "goldmontplus", NULL, "Gemini Lake" },
	{ NULL, 0, 0, 0, 0, NULL, NULL, NULL }
};
const struct t32_uarch_id *t32_uarch_ids = ids;
#undef AMD
#undef INTEL
#undef P
#undef E

void t32_core_type_text(unsigned type, char *buf, size_t len)
{
	if (type == T32_CORE_NONE)
		snprintf(buf, len, "%s", "");
	else if (type == T32_CORE_CORE)
		snprintf(buf, len, "P-core");
	else if (type == T32_CORE_ATOM)
		snprintf(buf, len, "E-core");
	else if (type == T32_CORE_UNKNOWN)
		snprintf(buf, len, "core type unknown");
	else
		snprintf(buf, len, "core type %#x", type);
}

unsigned t32_core_type_parse(const char *text)
{
	const char *p;
	unsigned long v;
	char *end;

	if (strstr(text, "P-core"))
		return T32_CORE_CORE;
	if (strstr(text, "E-core"))
		return T32_CORE_ATOM;
	if (strstr(text, "core type unknown"))
		return T32_CORE_UNKNOWN;
	if ((p = strstr(text, "core type 0x"))) {
		v = strtoul(p + 10, &end, 16);
		if (end != p + 10 && v > 0 && v < 0x100)
			return (unsigned)v;
	}
	return T32_CORE_NONE;
}

const struct t32_uarch_id *t32_uarch_identify(const char *vendor, unsigned family, unsigned model,
					      unsigned core_type)
{
	for (const struct t32_uarch_id *r = ids; r->name; r++)
		if (strcmp(r->vendor, vendor) == 0 && r->family == family && model >= r->model_lo &&
		    model <= r->model_hi && (!r->core_type || r->core_type == core_type))
			return r;
	return NULL;
}

void t32_uarch_choose(const char *asked, const char *vendor, unsigned family, unsigned model,
		      unsigned core_type, struct t32_uarch_choice *c)
{
	const struct t32_uarch_id *r;
	char type[32];

	memset(c, 0, sizeof(*c));
	if (asked) {
		snprintf(c->data, sizeof(c->data), "%s", asked);
		c->how = T32_UARCH_ASKED;
		return;
	}
	t32_core_type_text(core_type, type, sizeof(type));
	snprintf(c->cpu, sizeof(c->cpu), "%.13s family %#x model %#x%s%s", vendor, family, model,
		 type[0] ? ", " : "", type);
	r = t32_uarch_identify(vendor, family, model, core_type);
	snprintf(c->core, sizeof(c->core), "%s", r ? r->name : "unknown");
	snprintf(c->data, sizeof(c->data), "%s", r && r->data ? r->data : T32_UARCH_GENERIC);
	if (!r || !r->data)
		c->how = T32_UARCH_UNKNOWN;
	else
		c->how = strcmp(r->name, r->data) == 0 ? T32_UARCH_DETECTED : T32_UARCH_FALLBACK;
}

const char *t32_uarch_how_name(enum t32_uarch_how how)
{
	static const char *const names[] = {
		[T32_UARCH_ASKED] = "asked",
		[T32_UARCH_DETECTED] = "detected",
		[T32_UARCH_FALLBACK] = "fallback",
		[T32_UARCH_UNKNOWN] = "unknown",
	};

	return names[how];
}

void t32_uarch_choice_text(const struct t32_uarch_choice *c, const char *loaded, char *buf,
			   size_t len)
{
	if (c->how == T32_UARCH_ASKED)
		snprintf(buf, len, "%s (chosen with --uarch%s%.200s)", loaded,
			 strcmp(loaded, c->data) ? " " : "", strcmp(loaded, c->data) ? c->data : "");
	else if (c->how == T32_UARCH_DETECTED)
		snprintf(buf, len, "%s (detected: %s)", loaded, c->cpu);
	else if (c->how == T32_UARCH_FALLBACK)
		snprintf(buf, len, "%s (fallback: %s has no data file; %s)", loaded, c->core, c->cpu);
	else if (strcmp(c->core, "unknown") == 0)
		snprintf(buf, len, "%s (unknown: unknown CPU %s; latencies are measured here)", loaded,
			 c->cpu);
	else
		snprintf(buf, len, "%s (unknown: no data for %s; %s; latencies are measured here)",
			 loaded, c->core, c->cpu);
}
