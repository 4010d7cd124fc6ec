// A preloaded library (LD_PRELOAD) that counts the calls a process makes to change files under
// one directory, and makes one of them fail with EIO or kills the process at it.
//
// Environment:
//   FAULT_DIR=path     only files under this directory count (and fds that name one);
//   FAULT_AT=N         the Nth counted call fails (1-based); 0 or unset: none does;
//   FAULT_MODE=eio     the call fails with EIO, doing nothing (the default);
//   FAULT_MODE=crash   the process is killed (SIGKILL) instead of making the call;
//   FAULT_COUNT=path   at exit, the number of counted calls is written there;
//   FAULT_LOG=path     each counted call is appended there as "N call path";
//   FAULT_RECORD=path  each call that changed a file is appended there with its data, for the
//                      power-loss simulator: a line "OP OFFSET LENGTH1 LENGTH2 DATALENGTH\n",
//                      then the path (LENGTH1 bytes), a second path (LENGTH2) and the data.
//                      OP is W (write at OFFSET), T (truncate to OFFSET), C (open with O_CREAT;
//                      OFFSET 1 with O_TRUNC), R (rename), L (link), U (unlink), S (fsync or
//                      fdatasync of a file or directory). Paths are absolute.
// Counted: write, pwrite, pwrite64, fsync, fdatasync, ftruncate, rename, link, unlink; recorded
// also: opens that create or truncate.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

static long counted = 0;
static int exit_hook_installed = 0;

static const char *fault_dir(void) { return getenv("FAULT_DIR"); }

static int path_counts(const char *path) {
    const char *dir = fault_dir();
    if (dir == NULL || path == NULL) return 0;
    char resolved[8200];
    const char *candidate = path;
    if (path[0] != '/') {
        char cwd[4096];
        if (getcwd(cwd, sizeof cwd) == NULL) return 0;
        snprintf(resolved, sizeof resolved, "%s/%s", cwd, path);
        candidate = resolved;
    }
    return strncmp(candidate, dir, strlen(dir)) == 0;
}

static int fd_path(int fd, char *buffer, size_t size) {
    char link[64];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t length = readlink(link, buffer, size - 1);
    if (length < 0) return 0;
    buffer[length] = 0;
    return 1;
}

static void write_count(void) {
    const char *path = getenv("FAULT_COUNT");
    if (path == NULL) return;
    int (*real_open)(const char *, int, ...) = dlsym(RTLD_NEXT, "open");
    ssize_t (*real_write)(int, const void *, size_t) = dlsym(RTLD_NEXT, "write");
    int fd = real_open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) return;
    char text[32];
    int length = snprintf(text, sizeof text, "%ld\n", __atomic_load_n(&counted, __ATOMIC_SEQ_CST));
    real_write(fd, text, (size_t)length);
    close(fd);
}

static void log_call(const char *call, const char *path, long number) {
    const char *log = getenv("FAULT_LOG");
    if (log == NULL) return;
    int (*real_open)(const char *, int, ...) = dlsym(RTLD_NEXT, "open");
    ssize_t (*real_write)(int, const void *, size_t) = dlsym(RTLD_NEXT, "write");
    int fd = real_open(log, O_WRONLY | O_CREAT | O_APPEND, 0600);
    if (fd < 0) return;
    char line[4300];
    int length = snprintf(line, sizeof line, "%ld %s %s\n", number, call, path);
    real_write(fd, line, (size_t)length);
    close(fd);
}

// Whether this call fails: 1 fail with EIO; never returns when it crashes.
static int fault(const char *call, const char *path) {
    if (!exit_hook_installed) {
        exit_hook_installed = 1;
        atexit(write_count);
    }
    long number = __atomic_add_fetch(&counted, 1, __ATOMIC_SEQ_CST);
    write_count();
    log_call(call, path, number);
    const char *at = getenv("FAULT_AT");
    if (at == NULL || atol(at) != number) return 0;
    const char *mode = getenv("FAULT_MODE");
    if (mode != NULL && strcmp(mode, "crash") == 0) {
        kill(getpid(), SIGKILL);
        pause();
    }
    return 1;
}

static void absolute(const char *path, char *out, size_t size) {
    if (path[0] == '/') {
        snprintf(out, size, "%s", path);
    } else {
        char cwd[4096];
        if (getcwd(cwd, sizeof cwd) == NULL) cwd[0] = 0;
        snprintf(out, size, "%s/%s", cwd, path);
    }
}

// Appends one record to FAULT_RECORD (see the header).
static void record(char op, long long offset, const char *first, const char *second, const void *data, size_t length) {
    const char *log = getenv("FAULT_RECORD");
    if (log == NULL) return;
    int (*real_open)(const char *, int, ...) = dlsym(RTLD_NEXT, "open");
    ssize_t (*real_write)(int, const void *, size_t) = dlsym(RTLD_NEXT, "write");
    int fd = real_open(log, O_WRONLY | O_CREAT | O_APPEND, 0600);
    if (fd < 0) return;
    size_t first_length = first ? strlen(first) : 0, second_length = second ? strlen(second) : 0;
    char header[160];
    int header_length = snprintf(header, sizeof header, "%c %lld %zu %zu %zu\n", op, offset, first_length, second_length, length);
    size_t total = (size_t)header_length + first_length + second_length + length;
    char *buffer = malloc(total);
    if (buffer != NULL) {
        memcpy(buffer, header, (size_t)header_length);
        if (first_length) memcpy(buffer + header_length, first, first_length);
        if (second_length) memcpy(buffer + header_length + first_length, second, second_length);
        if (length) memcpy(buffer + header_length + first_length + second_length, data, length);
        real_write(fd, buffer, total);
        free(buffer);
    }
    close(fd);
}

static void record_fd(char op, int fd, long long offset, const void *data, size_t length) {
    if (getenv("FAULT_RECORD") == NULL) return;
    char path[4096];
    if (!fd_path(fd, path, sizeof path) || !path_counts(path)) return;
    record(op, offset, path, NULL, data, length);
}

static void record_paths(char op, const char *first, const char *second) {
    if (getenv("FAULT_RECORD") == NULL || !path_counts(first)) return;
    char a[8200], b[8200];
    absolute(first, a, sizeof a);
    if (second) absolute(second, b, sizeof b);
    record(op, 0, a, second ? b : NULL, NULL, 0);
}

static int fd_fault(const char *call, int fd) {
    char path[4096];
    if (!fd_path(fd, path, sizeof path) || !path_counts(path)) return 0;
    return fault(call, path);
}

static int path_fault(const char *call, const char *path) {
    return path_counts(path) ? fault(call, path) : 0;
}

#define REAL(name) static __typeof__(name) *real = NULL; if (real == NULL) real = (__typeof__(name) *)dlsym(RTLD_NEXT, #name)

ssize_t write(int fd, const void *buffer, size_t count) {
    REAL(write);
    if (fd_fault("write", fd)) { errno = EIO; return -1; }
    off_t at = lseek(fd, 0, SEEK_CUR);
    ssize_t written = real(fd, buffer, count);
    if (written > 0 && at >= 0) record_fd('W', fd, at, buffer, (size_t)written);
    return written;
}

ssize_t pwrite(int fd, const void *buffer, size_t count, off_t offset) {
    REAL(pwrite);
    if (fd_fault("pwrite", fd)) { errno = EIO; return -1; }
    ssize_t written = real(fd, buffer, count, offset);
    if (written > 0) record_fd('W', fd, offset, buffer, (size_t)written);
    return written;
}

ssize_t pwrite64(int fd, const void *buffer, size_t count, off64_t offset) {
    REAL(pwrite64);
    if (fd_fault("pwrite64", fd)) { errno = EIO; return -1; }
    ssize_t written = real(fd, buffer, count, offset);
    if (written > 0) record_fd('W', fd, offset, buffer, (size_t)written);
    return written;
}

int fsync(int fd) {
    REAL(fsync);
    if (fd_fault("fsync", fd)) { errno = EIO; return -1; }
    int result = real(fd);
    if (result == 0) record_fd('S', fd, 0, NULL, 0);
    return result;
}

int fdatasync(int fd) {
    REAL(fdatasync);
    if (fd_fault("fdatasync", fd)) { errno = EIO; return -1; }
    int result = real(fd);
    if (result == 0) record_fd('S', fd, 0, NULL, 0);
    return result;
}

int ftruncate(int fd, off_t length) {
    REAL(ftruncate);
    if (fd_fault("ftruncate", fd)) { errno = EIO; return -1; }
    int result = real(fd, length);
    if (result == 0) record_fd('T', fd, length, NULL, 0);
    return result;
}

int rename(const char *from, const char *to) {
    REAL(rename);
    if (path_fault("rename", to)) { errno = EIO; return -1; }
    int result = real(from, to);
    if (result == 0) record_paths('R', from, to);
    return result;
}

int link(const char *from, const char *to) {
    REAL(link);
    if (path_fault("link", to)) { errno = EIO; return -1; }
    int result = real(from, to);
    if (result == 0) record_paths('L', from, to);
    return result;
}

int unlink(const char *path) {
    REAL(unlink);
    if (path_fault("unlink", path)) { errno = EIO; return -1; }
    int result = real(path);
    if (result == 0) record_paths('U', path, NULL);
    return result;
}

// Opens are not counted (no fault is injected there), only recorded when they create or truncate.
static int recorded_open(int fd, const char *path, int flags) {
    if (fd >= 0 && (flags & (O_CREAT | O_TRUNC)) && getenv("FAULT_RECORD") != NULL && path_counts(path)) {
        char full[8200];
        absolute(path, full, sizeof full);
        record('C', (flags & O_TRUNC) ? 1 : 0, full, NULL, NULL, 0);
    }
    return fd;
}

int open(const char *path, int flags, ...) {
    REAL(open);
    mode_t mode = 0;
    if (flags & (O_CREAT | O_TMPFILE)) { va_list arguments; va_start(arguments, flags); mode = va_arg(arguments, mode_t); va_end(arguments); }
    return recorded_open(real(path, flags, mode), path, flags);
}

int open64(const char *path, int flags, ...) {
    REAL(open64);
    mode_t mode = 0;
    if (flags & (O_CREAT | O_TMPFILE)) { va_list arguments; va_start(arguments, flags); mode = va_arg(arguments, mode_t); va_end(arguments); }
    return recorded_open(real(path, flags, mode), path, flags);
}
