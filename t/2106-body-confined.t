#!/bin/sh
# The measuring process cannot reach outside the block: a body that makes a system
# call is stopped and reported as such, and nothing it asked for happens; a body
# that breaks the harness's own data is named, never measured.
. "$(dirname "$0")/lib-tap.sh"
plan 13

# getuid: harmless, but not the block's business
run l m 3 'mov eax, 102; syscall'
is 1 "$rc" "a system call in the body is an error"
like "$TMP/err" "^t32: instruction faulted 'mov eax, 102; syscall' \(SIGSYS: a system call.*, at syscall\)" \
	"named as a system call, at the syscall"

# kill(victim, SIGKILL) would reach another process: refused, not sent
sleep 30 &
victim=$!
run time l m 100 "mov eax, 62; mov edi, $victim; mov esi, 9; syscall"
is 1 "$rc" "kill from the body is refused"
like "$TMP/err" "SIGSYS" "as a system call"

# a signal to another process of ours through tgkill: refused too
run l m 2 "mov eax, 234; mov edi, $victim; mov esi, $victim; mov edx, 9; syscall"
is 1 "$rc" "tgkill to another process is refused"
kill -0 "$victim" 2>/dev/null
ok $? "and the other process lives through both"
kill "$victim" 2>/dev/null

# a body that moves the harness's own loop counter: an error naming it, never a
# stale buffer printed as deltas
run l m 5 'mov qword [rel left], 0'
is 1 "$rc" "a body that changes the harness's data is an error"
like "$TMP/err" "the body changed the harness's own data" "and says so"

# a body that creates a file or directory (open, creat, openat, mkdir): refused,
# and nothing is made
for call in 'open:mov eax, 2; lea rdi, [rel .p]; mov esi, 0x41; mov edx, 0x1a4' \
	'creat:mov eax, 85; lea rdi, [rel .p]; mov esi, 0x1a4' \
	'openat:mov eax, 257; mov edi, -100; lea rsi, [rel .p]; mov edx, 0x41; mov r10d, 0x1a4' \
	'mkdir:mov eax, 83; lea rdi, [rel .p]; mov esi, 0x1ed'; do
	name=${call%%:*}
	run l m 1 "jmp .s; .p: db \"$TMP/made-$name\", 0; .s: ${call#*:}; syscall"
	[ "$rc" -eq 1 ] && grep -q SIGSYS "$TMP/err" && [ ! -e "$TMP/made-$name" ]
	ok $? "$name from the body is refused and makes nothing (exit $rc)"
done

# the block itself still runs
run l m 5 100 nop
is 0 "$rc" "a body without system calls runs"
done_testing
