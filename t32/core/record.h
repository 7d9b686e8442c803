/*
 * record.h - every reading a result came from, kept as it is taken (--record) and
 * read back in place of the machine (--replay), so a result is recomputed offline,
 * bit for bit, and runs recorded on machines no longer at hand test the estimator.
 *
 * A recording is a TSV file: `#` provenance lines, the command line, then per
 * measurement the calls the measuring loop made to its source (t32_source), in
 * order, with what each returned: the clock's readings, each block's deltas as a
 * histogram per request (the loop uses them only as a multiset), the looks beside
 * the measuring process, the hand-overs to fresh processes, failures with their
 * messages.  Replaying serves the same answers to the same calls; a loop that
 * asks otherwise (another version's stopping rule) is told where the recording
 * and it part.
 */
#ifndef T32_RECORD_H
#define T32_RECORD_H

#include <stdint.h>

#include "t32/core/measure.h"

struct t32_rec;

/* Start recording into path (written whole when closed): NULL after a message. */
struct t32_rec *t32_rec_create(const char *path, int argc, char **argv);
/*
 * Open the recording path to replay.  *argc and *argv get the recorded command
 * line (argv[0] the command's name, as a command function takes it), owned by
 * the recording.  NULL after a message.
 */
struct t32_rec *t32_rec_open(const char *path, int *argc, char ***argv);
int t32_rec_replaying(const struct t32_rec *r);
/* The recorded `# NAME: value` provenance line's value ("" when absent). */
const char *t32_rec_provenance(const struct t32_rec *r, const char *name);
/* The file's path, for messages and provenance. */
const char *t32_rec_path(const struct t32_rec *r);

/*
 * The source of the next measurement of n instructions (twin_n in the twin):
 * real, its calls written down (recording), or the recording itself (replaying;
 * real is NULL).  0, or an exit code after a message.
 */
int t32_rec_source(struct t32_rec *r, const struct t32_source *real, struct t32_source *out,
		   uint64_t n, uint64_t twin_n, const struct t32_measure_opts *mo);
/* The measurement is over with exit code rc: written down, or checked.  Returns rc. */
int t32_rec_measure_end(struct t32_rec *r, const struct t32_measurement *m, int rc);
/*
 * Close: a recording is put in place whole (0, or an exit code after a message);
 * keep = 0 gives it up.  A replay that did not use every recorded measurement says
 * so (exit 1).  Frees r.
 */
int t32_rec_close(struct t32_rec *r, int keep);

#endif
