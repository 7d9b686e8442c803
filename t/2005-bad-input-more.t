#!/bin/sh
# Bad input in every command, as a hostile or careless user gives it: instruction
# text that is not instructions, numbers that are not decimal, files without
# newlines or without end, empty tables.  Each case: the exit code, and a message
# that names the problem.
. "$(dirname "$0")/lib-tap.sh"
plan 150

export T32_DATADIR="$T32_SRC/data"
cd "$TMP" || exit 1


REFUSED='\(preprocessor directives are refused; --raw-nasm allows them\)'
DIRECTIVE='\(assembler directives are refused; --raw-nasm allows them\)'

# ---- files the cases read ----
{ printf '# source: nowhere\n# applies to: nothing\n\n# only comments\n' >comments.tbl &&
	: >empty.tbl &&
	printf 'ok | nop\nevil | nop; incbin "/etc/passwd"\n' >incbin.tbl &&
	printf 'ok | nop | tp=add {r}, 1; %%define X 1\n' >tp.tbl &&
	printf 'ok | nop\rbits 16\n' >cr.tbl &&
	printf 'ok | nop | lat=0x3\n' >hexlat.tbl &&
	printf '# a block\n1 nop; [map all %s/leak.map]\n' "$TMP" >evil.blk &&
	printf '# a block\n10 nop\n1 section .data\n' >section.blk &&
	ln -s /dev/zero zero.blk &&
	mkdir dir.blk dir.tbl &&
	awk 'BEGIN { for (i = 0; i < 200000; i++) print "#" }' >lines.blk &&
	awk 'BEGIN { for (i = 0; i < 600; i++) printf "x"; }' >long.lat &&
	awk 'BEGIN { for (i = 0; i < 1100000; i++) printf "1\t2\t"; }' >nonl.tsv; } ||
	bail "cannot write the input files in $TMP"

# ---- the classic form ----
expect 2 "^t32: not an instruction '%include' $REFUSED" "classic: %include" \
	-- l m 10 'nop; %include "/dev/zero"'
expect 2 "^t32: not an instruction '\\\\r' \(control bytes are refused" "classic: a carriage return" \
	-- l m 10 "$(printf 'nop\r%%include "x"')"
expect 2 "^t32: not an instruction '\\\\x1b' \(control bytes" "classic: an escape byte" \
	-- l m 10 "$(printf 'nop\033[2J')"
expect 2 "^t32: not an instruction '\\\\' \(a trailing backslash" "classic: a trailing backslash" \
	-- l m 10 'nop \'
expect 2 "^t32: bad count '0x10' \(1 to 4294967295" "classic: a hex count" -- l m 0x10 nop
run l m 010 nop
is 0 "$rc" "classic: COUNT 010 runs"
is 10 "$(wc -l <"$TMP/out")" "classic: COUNT 010 is ten measurements, not eight"
run l m 08 nop
is 8 "$(wc -l <"$TMP/out")" "classic: COUNT 08 is eight, not an error"

# ---- time ----
expect 2 "^t32: not an instruction 'section' $DIRECTIVE" "time: section .data" \
	-- time l m 2000 'nop; section .data'
expect 2 "^t32: not an instruction '%define' $REFUSED" "time: %define" \
	-- time l m auto '%define rdtsc lfence' rdtsc
expect 2 "^t32: not an instruction '%' \(the % operator is refused" "time: the % operator" \
	-- time l m 10 'mov eax, 7 % 3'
expect 2 "^t32: not an instruction 'align' \(align takes a power of two up to 4096" "time: align 8192" \
	-- time l m 10 'align 8192'
expect 2 "^t32: bad value for rcx 'banana'" "time: a bad --init value" \
	-- time --init rcx=banana l m 10 nop
expect 2 "^t32: bad time limit '0x5'" "time: --timeout 0x5" -- time --timeout 0x5 l m 10 nop
expect 2 "^t32: bad precision 'inf'" "time: --precision inf" -- time --precision inf l m auto nop
expect 2 "^t32: bad budget 'nan'" "time: --budget nan" -- time --budget nan l m auto nop
expect 1 "^t32: cannot assemble 'nop; %include \"/dev/zero\"' \(nasm did not finish within 1 s" \
	"time --raw-nasm: nasm reading forever is killed" \
	-- time --raw-nasm --timeout 1 l m 10 'nop; %include "/dev/zero"'

# ---- sweep ----
expect 2 "^t32: too many n values '0..1000000' \(at most 10000" "sweep: --n 0..1000000" \
	-- sweep --n 0..1000000 l m nop
expect 2 "^t32: bad n list '0x10'" "sweep: --n 0x10" -- sweep --n 0x10 l m nop
expect 2 "^t32: empty table 'empty.tbl' \(no forms" "sweep: an empty table" -- sweep --n 1 empty.tbl
expect 2 "^t32: empty table 'comments.tbl' \(no forms" "sweep: a comments-only table" \
	-- sweep --n 1 comments.tbl
expect 2 "^t32: bad line 2 in 'incbin.tbl' \(not an instruction 'incbin': assembler directives" \
	"sweep: incbin in a table" -- sweep --n 1 incbin.tbl
expect 2 "^t32: bad line 1 in 'tp.tbl' \(not an instruction '%define'" "sweep: %define in tp=" \
	-- sweep --n 1 tp.tbl
expect 2 "^t32: bad line 1 in 'cr.tbl' \(not an instruction '\\\\r'" "sweep: a carriage return in a table" \
	-- sweep --n 1 cr.tbl
expect 2 "^t32: bad line 1 in 'hexlat.tbl' \(bad latency '0x3'" "sweep: lat=0x3 in a table" \
	-- sweep --n 1 hexlat.tbl
expect 2 "^t32: not a text file '/dev/zero'" "sweep: /dev/zero as a table" -- sweep --n 1 /dev/zero
expect 1 "^t32: cannot read table 'dir.tbl' \(Is a directory\)" "sweep: a directory as a table" \
	-- sweep --n 1 dir.tbl
expect 2 "^t32: not an instruction 'incbin'" "sweep: incbin in a spec" \
	-- sweep --n 1,2 l m 'incbin "/etc/passwd"'

# ---- sample ----
expect 2 "^t32: not an instruction 'incbin' $DIRECTIVE" "sample: incbin" \
	-- sample 'nop; incbin "/etc/passwd"'
expect 2 "^t32: evil.blk:2: not an instruction '\[map' \(directives in brackets" "sample: [map] in a block file" \
	-- sample evil.blk
expect 2 "^t32: bad duration '0x2'" "sample: --seconds 0x2" -- sample --seconds 0x2 nop
expect 2 "^t32: zero.blk:1: a NUL byte \(not a text file\)" "sample: /dev/zero as a block file" \
	-- sample zero.blk
expect 1 "^t32: cannot read block file 'dir.blk' \(Is a directory\)" "sample: a directory as a block file" \
	-- sample dir.blk

# ---- model: runs nasm, never the code ----
expect 2 "^t32: not an instruction '\[map' \(directives in brackets" "model: [map all FILE]" \
	-- model "nop; [map all $TMP/leak.map]"
[ ! -e "$TMP/leak.map" ]
ok $? "model: and no map file is written"
expect 2 "^t32: section.blk:3: not an instruction 'section'" "model: section in a block file" \
	-- model section.blk
expect 2 "^t32: not an instruction '__\?SECT\?__' \(NASM's own" "model: __?SECT?__" -- model '__?SECT?__'
expect 1 "^t32: /dev/zero:1: a NUL byte \(not a text file\)" "model: --lat /dev/zero" \
	-- model --lat /dev/zero nop
expect 1 "^t32: long.lat:1: line too long" "model: a .lat without newlines" -- model --lat long.lat nop
expect 1 "^t32: /dev/zero:1: a NUL byte" "model: --uarch /dev/zero" -- model --uarch /dev/zero nop
expect 1 "^t32: a NUL byte in line 1 of '/dev/zero'" "model: --lat-from /dev/zero" \
	-- model --lat-from /dev/zero
expect 2 "^t32: lines.blk:100001: more than 100000 lines" "model: an endless block file" \
	-- model lines.blk
expect 2 "^t32: bad skid '0x1' \(--skid takes 0 to 1\)" "model: --skid 0x1" -- model --skid 0x1 nop

# ---- fit ----
expect 1 "^t32: a NUL byte in line 1 of '/dev/zero'" "fit: /dev/zero" -- fit /dev/zero
expect 1 "^t32: line 1 of 'nonl.tsv' is longer than" "fit: a file without newlines" -- fit nonl.tsv

# ---- correlate ----
expect 2 "^t32: not an instruction '%error' $REFUSED" "correlate: %error %!HOME" \
	-- correlate 'nop; %error %!HOME'
expect 2 "^t32: evil.blk:2: not an instruction '\[map'" "correlate: [map] in a block file" \
	-- correlate evil.blk
expect 2 "^t32: bad kmax '0x10' \(--kmax takes 2 to 1000\)" "correlate: --kmax 0x10" -- correlate --kmax 0x10 nop

# ---- gen, gen --elf ----
expect 2 "^t32: not an instruction 'incbin' $DIRECTIVE" "gen: incbin" -- gen l m 'incbin "/etc/passwd"'
expect 2 "^t32: not an instruction 'incbin'" "gen --elf: incbin" \
	-- gen --elf -o "$TMP/out.elf" l m 'nop; incbin "/etc/passwd"'
[ ! -e "$TMP/out.elf" ]
ok $? "gen --elf: and no program is written"
expect 2 "^t32: not an instruction '%error' $REFUSED" "gen: %error %!HOME" -- gen l m '%error %!HOME'
expect 2 "^t32: not an instruction 'org' $DIRECTIVE" "gen: org" -- gen l m 'org 0x1000'
expect 2 "^t32: not an instruction 'BITS' $DIRECTIVE" "gen: BITS 16, any case" -- gen l m 'BITS 16'
run gen --raw-nasm l m 'nop; %define X 1'
is 0 "$rc" "gen --raw-nasm: a %define is allowed"
run gen l m 010 nop
like "$TMP/out" "^	times 10 nop$" "gen: a repeat count 010 is ten"
run gen --loop --unroll 08 l m nop
is 0 "$rc" "gen: --unroll 08 is accepted"
like "$TMP/out" "^%rep 7$" "gen: --unroll 08 is eight copies (seven more)"

# ---- env ----
expect 2 "^t32: bad cpu number '0x1'" "env: --cpu 0x1" -- env --cpu 0x1
expect 2 "^t32: unknown format 'yaml'" "env: --format yaml" -- env --format yaml

# ---- study, bench ----
expect 2 "^t32: unknown recipe 'nosuch'" "study: an unknown recipe" -- study -o "$TMP/r" nosuch
expect 2 "^t32: unknown profile 'huge'" "study: an unknown profile" -- study --profile huge
expect 2 "^t32: unknown bench 'nosuch'" "bench: an unknown bench" -- bench nosuch

# ---- a trap names the body's trap, not the harness instruction after it ----
expect 1 "^t32: instruction faulted 'int3' \(SIGTRAP" "int3" -- l m 10 int3
expect 1 "^t32: instruction faulted 'int 3' \(SIGTRAP" "int 3" -- l m 10 'int 3'
expect 1 "^t32: instruction faulted 'nop; int3' \(SIGTRAP: .*, at int3\)" "int3 after a nop" -- l m 10 'nop; int3'

# a path is a block file, whatever its name: never instruction text for nasm
expect 2 "^t32: /dev/null: no instructions in the block" "model /dev/null" -- model /dev/null
expect 1 "^t32: cannot read block file '/nonexistent/b' \(No such file" "a path that is not there" -- sample /nonexistent/b
# a fault outside the body is named for what it is, never 'block' (with its
# saved registers zeroed the harness's own code faults, or makes a call the
# policy refuses, as where the values land in registers has it)
zero='mov qword [rsp], 0; mov qword [rsp+8], 0; mov qword [rsp+16], 0; mov qword [rsp+24], 0; mov qword [rsp+32], 0; mov qword [rsp+40], 0'
expect 1 "^t32: the harness faulted after the body 'l m 1 'mov qword \[rsp\], 0; .*'' \(SIG(SEGV|SYS): .* in t32's own code" \
	"a body that zeroes the registers the harness saved" -- l m 3 "$zero"
expect 1 "^t32: the body left the block 'l m 1 'mov rax, 0; jmp rax'' \(SIGSEGV: .* at 0x0, where there is no code" \
	"a body that jumps out" -- l m 3 'mov rax, 0; jmp rax'
# a long message keeps its reason: the subject is cut in the middle
long=$(printf 'nop; %.0s' $(seq 600))
expect 1 "^t32: instruction faulted 'nop; nop; .* \.\.\. .*nop; mov eax, 2; syscall' \(SIGSYS: a system call, which a block may not make, at syscall\)$" \
	"a 3,000-byte body's system call" -- l m 3 "${long}mov eax, 2; syscall"
run sweep --n 1 -o "$TMP/long.tsv" l m "${long}mov eax, 2; syscall"
like "$TMP/long.tsv" "	fault		instruction faulted .*\(SIGSYS: a system call, which a block may not make, at syscall\)$" \
	"and so does its sweep row's reason"
# --lat-from reads a table's sweep: a spec's sweep names no table
run sweep --n 1 -o "$TMP/spec.tsv" l m 'inc eax'
expect 1 "^t32: not a sweep of a table '.*spec.tsv' \(--lat-from reads the latency rows of a table's sweep" \
	"--lat-from on a spec's sweep" -- model --lat-from "$TMP/spec.tsv"

# contradictory input is refused, naming both: which of the two was meant?
cp "$T32_SRC/data/uarch/zen4.uarch" "$TMP/two.uarch"
echo 'retire_width = 4' >>"$TMP/two.uarch"
expect 1 "two.uarch:[0-9]+: key given twice 'retire_width' \(first at line [0-9]+\)" "a .uarch key twice" \
	-- model --uarch "$TMP/two.uarch" nop
{ cat "$T32_SRC/data/uarch/latency.lat"; echo 'imul r64, r64 | mul | 1'; } >"$TMP/two.lat"
expect 1 "two.lat:[0-9]+: form given twice 'imul r64, r64' \(first at line [0-9]+\)" "a .lat form twice" \
	-- model --lat "$TMP/two.lat" nop
expect 2 "^t32: register set twice 'rax' \(0x1, then 0x2\)" "--init naming a register twice" \
	-- gen --init rax=1,rax=2 l m nop
expect 2 "^t32: register set twice 'rcx' \(0x7, then 0x0\)" "two --init for one register" \
	-- --init rcx=7 --init rdx=0,rcx=0 l m 1 'div rcx'
printf 'two | div rcx | init=rdx=0,rdx=1\n' >"$TMP/two.tbl"
expect 2 "register set twice 'rdx'" "a table's init= naming a register twice" \
	-- sweep --n 1 --mode latency -o "$TMP/two.tsv" "$TMP/two.tbl"
awk -F'\t' 'BEGIN {OFS = "\t"} /^#/ || $1 == "row" {print; next} {$4 = -$4; print}' "$TMP/spec.tsv" >"$TMP/neg.tsv"
expect 1 "^t32: not a count of copies '-1' in '.*neg.tsv' \(line [0-9]+, column n\)" "a negative n for fit" \
	-- fit "$TMP/neg.tsv"
expect 2 "^t32: unknown micro-architecture 'bogus'" "table gen --uarch bogus" -- table gen --uarch bogus --only add
done_testing
