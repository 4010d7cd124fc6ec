/// Checks one page key against an encrypted first page, with swift-crypto, in microseconds per
/// combination: every page size, each HMAC choice that goes with the KDF's hash, and the HMAC
/// variants of SQLCipher 2.0's files.
///
/// A combination matches when the first page's header fields decrypt to its page size and,
/// with HMAC, the page's HMAC matches; without HMAC, the header's reserved bytes must decrypt
/// to zero as well, since nothing else tells a right key then.
struct FirstPageCheck {
    let firstPage: [UInt8]
    /// 16 (the salt) or the plaintext header's size.
    let headerSize: Int
    let salt: [UInt8]
    /// Combinations of page size and HMAC choice tried.
    private(set) var tried = 0
    /// The first combination that authenticates page 2 while page 1 matches none: the key is
    /// right and page 1 is damaged.
    private(set) var onSecondPage: CipherSettings?

    /// The settings that match `pageKey`, or `nil`.
    /// - Parameters:
    ///   - kdf: the KDF's hash, which also derives the HMAC key.
    ///   - iterations: the KDF iterations the key was derived with (reported; SQLCipher 2.0.0
    ///     derived the HMAC key with as many).
    ///   - hmacChoices: the page HMAC hashes to try, `nil` for none, most likely first.
    ///   - derived: whether the key was derived from a passphrase (else `iterations` is a guess).
    mutating func settings(pageKey: SecureBytes, kdf: CipherSettings.HashAlgorithm, iterations: Int,
                           hmacChoices: [CipherSettings.HashAlgorithm?], derived: Bool) throws -> CipherSettings? {
        var keys: [HMACVariant: PageCipher.Keys] = [:]
        func keysFor(_ variant: HMACVariant) throws -> PageCipher.Keys {
            if let known = keys[variant] { return known }
            let made = try pageKey.withUnsafeBytes {
                try PageCipher.Keys(key: $0, salt: salt, kdfAlgorithm: kdf, hmacSaltMask: variant.mask, hmacKDFIterations: variant.iterations)
            }
            keys[variant] = made
            return made
        }
        let standard = try keysFor(.standard)
        var reservedBytesZero: Bool?
        for hmac in hmacChoices {
            for pageSize in CipherSettingsFinder.pageSizes where firstPage.count >= pageSize {
                tried += 1
                let page = firstPage.prefix(pageSize)
                let cipher = PageCipher(keys: standard, pageSize: pageSize, hmac: hmac, headerSize: headerSize)
                var settings = CipherSettings(pageSize: pageSize, kdfIterations: iterations, useHMAC: hmac != nil,
                                              kdfAlgorithm: kdf, hmacAlgorithm: hmac ?? kdf,
                                              plaintextHeaderSize: headerSize == 16 ? 0 : headerSize)
                if headerSize != 16 { settings.salt = salt }
                if try cipher.firstPageHeaderMatches(page) {
                    guard hmac != nil else {
                        if try reservedBytesZero ?? cipher.reservedHeaderBytesAreZero(firstPage) {
                            reservedBytesZero = true
                            return settings
                        }
                        reservedBytesZero = false
                        continue
                    }
                    for variant in HMACVariant.all(iterations: derived ? iterations : nil) {
                        for order in [CipherSettings.PageNumberByteOrder.littleEndian, .bigEndian] {
                            let variantCipher = PageCipher(keys: try keysFor(variant), pageSize: pageSize, hmac: hmac,
                                                           headerSize: headerSize, pageNumberByteOrder: order)
                            guard variantCipher.authenticates(page, number: 1) else { continue }
                            settings.hmacPageNumberByteOrder = order == .littleEndian ? nil : order
                            settings.hmacSaltMask = variant.mask == PageCipher.defaultHMACSaltMask ? nil : variant.mask
                            settings.hmacKDFIterations = variant.iterations == PageCipher.defaultHMACKDFIterations ? nil : variant.iterations
                            return settings
                        }
                    }
                }
                if onSecondPage == nil, hmac != nil, firstPage.count >= 2 * pageSize,
                   cipher.authenticates(firstPage[pageSize..<(2 * pageSize)], number: 2) {
                    onSecondPage = settings
                }
            }
        }
        return nil
    }
}

/// How the HMAC key is derived from the page key: the salt mask and the PBKDF2 iterations.
struct HMACVariant: Hashable {
    let mask: UInt8
    let iterations: Int

    /// SQLCipher's since 2.0.2: 0x3a, 2 iterations.
    static let standard = HMACVariant(mask: PageCipher.defaultHMACSaltMask, iterations: PageCipher.defaultHMACKDFIterations)

    /// Today's first; then the 0x00 mask alone (the deprecated pragma); then SQLCipher 2.0.0's
    /// 0x00 mask with as many iterations as the page key (`kdfIterations`, when known) and with
    /// 2.0.0's default of 4,000. The costly ones last: they run only once a page's header has
    /// matched.
    static func all(iterations kdfIterations: Int?) -> [HMACVariant] {
        var variants = [standard, HMACVariant(mask: 0x00, iterations: PageCipher.defaultHMACKDFIterations)]
        for iterations in [kdfIterations, 4_000].compactMap({ $0 }) where !variants.contains(HMACVariant(mask: 0x00, iterations: iterations)) {
            variants.append(HMACVariant(mask: 0x00, iterations: iterations))
        }
        return variants
    }
}
