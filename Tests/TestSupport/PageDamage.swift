import CipherStore
import Foundation

/// Damages page `page` (from 1) of the database file at `path`: 16 bytes past page 1's header
/// and salt are flipped, where the page's HMAC covers them, so the page no longer decrypts.
public func damagePage(_ page: Int, of path: String, pageSize: Int = SQLCipherLibrary.defaultPageSize) throws {
    let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
    defer { try? handle.close() }
    let offset = UInt64((page - 1) * pageSize + 100)
    try handle.seek(toOffset: offset)
    let before = try handle.read(upToCount: 16) ?? Data()
    try handle.seek(toOffset: offset)
    try handle.write(contentsOf: Data(before.map { $0 ^ 0xA5 }))
}
