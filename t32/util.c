/*
 * util.c - shared helpers for the t32 command.
 */
#include "t32/util.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "analysis/uarch.h"
#include "t32/cpu.h"

char t32_last_error[512];

void t32_fputs_visible(const char *s, FILE *f)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p == '\t')
			fputs("\\t", f);
		else if (*p == '\n')
			fputs("\\n", f);
		else if (*p == '\r')
			fputs("\\r", f);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(f, "\\x%02x", *p);
		else
			putc(*p, f);
}

const char *t32_shorten(const char *s, size_t max, char *buf, size_t len)
{
	size_t n = strlen(s), head, tail;

	if (n <= max || max < 16 || len < max + 1)
		return s;
	/* the start and the end both say something: what it is, and the reason */
	tail = (max - 5) * 2 / 5;
	head = max - 5 - tail;
	snprintf(buf, len, "%.*s ... %s", (int)head, s, s + n - tail);
	return buf;
}

/*
 * An error message, shown with its control bytes escaped.  A long one keeps
 * its start and its end (where the reason is), in t32_last_error too.
 */
void t32_error(const char *fmt, ...)
{
	va_list ap;
	char *msg = NULL, shown[4096];
	int n;

	va_start(ap, fmt);
	n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (n < 0) {
		msg = NULL;
		snprintf(t32_last_error, sizeof(t32_last_error), "%s", fmt);
	} else {
		const char *kept = t32_shorten(msg, sizeof(t32_last_error) - 1, shown, sizeof(shown));

		snprintf(t32_last_error, sizeof(t32_last_error), "%.*s",
			 (int)sizeof(t32_last_error) - 1, kept);
	}
	fflush(stdout);
	fputs("t32: ", stderr);
	t32_fputs_visible(msg ? t32_shorten(msg, sizeof(shown) - 1, shown, sizeof(shown)) :
				t32_last_error, stderr);
	fputc('\n', stderr);
	free(msg);
}

int t32_warn_quiet;
unsigned long t32_warn_held;
char t32_warn_last[512];

/* A warning, its control bytes escaped like an error's; counted and kept when held. */
void t32_warn(const char *fmt, ...)
{
	va_list ap;
	char msg[1024];

	fflush(stdout);
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (t32_warn_quiet) {
		t32_warn_held++;
		snprintf(t32_warn_last, sizeof(t32_warn_last), "%.500s", msg);
		return;
	}
	fputs("t32: warning: ", stderr);
	t32_fputs_visible(msg, stderr);
	fputc('\n', stderr);
}

int t32_usage(const char *line)
{
	fprintf(stderr, "usage: %s\n", line);
	return T32_EXIT_USAGE;
}

char *t32_trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = 0;
	return s;
}

double t32_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Temporary files of outputs not yet committed, removed at exit if still there. */
#define OUT_MAX 64
static char *out_pending[OUT_MAX];

/* Remove what a run that ends early leaves of its outputs. */
static void out_cleanup(void)
{
	for (size_t i = 0; i < OUT_MAX; i++)
		if (out_pending[i]) {
			unlink(out_pending[i]);
			out_pending[i] = NULL;
		}
}

/* A stop signal with no handler of the command's own: the temporary files go, then t32. */
static void on_stop_default(int sig)
{
	for (size_t i = 0; i < OUT_MAX; i++)
		if (out_pending[i])
			unlink(out_pending[i]);
	signal(sig, SIG_DFL);
	raise(sig);
}

void t32_on_stop_signals(void (*handler)(int))
{
	static const int stop[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler ? handler : on_stop_default;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(stop) / sizeof(stop[0]); i++) {
		struct sigaction old;

		/* what was ignored (nohup, a background job's SIGINT) stays ignored */
		if (sigaction(stop[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
			continue;
		sigaction(stop[i], &sa, NULL);
	}
}

volatile sig_atomic_t t32_stop_asked;

static void on_stop_asked(int sig)
{
	(void)sig;
	t32_stop_asked = 1;
}

void t32_catch_stop_signals(void)
{
	struct sigaction sa = { .sa_handler = on_stop_asked };

	/* even where ignored: the command stops keeping its result, not dies */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

/* Note tmp (NULL: forget it) for out_cleanup. */
static void out_note(char *tmp, int add)
{
	static int registered;

	if (add && !registered) {
		atexit(out_cleanup);
		registered = 1;
	}
	for (size_t i = 0; i < OUT_MAX; i++)
		if (add ? !out_pending[i] : out_pending[i] == tmp) {
			out_pending[i] = add ? tmp : NULL;
			return;
		}
}

int t32_same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	if (!a || !b || strcmp(a, "-") == 0 || strcmp(b, "-") == 0)
		return 0;
	if (stat(a, &sa) || stat(b, &sb))
		return 0;
	return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int t32_lock_path(const char *path, int flags)
{
	for (int tries = 0; tries < 100; tries++) {
		struct stat a, b;
		int fd = open(path, flags | O_CLOEXEC | O_NOCTTY);

		if (fd < 0)
			return -1;
		if (flock(fd, LOCK_EX | LOCK_NB)) {
			int e = errno;

			close(fd);
			if (e == EWOULDBLOCK) {
				t32_error("another t32 is writing '%s' (the file is locked)", path);
				errno = e;
				return -2;
			}
			errno = e;
			return -1;
		}
		/* the name may have moved on to a new file while we waited: lock that one */
		if (fstat(fd, &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev &&
		    a.st_ino == b.st_ino)
			return fd;
		close(fd);
	}
	errno = EAGAIN;
	return -1;
}

/*
 * Name what killed runs left beside path: `.NAME.t32-XXXXXX` files that no live
 * t32 holds locked (every temporary file is locked while it is written).  They
 * are named, not removed: a sweep's holds the rows it measured.
 */
void t32_strays_beside(const char *path)
{
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	char *dirname = slash ? strndup(path, (size_t)(slash - path) + (slash == path)) :
				strdup(".");
	char prefix[NAME_MAX + 8];
	DIR *d = dirname ? opendir(dirname) : NULL;
	struct dirent *e;

	snprintf(prefix, sizeof(prefix), ".%.200s.t32-", base);
	while (d && (e = readdir(d))) {
		struct stat st;
		int fd;

		if (strncmp(e->d_name, prefix, strlen(prefix)) ||
		    strlen(e->d_name) != strlen(prefix) + 6)
			continue;
		fd = openat(dirfd(d), e->d_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && flock(fd, LOCK_EX | LOCK_NB) == 0)
			t32_warn("'%s%s%s' was left by a t32 that was killed while writing '%s' "
				 "(%.1f MB it wrote); remove it when it is of no use",
				 slash ? dirname : "", slash && slash != path ? "/" : "", e->d_name,
				 path, (double)st.st_size / 1e6);
		close(fd);
	}
	if (d)
		closedir(d);
	free(dirname);
}

/*
 * Make the temporary file whose template (malloc'd, NULL when it could not be)
 * is *tmp, locked while it is written: a file found unlocked was left by a
 * killed run.  An fd, or -1 with errno and *tmp freed.
 */
static int tmp_make(char **tmp)
{
	int fd, e;

	if (!*tmp) {
		errno = ENOMEM;
		return -1;
	}
	fd = mkostemp(*tmp, O_CLOEXEC);
	if (fd >= 0) {
		flock(fd, LOCK_EX | LOCK_NB);
		return fd;
	}
	e = errno;
	free(*tmp);
	*tmp = NULL;
	errno = e;
	return -1;
}

int t32_tmp_beside(const char *path, char **tmp)
{
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	int dirlen = slash ? (int)(slash - path + 1) : 0, fd;
	mode_t mask = umask(0);
	struct stat st;

	umask(mask);
	t32_strays_beside(path);
	/* ".NAME.t32-XXXXXX" in path's directory, the name cut to fit NAME_MAX */
	if (asprintf(tmp, "%.*s.%.200s.t32-XXXXXX", dirlen, path, base) < 0)
		*tmp = NULL;
	if ((fd = tmp_make(tmp)) < 0)
		return -1;
	/* the file's mode as it was, or what a new file gets */
	fchmod(fd, stat(path, &st) == 0 && S_ISREG(st.st_mode) ? st.st_mode & 07777 : 0666 & ~mask);
	out_note(*tmp, 1);
	return fd;
}

char *t32_out_target(const char *path)
{
	char *cur = strdup(path);

	for (int hops = 0; cur && hops < 40; hops++) {
		char link[PATH_MAX], *next;
		ssize_t n = readlink(cur, link, sizeof(link) - 1);
		const char *slash;

		if (n < 0)
			return errno == EINVAL || errno == ENOENT ? cur : (free(cur), NULL);
		link[n] = 0;
		slash = strrchr(cur, '/');
		/* a relative link is read from the link's own directory */
		if (link[0] == '/' || !slash)
			next = strdup(link);
		else if (asprintf(&next, "%.*s%s", (int)(slash - cur + 1), cur, link) < 0)
			next = NULL;
		free(cur);
		cur = next;
	}
	if (cur) {
		free(cur);
		errno = ELOOP;
	}
	return NULL;
}

/*
 * Would renaming a new file over path lose something?  Its directory refuses a
 * new entry while the file itself may be written, it has other names (hard
 * links), or it belongs to someone else (the new file would be ours).
 */
static int replace_in_place(const char *path, const struct stat *st)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? strndup(path, (size_t)(slash - path) + (slash == path)) : strdup(".");
	int dir_refuses = dir && access(dir, W_OK) != 0;

	free(dir);
	if (access(path, W_OK) != 0)
		return 0;	/* then neither way can write it: the rename's error says why */
	return dir_refuses || st->st_nlink > 1 || st->st_uid != geteuid();
}

int t32_tmp_replacing(const char *path, char **tmp, int *in_place)
{
	const char *dir = getenv("TMPDIR"), *slash = strrchr(path, '/');
	struct stat st;
	int fd;

	*in_place = 0;
	if (stat(path, &st) || !S_ISREG(st.st_mode) || !replace_in_place(path, &st))
		return t32_tmp_beside(path, tmp);
	t32_strays_beside(path);
	/* in place: the new content waits in $TMPDIR, then is copied over the old */
	if (!dir || !*dir)
		dir = "/tmp";
	if (asprintf(tmp, "%s/t32-%.200s.XXXXXX", dir, slash ? slash + 1 : path) < 0)
		*tmp = NULL;
	if ((fd = tmp_make(tmp)) < 0)
		return -1;
	out_note(*tmp, 1);
	*in_place = 1;
	return fd;
}

/* Copy the file open as from over path, in place: 0, or -1 with errno. */
static int copy_in_place(int from, const char *path)
{
	struct stat st, old;
	char buf[65536];
	off_t at = 0;
	int to = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY), e;

	if (to < 0)
		return -1;
	if (fstat(from, &st) || fstat(to, &old))
		goto fail;
	/* room first: a disk that cannot hold the new content leaves the old one whole */
	if (st.st_size > old.st_size && fallocate(to, 0, 0, st.st_size) &&
	    errno != EOPNOTSUPP && errno != ENOSYS)
		goto fail;
	while (at < st.st_size) {
		ssize_t n = pread(from, buf, sizeof(buf), at), w;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = EIO;
			goto fail;
		}
		for (ssize_t done = 0; done < n; done += w) {
			w = pwrite(to, buf + done, (size_t)(n - done), at + done);
			if (w < 0 && errno == EINTR)
				w = 0;
			else if (w <= 0)
				goto fail;
		}
		at += n;
	}
	if (ftruncate(to, st.st_size) || (fsync(to) && errno != EINVAL))
		goto fail;
	return close(to);
fail:
	e = errno;
	close(to);
	errno = e;
	return -1;
}

int t32_tmp_install(int fd, const char *tmp, const char *path, int in_place)
{
	return in_place ? copy_in_place(fd, path) : rename(tmp, path);
}

int t32_tmp_keep_partial(const char *tmp, const char *path, int in_place, char **kept)
{
	const char *dir = getenv("TMPDIR"), *slash = strrchr(path, '/');

	if (!dir || !*dir)
		dir = "/tmp";
	*kept = NULL;
	for (int i = 1; i < 100; i++) {
		char *name;
		int rc;

		if ((in_place ? asprintf(&name, "%s/%.200s.partial", dir, slash ? slash + 1 : path) :
				asprintf(&name, "%s.partial", path)) < 0)
			return -1;
		if (i > 1) {
			char *n2;

			if (asprintf(&n2, "%s.%d", name, i) < 0) {
				free(name);
				return -1;
			}
			free(name);
			name = n2;
		}
		/* never over a file already there */
		rc = renameat2(AT_FDCWD, tmp, AT_FDCWD, name, RENAME_NOREPLACE);
		if (rc && (errno == EINVAL || errno == ENOSYS) && (rc = link(tmp, name)) == 0)
			unlink(tmp);
		if (rc == 0) {
			*kept = name;
			return 0;
		}
		free(name);
		if (errno != EEXIST)
			return -1;
	}
	errno = EEXIST;
	return -1;
}

void t32_tmp_done(char *tmp, int keep)
{
	if (!tmp)
		return;
	out_note(tmp, 0);
	if (!keep)
		unlink(tmp);
	free(tmp);
}

/* The temporary file's writes: as write(2), the errno of a failure kept for the message. */
static ssize_t out_cookie_write(void *cookie, const char *buf, size_t size)
{
	struct t32_out *o = cookie;
	size_t done = 0;

	while (done < size) {
		ssize_t n = write(o->fd, buf + done, size - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			o->err = n < 0 ? errno : EIO;
			return done ? (ssize_t)done : -1;
		}
		done += (size_t)n;
	}
	return (ssize_t)done;
}

static int out_cookie_close(void *cookie)
{
	struct t32_out *o = cookie;
	int rc = close(o->fd);

	if (rc && !o->err)
		o->err = errno;
	o->fd = -1;
	return rc;
}

/* 0, or -1 with errno: the part of t32_out_open that prints nothing. */
static int out_open_at(struct t32_out *o, const char *path)
{
	struct stat st;
	int fd;

	if (strcmp(path, "-") == 0) {
		o->f = stdout;
		return 0;
	}
	/* a symbolic link stays: the file it names is written */
	if (!(o->target = t32_out_target(path)))
		return -1;
	path = o->target;
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		errno = EISDIR;
		return -1;
	}
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		/* a device or a FIFO (/dev/null, /dev/stdout) is written where it is */
		o->f = fopen(path, "w");
		return o->f ? 0 : -1;
	}
	if (stat(path, &st) == 0) {
		o->replacing = 1;
		/* a sweep writing the file holds its lock: leave the file to it */
		o->lockfd = t32_lock_path(path, O_RDONLY);
		if (o->lockfd == -2) {
			o->lockfd = -1;
			errno = EWOULDBLOCK;
			o->locked = 1;
			return -1;
		}
	}
	fd = t32_tmp_replacing(path, &o->tmp, &o->in_place);
	o->fd = fd;
	if (fd < 0 || !(o->f = fopencookie(o, "w", (cookie_io_functions_t){
				.write = out_cookie_write, .close = out_cookie_close }))) {
		int e = errno;

		if (fd >= 0)
			close(fd);
		t32_tmp_done(o->tmp, 0);
		o->tmp = NULL;
		if (o->lockfd >= 0)
			close(o->lockfd);
		o->lockfd = -1;
		errno = e;
		return -1;
	}
	return 0;
}

/* 0, or -1 with errno: the part of t32_out_open that prints nothing; o->path is a copy. */
static int out_open(struct t32_out *o, const char *path)
{
	memset(o, 0, sizeof(*o));
	o->lockfd = -1;
	o->fd = -1;
	if (!(o->path = strdup(path))) {
		errno = ENOMEM;
		return -1;
	}
	if (out_open_at(o, path) == 0)
		return 0;
	{
		int e = errno;

		free(o->path);
		free(o->target);
		o->path = o->target = NULL;
		errno = e;
	}
	return -1;
}

/* 0, or -1 with errno: the part of t32_out_commit that prints nothing. */
static int out_commit(struct t32_out *o)
{
	int bad = 0, e = 0;

	if (!o->f)
		return -1;
	if (ferror(o->f)) {
		bad = 1;
		e = o->err ? o->err : EIO;
	}
	if (fflush(o->f) && !bad) {
		bad = 1;
		e = o->err ? o->err : errno;
	}
	/* a good file is replaced only by one on the disk (a crash leaves one or the other) */
	if (o->tmp && o->replacing && !o->in_place && !bad && fsync(o->fd) && errno != EINVAL) {
		bad = 1;
		e = errno;
	}
	if (o->f == stdout) {
		o->f = NULL;
		errno = e;
		return bad ? -1 : 0;
	}
	/* in place: copied over the file while the temporary one is still open */
	if (o->tmp && o->in_place && !bad && t32_tmp_install(o->fd, o->tmp, o->target, 1)) {
		bad = 1;
		e = errno;
	}
	if (fclose(o->f) && !bad) {
		bad = 1;
		e = o->tmp && o->err ? o->err : errno;
	}
	o->f = NULL;
	if (o->tmp && !o->in_place && !bad && rename(o->tmp, o->target)) {
		bad = 1;
		e = errno;
	}
	t32_tmp_done(o->tmp, !bad && !o->in_place);
	o->tmp = NULL;
	if (o->lockfd >= 0)
		close(o->lockfd);
	o->lockfd = -1;
	free(o->target);
	o->target = NULL;
	errno = e;
	return bad ? -1 : 0;
}

int t32_out_open(struct t32_out *o, const char *path)
{
	char *target;
	int e;

	if (out_open(o, path) == 0)
		return 0;
	e = errno;
	if (o->locked)
		return -1;
	/* through a symbolic link: say where it leads */
	target = strcmp(path, "-") ? t32_out_target(path) : NULL;
	if (target && strcmp(target, path))
		t32_error("cannot write '%s' (it links to '%s': %s)", path, target, strerror(e));
	else
		t32_error("cannot write '%s' (%s)", path, strerror(e));
	free(target);
	return -1;
}

int t32_out_commit(struct t32_out *o)
{
	char *path = o->path;
	int rc = out_commit(o);

	if (rc)
		t32_error("cannot write '%s' (%s)%s", path, strerror(errno ? errno : EIO),
			  strcmp(path, "-") ? ", the file is left as it was" : "");
	free(path);
	o->path = NULL;
	return rc ? -1 : 0;
}

void t32_out_abort(struct t32_out *o)
{
	free(o->path);
	free(o->target);
	o->path = o->target = NULL;
	if (o->f && o->f != stdout)
		fclose(o->f);
	o->f = NULL;
	t32_tmp_done(o->tmp, 0);
	o->tmp = NULL;
	if (o->lockfd >= 0)
		close(o->lockfd);
	o->lockfd = -1;
}

/* The outputs t32_fopen_out has open, found again by their FILE. */
static struct t32_out fopen_outs[16];

FILE *t32_fopen_out(const char *path)
{
	for (size_t i = 0; i < sizeof(fopen_outs) / sizeof(fopen_outs[0]); i++)
		if (!fopen_outs[i].f)
			return t32_out_open(&fopen_outs[i], path) ? NULL : fopen_outs[i].f;
	t32_error("cannot write '%s' (%s)", path, "too many files open at once");
	errno = EMFILE;
	return NULL;
}

/* The slot of f, or NULL. */
static struct t32_out *fopen_out_of(FILE *f)
{
	for (size_t i = 0; f && i < sizeof(fopen_outs) / sizeof(fopen_outs[0]); i++)
		if (fopen_outs[i].f == f)
			return &fopen_outs[i];
	return NULL;
}

int t32_fclose_out(FILE *f)
{
	struct t32_out *o = fopen_out_of(f);

	if (!o)
		return f ? fclose(f) : EOF;
	return t32_out_commit(o) ? EOF : 0;
}

void t32_fabort_out(FILE *f)
{
	struct t32_out *o = fopen_out_of(f);

	if (o)
		t32_out_abort(o);
	else if (f)
		fclose(f);
}

int t32_write_file(const char *path, const void *buf, size_t len)
{
	struct t32_out o;

	if (out_open(&o, path))
		return -1;
	if (len && fwrite(buf, 1, len, o.f) != len) {
		int e = errno;

		t32_out_abort(&o);
		errno = e;
		return -1;
	}
	if (out_commit(&o)) {
		int e = errno;

		t32_out_abort(&o);
		errno = e;
		return -1;
	}
	free(o.path);
	return 0;
}

int t32_run_program(char *const argv[], struct t32_child_output *out)
{
	int fds[2];
	pid_t pid;
	size_t cap = 0, len = 0;
	int status;

	memset(out, 0, sizeof(*out));
	if (pipe2(fds, O_CLOEXEC)) {
		snprintf(out->error, sizeof(out->error), "%s", strerror(errno));
		return -1;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		snprintf(out->error, sizeof(out->error), "%s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid == 0) {
		/* a helper program finishes its short job; Ctrl-C is for the parent */
		signal(SIGINT, SIG_IGN);
		signal(SIGQUIT, SIG_IGN);
		dup2(fds[1], 1);
		dup2(fds[1], 2);
		execvp(argv[0], argv);
		/* 127 and a marker the parent recognises */
		dprintf(2, "\001exec: %s", strerror(errno));
		_exit(127);
	}
	close(fds[1]);
	for (;;) {
		ssize_t n;

		if (len + 4096 + 1 > cap) {
			char *t = realloc(out->text, cap = cap * 2 + 8192);

			if (!t)
				break;
			out->text = t;
		}
		n = read(fds[0], out->text + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	if (out->text)
		out->text[len] = 0;
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	out->status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	if (out->status == 127 && out->text && out->text[0] == '\001') {
		snprintf(out->error, sizeof(out->error), "%s", out->text + 7);
		return -1;
	}
	return 0;
}

void t32_free_strings(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void t32_child_output_free(struct t32_child_output *out)
{
	free(out->text);
	out->text = NULL;
}

void t32_free_n(void *const *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(p[i]);
}

int t32_keep_stdout;

int t32_call_captured(int (*fn)(int, char **), int argc, char **argv, char **text)
{
	size_t len = 0;
	FILE *m, *out = stdout;
	int rc;

	*text = NULL;
	fflush(stdout);
	if (!(m = open_memstream(text, &len)))
		return -1;
	stdout = m;
	t32_keep_stdout = 1;
	rc = fn(argc, argv);
	fflush(m);
	t32_keep_stdout = 0;
	stdout = out;
	fclose(m);
	return rc;
}

int t32_close_stdout(void)
{
	int bad = ferror(stdout);

	if (fflush(stdout))
		bad = 1;
	if (!t32_keep_stdout && fclose(stdout) && errno != EBADF)
		bad = 1;
	if (bad) {
		t32_error("cannot write the output 'stdout' (%s)", strerror(errno ? errno : EIO));
		return 1;
	}
	return 0;
}

/*
 * A directory as people read it in a command line: without `..` (resolved), and
 * relative to the current directory when it lies inside it ("data", not
 * "/home/me/t32/build/../data").  dir is rewritten in place (len bytes).
 */
static void readable_dir(char *dir, size_t len)
{
	char real[PATH_MAX], cwd[PATH_MAX];
	size_t l;

	if (!realpath(dir, real))
		return;
	if (getcwd(cwd, sizeof(cwd)) && (l = strlen(cwd)) > 1 && strncmp(real, cwd, l) == 0 &&
	    real[l] == '/')
		snprintf(dir, len, "%s", real + l + 1);
	else
		snprintf(dir, len, "%s", real);
}

int t32_self_path(char *buf, size_t len)
{
	ssize_t n = len ? readlink("/proc/self/exe", buf, len - 1) : -1;

	if (n <= 0)
		return -1;
	buf[n] = 0;
	return 0;
}

const char *t32_datadir(void)
{
	static char dir[PATH_MAX];
	const char *env = getenv("T32_DATADIR");
	char exe[PATH_MAX];
	struct stat st;

	if (env && *env)
		return env;
	if (dir[0])
		return dir;
	if (t32_self_path(exe, sizeof(exe)) == 0) {
		char *slash;

		slash = strrchr(exe, '/');
		if (slash) {
			*slash = 0;
			/* build/t32 -> ../data; build/sanitize/t32 (another build) -> ../../data */
			snprintf(dir, sizeof(dir), "%.*s/../data", (int)(sizeof(dir) - 12), exe);
			if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode)) {
				readable_dir(dir, sizeof(dir));
				return dir;
			}
			snprintf(dir, sizeof(dir), "%.*s/../../data", (int)(sizeof(dir) - 12), exe);
			if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode)) {
				readable_dir(dir, sizeof(dir));
				return dir;
			}
			dir[0] = 0;
		}
	}
#ifdef T32_DATADIR
	return T32_DATADIR;
#else
	return "data";
#endif
}

void t32_json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	fputc('"', f);
}

int t32_parse_format(const char *arg, enum t32_format *out)
{
	static const struct { const char *name; enum t32_format f; } formats[] = {
		{ "table", T32_FMT_TABLE }, { "tsv", T32_FMT_TSV }, { "json", T32_FMT_JSON },
	};

	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (strcmp(arg, formats[i].name) == 0) {
			*out = formats[i].f;
			return 0;
		}
	return -1;
}

/* The first "microcode : VALUE" of /proc/cpuinfo into buf ("" when absent). */
static void read_microcode(char *buf, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "re");
	char line[512];

	buf[0] = 0;
	while (f && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (strncmp(line, "microcode", 9) || !colon)
			continue;
		colon++;
		colon += strspn(colon, " \t");
		colon[strcspn(colon, " \t\n")] = 0;
		snprintf(buf, len, "%s", colon);
		break;
	}
	if (f)
		fclose(f);
}

void t32_cpu_identify_on(struct t32_cpu *c, int cpu)
{
	unsigned r[4], max;

	memset(c, 0, sizeof(*c));
	/* a recorded dump's microcode is not this machine's: none then */
	if (!getenv("T32_CPUID_FILE"))
		read_microcode(c->microcode, sizeof(c->microcode));
	t32_cpuid(-1, 0, 0, r);
	memcpy(c->vendor, &r[1], 4);
	memcpy(c->vendor + 4, &r[3], 4);
	memcpy(c->vendor + 8, &r[2], 4);
	t32_cpuid(-1, 1, 0, r);
	c->stepping = r[0] & 0xf;
	c->family = (r[0] >> 8) & 0xf;
	c->model = (r[0] >> 4) & 0xf;
	if (c->family == 0xf)
		c->family += (r[0] >> 20) & 0xff;
	if (c->family >= 6)
		c->model |= ((r[0] >> 16) & 0xf) << 4;
	c->hypervisor = (r[2] >> 31) & 1;
	if (c->hypervisor) {
		t32_cpuid(-1, 0x40000000, 0, r);
		memcpy(c->hv_vendor, &r[1], 4);
		memcpy(c->hv_vendor + 4, &r[2], 4);
		memcpy(c->hv_vendor + 8, &r[3], 4);
		for (size_t n = strlen(c->hv_vendor); n && c->hv_vendor[n - 1] == ' '; n--)
			c->hv_vendor[n - 1] = 0;
	}
	t32_cpuid(-1, 0x80000000, 0, r);
	max = r[0];
	if (max >= 0x80000004) {
		unsigned *w = (unsigned *)c->brand;

		for (unsigned leaf = 0; leaf < 3; leaf++)
			t32_cpuid(-1, 0x80000002 + leaf, 0, w + 4 * leaf);
		c->brand[48] = 0;
		/* trim leading and trailing blanks */
		char *p = c->brand;
		while (*p == ' ')
			p++;
		memmove(c->brand, p, strlen(p) + 1);
		for (size_t n = strlen(c->brand); n && c->brand[n - 1] == ' '; n--)
			c->brand[n - 1] = 0;
	}
	c->cpu = cpu;
	c->core_type = t32_cpu_core_type(cpu);
	t32_core_type_text(c->core_type, c->core_text, sizeof(c->core_text));
}

void t32_cpu_identify(struct t32_cpu *c)
{
	t32_cpu_identify_on(c, t32_default_cpu());
}

size_t t32_edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), row[64];

	if (la >= 63 || lb >= 63)
		return 99;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];

		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	return row[lb];
}

int t32_cpu_line_identity(const char *line, char *buf, size_t len)
{
	const char *p = strstr(line, " family ");
	const char *end;

	if (strncmp(line, "# cpu:", 6) || !p)
		return -1;
	p++;
	end = strchr(p, ')');
	if (!end)
		end = p + strlen(p);
	snprintf(buf, len, "%.*s", (int)(end - p), p);
	return 0;
}

const char *t32_plotdir(void)
{
	static char dir[PATH_MAX];
	const char *env = getenv("T32_PLOTDIR");
	struct stat st;

	if (env && *env)
		return env;
	snprintf(dir, sizeof(dir), "%.4000s/../plots", t32_datadir());
	if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode)) {
		char real[PATH_MAX];

		/* readable in provenance: the tree's plots/, not build/../data/../plots */
		if (realpath(dir, real))
			snprintf(dir, sizeof(dir), "%s", real);
		return dir;
	}
	snprintf(dir, sizeof(dir), "%.4000s/plots", t32_datadir());
	return dir;
}

const char *t32_nearest(const char *word, const char *const *names, size_t n, size_t max)
{
	const char *best = NULL;
	size_t bestd = max + 1;

	for (size_t i = 0; i < n; i++) {
		size_t d = t32_edit_distance(word, names[i]);

		if (d < bestd && d < strlen(word)) {
			bestd = d;
			best = names[i];
		}
	}
	return best;
}

/* Where a folded line's continuation starts (see t32_fputs_folded). */
static size_t fold_indent(const char *line, size_t len, int width)
{
	size_t ind = strspn(line, " ");

	if (len > 7 && !strncmp(line, "usage: ", 7))
		return 7 + strspn(line + 7, " ") + 2;
	if (ind < len && (line[ind] == '-' || (ind && line[ind] != ' '))) {
		/*
		 * an option, or an indented one-word name of a list: its description
		 * starts after the first run of two blanks
		 */
		const char *two = memmem(line + ind, len - ind, "  ", 2);

		if (two && (line[ind] == '-' || !memchr(line + ind, ' ', (size_t)(two - line) - ind))) {
			size_t d = (size_t)(two - line) + strspn(two, " ");

			if (d + 20 < (size_t)width)
				return d;
		}
	}
	return ind;
}

void t32_fputs_folded(const char *text, FILE *f, int width)
{
	while (*text) {
		size_t len = strcspn(text, "\n"), ind = fold_indent(text, len, width), col = 0;
		const char *p = text, *end = text + len;

		while ((size_t)(end - p) + col > (size_t)width) {
			const char *cut = NULL;

			/* the last blank that keeps the line within width, past its indentation */
			for (const char *q = p + (size_t)width - col; q > p + (col ? 0 : ind); q--)
				if (*q == ' ') {
					cut = q;
					break;
				}
			if (!cut)
				break;
			fwrite(p, 1, (size_t)(cut - p), f);
			fprintf(f, "\n%*s", (int)ind, "");
			col = ind;
			p = cut + strspn(cut, " ");
		}
		fwrite(p, 1, (size_t)(end - p), f);
		if (*end)
			fputc('\n', f);
		text = *end ? end + 1 : end;
	}
}
