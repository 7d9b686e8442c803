/*
 * learned.c - the learned retirement model's file (see learned.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "t32/core/latcache.h"
#include "t32/core/learned.h"
#include "t32/util.h"

#define LEARNED_MAGIC "# t32 learned retirement model"

void t32_learned_path(const char *dir, char *buf, size_t len)
{
	char d[3000], key[128], cpu[256];

	t32_latcache_dir(dir, d, sizeof(d));
	if (!d[0]) {
		buf[0] = 0;
		return;
	}
	t32_latcache_cpu(key, sizeof(key), cpu, sizeof(cpu));
	snprintf(buf, len, "%s/model-%s.uarch", d, key);
}

void t32_learned_param_text(const struct t32_corr_param *p, char *buf, size_t len)
{
	if (p->determined)
		snprintf(buf, len, "%s = %lu [%lu, %lu]", p->key, p->value, p->ci_lo, p->ci_hi);
	else
		snprintf(buf, len, "%s undetermined [%lu, %lu] (run at %lu)", p->key, p->ci_lo,
			 p->ci_hi, p->value);
}

int t32_learned_write(const char *path, const struct t32_learn_result *r, const char *cpu,
		      const char *from, const char *source, const char *const *probes, size_t np)
{
	FILE *f = t32_fopen_out(path);
	char date[32], text[256];
	time_t now = time(NULL);
	struct tm tm;

	if (!f)
		return -1;
	gmtime_r(&now, &tm);
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", &tm);
	fprintf(f, "%s: one parameter set fitted to %zu probes at once\n", LEARNED_MAGIC,
		r->probes);
	fprintf(f, "# tool: t32 %s (commit %s)\n", T32_VERSION, t32_commit());
	fprintf(f, "# cpu: %s\n", cpu);
	fprintf(f, "# date: %s\n", date);
	fprintf(f, "# from: %s (the data the learning started from; a value moved only where the "
		"probes ask it significantly)\n", from);
	fprintf(f, "# source: %s\n", source);
	fprintf(f, "# probes:");
	for (size_t i = 0; i < np; i++)
		fprintf(f, " %s", probes[i]);
	fprintf(f, "\n# objective: %.3f, intervals widened x%.2f, %zu model runs\n", r->objective,
		r->scale, r->evals);
	for (size_t j = 0; j < r->np; j++) {
		t32_learned_param_text(&r->p[j], text, sizeof(text));
		fprintf(f, "# learned: %s\n", text);
	}
	fprintf(f, "\nname = %s\n", r->u.name);
	for (const struct t32_uarch_key *k = t32_uarch_keys; k->key; k++) {
		unsigned long v;

		if (t32_uarch_get(&r->u, k->key, &v) == 0)
			fprintf(f, "%s = %lu\n", k->key, v);
	}
	return t32_fclose_out(f) ? -1 : 0;
}

int t32_learned_load(const char *path, const char *datadir, struct t32_uarch *u, char *summary,
		     size_t slen, char *cpu, size_t clen, char *err, size_t errlen)
{
	char line[1024], date[64] = "?", machine[256] = "?";
	unsigned long probes = 0;
	FILE *f = fopen(path, "r");

	if (!f) {
		if (errno == ENOENT)
			return 1;
		snprintf(err, errlen, "cannot read the learned model (%s) '%s'", strerror(errno), path);
		return -1;
	}
	if (!fgets(line, sizeof(line), f) || strncmp(line, LEARNED_MAGIC, strlen(LEARNED_MAGIC))) {
		fclose(f);
		snprintf(err, errlen, "not a learned model (t32 learn writes one) '%s'", path);
		return -1;
	}
	sscanf(line + strlen(LEARNED_MAGIC), ": one parameter set fitted to %lu", &probes);
	while (fgets(line, sizeof(line), f) && line[0] == '#') {
		line[strcspn(line, "\n")] = 0;
		if (strncmp(line, "# date: ", 8) == 0)
			snprintf(date, sizeof(date), "%.63s", line + 8);
		else if (strncmp(line, "# cpu: ", 7) == 0)
			snprintf(machine, sizeof(machine), "%.255s", line + 7);
	}
	fclose(f);
	if (t32_uarch_load(u, path, datadir, err, errlen))
		return -1;
	if (summary)
		snprintf(summary, slen, "learned from %lu probes on %.20s (%s)", probes, date, path);
	if (cpu)
		snprintf(cpu, clen, "%s", machine);
	return 0;
}
