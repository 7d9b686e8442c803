#!/bin/sh
# Every file t32 writes appears whole or not at all: written beside the target and
# renamed, so a full or read-only disk leaves the old file and says why.
. "$(dirname "$0")/lib-tap.sh"
plan 20

run gen -o "$TMP/g.asm" l m nop
is 0 "$rc" "gen -o writes the source to a file"
like "$TMP/g.asm" "^; t32 block: l m 1 'nop'" "the source is there"
[ ! -s "$TMP/out" ]; ok $? "and not on stdout"
run gen -o "$TMP" l m nop
like "$TMP/err" "^t32: cannot write '.*' \\(Is a directory\\)" "gen -o a directory says so"
run gen --elf -o "$TMP/g.elf" l m nop
is 0 "$rc" "gen --elf -o writes a program"
[ -x "$TMP/g.elf" ]; ok $? "that can be run"
ls -A "$TMP" >"$TMP/ls"
grep -q 't32-' "$TMP/ls"; is 1 "$?" "no temporary file is left"

if [ "$(id -u)" != 0 ]; then
	for i in $(seq 13); do skip "mounting a small tmpfs needs root"; done
elif ! mkdir "$TMP/full" || ! mount -t tmpfs -o size=64k tmpfs "$TMP/full" 2>"$TMP/mount.err"; then
	for i in $(seq 13); do skip "cannot mount a tmpfs here: $(cat "$TMP/mount.err")"; done
else
	trap 'umount "$TMP/full" 2>/dev/null; rm -rf "$TMP"' EXIT
	F=$TMP/full
	printf 'good\n' >"$F/g.asm" && printf 'good\n' >"$F/g.elf" && printf 'good\n' >"$F/raw.tsv"
	dd if=/dev/zero of="$F/filler" bs=4k count=64 2>/dev/null
	run gen -o "$F/g.asm" l m nop
	is 1 "$rc" "gen -o on a full disk fails"
	like "$TMP/err" "^t32: cannot write '.*g.asm' \\(No space left on device\\)" "with the system's reason"
	is good "$(cat "$F/g.asm")" "and the old file is left whole"
	run gen --elf -o "$F/g.elf" l m nop
	[ "$rc" -ne 0 ]; ok $? "gen --elf on a full disk fails"
	is good "$(cat "$F/g.elf")" "and the old program is left whole"
	run time --raw "$F/raw.tsv" --budget 0.05 --precision 1 l m 2000 nop
	is 1 "$rc" "time --raw on a full disk fails"
	like "$TMP/err" "^t32: cannot write '.*raw.tsv' \\(No space left on device\\)" "with the system's reason"
	is good "$(cat "$F/raw.tsv")" "and the old deltas are left whole"
	ls -A "$F" >"$TMP/ls"
	is "filler g.asm g.elf raw.tsv" "$(echo $(cat "$TMP/ls"))" "no temporary file is left"
	rm -f "$F/filler"
	if mount -o remount,ro "$F" 2>/dev/null; then
		run gen -o "$F/g.asm" l m nop
		like "$TMP/err" "^t32: cannot write '.*g.asm' \\(Read-only file system\\)" "a read-only directory gives the reason"
		run time --raw "$F/new.tsv" --budget 0.05 --precision 1 l m 2000 nop
		like "$TMP/err" "^t32: cannot write '.*new.tsv' \\(Read-only file system\\)" "and so does --raw"
		is good "$(cat "$F/g.asm")" "the old file stays"
	else
		for i in 1 2 3; do skip "cannot remount the tmpfs read-only"; done
	fi
	umount "$F"
fi
ESC=$(printf '\033')
run gen -o "$TMP/no${ESC}[2J/x.asm" l m nop
grep -q "$ESC" "$TMP/err"; is 1 "$?" "a control byte in a path is not echoed raw"
done_testing
