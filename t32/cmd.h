/*
 * cmd.h - the subcommands: one file each (t32/cmd-NAME.c), one row each in main.c.
 */
#ifndef T32_CMD_H
#define T32_CMD_H

int cmd_classic(int argc, char **argv);
int cmd_time(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_env(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_fit(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_study(int argc, char **argv);
int cmd_sample(int argc, char **argv);
int cmd_model(int argc, char **argv);
int cmd_correlate(int argc, char **argv);
int cmd_table(int argc, char **argv);
int cmd_compare(int argc, char **argv);
/* make bench's figures for correlate, through the bench's report function */
void t32_bench_correlate(void (*report)(const char *what, const char *figure, const char *target,
					int ok));

#endif
