/*
 * fuzzkit.h - what the libFuzzer harnesses share: the fuzzer's bytes as a file
 * (the readers take paths, as t32 gives them), and stdout made writable again
 * for commands that close it.  Harnesses are built and run by `make fuzz`.
 */
#ifndef T32_FUZZKIT_H
#define T32_FUZZKIT_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* The bytes as an anonymous file; its path (/proc/self/fd/N) in path.  The fd, or -1. */
static inline int fuzz_file(const uint8_t *data, size_t size, char *path, size_t len)
{
	int fd = memfd_create("t32-fuzz", MFD_CLOEXEC);
	size_t done = 0;

	if (fd < 0)
		return -1;
	while (done < size) {
		ssize_t n = write(fd, data + done, size - done);

		if (n <= 0) {
			close(fd);
			return -1;
		}
		done += (size_t)n;
	}
	lseek(fd, 0, SEEK_SET);
	snprintf(path, len, "/proc/self/fd/%d", fd);
	return fd;
}

/* The bytes as a NUL-terminated string (malloc'd), NULs inside kept. */
static inline char *fuzz_text(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (s) {
		memcpy(s, data, size);
		s[size] = 0;
	}
	return s;
}

/* A fresh stdout on /dev/null, for a command that prints and closes it. */
static inline void fuzz_stdout(void)
{
	FILE *f = fopen("/dev/null", "w");

	if (f)
		stdout = f;
}

#endif
