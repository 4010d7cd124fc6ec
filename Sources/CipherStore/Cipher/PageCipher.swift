import Crypto
import CryptoExtras
import Foundation

/// How SQLCipher (1 to 4) encrypts one page, reproduced with swift-crypto, to check pages
/// without opening the file in SQLite: the settings finder tries candidate settings against the
/// first page in microseconds each.
///
/// Each page is AES-256-CBC encrypted on its own. Its last `reserve` bytes hold a random IV
/// (16 bytes) and, with HMAC, the HMAC of the ciphertext, the IV and the page number (4 bytes,
/// little-endian; big-endian in files SQLCipher 2.0.0 to 2.0.6 wrote on big-endian processors);
/// the reserve is rounded up to a multiple of 16 (48 bytes with HMAC-SHA1 or -SHA256, 80 with
/// HMAC-SHA512, 16 without HMAC). The first page's first 16 bytes are the KDF salt (or, with a
/// plaintext header, its first `headerSize` bytes are left as they are), and the encryption
/// starts after them. The HMAC key is derived from the page key with PBKDF2 (the KDF's hash, 2
/// iterations) over the salt with each byte XORed with 0x3a (SQLCipher 2.0.0: 0x00, and as
/// many iterations as the page key).
struct PageCipher {
    /// SQLCipher's HMAC salt mask since 2.0.2 (`HMAC_SALT_MASK`).
    static let defaultHMACSaltMask: UInt8 = 0x3a
    /// SQLCipher's PBKDF2 iterations for the HMAC key since 2.0.2 (`FAST_PBKDF2_ITER`).
    static let defaultHMACKDFIterations = 2

    /// The page key and the HMAC key derived from it, for one KDF hash and salt: the same for
    /// every page size and HMAC choice, so derived once.
    struct Keys {
        let key: SymmetricKey
        let hmacKey: SymmetricKey
        let hmacSaltMask: UInt8
        let hmacKDFIterations: Int

        /// - Parameters:
        ///   - key: the 32-byte page key (derived from a passphrase, or a raw key).
        ///   - kdfAlgorithm: the hash of the KDF, which also derives the HMAC key.
        init(key: UnsafeRawBufferPointer, salt: [UInt8], kdfAlgorithm: CipherSettings.HashAlgorithm,
             hmacSaltMask: UInt8 = PageCipher.defaultHMACSaltMask, hmacKDFIterations: Int = PageCipher.defaultHMACKDFIterations) throws {
            self.key = SymmetricKey(data: key)
            self.hmacSaltMask = hmacSaltMask
            self.hmacKDFIterations = hmacKDFIterations
            hmacKey = try KDF.Insecure.PBKDF2.deriveKey(from: key, salt: salt.map { $0 ^ hmacSaltMask }, using: PageCipher.pbkdf2Hash(kdfAlgorithm),
                                                        outputByteCount: 32, unsafeUncheckedRounds: hmacKDFIterations)
        }
    }

    let pageSize: Int
    /// The page HMAC's hash; `nil` for pages without HMAC.
    let hmac: CipherSettings.HashAlgorithm?
    /// Bytes before the encrypted part of the first page: 16 (the salt) or the plaintext header's size.
    let headerSize: Int
    /// The page number's byte order in the HMAC.
    let pageNumberByteOrder: CipherSettings.PageNumberByteOrder
    private let key: SymmetricKey
    /// The HMAC with its key set up once; each page's starts from a copy of it (the key's pads
    /// are hashed once, not for every page).
    private let keyedHMAC: KeyedHMAC?

    private enum KeyedHMAC {
        case sha1(HMAC<Insecure.SHA1>)
        case sha256(HMAC<SHA256>)
        case sha512(HMAC<SHA512>)
    }

    init(keys: Keys, pageSize: Int, hmac: CipherSettings.HashAlgorithm?, headerSize: Int = 16,
         pageNumberByteOrder: CipherSettings.PageNumberByteOrder = .littleEndian) {
        self.pageSize = pageSize
        self.hmac = hmac
        self.headerSize = headerSize
        self.pageNumberByteOrder = pageNumberByteOrder
        key = keys.key
        switch hmac {
        case .sha1: keyedHMAC = .sha1(HMAC(key: keys.hmacKey))
        case .sha256: keyedHMAC = .sha256(HMAC(key: keys.hmacKey))
        case .sha512: keyedHMAC = .sha512(HMAC(key: keys.hmacKey))
        case nil: keyedHMAC = nil
        }
    }

    /// The reserved bytes at the end of each page: IV and HMAC, in whole AES blocks.
    var reserve: Int {
        let used = 16 + (hmac.map(Self.hmacSize) ?? 0)
        return (used + 15) / 16 * 16
    }

    /// Whether the page's HMAC matches (always `false` without HMAC: nothing to check).
    /// - Parameter page: the page as stored, `pageSize` bytes.
    func authenticates(_ page: ArraySlice<UInt8>, number: UInt32) -> Bool {
        guard let hmac, let keyedHMAC, page.count == pageSize else { return false }
        let base = page.startIndex
        let start = base + (number == 1 ? headerSize : 0)
        let end = base + pageSize - reserve + 16
        let stored = page[end..<(end + Self.hmacSize(hmac))]
        let pageNumber = pageNumberByteOrder == .littleEndian ? number.littleEndian : number.bigEndian
        switch keyedHMAC {
        case .sha1(let keyed): return Self.code(keyed, page[start..<end], pageNumber).withUnsafeBytes { stored.elementsEqual($0) }
        case .sha256(let keyed): return Self.code(keyed, page[start..<end], pageNumber).withUnsafeBytes { stored.elementsEqual($0) }
        case .sha512(let keyed): return Self.code(keyed, page[start..<end], pageNumber).withUnsafeBytes { stored.elementsEqual($0) }
        }
    }

    /// The page as SQLite sees it, decrypted: its usable part (the page size minus the
    /// reserve), the first page starting with SQLite's magic string where the file holds the
    /// salt. `nil` when the HMAC does not match (changed, torn or never written), or for pages
    /// without HMAC, never: nothing tells a damaged page from a sound one then.
    /// - Parameter page: the page as stored, `pageSize` bytes.
    func decrypt(_ page: ArraySlice<UInt8>, number: UInt32) throws -> [UInt8]? {
        guard page.count == pageSize, hmac == nil || authenticates(page, number: number) else { return nil }
        let base = page.startIndex
        let start = number == 1 ? headerSize : 0
        let end = pageSize - reserve
        let iv = try AES._CBC.IV(ivBytes: page[(base + end)..<(base + end + 16)])
        let plaintext = try AES._CBC.decrypt(page[(base + start)..<(base + end)], using: key, iv: iv, noPadding: true)
        guard number == 1 else { return Array(plaintext) }
        let prefix: [UInt8] = headerSize == 16 ? Array("SQLite format 3\u{0}".utf8) : Array(page[base..<(base + headerSize)])
        return prefix + plaintext
    }

    /// Whether the first page's SQLite header fields (file offsets 16 to 23) read as this page
    /// size: page size, file format versions, payload fractions (64, 32, 32). Not the reserved
    /// bytes: SQLCipher 4 writes its own default (80) there even for a file whose pages reserve
    /// less (SQLCipher 3's settings, or no HMAC). Decrypts one AES block only (the fields are in plaintext after a plaintext
    /// header): a cheap test before the HMAC, and for pages without HMAC the only one there is.
    func firstPageHeaderMatches(_ bytes: ArraySlice<UInt8>) throws -> Bool {
        guard bytes.count == pageSize, pageSize > reserve + headerSize + 16 else { return false }
        let base = bytes.startIndex
        if headerSize > 16 { return Self.headerFieldsMatch(bytes[(base + 16)..<(base + 24)], pageSize: pageSize) }
        let end = base + pageSize - reserve
        let iv = try AES._CBC.IV(ivBytes: bytes[end..<(end + 16)])
        var block = Array(try AES._CBC.decrypt(bytes[(base + headerSize)..<(base + headerSize + 16)], using: key, iv: iv, noPadding: true))
        defer { block.withUnsafeMutableBytes { SecureMemory.wipe($0) } }
        let offset = 16 - headerSize
        return Self.headerFieldsMatch(block[offset..<(offset + 8)], pageSize: pageSize)
    }

    /// Whether bytes 72 to 79 of the first page's SQLite header, reserved and always zero,
    /// decrypt to zero: one AES block (file bytes 64 to 79, chained on bytes 48 to 63), the same
    /// for every page size and reserve. A wrong key passes with a chance of 2⁻⁶⁴.
    func reservedHeaderBytesAreZero(_ firstPage: [UInt8]) throws -> Bool {
        guard firstPage.count >= 80, headerSize <= 48 else { return false }
        let iv = try AES._CBC.IV(ivBytes: firstPage[48..<64])
        var block = Array(try AES._CBC.decrypt(firstPage[64..<80], using: key, iv: iv, noPadding: true))
        defer { block.withUnsafeMutableBytes { SecureMemory.wipe($0) } }
        return block[8..<16].allSatisfy { $0 == 0 }
    }

    private static func headerFieldsMatch(_ fields: ArraySlice<UInt8>, pageSize: Int) -> Bool {
        let field = Array(fields)
        let storedPageSize = Int(field[0]) << 8 | Int(field[1])
        return (storedPageSize == 1 ? 65536 : storedPageSize) == pageSize
            && (1...2).contains(field[2]) && (1...2).contains(field[3])
            && field[5] == 64 && field[6] == 32 && field[7] == 32
    }

    static func hmacSize(_ algorithm: CipherSettings.HashAlgorithm) -> Int {
        switch algorithm {
        case .sha1: return 20
        case .sha256: return 32
        case .sha512: return 64
        }
    }

    static func pbkdf2Hash(_ algorithm: CipherSettings.HashAlgorithm) -> KDF.Insecure.PBKDF2.HashFunction {
        switch algorithm {
        case .sha1: return .insecureSHA1
        case .sha256: return .sha256
        case .sha512: return .sha512
        }
    }

    /// The HMAC of the page's bytes and its number, from a copy of the keyed HMAC.
    private static func code<H: HashFunction>(_ keyed: HMAC<H>, _ data: ArraySlice<UInt8>, _ pageNumber: UInt32) -> HashedAuthenticationCode<H> {
        var mac = keyed
        data.withUnsafeBytes { mac.update(data: $0) }
        withUnsafeBytes(of: pageNumber) { mac.update(data: $0) }
        return mac.finalize()
    }
}
