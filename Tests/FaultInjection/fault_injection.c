// A preloaded library (LD_PRELOAD) that counts the calls a process makes to change files under
// one directory, and makes one of them fail with EIO or kills the process at it.
//
// Environment:
//   FAULT_DIR=path     only files under this directory count (and fds that name one);
//   FAULT_AT=N         the Nth counted call fails (1-based); 0 or unset: none does;
//   FAULT_MODE=eio     the call fails with EIO, doing nothing (the default);
//   FAULT_MODE=crash   the process is killed (SIGKILL) instead of making the call;
//   FAULT_COUNT=path   at exit, the number of counted calls is written there;
//   FAULT_LOG=path     each counted call is appended there as "N call path".
// Counted: write, pwrite, pwrite64, fsync, fdatasync, ftruncate, rename, link, unlink.
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
    return real(fd, buffer, count);
}

ssize_t pwrite(int fd, const void *buffer, size_t count, off_t offset) {
    REAL(pwrite);
    if (fd_fault("pwrite", fd)) { errno = EIO; return -1; }
    return real(fd, buffer, count, offset);
}

ssize_t pwrite64(int fd, const void *buffer, size_t count, off64_t offset) {
    REAL(pwrite64);
    if (fd_fault("pwrite64", fd)) { errno = EIO; return -1; }
    return real(fd, buffer, count, offset);
}

int fsync(int fd) {
    REAL(fsync);
    if (fd_fault("fsync", fd)) { errno = EIO; return -1; }
    return real(fd);
}

int fdatasync(int fd) {
    REAL(fdatasync);
    if (fd_fault("fdatasync", fd)) { errno = EIO; return -1; }
    return real(fd);
}

int ftruncate(int fd, off_t length) {
    REAL(ftruncate);
    if (fd_fault("ftruncate", fd)) { errno = EIO; return -1; }
    return real(fd, length);
}

int rename(const char *from, const char *to) {
    REAL(rename);
    if (path_fault("rename", to)) { errno = EIO; return -1; }
    return real(from, to);
}

int link(const char *from, const char *to) {
    REAL(link);
    if (path_fault("link", to)) { errno = EIO; return -1; }
    return real(from, to);
}

int unlink(const char *path) {
    REAL(unlink);
    if (path_fault("unlink", path)) { errno = EIO; return -1; }
    return real(path);
}
