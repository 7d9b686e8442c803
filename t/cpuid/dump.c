/*
 * dump.c - this machine's CPUID answers in the form T32_CPUID_FILE reads (the
 * AIDA64 layout of the other dumps here): the leaves t32 reads, for each online
 * CPU, pinned to it.  To record a machine for t/5010:
 *   cc -O2 -o /tmp/cpuid-dump t/cpuid/dump.c && /tmp/cpuid-dump >t/cpuid/NAME.txt
 * then put a comment header above it saying what the machine is.
 */
#define _GNU_SOURCE
#include <cpuid.h>
#include <ctype.h>
#include <sched.h>
#include <stdio.h>
#include <unistd.h>

static void leaf(unsigned l, unsigned sub, int show_sub, int text)
{
	unsigned r[4];
	char s[17] = "";

	__cpuid_count(l, sub, r[0], r[1], r[2], r[3]);
	printf("CPUID %08X: %08X-%08X-%08X-%08X", l, r[0], r[1], r[2], r[3]);
	if (text == 1) {	/* leaf 0 and 0x40000000: the vendor in ebx, edx, ecx / ebx, ecx, edx */
		unsigned o[3] = { r[1], l ? r[2] : r[3], l ? r[3] : r[2] };

		for (int i = 0; i < 12; i++)
			s[i] = isprint((unsigned char)(o[i / 4] >> (8 * (i % 4)))) ? (char)(o[i / 4] >> (8 * (i % 4))) : '.';
		s[12] = 0;
	} else if (text == 2) {	/* the brand string, 16 bytes a leaf */
		for (int i = 0; i < 16; i++)
			s[i] = (char)(r[i / 4] >> (8 * (i % 4)));
	}
	if (show_sub)
		printf(" [SL %02u]", sub);
	else if (text)
		printf(" [%s]", s);
	printf("\n");
}

int main(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	for (int c = 0; c < n; c++) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(c, &set);
		if (sched_setaffinity(0, sizeof(set), &set))
			continue;
		printf("%s------[ CPUID Registers / Logical CPU #%d ]------\n\n", c ? "\n" : "", c);
		leaf(0, 0, 0, 1);
		leaf(1, 0, 0, 0);
		leaf(7, 0, 1, 0);
		leaf(7, 1, 1, 0);
		leaf(0x1a, 0, 0, 0);
		leaf(0x40000000, 0, 0, 1);
		leaf(0x80000000, 0, 0, 0);
		for (unsigned l = 0x80000002; l <= 0x80000004; l++)
			leaf(l, 0, 0, 2);
	}
	return 0;
}
