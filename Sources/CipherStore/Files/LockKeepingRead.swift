import CSQLCipher

/// Reads the first bytes of a database file without dropping this process's locks on it.
///
/// On Linux, closing any descriptor of a file releases every POSIX lock the process holds on
/// that file, SQLite's included: a plain `open`/`read`/`close` of a database that a queue or
/// pool of this process has open would let another process checkpoint and delete a WAL that
/// connection still reads, or write while it believes it holds a lock. SQLite's own VFS keeps
/// the descriptors of one file together and, while any connection holds a lock, parks a
/// closed descriptor instead of closing it; reading through that VFS keeps the locks.
enum LockKeepingRead {
    /// Up to `count` bytes from the start of the file at `path` (fewer for a shorter file);
    /// `nil` when it cannot be opened or read.
    static func prefix(of path: String, count: Int) -> [UInt8]? {
        guard count > 0, let vfs = sqlite3_vfs_find(nil), let open = vfs.pointee.xOpen else { return nil }
        // The full path, as SQLite makes it before it opens a database: relative paths made
        // absolute and symbolic links followed (the VFS opens the name it is given without
        // following a link: a database reached through one would look unreadable).
        var full = [CChar](repeating: 0, count: Int(vfs.pointee.mxPathname) + 1)
        let resolved = vfs.pointee.xFullPathname.map { fullPathname in
            full.withUnsafeMutableBufferPointer { fullPathname(vfs, path, Int32($0.count), $0.baseAddress) } & 0xFF == SQLITE_OK
        } ?? false
        // A main database's name as SQLite hands it to the VFS: the VFS may look for URI
        // parameters after its terminating NUL, and keeps the pointer until the file closes.
        let bytes = resolved ? full.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) } : Array(path.utf8)
        let name = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 4)
        name.initialize(repeating: 0, count: bytes.count + 4)
        defer { name.deallocate() }
        for (index, byte) in bytes.enumerated() { name[index] = CChar(bitPattern: byte) }
        let storage = UnsafeMutableRawPointer.allocate(byteCount: Int(vfs.pointee.szOsFile), alignment: 16)
        storage.initializeMemory(as: UInt8.self, repeating: 0, count: Int(vfs.pointee.szOsFile))
        defer { storage.deallocate() }
        let file = storage.assumingMemoryBound(to: sqlite3_file.self)
        var flags: Int32 = 0
        guard open(vfs, name, file, SQLITE_OPEN_READONLY | SQLITE_OPEN_MAIN_DB, &flags) == SQLITE_OK else {
            // A failed open may still have set methods that must close it.
            if let close = file.pointee.pMethods?.pointee.xClose { _ = close(file) }
            return nil
        }
        defer { _ = file.pointee.pMethods?.pointee.xClose(file) }
        guard let methods = file.pointee.pMethods?.pointee, let read = methods.xRead, let fileSize = methods.xFileSize else { return nil }
        var size: sqlite3_int64 = 0
        guard fileSize(file, &size) == SQLITE_OK else { return nil }
        let length = Int(min(sqlite3_int64(count), size))
        guard length > 0 else { return [] }
        var buffer = [UInt8](repeating: 0, count: length)
        let code = buffer.withUnsafeMutableBytes { read(file, $0.baseAddress, Int32($0.count), 0) }
        return code == SQLITE_OK ? buffer : nil
    }
}
