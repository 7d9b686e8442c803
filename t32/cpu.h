/*
 * cpu.h - which CPU t32 measures on, and what core that is: CPUID run on a
 * given logical CPU (or answered from a recorded dump, for tests), the type of
 * a hybrid part's core (leaf 0x1A), and the CPU measurements run on when none
 * is named (a P-core on a hybrid part).
 *
 * $T32_CPUID_FILE, when set, names a CPUID dump in the format AIDA64 writes and
 * InstLatX64 publishes ("------[ CPUID Registers / Logical CPU #N ]------"
 * sections of "CPUID 0000001A: 40000001-00000000-00000000-00000000 [SL 00]"
 * lines; other lines are ignored): every CPUID question is answered from it,
 * CPU N from its section N, so that the whole choice of core and data can be
 * tested for parts that are not here.  A dump with one section answers for
 * every CPU.  It is meant for tests: measurements still run on this machine.
 */
#ifndef T32_CPU_H
#define T32_CPU_H

#include <sched.h>

/*
 * CPUID leaf/subleaf as logical CPU cpu answers it (cpu < 0: any CPU, the
 * answer every core of the package gives), into r[0..3] = eax, ebx, ecx, edx.
 * 0, or -1 when that CPU cannot be asked (not allowed to run there, or not in
 * the dump).  A leaf the dump does not hold reads as zeros, as a reserved one.
 */
int t32_cpuid(int cpu, unsigned leaf, unsigned subleaf, unsigned r[4]);

/* 1 when the part is hybrid: CPUID leaf 7 EDX bit 15 (the same on every core). */
int t32_cpu_hybrid(void);

/*
 * The core type of logical CPU cpu (T32_CORE_* of analysis/uarch.h): 0 on a
 * part that is not hybrid, CPUID.1AH:EAX[31:24] run on that CPU on one that
 * is, T32_CORE_UNKNOWN when it cannot be asked there.
 */
unsigned t32_cpu_core_type(int cpu);

/*
 * The CPU to measure on, from the CPUs allowed: the last one whose core is a
 * P-core on a hybrid part (Linux numbers them first; on Alder Lake the E-cores
 * are the last CPUs), the last one allowed otherwise or when none is a P-core.
 * -1 when the set is empty.
 */
int t32_cpu_pick(const cpu_set_t *allowed);

/* The CPU a command's --cpu names: what t32_default_cpu() returns from then on. */
void t32_cpu_select(int cpu);

/*
 * The CPU measurements run on when a request names none, and the one t32
 * describes (t32_cpu_identify): the CPU --cpu selected, else t32_cpu_pick() of
 * the CPUs this process may use.
 */
int t32_default_cpu(void);

/*
 * The allowed CPUs of each core type, as lists ("0-15", "16-23"; "" for none),
 * for people: p the P-cores, e the E-cores.  0 on a hybrid part, -1 on one that
 * is not (every list "").
 */
int t32_cpu_type_lists(char *p, char *e, size_t len);

/* Forget the dump read from $T32_CPUID_FILE (tests that change it). */
void t32_cpuid_reset(void);

#endif
