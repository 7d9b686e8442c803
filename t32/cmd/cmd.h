/*
 * cmd.h - the subcommands: one file each (t32/cmd-NAME.c), one row each in main.c.
 */
#ifndef T32_CMD_H
#define T32_CMD_H

int cmd_classic(int argc, char **argv);
/* The shared options the classic form takes, as a set (its help is main's). */
struct t32_block_opts;
struct t32_block_optset;
struct t32_spec;
void t32_classic_opts(struct t32_block_optset *set, struct t32_block_opts *o, struct t32_spec *s);
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
int cmd_learn(int argc, char **argv);
int cmd_wake(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_table(int argc, char **argv);
int cmd_compare(int argc, char **argv);
/* make bench's figures for learn: each recorded machine learned and its blocks predicted */
void t32_bench_learn(void (*report)(const char *what, const char *figure, const char *target,
				    int ok));

/* make bench's figures for wake: t32 beside cyclictest, the spin method's gap */
void t32_bench_wake(void (*report)(const char *what, const char *figure, const char *target,
				   int ok));

#endif
