/*
 * 0008-flags - `t32 help flags` explains every flag and status t32 can put on a
 * result: each flag of the estimator's table and of wake's, and each status of
 * a sweep row, has an entry with a meaning and what to do.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/stats.h"
#include "t/tap.h"
#include "t32/cmd/flags.h"
#include "t32/core/wake.h"

int main(void)
{
	static const char *const statuses[] = { "ok", "untrusted", "skipped", "fault", "unsupported",
						"drift", "unstable" };
	size_t n = 0;
	char *text = NULL;
	size_t len = 0;
	FILE *m;
	int wide = 0;

	for (const struct t32_flag_name *f = t32_est_flags; f->name; f++)
		n++;
	plan((int)(n + T32_WAKE_NFLAGS + sizeof(statuses) / sizeof(statuses[0]) + 2));
	for (const struct t32_flag_name *f = t32_est_flags; f->name; f++) {
		const struct t32_flag_help *h = t32_flag_find(f->name);

		ok(h && !strcmp(h->kind, "flag") && *h->meaning && *h->todo,
		   "the estimate's flag %s is explained, with what to do", f->name);
	}
	for (int i = 0; i < T32_WAKE_NFLAGS; i++) {
		const struct t32_flag_help *h = t32_flag_find(t32_wake_flags[i].name);

		ok(h && !strcmp(h->kind, "wake") && *h->todo, "wake's status %s is explained",
		   t32_wake_flags[i].name);
	}
	for (size_t i = 0; i < sizeof(statuses) / sizeof(statuses[0]); i++)
		ok(t32_flag_find(statuses[i]) != NULL, "%s is explained", statuses[i]);
	m = open_memstream(&text, &len);
	if (!m)
		bail("open_memstream");
	t32_flags_help(m);
	fclose(m);
	for (const char *p = text; *p;) {
		size_t l = strcspn(p, "\n");

		wide |= l > 80;
		p += l + (p[l] == '\n');
	}
	ok(!wide, "t32 help flags fits 80 columns");
	ok(strstr(text, "To do: ") && strstr(text, "  untrusted   "), "it says what to do, by name");
	free(text);
	return done_testing();
}
