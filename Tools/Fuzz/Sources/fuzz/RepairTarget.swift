@_spi(Fuzzing) import CipherStore
import Foundation

// The repair's page reader on damaged encrypted files, with a raw key (no key stretching per
// run): each page's HMAC and decryption, then the b-tree pages and records of what reads. The
// same bytes are then taken as pages decrypted already, so the b-tree and record parsers meet
// every byte the fuzzer makes, not only what passes an HMAC; and as a WAL file. Only thrown
// errors and pages or rows left out are acceptable.

let repairKey = try! DatabaseKey.rawKey(hex: String(repeating: "f0", count: 32))

func fuzzRepair(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data else { return 0 }
    let image = Array(UnsafeBufferPointer(start: data, count: size))
    _ = try? DatabaseRepair.decodeRows(inImage: image, key: repairKey)
    _ = try? DatabaseRepair.decodeRows(inImage: image, key: nil)
    // And as a WAL file: its header, frames, salts and checksums.
    _ = DatabaseRepair.committedFrames(inLog: image)
    return 0
}
