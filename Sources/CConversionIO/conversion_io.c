// The VFS of whole-file conversions: the default one, plus batched writes and a read counter
// on main database files.
//
// SQLCipher writes one page per system call (1 KB pages by default) and a conversion writes
// every page of a file; the calls cost about as much as the encryption. This layer keeps a run
// of contiguous writes in one buffer and passes it down as a single write. It also counts the
// bytes read, which is how far a conversion has come through its source.
//
// Ordering: buffered bytes are passed down before any read that overlaps them, any fetch
// (memory map) or size query, truncation, sync, unlock and close, and on SQLITE_FCNTL_SYNC,
// which the pager sends at every commit, also with synchronous=OFF, and whose error it
// reports. (A WAL checkpoint writes the database file, then truncates it before readers may
// rely on it: the truncation passes the batch down first.) A failed write is sticky: every
// later read, write, size query, sync and truncation returns it, so a lost batch can never
// pass for a written one.
#include "conversion_io.h"

#include <sqlcipher/sqlite3.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

// The default unix VFS passes at most 128 KB - 1 bytes to one pwrite (it masks the length),
// so a batch stays below that.
enum { BATCH_BYTES = 64 * 1024 };

typedef struct ConversionFile {
    sqlite3_file base;
    sqlite3_file *real;          // the default VFS's file, allocated right after this struct
    int batches;                 // main database files only; other files pass through
    int failure;                 // the first failed write's result code, or SQLITE_OK
    sqlite3_int64 bytesRead;     // by xRead and xFetch; atomic: a progress timer reads it
    int interrupted;             // set from another thread: reads fail from then on
    unsigned char *pending;      // bytes not yet written, contiguous from pendingStart
    sqlite3_int64 pendingStart;
    int pendingBytes;
} ConversionFile;

static sqlite3_vfs *rootVFS;

static ConversionFile *asConversionFile(sqlite3_file *base) { return (ConversionFile *)base; }

static int flushPending(ConversionFile *file) {
    if (file->failure != SQLITE_OK) return file->failure;
    if (file->pendingBytes == 0) return SQLITE_OK;
    int rc = file->real->pMethods->xWrite(file->real, file->pending, file->pendingBytes, file->pendingStart);
    file->pendingBytes = 0;
    if (rc != SQLITE_OK) file->failure = rc;
    return rc;
}

static int conversionClose(sqlite3_file *base) {
    ConversionFile *file = asConversionFile(base);
    int rc = flushPending(file);
    int closeCode = file->real->pMethods->xClose(file->real);
    free(file->pending);
    file->pending = NULL;
    return rc != SQLITE_OK ? rc : closeCode;
}

static int conversionRead(sqlite3_file *base, void *out, int amount, sqlite3_int64 offset) {
    ConversionFile *file = asConversionFile(base);
    if (file->failure != SQLITE_OK) return file->failure;
    int overlapsPending = file->pendingBytes > 0 && offset < file->pendingStart + file->pendingBytes
        && offset + amount > file->pendingStart;
    int rc = overlapsPending ? flushPending(file) : SQLITE_OK;
    if (rc != SQLITE_OK) return rc;
    if (__atomic_load_n(&file->interrupted, __ATOMIC_RELAXED)) return SQLITE_INTERRUPT;
    __atomic_fetch_add(&file->bytesRead, amount, __ATOMIC_RELAXED);
    return file->real->pMethods->xRead(file->real, out, amount, offset);
}

static int conversionWrite(sqlite3_file *base, const void *data, int amount, sqlite3_int64 offset) {
    ConversionFile *file = asConversionFile(base);
    if (!file->batches) return file->real->pMethods->xWrite(file->real, data, amount, offset);
    if (file->failure != SQLITE_OK) return file->failure;
    sqlite3_int64 pendingEnd = file->pendingStart + file->pendingBytes;
    if (file->pendingBytes > 0 && offset >= file->pendingStart && offset + amount <= pendingEnd) {
        memcpy(file->pending + (offset - file->pendingStart), data, (size_t)amount);
        return SQLITE_OK;
    }
    if (file->pendingBytes > 0 && offset == pendingEnd && file->pendingBytes + amount <= BATCH_BYTES) {
        memcpy(file->pending + file->pendingBytes, data, (size_t)amount);
        file->pendingBytes += amount;
        return SQLITE_OK;
    }
    int rc = flushPending(file);
    if (rc != SQLITE_OK) return rc;
    if (amount > BATCH_BYTES / 2) return file->real->pMethods->xWrite(file->real, data, amount, offset);
    if (file->pending == NULL && (file->pending = malloc(BATCH_BYTES)) == NULL) {
        return file->real->pMethods->xWrite(file->real, data, amount, offset);
    }
    memcpy(file->pending, data, (size_t)amount);
    file->pendingStart = offset;
    file->pendingBytes = amount;
    return SQLITE_OK;
}

static int conversionTruncate(sqlite3_file *base, sqlite3_int64 size) {
    ConversionFile *file = asConversionFile(base);
    int rc = flushPending(file);
    return rc != SQLITE_OK ? rc : file->real->pMethods->xTruncate(file->real, size);
}

static int conversionSync(sqlite3_file *base, int flags) {
    ConversionFile *file = asConversionFile(base);
    int rc = flushPending(file);
    return rc != SQLITE_OK ? rc : file->real->pMethods->xSync(file->real, flags);
}

static int conversionFileSize(sqlite3_file *base, sqlite3_int64 *size) {
    ConversionFile *file = asConversionFile(base);
    int rc = flushPending(file);
    return rc != SQLITE_OK ? rc : file->real->pMethods->xFileSize(file->real, size);
}

static int conversionLock(sqlite3_file *base, int level) {
    ConversionFile *file = asConversionFile(base);
    return file->real->pMethods->xLock(file->real, level);
}

static int conversionUnlock(sqlite3_file *base, int level) {
    ConversionFile *file = asConversionFile(base);
    int rc = flushPending(file);
    int unlockCode = file->real->pMethods->xUnlock(file->real, level);
    return rc != SQLITE_OK ? rc : unlockCode;
}

static int conversionCheckReservedLock(sqlite3_file *base, int *result) {
    ConversionFile *file = asConversionFile(base);
    return file->real->pMethods->xCheckReservedLock(file->real, result);
}

static int conversionFileControl(sqlite3_file *base, int op, void *argument) {
    ConversionFile *file = asConversionFile(base);
    if (op == SQLITE_FCNTL_SYNC) {
        int rc = flushPending(file);
        if (rc != SQLITE_OK) return rc;
    }
    return file->real->pMethods->xFileControl(file->real, op, argument);
}

static int conversionSectorSize(sqlite3_file *base) {
    ConversionFile *file = asConversionFile(base);
    return file->real->pMethods->xSectorSize(file->real);
}

static int conversionDeviceCharacteristics(sqlite3_file *base) {
    ConversionFile *file = asConversionFile(base);
    return file->real->pMethods->xDeviceCharacteristics(file->real);
}

static int conversionShmMap(sqlite3_file *base, int region, int size, int extend, void volatile **memory) {
    ConversionFile *file = asConversionFile(base);
    return file->real->pMethods->xShmMap(file->real, region, size, extend, memory);
}

static int conversionShmLock(sqlite3_file *base, int offset, int count, int flags) {
    ConversionFile *file = asConversionFile(base);
    return file->real->pMethods->xShmLock(file->real, offset, count, flags);
}

static void conversionShmBarrier(sqlite3_file *base) {
    ConversionFile *file = asConversionFile(base);
    file->real->pMethods->xShmBarrier(file->real);
}

static int conversionShmUnmap(sqlite3_file *base, int deleteFlag) {
    ConversionFile *file = asConversionFile(base);
    return file->real->pMethods->xShmUnmap(file->real, deleteFlag);
}

static int conversionFetch(sqlite3_file *base, sqlite3_int64 offset, int amount, void **page) {
    ConversionFile *file = asConversionFile(base);
    *page = NULL;
    int rc = flushPending(file);
    if (rc != SQLITE_OK) return rc;
    if (__atomic_load_n(&file->interrupted, __ATOMIC_RELAXED)) return SQLITE_INTERRUPT;
    __atomic_fetch_add(&file->bytesRead, amount, __ATOMIC_RELAXED);
    return file->real->pMethods->xFetch(file->real, offset, amount, page);
}

static int conversionUnfetch(sqlite3_file *base, sqlite3_int64 offset, void *page) {
    ConversionFile *file = asConversionFile(base);
    return file->real->pMethods->xUnfetch(file->real, offset, page);
}

static const sqlite3_io_methods conversionMethods = {
    3,
    conversionClose, conversionRead, conversionWrite, conversionTruncate, conversionSync, conversionFileSize,
    conversionLock, conversionUnlock, conversionCheckReservedLock, conversionFileControl,
    conversionSectorSize, conversionDeviceCharacteristics,
    conversionShmMap, conversionShmLock, conversionShmBarrier, conversionShmUnmap,
    conversionFetch, conversionUnfetch,
};

static int conversionOpen(sqlite3_vfs *vfs, const char *name, sqlite3_file *base, int flags, int *outFlags) {
    (void)vfs;
    ConversionFile *file = asConversionFile(base);
    memset(file, 0, sizeof *file);
    file->real = (sqlite3_file *)&file[1];
    int rc = rootVFS->xOpen(rootVFS, name, file->real, flags, outFlags);
    if (rc != SQLITE_OK || file->real->pMethods == NULL) {
        if (file->real->pMethods != NULL) file->real->pMethods->xClose(file->real);
        base->pMethods = NULL;
        return rc != SQLITE_OK ? rc : SQLITE_CANTOPEN;
    }
    // The methods above forward shared memory and memory mapping: version 3 is required.
    if (file->real->pMethods->iVersion < 3) {
        file->real->pMethods->xClose(file->real);
        base->pMethods = NULL;
        return SQLITE_CANTOPEN;
    }
    file->batches = (flags & SQLITE_OPEN_MAIN_DB) != 0;
    base->pMethods = &conversionMethods;
    return SQLITE_OK;
}

static int rootDelete(sqlite3_vfs *vfs, const char *name, int syncDir) { (void)vfs; return rootVFS->xDelete(rootVFS, name, syncDir); }
static int rootAccess(sqlite3_vfs *vfs, const char *name, int flags, int *result) { (void)vfs; return rootVFS->xAccess(rootVFS, name, flags, result); }
static int rootFullPathname(sqlite3_vfs *vfs, const char *name, int size, char *out) { (void)vfs; return rootVFS->xFullPathname(rootVFS, name, size, out); }
static void *rootDlOpen(sqlite3_vfs *vfs, const char *name) { (void)vfs; return rootVFS->xDlOpen(rootVFS, name); }
static void rootDlError(sqlite3_vfs *vfs, int size, char *out) { (void)vfs; rootVFS->xDlError(rootVFS, size, out); }
static void (*rootDlSym(sqlite3_vfs *vfs, void *handle, const char *symbol))(void) { (void)vfs; return rootVFS->xDlSym(rootVFS, handle, symbol); }
static void rootDlClose(sqlite3_vfs *vfs, void *handle) { (void)vfs; rootVFS->xDlClose(rootVFS, handle); }
static int rootRandomness(sqlite3_vfs *vfs, int size, char *out) { (void)vfs; return rootVFS->xRandomness(rootVFS, size, out); }
static int rootSleep(sqlite3_vfs *vfs, int microseconds) { (void)vfs; return rootVFS->xSleep(rootVFS, microseconds); }
static int rootCurrentTime(sqlite3_vfs *vfs, double *now) { (void)vfs; return rootVFS->xCurrentTime(rootVFS, now); }
static int rootGetLastError(sqlite3_vfs *vfs, int size, char *out) { (void)vfs; return rootVFS->xGetLastError(rootVFS, size, out); }
static int rootCurrentTimeInt64(sqlite3_vfs *vfs, sqlite3_int64 *now) { (void)vfs; return rootVFS->xCurrentTimeInt64(rootVFS, now); }

static sqlite3_vfs conversionVFS;
static int registrationCode = SQLITE_ERROR;
static pthread_once_t registrationOnce = PTHREAD_ONCE_INIT;

static void registerConversionVFS(void) {
    rootVFS = sqlite3_vfs_find(NULL);
    if (rootVFS == NULL || rootVFS->iVersion < 2) return;
    conversionVFS = (sqlite3_vfs){
        .iVersion = 2,
        .szOsFile = (int)sizeof(ConversionFile) + rootVFS->szOsFile,
        .mxPathname = rootVFS->mxPathname,
        .zName = CIPHERSTORE_CONVERSION_IO_VFS,
        .xOpen = conversionOpen, .xDelete = rootDelete, .xAccess = rootAccess,
        .xFullPathname = rootFullPathname, .xDlOpen = rootDlOpen, .xDlError = rootDlError,
        .xDlSym = rootDlSym, .xDlClose = rootDlClose, .xRandomness = rootRandomness,
        .xSleep = rootSleep, .xCurrentTime = rootCurrentTime, .xGetLastError = rootGetLastError,
        .xCurrentTimeInt64 = rootCurrentTimeInt64,
    };
    registrationCode = sqlite3_vfs_register(&conversionVFS, 0);
}

int cipherstore_conversion_io_register(void) {
    pthread_once(&registrationOnce, registerConversionVFS);
    return registrationCode;
}

long long cipherstore_conversion_io_bytes_read(sqlite3 *db, const char *schema) {
    sqlite3_file *base = NULL;
    if (sqlite3_file_control(db, schema, SQLITE_FCNTL_FILE_POINTER, &base) != SQLITE_OK || base == NULL
        || base->pMethods != &conversionMethods) {
        return -1;
    }
    return __atomic_load_n(&asConversionFile(base)->bytesRead, __ATOMIC_RELAXED);
}

void *cipherstore_conversion_io_file(sqlite3 *db, const char *schema) {
    sqlite3_file *base = NULL;
    if (sqlite3_file_control(db, schema, SQLITE_FCNTL_FILE_POINTER, &base) != SQLITE_OK || base == NULL
        || base->pMethods != &conversionMethods) {
        return NULL;
    }
    return base;
}

long long cipherstore_conversion_io_file_bytes_read(const void *file) {
    return __atomic_load_n(&((const ConversionFile *)file)->bytesRead, __ATOMIC_RELAXED);
}

void cipherstore_conversion_io_file_interrupt(void *file) {
    __atomic_store_n(&((ConversionFile *)file)->interrupted, 1, __ATOMIC_RELAXED);
}
