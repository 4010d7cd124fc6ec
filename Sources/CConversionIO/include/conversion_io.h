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

/// The counter of bytes read from the main database file of `schema` on `db`, for another
/// thread to read with cipherstore_conversion_io_load() while the connection works; NULL when
/// that file was not opened through the conversion VFS. Valid until the file is closed.
const long long *cipherstore_conversion_io_read_counter(struct sqlite3 *db, const char *schema);

/// Reads a counter from cipherstore_conversion_io_read_counter(), from any thread.
long long cipherstore_conversion_io_load(const long long *counter);

#endif
