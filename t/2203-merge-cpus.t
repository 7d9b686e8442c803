#!/bin/sh
# t32 sweep --merge joins shards measured on one kind of CPU only: family, model,
# stepping and microcode come from each shard's `# cpu:` line, a difference is
# refused with both named, and --allow-mixed-cpus joins them and keeps the other
# CPU in a `# merged cpu:` line.
. "$(dirname "$0")/lib-tap.sh"
plan 11

S="--n 840 --k-list 12 --budget 0.05 --block-precision 5 --precision 1"
keys() { grep '^[0-9]' "$1" | cut -f1-4 | sort; }
printf '# source: test\n# applies to: any\nadd | add rax, rbx | tp=add {r}, rbx\nnop | nop | chain=none | tp=nop\n' \
	>"$TMP/t.tbl"

run sweep $S --shard 1/2 -o "$TMP/a.tsv" "$TMP/t.tbl"
swept "shard 1/2"
run sweep $S --shard 2/2 -o "$TMP/b.tsv" "$TMP/t.tbl"
swept "shard 2/2"
like "$TMP/a.tsv" '^# cpu: .*family 0x[0-9a-f]+ model 0x[0-9a-f]+ stepping [0-9]+' \
	"the cpu line names family, model and stepping"
if grep -q '^microcode' /proc/cpuinfo; then
	like "$TMP/a.tsv" '^# cpu: .* microcode 0x[0-9a-f]+' "and the microcode /proc/cpuinfo shows"
else
	skip "/proc/cpuinfo shows no microcode here"
fi
run sweep --merge -o "$TMP/m.tsv" "$TMP/a.tsv" "$TMP/b.tsv"
is 0 "$rc" "shards of one CPU merge"

# the same shard as if measured on another stepping and microcode
sed 's/stepping [0-9]*/stepping 99/; s/microcode 0x[0-9a-f]*/microcode 0xdead/' "$TMP/b.tsv" >"$TMP/c.tsv"
run sweep --merge -o "$TMP/m2.tsv" "$TMP/a.tsv" "$TMP/c.tsv"
is 1 "$rc" "shards from different CPUs are refused"
like "$TMP/err" "^t32: '.*c.tsv' was measured on another CPU \\(.*stepping 99.* there, .* in '.*a.tsv'\\); --allow-mixed-cpus" \
	"the message names both CPUs and the way out"
[ ! -e "$TMP/m2.tsv" ]; ok $? "and writes nothing"
run sweep --merge --allow-mixed-cpus -o "$TMP/m3.tsv" "$TMP/a.tsv" "$TMP/c.tsv"
is 0 "$rc" "--allow-mixed-cpus merges them"
like "$TMP/m3.tsv" "^# merged cpu: .*c.tsv: .*stepping 99" "keeping the other CPU in a # merged cpu: line"
is "$(keys "$TMP/m.tsv")" "$(keys "$TMP/m3.tsv")" "with the same rows"
done_testing
