#ifndef CIPHERSTORE_CONVERSION_IO_H
#define CIPHERSTORE_CONVERSION_IO_H

struct sqlite3;

/// The name of the VFS that cipherstore_conversion_io_register() registers.
#define CIPHERSTORE_CONVERSION_IO_VFS "cipherstore-conversion-io"

/// Registers, once and thread-safely, a VFS over the default one for whole-file conversions:
/// contiguous page writes to main database files are passed down as 64 KB writes, and bytes
/// read are counted. Files keep the default VFS's locking, shared memory and memory mapping.
/// Returns an SQLite result code.
int cipherstore_conversion_io_register(void);

/// Bytes read so far from the main database file of `schema` on `db`, or -1 when that file was
/// not opened through the conversion VFS.
long long cipherstore_conversion_io_bytes_read(struct sqlite3 *db, const char *schema);

/// The main database file of `schema` on `db`, for another thread to watch and interrupt while
/// the connection works; NULL when that file was not opened through the conversion VFS. Valid
/// until the file is closed.
void *cipherstore_conversion_io_file(struct sqlite3 *db, const char *schema);

/// Bytes read so far from a file of cipherstore_conversion_io_file(), from any thread.
long long cipherstore_conversion_io_file_bytes_read(const void *file);

/// Makes every later read of the file fail with SQLITE_INTERRUPT, from any thread: stops work
/// that SQLite's own interrupt does not reach (SQLite 3.15's integrity check and count(*)).
void cipherstore_conversion_io_file_interrupt(void *file);

#endif
