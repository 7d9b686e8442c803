/*
 * spec.c - parsing the study's vocabulary into a struct t32_spec.
 */
#include "t32/spec.h"

#include <ctype.h>
#include <math.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const struct t32_barrier_kind t32_barriers[] = {
	{ 'm', "BARRIER_M", "mfence", "mfence: orders all loads and stores" },
	{ 'x', "BARRIER_X", "cpuid", "cpuid: serialises the pipeline (traps to a hypervisor in a VM)" },
	{ 'l', "BARRIER_L", "lfence", "lfence: waits for earlier instructions to complete" },
	{ 'n', "BARRIER_N", "", "none" },
	{ 0, NULL, NULL, NULL }
};

const struct t32_store_kind t32_stores[] = {
	{ 'm', "memory: the first reading waits in a qword of the block's data page" },
	{ 'r', "stack: the first reading is pushed" },
	{ 'x', "MMX: the first reading waits in mm0" },
	{ 0, NULL }
};

const char *const t32_gprs[T32_NGPRS] = {
	"rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
};

/*
 * Parse an unsigned integer in [lo, hi] with strtoull and an end pointer.  Numbers
 * are decimal: `010` is ten and `08` is eight, never octal.
 */
int t32_parse_u64(const char *text, uint64_t lo, uint64_t hi, uint64_t *out)
{
	char *end;
	unsigned long long v;
	const char *p = text;

	while (isspace((unsigned char)*p))
		p++;
	if (!isdigit((unsigned char)*p))
		return -1;
	errno = 0;
	v = strtoull(p, &end, 10);
	if (errno || end == p || *end)
		return -1;
	if (v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

/*
 * Parse a decimal real number in [lo, hi]: digits, a point, an exponent (1e5);
 * never hex (0x1p3), inf or nan, which strtod alone would take.
 */
int t32_parse_real(const char *text, double lo, double hi, double *out)
{
	char *end;
	double v;

	if (!*text || text[strspn(text, "0123456789.eE+-")])
		return -1;
	errno = 0;
	v = strtod(text, &end);
	if (errno || end == text || *end || !isfinite(v) || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

/*
 * A register value: decimal, or hexadecimal with a 0x prefix (the form
 * t32_spec_format writes), never octal.
 */
static int parse_value(const char *text, uint64_t *out)
{
	char *end;
	unsigned long long v;
	const char *p = text;

	while (isspace((unsigned char)*p))
		p++;
	if (p[0] != '0' || (p[1] != 'x' && p[1] != 'X'))
		return t32_parse_u64(p, 0, UINT64_MAX, out);
	if (!isxdigit((unsigned char)p[2]))
		return -1;
	errno = 0;
	v = strtoull(p + 2, &end, 16);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

int t32_spec_set_barrier(struct t32_spec *s, const char *letters, char *err, size_t errlen)
{
	size_t n = strlen(letters);

	if (n == 0 || n > T32_MAX_BARRIER) {
		snprintf(err, errlen, "bad barrier '%s' (1 to %d letters of m, x, l, n)", letters,
			 T32_MAX_BARRIER);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		const struct t32_barrier_kind *b = t32_barriers;

		while (b->letter && b->letter != letters[i])
			b++;
		if (!b->letter) {
			snprintf(err, errlen, "unknown barrier letter '%c' in '%s' (m, x, l, n)",
				 letters[i], letters);
			return -1;
		}
	}
	memcpy(s->barrier, letters, n + 1);
	return 0;
}

int t32_spec_set_store(struct t32_spec *s, const char *letter, char *err, size_t errlen)
{
	const struct t32_store_kind *k = t32_stores;

	while (k->letter && !(letter[0] == k->letter && letter[1] == 0))
		k++;
	if (!k->letter) {
		snprintf(err, errlen, "unknown store kind '%s' (m, r, x)", letter);
		return -1;
	}
	s->store = k->letter;
	return 0;
}

/* ---- instruction text is instructions ---- */

static int raw_nasm;	/* --raw-nasm: bodies may hold any NASM text */

void t32_spec_allow_raw_nasm(int on)
{
	raw_nasm = on;
}

int t32_spec_raw_nasm(void)
{
	return raw_nasm;
}

/*
 * Words that make a line a directive rather than an instruction: each reaches
 * outside the block (reads a file, writes one, moves code to another section or
 * address, changes how everything after it assembles).  Compared without case.
 */
static const char *const directive_words[] = {
	"incbin", "section", "segment", "absolute", "org", "bits", "use16", "use32", "use64",
	"default", "extern", "global", "common", "static", "required", "group", "cpu", "float",
	"dollarhex", "warning", "list", "map", "pragma", "debug", "uppercase", "import",
	"export", "library", "module", "osabi", "safeseh", "prefix", "suffix", "gprefix",
	"lprefix", "postfix", "gpostfix", "lpostfix", "struc", "endstruc", "istruc", "at",
	"iend", "alignb", "sectalign", NULL
};

#define RAW_HINT "; --raw-nasm allows them"
#define ALIGN_MAX 4096	/* largest `align` a body may hold */

/* Can c be part of a NASM identifier or number? */
static int word_char(char c)
{
	return isalnum((unsigned char)c) || (c && strchr("_.?@$#~", c));
}

/* The offending word for a message: at most 40 bytes, control bytes escaped. */
static void name_word(char *word, size_t wlen, const char *p, size_t n)
{
	size_t o = 0;

	if (!wlen)
		return;
	for (size_t i = 0; i < n && i < 40 && p[i] && o + 5 < wlen; i++) {
		unsigned char c = (unsigned char)p[i];

		if (c == '\r' || c == '\n' || c == '\t')
			o += (size_t)snprintf(word + o, wlen - o, "\\%c",
					      c == '\r' ? 'r' : c == '\n' ? 'n' : 't');
		else if (c < 0x20 || c == 0x7f)
			o += (size_t)snprintf(word + o, wlen - o, "\\x%02x", c);
		else
			word[o++] = (char)c;
	}
	word[o] = 0;
}

/* Is `align` at p (a word of 5 letters) followed by a power of two up to ALIGN_MAX? */
static int align_ok(const char *p, const char *end)
{
	unsigned long v = 0;
	const char *q = p + 5;

	while (q < end && (*q == ' ' || *q == '\t'))
		q++;
	if (q >= end || !isdigit((unsigned char)*q))
		return 0;
	while (q < end && isdigit((unsigned char)*q) && v <= ALIGN_MAX)
		v = v * 10 + (unsigned long)(*q++ - '0');
	while (q < end && (*q == ' ' || *q == '\t'))
		q++;
	if (q < end && *q != ',')
		return 0;
	return v >= 1 && v <= ALIGN_MAX && (v & (v - 1)) == 0;
}

/*
 * A statement [p, end) past its labels (`x:`), and whether it opens with
 * `times N`: 1 with the count in *k (nested ones multiplied) and *rest after
 * it, 0 when it does not, -1 when a count is not a plain number (`times 2*3`,
 * which only nasm can work out) or the counts come to more than T32_TIMES_MAX.
 */
#define T32_TIMES_MAX UINT64_C(100000000)	/* as a repeat count */
static int times_count(const char *p, const char *end, uint64_t *k, const char **rest)
{
	int found = 0;

	*k = 1;
	for (;;) {
		const char *e;

		p += strspn(p, " \t");
		for (e = p; e < end && word_char(*e); e++)
			;
		if (e > p && e < end && *e == ':') {
			p = e + 1;
			continue;
		}
		if (e - p == 5 && strncasecmp(p, "times", 5) == 0 && e < end && isspace((unsigned char)*e)) {
			char *num;
			unsigned long long n;

			p = e + strspn(e, " \t");
			errno = 0;
			n = strtoull(p, &num, 0);
			if (num == p || errno || *p == '-' || num >= end || !isspace((unsigned char)*num) ||
			    n > T32_TIMES_MAX || *k * n > T32_TIMES_MAX)
				return -1;
			*k *= n;
			p = num;
			found = 1;
			continue;
		}
		*rest = p;
		return found;
	}
}

/*
 * The non-empty ';'-separated statements of an item's text, and into *insns
 * (may be NULL) the instructions they assemble to: each statement one, and
 * one that opens with `times N` N of what follows (a count only nasm can work
 * out, allowed with --raw-nasm, counts as one).
 */
static unsigned count_stmts(const char *text, uint64_t *insns)
{
	unsigned stmts = 0;
	uint64_t n = 0;

	for (const char *p = text; *p;) {
		size_t len = strcspn(p, ";");
		const char *rest;
		uint64_t k;

		if (times_count(p, p + len, &k, &rest) < 0) {
			k = 1;
			rest = p;
		}
		if (strspn(p, " \t\n\v\f\r") < len)
			stmts++;
		if (strspn(rest, " \t\n\v\f\r") < (size_t)(p + len - rest))
			n += k;
		p += len + (p[len] == ';');
	}
	if (insns)
		*insns = n;
	return stmts;
}

/* Check one ';'-separated statement [p, end) of a body; 0, or -1 with word and why. */
static int check_statement(const char *p, const char *end, char *word, size_t wlen,
			   const char **why)
{
	const char *q = end;

	while (q > p && (q[-1] == ' ' || q[-1] == '\t'))
		q--;
	if (q > p && q[-1] == '\\') {
		name_word(word, wlen, "\\", 1);
		*why = "a trailing backslash would join the next line";
		return -1;
	}
	if (raw_nasm)
		return 0;
	{
		const char *rest;
		uint64_t k;

		if (times_count(p, end, &k, &rest) < 0) {
			const char *t = strcasestr(p, "times");

			name_word(word, wlen, t ? t : p, strcspn(t ? t : p, ";"));
			*why = "times takes a plain number here, up to 100000000: t32 divides by the "
			       "instructions it runs" RAW_HINT;
			return -1;
		}
	}
	for (const char *b = p; b < end; b++) {
		if (*b == '%') {
			const char *e = b + 1;

			while (e < end && *e != ' ' && *e != '\t' && *e != ',' && *e != '"' &&
			       *e != '\'')
				e++;
			name_word(word, wlen, b, (size_t)(e - b));
			*why = e == b + 1 ? "the % operator is refused with the preprocessor" RAW_HINT
					  : "preprocessor directives are refused" RAW_HINT;
			return -1;
		}
	}
	/* after any labels: a '[' there starts a directive ([map ...], [section ...]) */
	for (const char *b = p; b < end; b++) {
		if (*b == ' ' || *b == '\t')
			continue;
		if (*b == '[') {
			const char *e = b + 1;

			while (e < end && *e == ' ')
				e++;
			while (e < end && word_char(*e))
				e++;
			name_word(word, wlen, b, (size_t)(e - b));
			*why = "directives in brackets are refused" RAW_HINT;
			return -1;
		}
		if (word_char(*b)) {
			const char *e = b;

			while (e < end && word_char(*e))
				e++;
			if (e < end && *e == ':') {
				b = e;
				continue;
			}
		}
		break;
	}
	for (const char *b = p; b < end;) {
		const char *e = b;
		size_t n;

		if (!word_char(*b)) {
			b++;
			continue;
		}
		while (e < end && word_char(*e))
			e++;
		n = (size_t)(e - b);
		if (n > 4 && b[0] == '_' && b[1] == '_' && e[-1] == '_' && e[-2] == '_') {
			name_word(word, wlen, b, n);
			*why = "NASM's own __names__ are refused" RAW_HINT;
			return -1;
		}
		if (n == 5 && strncasecmp(b, "align", 5) == 0 && !align_ok(b, end)) {
			name_word(word, wlen, b, n);
			*why = "align takes a power of two up to 4096 here; --raw-nasm allows more";
			return -1;
		}
		for (const char *const *d = directive_words; *d; d++)
			if (strlen(*d) == n && strncasecmp(b, *d, n) == 0) {
				name_word(word, wlen, b, n);
				*why = "assembler directives are refused" RAW_HINT;
				return -1;
			}
		b = e;
	}
	return 0;
}

int t32_insn_check(const char *text, char *word, size_t wlen, const char **why)
{
	const char *p = text;

	for (const char *c = text; *c; c++)
		if (((unsigned char)*c < 0x20 && *c != '\t') || *c == 0x7f) {
			name_word(word, wlen, c, 1);
			*why = *c == '\n' ? "a newline; ';' separates instructions"
					  : "control bytes are refused; ';' separates instructions";
			return -1;
		}
	for (;;) {
		const char *end = strchr(p, ';');

		if (!end)
			end = p + strlen(p);
		if (check_statement(p, end, word, wlen, why))
			return -1;
		if (!*end)
			return 0;
		p = end + 1;
	}
}

/*
 * Every body item comes through here, from the command line, a table or a block
 * file, so this is where instruction text is held to instructions.
 */
int t32_spec_add_item(struct t32_spec *s, uint64_t reps, const char *text)
{
	struct t32_item *items;
	const char *why;
	char word[64];

	if (t32_insn_check(text, word, sizeof(word), &why)) {
		errno = EINVAL;
		return -1;
	}
	/*
	 * Room for 8, then doubled each time the count reaches a power of two
	 * (items start NULL with nitems 0): a block of 100,000 lines is not
	 * copied 100,000 times.
	 */
	if (s->nitems == 0 || (s->nitems >= 8 && (s->nitems & (s->nitems - 1)) == 0)) {
		items = realloc(s->items, (s->nitems ? 2 * s->nitems : 8) * sizeof(*items));
		if (!items)
			return -1;
		s->items = items;
	}
	items = s->items;
	items[s->nitems].reps = reps;
	items[s->nitems].text = strdup(text);
	items[s->nitems].stmts = count_stmts(text, &items[s->nitems].insns);
	if (!items[s->nitems].text)
		return -1;
	s->nitems++;
	return 0;
}

/* Does this argument look like a repeat count rather than an instruction? */
static int is_count(const char *a)
{
	if (!*a)
		return 0;
	for (const char *p = a; *p; p++)
		if (!isdigit((unsigned char)*p) && *p != '_')
			return 0;
	return 1;
}

int t32_spec_parse_body(struct t32_spec *s, int argc, char **argv, char *err, size_t errlen)
{
	int i = 0;

	if (argc <= 0) {
		snprintf(err, errlen, "no instructions given");
		return -1;
	}
	while (i < argc) {
		uint64_t reps = 1;
		const char *why;
		char word[64];

		if (is_count(argv[i])) {
			if (t32_parse_u64(argv[i], 0, UINT64_C(100000000), &reps)) {
				snprintf(err, errlen, "bad repeat count '%s' (0 to 100000000)",
					 argv[i]);
				return -1;
			}
			if (++i >= argc) {
				snprintf(err, errlen, "repeat count '%s' is not followed by an instruction",
					 argv[i - 1]);
				return -1;
			}
		}
		if (t32_insn_check(argv[i], word, sizeof(word), &why)) {
			snprintf(err, errlen, "not an instruction '%s' (%s)", word, why);
			return -1;
		}
		if (!count_stmts(argv[i], NULL)) {
			snprintf(err, errlen, "empty instruction '%s'", argv[i]);
			return -1;
		}
		if (t32_spec_add_item(s, reps, argv[i])) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		i++;
	}
	return 0;
}

/* A vector or mask register's name: its kind, number and width; 0, or -1 when it is none. */
static int other_register(const char *name, struct t32_init *in)
{
	static const struct {
		const char *prefix;
		unsigned char kind, width;
		int max;
	} files[] = {
		{ "xmm", T32_INIT_VEC, 16, 31 }, { "ymm", T32_INIT_VEC, 32, 31 },
		{ "zmm", T32_INIT_VEC, 64, 31 }, { "k", T32_INIT_MASK, 8, 7 },
	};

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		size_t n = strlen(files[i].prefix);
		uint64_t k;

		if (strncasecmp(name, files[i].prefix, n) != 0 || !isdigit((unsigned char)name[n]) ||
		    (name[n] == '0' && name[n + 1]) || t32_parse_u64(name + n, 0, (uint64_t)files[i].max, &k))
			continue;
		in->kind = files[i].kind;
		in->width = files[i].width;
		in->reg = (int)k;
		return 0;
	}
	return -1;
}

/* A vector register's value: `1.5d`, `-2f`, or an integer for every qword lane. */
static int parse_lanes(const char *text, struct t32_init *in)
{
	size_t n = strlen(text);
	char *end;

	while (n && isspace((unsigned char)text[n - 1]))
		n--;
	/* a trailing d or f is a lane type, not a hex digit (0x1d is an integer) */
	if (n >= 2 && (text[n - 1] == 'd' || text[n - 1] == 'f') &&
	    !(text[0] == '0' && (text[1] == 'x' || text[1] == 'X'))) {
		char num[64];
		double d;

		if (n - 1 >= sizeof(num))
			return -1;
		memcpy(num, text, n - 1);
		num[n - 1] = 0;
		errno = 0;
		d = strtod(num, &end);
		/* a finite decimal number: no hex floats, inf or nan */
		if (errno || end == num || *end || !isfinite(d) || strpbrk(num, "xXnNiI"))
			return -1;
		in->lanes = text[n - 1];
		in->number = d;
		if (in->lanes == 'd') {
			memcpy(&in->value, &d, sizeof(d));
		} else {
			float f = (float)d;
			uint32_t w;

			if (!isfinite(f))
				return -1;
			memcpy(&w, &f, sizeof(w));
			in->value = (uint64_t)w << 32 | w;
		}
		return 0;
	}
	in->lanes = 'q';
	return parse_value(text, &in->value);
}

/* Do two set-ups name the same register (of the same file)? */
static int same_register(const struct t32_init *a, const struct t32_init *b)
{
	/* xmm5, ymm5 and zmm5 are one register */
	return a->kind == b->kind && a->reg == b->reg;
}

int t32_spec_init_twice(const struct t32_spec *s, size_t from, char *err, size_t errlen)
{
	for (size_t i = from; i < s->ninit; i++)
		for (size_t j = 0; j < i; j++)
			if (same_register(&s->init[j], &s->init[i])) {
				char x[96], y[96];

				t32_init_format(&s->init[j], x, sizeof(x));
				t32_init_format(&s->init[i], y, sizeof(y));
				snprintf(err, errlen, "register set twice '%.*s' (%s, then %s)",
					 (int)strcspn(y, "="), y, strchr(x, '=') + 1, strchr(y, '=') + 1);
				return -1;
			}
	return 0;
}

int t32_spec_parse_init(struct t32_spec *s, const char *arg, char *err, size_t errlen)
{
	char *copy = strdup(arg), *save = NULL, *tok;
	size_t from = s->ninit;
	int rc = 0;

	if (!copy)
		return -1;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		struct t32_init in = { .reg = -1, .kind = T32_INIT_GPR };
		int bad;

		while (isspace((unsigned char)*tok))
			tok++;
		if (!eq) {
			snprintf(err, errlen, "bad register set-up '%s' (REG=VALUE)", tok);
			rc = -1;
			break;
		}
		*eq = 0;
		for (char *p = eq - 1; p >= tok && isspace((unsigned char)*p); p--)
			*p = 0;
		for (int r = 0; r < T32_NGPRS; r++)
			if (strcasecmp(tok, t32_gprs[r]) == 0)
				in.reg = r;
		if (in.reg < 0 && other_register(tok, &in)) {
			snprintf(err, errlen,
				 "unknown register '%s' (rax..r15 but rsp, xmm/ymm/zmm0-31, k0-7)", tok);
			rc = -1;
			break;
		}
		bad = in.kind == T32_INIT_VEC ? parse_lanes(eq + 1, &in) : parse_value(eq + 1, &in.value);
		if (bad) {
			snprintf(err, errlen, "bad value for %s '%s'%s", tok, eq + 1,
				 in.kind == T32_INIT_VEC
					 ? " (a number with d for double lanes or f for float lanes, "
					   "or an integer for every 64-bit lane)"
					 : "");
			rc = -1;
			break;
		}
		if (s->ninit >= T32_MAX_INIT) {
			snprintf(err, errlen, "too many register set-ups '%s'", tok);
			rc = -1;
			break;
		}
		s->init[s->ninit++] = in;
		/* within one set-up a register given twice is a mistake: which value? */
		if (t32_spec_init_twice(s, from, err, errlen)) {
			rc = -1;
			break;
		}
	}
	free(copy);
	return rc;
}

void t32_init_format(const struct t32_init *in, char *buf, size_t len)
{
	static const char *const vec[] = { "xmm", "ymm", "zmm" };

	if (in->kind == T32_INIT_GPR)
		snprintf(buf, len, "%s=0x%llx", t32_gprs[in->reg], (unsigned long long)in->value);
	else if (in->kind == T32_INIT_MASK)
		snprintf(buf, len, "k%d=0x%llx", in->reg, (unsigned long long)in->value);
	else if (in->lanes == 'q')
		snprintf(buf, len, "%s%d=0x%llx", vec[in->width / 32], in->reg,
			 (unsigned long long)in->value);
	else
		snprintf(buf, len, "%s%d=%.17g%c", vec[in->width / 32], in->reg, in->number, in->lanes);
}

uint64_t t32_spec_insns(const struct t32_spec *s)
{
	uint64_t n = 0;

	for (size_t i = 0; i < s->nitems; i++)
		n += s->items[i].reps * s->items[i].insns;
	return n;
}

void t32_spec_empty(const struct t32_spec *s, struct t32_spec *empty)
{
	*empty = *s;
	empty->items = NULL;
	empty->nitems = 0;
}

void t32_spec_format(const struct t32_spec *s, char *buf, size_t len)
{
	size_t used = (size_t)snprintf(buf, len, "%s %c", s->barrier, s->store);

	for (size_t i = 0; i < s->nitems && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, " %llu '%s'",
					 (unsigned long long)s->items[i].reps, s->items[i].text);
	for (size_t i = 0; i < s->ninit && used < len; i++) {
		char one[96];

		t32_init_format(&s->init[i], one, sizeof(one));
		used += (size_t)snprintf(buf + used, len - used, " --init %s", one);
	}
}

void t32_spec_free(struct t32_spec *s)
{
	for (size_t i = 0; i < s->nitems; i++)
		free(s->items[i].text);
	free(s->items);
	s->items = NULL;
	s->nitems = 0;
}

/*
 * A number of n: a decimal integer or a float in e-notation (1e5), within [0, 1e8];
 * never hex (strtod would take 0x10).
 */
static int parse_n(const char *text, uint64_t *out)
{
	char *end;
	double d;

	if (t32_parse_u64(text, 0, UINT64_C(100000000), out) == 0)
		return 0;
	if (!*text || text[strspn(text, "0123456789.eE+")])
		return -1;
	errno = 0;
	d = strtod(text, &end);
	if (errno || end == text || *end || !(d >= 0 && d <= 1e8) || d != floor(d))
		return -1;
	*out = (uint64_t)d;
	return 0;
}

/* Values gathered before duplicates are dropped: a list may repeat itself this much. */
#define T32_NS_RAW_MAX (4 * T32_MAX_NS)

/* Append v; 1 when the list has grown past T32_NS_RAW_MAX, -1 when out of memory. */
static int push_n(uint64_t **a, size_t *n, size_t *cap, uint64_t v)
{
	if (*n >= T32_NS_RAW_MAX)
		return 1;
	if (*n == *cap) {
		uint64_t *t = realloc(*a, (*cap = *cap ? *cap * 2 : 16) * sizeof(uint64_t));

		if (!t)
			return -1;
		*a = t;
	}
	(*a)[(*n)++] = v;
	return 0;
}

/* Order of positions by value, then position (qsort_r with the values as context). */
static int by_value(const void *x, const void *y, void *ctx)
{
	const uint64_t *v = ctx;
	size_t i = *(const size_t *)x, j = *(const size_t *)y;

	if (v[i] != v[j])
		return v[i] < v[j] ? -1 : 1;
	return (i > j) - (i < j);
}

/*
 * Drop repeated values from a[0..*n), keeping each one's first place: sorted
 * positions find the repeats in n log n (a search per value is quadratic in a
 * list of ranges).  -1 when out of memory.
 */
static int dedup_n(uint64_t *a, size_t *n)
{
	size_t *pos = malloc((*n ? *n : 1) * sizeof(*pos)), k = 0;
	unsigned char *drop = calloc(*n ? *n : 1, 1);

	if (!pos || !drop) {
		free(pos);
		free(drop);
		return -1;
	}
	for (size_t i = 0; i < *n; i++)
		pos[i] = i;
	qsort_r(pos, *n, sizeof(*pos), by_value, a);
	for (size_t i = 1; i < *n; i++)
		if (a[pos[i]] == a[pos[i - 1]])
			drop[pos[i]] = 1;
	for (size_t i = 0; i < *n; i++)
		if (!drop[i])
			a[k++] = a[i];
	*n = k;
	free(pos);
	free(drop);
	return 0;
}

int t32_parse_nlist(const char *arg, uint64_t **out, size_t *count, char *err, size_t errlen)
{
	char *copy = strdup(arg), *save = NULL, *part;
	uint64_t *a = NULL;
	size_t n = 0, cap = 0;
	int rc;

	if (!copy)
		return -1;
	for (part = strtok_r(copy, ",", &save); part; part = strtok_r(NULL, ",", &save)) {
		char *dots = strstr(part, ".."), *slash;
		uint64_t lo, hi, points = 0;

		if (!dots) {
			if (parse_n(part, &lo))
				goto bad;
			if ((rc = push_n(&a, &n, &cap, lo)))
				goto pushed;
			continue;
		}
		*dots = 0;
		slash = strchr(dots + 2, '/');
		if (slash) {
			*slash = 0;
			if (strncmp(slash + 1, "log:", 4) ||
			    t32_parse_u64(slash + 5, 2, 10000, &points))
				goto bad;
		}
		if (parse_n(part, &lo) || parse_n(dots + 2, &hi) || hi < lo)
			goto bad;
		if (points) {
			if (lo == 0)
				goto bad;
			for (uint64_t i = 0; i < points; i++) {
				double v = exp(log((double)lo) + (log((double)hi) - log((double)lo)) *
							       (double)i / (double)(points - 1));

				if ((rc = push_n(&a, &n, &cap, (uint64_t)llround(v))))
					goto pushed;
			}
		} else {
			if (hi - lo >= T32_MAX_NS)
				goto too_many;
			for (uint64_t v = lo; v <= hi; v++)
				if ((rc = push_n(&a, &n, &cap, v)))
					goto pushed;
		}
	}
	free(copy);
	if (dedup_n(a, &n)) {
		snprintf(err, errlen, "out of memory reading '%s'", arg);
		free(a);
		return -1;
	}
	if (n > T32_MAX_NS)
		goto too_many_late;
	if (!n) {
		snprintf(err, errlen, "no n in '%s'", arg);
		free(a);
		return -1;
	}
	*out = a;
	*count = n;
	return 0;
pushed:
	if (rc < 0)
		goto bad;
too_many:
	free(copy);
too_many_late:
	snprintf(err, errlen, "too many n values '%s' (at most %d; 1..1e6/log:100 spreads fewer)",
		 arg, T32_MAX_NS);
	free(a);
	return -1;
bad:
	snprintf(err, errlen, "bad n list '%s' (e.g. 100,1000 or 0..100 or 1..1e5/log:20)", arg);
	free(copy);
	free(a);
	return -1;
}
