import CConversionIO
import CSQLCipher

/// The VFS of whole-file conversions (C, in `Sources/CConversionIO`): SQLite's default VFS
/// with contiguous page writes batched into 64 KB writes and a count of bytes read.
enum ConversionIO {
    /// Registers the VFS on first use; returns its name, for ``Configuration/vfsName``.
    static func vfsName() throws -> String {
        let code = cipherstore_conversion_io_register()
        guard code == SQLITE_OK else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code),
                                message: "the conversion VFS could not be registered over SQLite's default VFS")
        }
        return CIPHERSTORE_CONVERSION_IO_VFS
    }

    /// Bytes read so far from the main file of `schema`, or `nil` when that file was not
    /// opened through this VFS.
    static func bytesRead(_ db: OpaquePointer, schema: String = "main") -> Int64? {
        let count = cipherstore_conversion_io_bytes_read(db, schema)
        return count < 0 ? nil : Int64(count)
    }
}
