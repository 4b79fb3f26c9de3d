/*
 * state_dir.c - the state directory's permissions (part of state.h's
 * module; state.c holds the stores).
 *
 * State holds user data, so its directories are 0700 and its files 0600.
 * New directories are made so; RocksDB's files get 0600 from the umask
 * state.c narrows while a database is open.  Directories and files an
 * earlier version made with 0755 and 0644 are tightened here, when the
 * state directory is opened, rather than only warned about: they are
 * stoat's own (named by it, below the user's --state-dir), and a warning
 * on every start would leave the data readable until someone acts.  The
 * user's --state-dir itself may be shared (/tmp, a volume mount) and is
 * left as it is.
 */
#include "state.h"

#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Mode bits state entries must not have: anything for group and others. */
#define NOT_OWNER_BITS ((mode_t)077)

/* Takes group and other permissions off path (a directory of ours);
 * counts it in *tightened when its mode changed. */
static bool tighten_dir(const char *path, size_t *tightened)
{
	struct stat sb;
	if (stat(path, &sb) != 0)
		return false;
	if (!S_ISDIR(sb.st_mode)) {
		errno = ENOTDIR;
		return false;
	}
	if ((sb.st_mode & NOT_OWNER_BITS) == 0)
		return true;
	if (chmod(path, sb.st_mode & 0700) != 0)
		return false;
	++*tightened;
	return true;
}

/* Takes group and other permissions off the files and directories
 * directly in dir (RocksDB keeps all of its files there). */
static bool tighten_entries(const char *dir, size_t *tightened)
{
	DIR *d = opendir(dir);
	if (!d)
		return false;
	int fd = dirfd(d);
	bool ok = true;
	struct dirent *e;
	while (ok && (e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		struct stat sb;
		if (fstatat(fd, e->d_name, &sb, AT_SYMLINK_NOFOLLOW) != 0) {
			ok = errno == ENOENT; /* gone meanwhile */
			continue;
		}
		if (!(S_ISREG(sb.st_mode) || S_ISDIR(sb.st_mode)) || (sb.st_mode & NOT_OWNER_BITS) == 0)
			continue;
		if (fchmodat(fd, e->d_name, sb.st_mode & 0700, 0) != 0)
			ok = false;
		else
			++*tightened;
	}
	int saved = errno;
	closedir(d);
	errno = saved;
	return ok;
}

/*
 * mkdir -p dir with 0700; existing directories strictly below base, and
 * the entries directly in dir, lose their group and other permissions
 * (see the file's comment).  False with errno set on failure.
 */
bool stoat_state_make_dir(const char *base, const char *dir, size_t *tightened)
{
	size_t base_len = strlen(base);
	while (base_len > 1 && base[base_len - 1] == '/')
		base_len--;
	assert(strncmp(dir, base, base_len) == 0);
	*tightened = 0;
	char buf[4096];
	size_t n = strlen(dir);
	if (n >= sizeof buf) {
		errno = ENAMETOOLONG;
		return false;
	}
	memcpy(buf, dir, n + 1);
	for (size_t i = 1; i <= n; i++) {
		if (buf[i] != '/' && buf[i] != '\0')
			continue;
		char c = buf[i];
		buf[i] = '\0';
		if (mkdir(buf, 0700) != 0) {
			if (errno != EEXIST)
				return false;
			if (i > base_len && !tighten_dir(buf, tightened))
				return false;
		}
		buf[i] = c;
	}
	return tighten_entries(dir, tightened);
}
