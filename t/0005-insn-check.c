/*
 * 0005-insn-check.c - instruction text is instructions: what a body, a table
 * field and a block line may hold, what is refused and with which word, and what
 * --raw-nasm lets through.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "t/tap.h"
#include "t32/sample/attrib.h"
#include "t32/spec.h"
#include "t32/io/table.h"

/* Text a body may hold. */
static const char *const good[] = {
	"nop",
	"add eax, 1",
	"mov rax, [rax]; nop; nop",
	"lock add [rax], eax",
	"times 3 nop",
	"x: jmp x",
	".l: dec ecx; jnz .l",
	"db 0x90; dw 1; dd 2; dq 3",
	"align 64",
	"align 16, nop",
	"vpaddd zmm0{k1}{z}, zmm1, zmm2",
	"imul rax, rax\t; nop",
	"mov eax, 'a'",
	"jmp $",
};

/* Text refused, and the word the message names. */
struct refusal {
	const char *text, *word;
};

/* Refused by default. */
static const struct refusal bad[] = {
	{ "nop; %include \"/dev/zero\"", "%include" },
	{ "%define rdtsc lfence", "%define" },
	{ "%error %!HOME", "%error" },
	{ "db %!HOME", "%!HOME" },
	{ "mov eax, 7 % 3", "%" },
	{ "incbin \"/etc/passwd\"", "incbin" },
	{ "nop; [map all x.map]", "[map" },
	{ "l1: [warning -all]", "[warning" },
	{ "nop; section .data", "section" },
	{ "SEGMENT .bss", "SEGMENT" },
	{ "org 0x1000", "org" },
	{ "bits 16", "bits" },
	{ "use32", "use32" },
	{ "default abs", "default" },
	{ "extern printf", "extern" },
	{ "global x", "global" },
	{ "times 2 incbin \"f\"", "incbin" },
	{ "align 8192", "align" },
	{ "align 3", "align" },
	{ "alignb 16", "alignb" },
	{ "__?SECT?__", "__?SECT?__" },
	{ "struc x", "struc" },
	{ "absolute 0", "absolute" },
};

/* Refused even with --raw-nasm: they break the generated lines themselves. */
static const struct refusal never[] = {
	{ "nop\r%include \"x\"", "\\r" },
	{ "nop\nnop", "\\n" },
	{ "nop\033[2J", "\\x1b" },
	{ "nop \\", "\\" },
};

/* Write text to a fresh temporary file with the given suffix; the path into path. */
static void temp_file(const char *text, const char *suffix, char *path, size_t len)
{
	FILE *f;

	snprintf(path, len, "%s/t32-0005-%d%s", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
		 (int)getpid(), suffix);
	f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f))
		bail("cannot write '%s' (%s)", path, strerror(errno));
}

int main(void)
{
	const size_t ngood = sizeof(good) / sizeof(good[0]);
	const size_t nbad = sizeof(bad) / sizeof(bad[0]);
	const size_t nnever = sizeof(never) / sizeof(never[0]);
	struct t32_spec s;
	struct t32_table t;
	struct t32_blockfile bf;
	char word[64], err[1024], path[256];
	const char *why;

	plan((int)(ngood + 2 * nbad + 2 * nnever + nbad + 11));
	for (size_t i = 0; i < ngood; i++)
		is_int(0, t32_insn_check(good[i], word, sizeof(word), &why), "accepted: %s", good[i]);
	for (size_t i = 0; i < nbad; i++) {
		word[0] = 0;
		is_int(-1, t32_insn_check(bad[i].text, word, sizeof(word), &why), "refused: %s",
		       bad[i].text);
		is_string(bad[i].word, word, "  naming '%s'", bad[i].word);
	}
	for (size_t i = 0; i < nnever; i++) {
		word[0] = 0;
		is_int(-1, t32_insn_check(never[i].text, word, sizeof(word), &why),
		       "refused: control or continuation %zu", i);
		is_string(never[i].word, word, "  naming '%s', escaped", never[i].word);
	}

	/* the spec item: every body passes through it */
	memset(&s, 0, sizeof(s));
	is_int(-1, t32_spec_add_item(&s, 1, "incbin \"/etc/passwd\""), "add_item refuses incbin");
	is_int(0, (long long)s.nitems, "and adds nothing");
	{
		char *argv[] = { "1", "nop; %include \"/dev/zero\"" };

		is_int(-1, t32_spec_parse_body(&s, 2, argv, err, sizeof(err)), "a body refuses %%include");
		is_string("not an instruction '%include' (preprocessor directives are refused; "
			  "--raw-nasm allows them)", err, "with the word and the option");
	}

	/* a table and a block file from someone else */
	is_int(-2, t32_table_parse("ok | nop\nevil | nop; incbin \"/etc/passwd\"\n", "x.tbl", &t, err,
				   sizeof(err)), "a table field refuses incbin");
	ok(strstr(err, "line 2") && strstr(err, "'incbin'"), "naming the line and word: %s", err);
	is_int(-2, t32_table_parse("evil | nop | tp=add {r}, 1; %include \"x\"\n", "x.tbl", &t, err,
				   sizeof(err)), "a tp template refuses %%include");
	temp_file("# evil\n10 nop\n1 nop; [map all /tmp/x.map]\n", ".blk", path, sizeof(path));
	memset(&s, 0, sizeof(s));
	is_int(-1, t32_blockfile_load(path, &s, &bf, err, sizeof(err)), "a block line refuses [map]");
	ok(strstr(err, ":3: not an instruction '[map'") != NULL, "naming the line and word: %s", err);
	t32_spec_free(&s);

	/* --raw-nasm lets directives through, never control bytes */
	t32_spec_allow_raw_nasm(1);
	for (size_t i = 0; i < nbad; i++)
		is_int(0, t32_insn_check(bad[i].text, word, sizeof(word), &why), "raw: %s",
		       bad[i].text);
	memset(&s, 0, sizeof(s));
	is_int(0, t32_blockfile_load(path, &s, &bf, err, sizeof(err)), "raw: the block file loads");
	t32_spec_free(&s);
	unlink(path);
	is_int(-1, t32_insn_check("nop\r%include \"x\"", word, sizeof(word), &why),
	       "raw: a \\r is still refused");
	t32_spec_allow_raw_nasm(0);
	return done_testing();
}
