/*
 * tap.h - a small Test Anything Protocol library for t32's C unit tests.
 *
 * Each test program calls plan(n) (or skip_all), then ok()/is_int()/is_double(),
 * and returns done_testing() from main.  Expected value first, then the seen one.
 */
#ifndef T32_TAP_H
#define T32_TAP_H

#include <stdint.h>

void plan(int n);
void skip_all(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
void bail(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
int ok(int cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int is_int(long long expected, long long seen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int is_double(double expected, double seen, double eps, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
int is_string(const char *expected, const char *seen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void skip(const char *reason);
void diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int done_testing(void);

#endif
