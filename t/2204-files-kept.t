#!/bin/sh
# No run loses a file: Ctrl-C keeps an existing sweep output and leaves the new
# rows beside it; --resume refuses a file measured on another CPU, as --merge
# does; SIGHUP is SIGTERM; what a killed run left is named by the next; a file
# a rename would lose (hard links, another owner, a directory that refuses new
# files) is written in place; a symbolic link stays and the file it names is
# written, created when missing.
. "$(dirname "$0")/lib-tap.sh"
plan 29

D=$TMP/d
mkdir -p "$D"
cd "$D" || exit 1

# stopped SIGNAL ARGS...: t32 ARGS in the background, SIGNAL after a second;
# its exit status in $rc
stopped() {
	sig=$1
	shift
	"$T32" "$@" >"$TMP/out" 2>"$TMP/err" &
	pid=$!
	sleep 1
	kill "-$sig" "$pid"
	wait "$pid" 2>/dev/null
	rc=$?
}
# rows that run their whole budget (no precision to stop on): the signal comes in the middle
SLOW='--budget 0.2 --precision 0 --block-precision 0'

# ---- Ctrl-C on a sweep into an existing file ----
run sweep --n 1..12 --budget 0.02 -o a.tsv l m nop
swept "a whole sweep written"
cksum <a.tsv >"$TMP/sum"
stopped INT sweep --n 1..12 $SLOW -o a.tsv l m nop
is 130 "$rc" "Ctrl-C: exit 130"
is "$(cat "$TMP/sum")" "$(cksum <a.tsv)" "the existing file is left as it was"
like "$TMP/err" "^t32: interrupted: [0-9]+ rows written to 'a.tsv.partial', 'a.tsv' is left as it was; finish them with --resume -o a.tsv.partial" \
	"the new rows are named beside it"
n=$(grep -c '^[0-9]' a.tsv.partial)
ok "$([ "$n" -ge 1 ] && [ "$n" -lt 12 ] && echo 0 || echo 1)" "and hold what was measured ($n rows)"
run sweep --n 1..12 $SLOW --resume -o a.tsv.partial l m nop
swept "they resume into a whole sweep"
is 12 "$(grep -c '^[0-9]' a.tsv.partial)" "of every row"

# ---- SIGHUP is SIGTERM ----
stopped HUP sweep --n 1..40 $SLOW -o h.tsv l m nop
is 130 "$rc" "SIGHUP stops a sweep as Ctrl-C does (exit 130)"
n=$(grep -c '^[0-9]' h.tsv)
ok "$([ "$n" -ge 1 ] && echo 0 || echo 1)" "its rows are kept ($n)"
# a command with no handler of its own: its temporary files go with it
stopped HUP table gen -o g.tbl
ls -A >"$TMP/ls"
if grep -q '^\.g\.tbl\.t32-' "$TMP/ls" || grep -q '^g\.tbl$' "$TMP/ls"; then
	ok 1 "SIGHUP during table gen leaves nothing behind"
else
	ok 0 "SIGHUP during table gen leaves nothing behind"
fi

# ---- what a killed run left, named by the next ----
printf 'half a file' >.s.asm.t32-AbC123
run gen -o s.asm l m nop
is 0 "$rc" "an output beside a killed run's temporary file is written"
like "$TMP/err" "^t32: warning: '\.s\.asm\.t32-AbC123' was left by a t32 that was killed while writing 's\.asm'" \
	"and the left file is named"
is "half a file" "$(cat .s.asm.t32-AbC123)" "not removed: it may hold what was measured"
printf 'rows' >.n.tsv.t32-XyZ789
run sweep --n 1 --budget 0.02 -o n.tsv l m nop
like "$TMP/err" "^t32: warning: '\.n\.tsv\.t32-XyZ789' was left by a t32 that was killed while writing 'n\.tsv'" \
	"a sweep names one too, into a new file or an old one"
# a temporary file another t32 is writing (it holds the lock) is not named
flock .s.asm.t32-AbC123 sleep 3 &
holder=$!
sleep 0.3
run gen -o s.asm l m nop
if grep -q 'AbC123' "$TMP/err"; then ok 1 "a live run's file is not named"; else ok 0 "a live run's file is not named"; fi
kill "$holder" 2>/dev/null
rm -f .s.asm.t32-AbC123

# ---- --resume on another CPU ----
run sweep --n 1..4 --budget 0.02 -o c.tsv l m nop
sed -e 's/^\(# cpu: .*stepping \)[0-9]*/\1999/' -e '/^3	/,$d' c.tsv >other.tsv
run sweep --n 1..4 --budget 0.02 --resume -o other.tsv l m nop
is 1 "$rc" "--resume refuses a file measured on another CPU"
like "$TMP/err" "^t32: 'other.tsv' was measured on another CPU \(.*stepping 999.* there, .* here\); --allow-mixed-cpus resumes it anyway" \
	"naming both"
run sweep --n 1..4 --budget 0.02 --resume --allow-mixed-cpus -o other.tsv l m nop
swept "--allow-mixed-cpus resumes it"
is 2 "$(grep -c '^# cpu:' other.tsv)" "and the file names both CPUs"
run sweep --merge -o m.tsv other.tsv
is 1 "$rc" "so that --merge refuses it as it refuses mixed shards"

# ---- in place where a rename would lose something ----
printf 'old\n' >h1
ln h1 h2
run gen -o h1 l m nop
is "$(head -1 h1)" "$(head -1 h2)" "a file with another hard link is written in place: both names see it"
printf 'old\n' >own
chown 65534 own 2>/dev/null
if [ "$(stat -c %u own)" = 65534 ]; then
	run gen -o own l m nop
	is "65534 ; t32 block: l m 1 'nop'" "$(stat -c %u own) $(head -1 own)" "a file of another owner keeps its owner"
else
	skip "cannot give a file to another owner here"
fi
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1 &&
	setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null; then
	as="setpriv --reuid=65534 --regid=65534 --clear-groups"
	mkdir ro && printf 'old\n' >ro/x.asm && chown 65534 ro/x.asm && chmod 755 ro && chmod 755 "$TMP" "$D"
	$as "$T32" gen -o ro/x.asm l m nop >"$TMP/out" 2>"$TMP/err"
	rc=$?
	is "0 ; t32 block: l m 1 'nop'" "$rc $(head -1 ro/x.asm)" "a writable file in a directory that refuses new files is written in place"
	chmod 755 "$TMP/d"
	$as env TMPDIR="$TMP/nowhere" "$T32" gen -o ro/x.asm l m 'add eax, 1' >"$TMP/out" 2>"$TMP/err"
	rc=$?
	is "1 ; t32 block: l m 1 'nop'" "$rc $(head -1 ro/x.asm)" "a failure before copying leaves the old file whole"
elif [ "$(id -u)" != 0 ]; then
	mkdir ro && printf 'old\n' >ro/x.asm && chmod 555 ro
	run gen -o ro/x.asm l m nop
	is "0 ; t32 block: l m 1 'nop'" "$rc $(head -1 ro/x.asm)" "a writable file in a directory that refuses new files is written in place"
	TMPDIR="$TMP/nowhere" "$T32" gen -o ro/x.asm l m 'add eax, 1' >"$TMP/out" 2>"$TMP/err"
	is "1 ; t32 block: l m 1 'nop'" "$? $(head -1 ro/x.asm)" "a failure before copying leaves the old file whole"
	chmod 755 ro
else
	skip "root, and no setpriv to run as nobody"
	skip "root, and no setpriv to run as nobody"
fi

# ---- symbolic links ----
mkdir real
ln -s real/l.asm link.asm
run gen -o link.asm l m nop
ok "$([ -L link.asm ] && [ -f real/l.asm ] && echo 0 || echo 1)" "gen -o through a dangling link creates the file it names and keeps the link"
run gen --elf -o link.asm l m nop
ok "$([ -L link.asm ] && head -c 4 real/l.asm | grep -q ELF && echo 0 || echo 1)" "gen --elf writes the file the link names"
ln -s real/s.tsv s.tsv
run sweep --n 1 --budget 0.02 -o s.tsv l m nop
ok "$(rows_written && [ -L s.tsv ] && [ -f real/s.tsv ] && echo 0 || echo 1)" "a sweep through a dangling link creates the file it names (exit $rc)"
run sweep --n 1 --budget 0.02 -o s.tsv l m nop
ok "$(rows_written && [ -L s.tsv ] && echo 0 || echo 1)" "and replaces it again through the link (exit $rc)"
ln -s nowhere/x.tsv bad.tsv
run sweep --n 1 --budget 0.02 -o bad.tsv l m nop
like "$TMP/err" "^t32: cannot write 'bad.tsv' \(it links to 'nowhere/x.tsv': No such file or directory\)" \
	"a link into a directory that is not there is an error naming where it leads"
done_testing
