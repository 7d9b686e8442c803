/*
 * tap.c - the TAP producer behind tap.h.
 */
#include "tap.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int planned = -1;
static int run;
static int failed;

void plan(int n)
{
	planned = n;
	printf("1..%d\n", n);
	fflush(stdout);
}

void skip_all(const char *fmt, ...)
{
	va_list ap;

	printf("1..0 # SKIP ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	exit(0);
}

void bail(const char *fmt, ...)
{
	va_list ap;

	printf("Bail out! ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	exit(255);
}

static int vreport(int cond, const char *fmt, va_list ap)
{
	run++;
	if (!cond)
		failed++;
	va_list again;

	va_copy(again, ap);
	printf("%sok %d - ", cond ? "" : "not ", run);
	vprintf(fmt, ap);
	printf("\n");
	fflush(stdout);
	if (!cond) {
		/* on stderr too: a log of prove without -v (CI's) shows which failed */
		fprintf(stderr, "#   Failed test %d - ", run);
		vfprintf(stderr, fmt, again);
		fprintf(stderr, "\n");
	}
	va_end(again);
	return cond;
}

int ok(int cond, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(cond, fmt, ap);
	va_end(ap);
	return cond;
}

int is_int(long long expected, long long seen, const char *fmt, ...)
{
	va_list ap;
	int cond = expected == seen;

	va_start(ap, fmt);
	vreport(cond, fmt, ap);
	va_end(ap);
	if (!cond)
		diag("expected %lld, seen %lld", expected, seen);
	return cond;
}

int is_double(double expected, double seen, double eps, const char *fmt, ...)
{
	va_list ap;
	int cond = fabs(expected - seen) <= eps;

	va_start(ap, fmt);
	vreport(cond, fmt, ap);
	va_end(ap);
	if (!cond)
		diag("expected %.6g +- %.3g, seen %.6g", expected, eps, seen);
	return cond;
}

int is_string(const char *expected, const char *seen, const char *fmt, ...)
{
	va_list ap;
	int cond = expected && seen && strcmp(expected, seen) == 0;

	va_start(ap, fmt);
	vreport(cond, fmt, ap);
	va_end(ap);
	if (!cond)
		diag("expected '%s', seen '%s'", expected ? expected : "(null)",
		     seen ? seen : "(null)");
	return cond;
}

void skip(const char *reason)
{
	run++;
	printf("ok %d # skip %s\n", run, reason);
	fflush(stdout);
}

void diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (failed) {
		/* once a test failed, on stderr too (see vreport) */
		fprintf(stderr, "# ");
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fprintf(stderr, "\n");
	}
}

int done_testing(void)
{
	if (planned < 0)
		printf("1..%d\n", run);
	else if (planned != run)
		diag("planned %d tests but ran %d", planned, run);
	fflush(stdout);
	return failed || (planned >= 0 && planned != run) ? 1 : 0;
}
