/*
 * flags.c - every flag and status a result of t32 can carry, what it means and
 * what to do about it: `t32 help flags` for people, `t32 --list flags` for the
 * manual page.  The estimator's and wake's own tables (analysis/stats.c,
 * t32/core/wake.c) name what a flag means; this table adds whether it makes a result
 * untrustworthy and what the user should do, and t/0008 checks that every flag
 * those tables define is here.
 */
#include <stdio.h>
#include <string.h>

#include "t32/cmd/flags.h"
#include "t32/util.h"

const struct t32_flag_help t32_flag_help[] = {
	/* the estimate of one block (t32 time, each row of t32 sweep): the flags column */
	{ "noquant", "flag", "the TSC advances by single ticks (bare metal): the estimate is the "
	  "mean of the readings' bulk, a fraction of a tick", "information; nothing to do" },
	{ "levels", "flag", "the block's duration varied by more than one TSC step (a core "
	  "clock that moves, as under a hypervisor): the estimate is the mean of the bulk",
	  "information; a quieter machine, or --precision, narrows it" },
	{ "few", "flag", "too few readings fell in the bulk to trust a proportion between two "
	  "levels: the result is untrusted", "raise --budget or COUNT; measure on a quieter CPU" },
	{ "fallback", "flag", "too few readings for a proportion: the value is the minimum, not "
	  "the bulk's mean; the result is untrusted", "raise --budget or COUNT" },
	{ "drift", "flag", "the core clock moved between the first and last rounds of a "
	  "measuring process beyond the rounds' noise: each round's own calibration "
	  "compensates; above 5% the result is untrusted",
	  "information below 5%; above, pin the core clock (a fixed frequency, no turbo) or "
	  "measure again" },
	{ "contended", "flag", "another thread shared the measuring core in the placements kept (a "
	  "sibling thread, or the host's, which the guest cannot see): the sensor chains of "
	  "other units (imul, a vector or) no longer ran a whole number of cycles against the "
	  "adds; the value is on the clock of the fastest chain and the interval widened twice "
	  "by their disagreement (which clock, and the block's own slowing), but a block on "
	  "the units the other thread used can be slowed by more: the result is untrusted", "measure when the machine and its host are quiet" },
	{ "shared", "flag", "another task ran on the measuring CPU in every measuring process, "
	  "so no readings could be set aside: the result is untrusted",
	  "stop the other work (the reason names the tasks), or choose another --cpu" },
	{ "busy", "flag", "another task ran on a CPU that may share the measuring CPU's core (an "
	  "SMT sibling; under a hypervisor, any CPU) in every measuring process: the result "
	  "is untrusted", "stop the other work; --ignore-busy where the other CPUs are known to "
	  "share no core with the measuring one" },
	{ "steal", "flag", "the hypervisor stole time from the measuring CPU; the readings it "
	  "hit were set aside as outliers", "information; a dedicated virtual CPU avoids it" },
	/* a row of t32 sweep, a line of t32 time: the status column */
	{ "ok", "status", "measured, and the result can be trusted", "use it" },
	{ "untrusted", "status", "measured, but the result cannot be trusted; the reason column "
	  "(and stderr) says why: an interval that never narrowed to the target, too few "
	  "readings, a calibration that is no clock, a cost below zero, a drift above 5%, or "
	  "no measuring process that ran alone, or a core shared with a thread t32 cannot see", "read the reason; measure again on a quiet "
	  "machine, or with a larger --budget; never take the value as it is" },
	{ "nochain", "status", "a latency row that carried no dependency: it read below 0.9 "
	  "cycles, or below its own form's throughput; the reason names what it probably was "
	  "(a zero idiom, an eliminated move, a flag-only chain) and keeps the rate",
	  "read it as a rate, not a latency; give the form a chain (chain= in the table) or "
	  "mark it chain=none" },
	{ "skipped", "status", "not measured, by design: the reason says why (a form marked "
	  "chain=none has no latency row; no count of copies in --k-list or up to --max-k "
	  "divides n; the template allows no copies)", "nothing, or choose n divisible by a k "
	  "tried (--n, --k-list)" },
	{ "fault", "status", "the block faulted (the signal and instruction named in the "
	  "reason)", "give the registers it needs (--init, init=), or leave the form out" },
	{ "unsupported", "status", "this CPU lacks the instruction (#UD)", "nothing: measure it "
	  "on a CPU that has it" },
	/* t32 wake: each event's status column; all but no_idle leave it out */
	{ "tsc_back", "wake", "a TSC reading went backwards or readings were out of order (an "
	  "impossible reading: more than 1% of them make the result untrusted)",
	  "an unstable TSC: check `t32 env` and the kernel's clocksource" },
	{ "negative", "wake", "woke before the deadline by more than the conversion error (an "
	  "impossible reading)", "as tsc_back" },
	{ "late", "wake", "the timer was armed after its deadline had passed: left out",
	  "longer launch distances (--ldist)" },
	{ "other_irq", "wake", "another interrupt came to the CPU during the event: left out; "
	  "when most events are, the statistics describe a minority leaning to short waits",
	  "a CPU fewer interrupts reach (irqaffinity=, isolcpus=, nohz_full= on the kernel's "
	  "command line); --count counts events recorded, not kept" },
	{ "no_idle", "wake", "the CPU never entered an idle state: the wake-up preempted a "
	  "task; kept unless --idle-only", "information; --idle-only leaves such events out" },
	/* t32 sample */
	{ "unstable", "sample", "the samples did not stay put: parts of the run disagree "
	  "(chi-square) or the block moved since it was last sampled; a model fitted to them "
	  "fits noise", "sample again, a longer --seconds, or --allow-unstable to fit them "
	  "anyway" },
	{ NULL, NULL, NULL, NULL },
};

const struct t32_flag_help *t32_flag_find(const char *name)
{
	for (const struct t32_flag_help *f = t32_flag_help; f->name; f++)
		if (!strcmp(f->name, name))
			return f;
	return NULL;
}

/* text from column start, folded at width columns with indent after, on out */
static void fold(FILE *out, const char *text, int indent, int start, int width)
{
	int col = start, first = 1;

	while (*text) {
		size_t w = strcspn(text, " ");

		if (!first && col + 1 + (int)w > width) {
			fprintf(out, "\n%*s", indent, "");
			col = indent;
		} else if (!first) {
			fputc(' ', out);
			col++;
		}
		first = 0;
		fwrite(text, 1, w, out);
		col += (int)w;
		text += w;
		while (*text == ' ')
			text++;
	}
	fputc('\n', out);
}

void t32_flags_help(FILE *out)
{
	static const struct {
		const char *kind, *title;
	} kinds[] = {
		{ "flag", "Flags of an estimate (the flags column of t32 time and t32 sweep)" },
		{ "status", "Statuses of a result (the status column of a sweep row)" },
		{ "wake", "Statuses of a t32 wake event (all but no_idle leave the event out)" },
		{ "sample", "Flags of t32 sample" },
	};

	fprintf(out, "What each flag and status of t32's results means, and what to do.\n"
		     "A result is untrusted (exit 7) when a flag says so; information flags\n"
		     "change nothing.  A sweep exits %d when any row is not ok (its closing\n"
		     "line counts the rows by status).\n", T32_EXIT_ROWS);
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		fprintf(out, "\n%s:\n", kinds[k].title);
		for (const struct t32_flag_help *f = t32_flag_help; f->name; f++) {
			if (strcmp(f->kind, kinds[k].kind))
				continue;
			fprintf(out, "  %-11s ", f->name);
			fold(out, f->meaning, 14, 14, 79);
			fprintf(out, "%14sTo do: ", "");
			fold(out, f->todo, 14, 21, 79);
		}
	}
}

void t32_flags_list(FILE *out)
{
	for (const struct t32_flag_help *f = t32_flag_help; f->name; f++)
		fprintf(out, "%s\t%s\t%s\t%s\n", f->name, f->kind, f->meaning, f->todo);
}
