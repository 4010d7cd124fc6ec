import CSQLCipher

extension Connection {
    /// The first 16 bytes of the main database file — SQLCipher's salt — read through SQLite's
    /// own handle of the file (`SQLITE_FCNTL_FILE_POINTER`); `nil` for a file shorter than
    /// that, a plaintext SQLite file, or a database that is not a file.
    ///
    /// Opening and closing a second descriptor of the file would drop every POSIX lock this
    /// process holds on it: another process could then checkpoint and delete a WAL that this
    /// connection still reads, or write while this connection believes it holds a lock.
    func mainFileSalt() -> [UInt8]? {
        guard let db = try? handle.pointer else { return nil }
        var file: UnsafeMutablePointer<sqlite3_file>?
        guard sqlite3_file_control(db, "main", SQLITE_FCNTL_FILE_POINTER, &file) == SQLITE_OK,
              let file, let read = file.pointee.pMethods?.pointee.xRead else { return nil }
        var salt = [UInt8](repeating: 0, count: 16)
        let code = salt.withUnsafeMutableBytes { read(file, $0.baseAddress, Int32($0.count), 0) }
        guard code == SQLITE_OK, salt != DatabaseFileInfo.sqliteHeader else { return nil }
        return salt
    }
}
