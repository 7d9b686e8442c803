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

/* Parse an unsigned integer in [lo, hi] with strtoull and an end pointer. */
int t32_parse_u64(const char *text, uint64_t lo, uint64_t hi, uint64_t *out)
{
	char *end;
	unsigned long long v;
	const char *p = text;

	while (isspace((unsigned char)*p))
		p++;
	if (!*p || *p == '-' || *p == '+')
		return -1;
	errno = 0;
	v = strtoull(p, &end, 0);
	if (errno || end == p || *end)
		return -1;
	if (v < lo || v > hi)
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

/* Count the non-empty ';'-separated statements of an item's text. */
static unsigned count_stmts(const char *text)
{
	unsigned n = 0;
	int seen = 0;

	for (const char *p = text;; p++) {
		if (*p == ';' || *p == 0) {
			n += seen;
			seen = 0;
			if (!*p)
				break;
		} else if (!isspace((unsigned char)*p)) {
			seen = 1;
		}
	}
	return n;
}

int t32_spec_add_item(struct t32_spec *s, uint64_t reps, const char *text)
{
	struct t32_item *items = realloc(s->items, (s->nitems + 1) * sizeof(*items));

	if (!items)
		return -1;
	s->items = items;
	items[s->nitems].reps = reps;
	items[s->nitems].text = strdup(text);
	items[s->nitems].stmts = count_stmts(text);
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
		if (!count_stmts(argv[i])) {
			snprintf(err, errlen, "empty instruction '%s'", argv[i]);
			return -1;
		}
		if (strchr(argv[i], '\n')) {
			snprintf(err, errlen, "instruction holds a newline '%s' (use ';')", argv[i]);
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

int t32_spec_parse_init(struct t32_spec *s, const char *arg, char *err, size_t errlen)
{
	char *copy = strdup(arg), *save = NULL, *tok;
	int rc = 0;

	if (!copy)
		return -1;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		int reg = -1;
		uint64_t v;

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
				reg = r;
		if (reg < 0) {
			snprintf(err, errlen, "unknown register '%s' (rax..r15, not rsp)", tok);
			rc = -1;
			break;
		}
		if (t32_parse_u64(eq + 1, 0, UINT64_MAX, &v)) {
			snprintf(err, errlen, "bad value for %s '%s'", tok, eq + 1);
			rc = -1;
			break;
		}
		if (s->ninit >= T32_MAX_INIT) {
			snprintf(err, errlen, "too many register set-ups '%s'", tok);
			rc = -1;
			break;
		}
		s->init[s->ninit].reg = reg;
		s->init[s->ninit].value = v;
		s->ninit++;
	}
	free(copy);
	return rc;
}

uint64_t t32_spec_insns(const struct t32_spec *s)
{
	uint64_t n = 0;

	for (size_t i = 0; i < s->nitems; i++)
		n += s->items[i].reps * s->items[i].stmts;
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
	for (size_t i = 0; i < s->ninit && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, " --init %s=%#llx",
					 t32_gprs[s->init[i].reg],
					 (unsigned long long)s->init[i].value);
}

void t32_spec_free(struct t32_spec *s)
{
	for (size_t i = 0; i < s->nitems; i++)
		free(s->items[i].text);
	free(s->items);
	s->items = NULL;
	s->nitems = 0;
}

/* A number of n: an integer or a float in e-notation (1e5), within [0, 1e8]. */
static int parse_n(const char *text, uint64_t *out)
{
	char *end;
	double d;

	if (t32_parse_u64(text, 0, UINT64_C(100000000), out) == 0)
		return 0;
	errno = 0;
	d = strtod(text, &end);
	if (errno || end == text || *end || !(d >= 0 && d <= 1e8) || d != floor(d))
		return -1;
	*out = (uint64_t)d;
	return 0;
}

static int push_n(uint64_t **a, size_t *n, size_t *cap, uint64_t v)
{
	for (size_t i = 0; i < *n; i++)
		if ((*a)[i] == v)
			return 0;
	if (*n == *cap) {
		uint64_t *t = realloc(*a, (*cap = *cap ? *cap * 2 : 16) * sizeof(uint64_t));

		if (!t)
			return -1;
		*a = t;
	}
	(*a)[(*n)++] = v;
	return 0;
}

int t32_parse_nlist(const char *arg, uint64_t **out, size_t *count, char *err, size_t errlen)
{
	char *copy = strdup(arg), *save = NULL, *part;
	uint64_t *a = NULL;
	size_t n = 0, cap = 0;

	if (!copy)
		return -1;
	for (part = strtok_r(copy, ",", &save); part; part = strtok_r(NULL, ",", &save)) {
		char *dots = strstr(part, ".."), *slash;
		uint64_t lo, hi, points = 0;

		if (!dots) {
			if (parse_n(part, &lo) || push_n(&a, &n, &cap, lo))
				goto bad;
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

				if (push_n(&a, &n, &cap, (uint64_t)llround(v)))
					goto bad;
			}
		} else {
			if (hi - lo > 1000000)
				goto bad;
			for (uint64_t v = lo; v <= hi; v++)
				if (push_n(&a, &n, &cap, v))
					goto bad;
		}
	}
	free(copy);
	if (!n) {
		snprintf(err, errlen, "no n in '%s'", arg);
		free(a);
		return -1;
	}
	*out = a;
	*count = n;
	return 0;
bad:
	snprintf(err, errlen, "bad n list '%s' (e.g. 100,1000 or 0..100 or 1..1e5/log:20)", arg);
	free(copy);
	free(a);
	return -1;
}
