#!/bin/sh
# t32.1.sh T32 - write the manual page t32(1) on stdout, its command list, options,
# tables, blocks, sweep columns, flags and exit codes taken from the binary T32 itself
# (t32 --list ..., t32 help COMMAND), so a new command appears without editing
# this script.  `make` writes build/t32.1; `make install` installs it.
set -e
T32=${1:?usage: t32.1.sh PATH-TO-T32}

# lines of help folded to fit 78 columns (the page indents them up to 12 more): a long
# line breaks at a blank, its rest indented as the line was and two more (an
# option's, under its description)
wrap() {
	awk -v w=66 '
	length($0) <= w { print; next }
	{
		match($0, /^ */); ind = substr($0, 1, RLENGTH) "  "; line = $0
		# an option line ("  --n LIST   what it does"): the rest under its description
		rest = substr($0, RLENGTH + 1)
		if (substr(rest, 1, 1) == "-" && (k = index(rest, "  ")) > 0) {
			d = RLENGTH + k + 1
			while (substr($0, d, 1) == " ")
				d++
			if (d < w - 20)
				ind = sprintf("%*s", d - 1, "")
		}
		while (length(line) > w) {
			cut = 0
			for (i = w + 1; i > length(ind); i--)
				if (substr(line, i, 1) == " ") { cut = i; break }
			if (!cut) break
			print substr(line, 1, cut - 1)
			rest = substr(line, cut + 1); sub(/^ +/, "", rest); line = ind rest
		}
		print line
	}'
}
# roff-safe text: backslashes doubled as \e, a leading . or ' escaped
esc() { sed -e 's/\\/\\e/g' -e "s/^\\([.']\\)/\\\\\\&\\1/"; }

version=$("$T32" --version | sed 's/^t32 \([^ ]*\).*/\1/')
# the page's date: the source's commit date where there is one (reproducible), else today
date=$(git -C "$(dirname "$0")" log -1 --format=%cs 2>/dev/null || date +%Y-%m-%d)

cat <<EOF
.TH T32 1 "$date" "t32 $version" "User Commands"
.SH NAME
t32 \\- time short x86\\-64 instruction sequences and explain the numbers
.SH SYNOPSIS
.B t32
[\\fIOPTIONS\\fR] \\fIBARRIER STORE COUNT\\fR [\\fIN\\fR] \\fIINSN\\fR [[\\fIN\\fR] \\fIINSN\\fR]...
.br
.B t32
\\fICOMMAND\\fR [\\fIARGS\\fR]...
.br
.B t32 help
\\fICOMMAND\\fR
.SH DESCRIPTION
t32 puts \\fIn\\fR copies of an instruction between serialising barriers, reads the
time-stamp counter before and after, repeats that many times, keeps the minimum and
subtracts the cost of the barriers alone: the method of t32, the timing tool of a
university study of instruction timing.  It estimates below the TSC's step, converts
ticks into core cycles with a calibration chain measured beside each block, sweeps
blocks over \\fIn\\fR, samples where timer interrupts land in a block, and fits one
retirement model to both.  It needs no hardware performance counters, so it runs in
virtual machines and under perf_event_paranoid 2.
.PP
Results for programs are TSV with \\fB#\\fR provenance lines on top (or JSON with a
\\fBprovenance\\fR object); tables for people are the default.  Errors go to
standard error as \\fBt32: \\fR\\fIwhat\\fR \\fB'\\fR\\fIsubject\\fR\\fB'\\fR (\\fIdetail\\fR).
.SH THE CLASSIC FORM
EOF
"$T32" --help | sed -n '/^The classic form/,/^Commands:/p' | sed '$d' | wrap | { echo '.nf'; esc; echo '.fi'; }

echo '.SH COMMANDS'
printf '%s\n' 'Each command also answers \fBt32 help\fR \fICOMMAND\fR and \fB\-\-help\fR with the text below.'
"$T32" --list commands | while IFS='	' read -r name summary; do
	printf '.SS %s\n' "$name"
	printf '%s.\n' "$summary" | esc
	echo '.PP'
	echo '.nf'
	"$T32" help "$name" | wrap | esc
	echo '.fi'
done

cat <<'EOF'
.SH FILES
.TP
.B Results (TSV)
Lines starting with \fB#\fR first: \fBtool\fR (version and commit), \fBcommand\fR (the
whole command line), \fBcpu\fR (brand, family, model, hypervisor), \fBcore\fR (the
micro-architecture CPUID names and the data the model uses), \fBdate\fR, and where
cycles are reported \fBtsc\fR (rate, step) and \fBcalibration\fR (core cycles per tick);
then a header row of column names that carry their unit, then rows.  A tab, newline,
carriage return or backslash inside a field is written \fB\et\fR, \fB\en\fR, \fB\er\fR,
\fB\e\e\fR.
.TP
.B Sweeps
Add a \fB# sweep:\fR line (everything that decides a row's value; \fB\-\-resume\fR and
\fB\-\-merge\fR check it) and, when sharded, \fB# shard: K/N\fR.  The columns:
.RS
.nf
EOF
"$T32" --list sweep-columns | tr '\t' ' ' | wrap | esc
cat <<'EOF'
.fi
.RE
\fBper_insn\fR, \fBci_lo\fR, \fBci_hi\fR: the estimate per instruction and its 95%
interval; \fBtotal\fR: the whole block over the barrier; \fBmin_per_insn\fR: the
study's (min \- min) / n; \fBcycles_per_tick\fR: the row's own calibration (empty in
ticks); \fBexpected\fR: the table's value.  Older files' \fBestimate\fR, \fBmin_est\fR,
\fBmedian_est\fR are read by the new names.
.TP
.B JSON
\fB\-\-format=json\fR where a command offers it: one object, its \fBprovenance\fR
first; \fBnull\fR where a quantity does not exist (no calibration, an interval that
never closed).
.TP
.B Raw deltas
\fBt32 time \-\-raw FILE\fR: \fBround block ticks\fR, one delta a line.
.TP
.B Instruction tables (\fI*.tbl\fB)
One form a line, \fIname\fR | \fINASM text\fR | \fIkey\fR=\fIvalue\fR... (\fBlat=\fR,
\fBrtp=\fR, \fBinit=\fR, \fBtp=\fR), with \fB# source:\fR and \fB# applies to:\fR lines.
Installed:
.RS
.nf
EOF
"$T32" --list tables | sed 's|.*/||' | esc
cat <<'EOF'
.fi
.RE
.TP
.B Block files (\fI*.blk\fB)
\fB#\fR comments (\fB# source:\fR, \fB# expect:\fR), \fBinit\fR, \fBbarrier\fR and
\fBunroll\fR lines, then body lines \fB[\fIN\fB] \fIINSN\fR[\fB;\fR \fIINSN\fR]....
A block is named by its file name without \fB.blk\fR:
.RS
.nf
EOF
"$T32" --list blocks | esc
cat <<'EOF'
.fi
.RE
.TP
.B Micro-architectures (\fIdata/uarch/*.uarch\fB, \fIlatency.lat\fB)
\fIkey\fR = \fIvalue\fR lines with \fB# source:\fR lines; per-form latencies and classes.
.TP
.B Report directory
\fBt32 study \-o DIR\fR (\fBmake report\fR): the TSVs, the figures (SVG and PNG),
\fBenv.json\fR (the machine) and \fBindex.html\fR, all regenerated by \fBt32 study\fR.
.PP
Every file t32 writes appears whole or not at all: written beside its name and renamed
into place.
.SH ENVIRONMENT
.TP
.B T32_DATADIR
where tables, blocks and micro-architecture data are (default: \fB../data\fR beside the
binary, else the installed share/t32).
.TP
.B T32_PLOTDIR
where the gnuplot scripts are (default: \fBplots\fR beside the data).
.TP
.B T32_CACHE_DIR
where latencies measured for the model are kept, per CPU and core type (default
\fB$XDG_CACHE_HOME/t32\fR, else \fB~/.cache/t32\fR; \fB\-\-cache\fR wins).
.TP
.B T32_CPUID_FILE
for tests: answer every CPUID question from this dump (an AIDA64 CPUID dump, as
InstLatX64 publishes them; doc/internals.md, \(lqIntel and hybrid parts\(rq), CPU \fIN\fR
from its \fBLogical CPU #\fIN\fR section, so the choice of core and data, hybrid
parts included, can be tried for CPUs that are not here; measurements still run on
this machine.
.TP
.B T32_NASM
the nasm to run (a name is looked up on \fBPATH\fR once; default \fBnasm\fR).
.TP
.B T32_ONE_BY_ONE
set to 1: each block assembled alone when it is asked for and each placement in a
new measuring process, as t32 once worked, to compare a sweep's time with
(doc/sweeps.md, \(lqSpeed\(rq).
.TP
.B TMPDIR
where nasm's input and output go while it runs (default \fB/tmp\fR).
.SH FLAGS AND STATUSES
What a result's flags and statuses mean and what to do about each
(\fBt32 help flags\fR prints the same).  A flag that makes a result untrusted
gives exit 7; a sweep whose rows are not all \fBok\fR exits 5.
EOF
"$T32" --list flags | while IFS='	' read -r name kind meaning todo; do
	printf '.TP\n.B %s\n' "$name"
	printf '(%s) %s.\n' "$kind" "$meaning" | esc
	echo '.br'
	printf 'To do: %s.\n' "$todo" | esc
done
cat <<'EOF'
.SH EXIT STATUS
EOF
"$T32" --list exit-codes | while IFS='	' read -r code meaning; do
	printf '.TP\n.B %s\n' "$code"
	printf '%s\n' "$meaning" | esc
done
cat <<'EOF'
.SH EXAMPLES
.nf
t32 mx m 10 1000 'inc eax'
t32 time l m auto 1000 'imul rax, rax'
t32 sweep \-\-n 100,1000,10000,100000 \-o table.tsv data/coursework.tbl
t32 fit table.tsv
t32 sample load\-nop10
t32 correlate load\-nop10
t32 study \-o report
.fi
.SH SEE ALSO
.BR perf (1),
.BR nasm (1),
.BR gnuplot (1);
README.md and doc/*.md in the source (doc/formats.md: the files t32 reads and writes).
EOF
