@_spi(Fuzzing) import CipherStore
import Foundation

// The page reader of the settings finder (HMAC check and AES-CBC decryption of a first page,
// for SQLCipher 1 to 4's layouts and every page size up to the input's length) on damaged
// encrypted files, with a raw key: no key stretching per run. Only thrown errors and `nil`
// are acceptable.

let pageKey = try! DatabaseKey.rawKey(hex: String(repeating: "f0", count: 32))

func fuzzPages(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data else { return 0 }
    // Searched in memory: no file per run.
    // Settings found must be whole: a page size, an iteration count and a reserve layout.
    if let found = try? CipherSettingsFinder.find(firstPage: Array(UnsafeBufferPointer(start: data, count: size)), key: pageKey),
       found.settings.pageSize == nil || found.settings.useHMAC == nil || found.keyDerivations != 0 {
        FileHandle.standardError.write(Data("the page reader returned incomplete settings: \(found.settings)\n".utf8))
        abort()
    }
    return 0
}
