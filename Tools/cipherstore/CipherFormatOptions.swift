import ArgumentParser
import CipherStore

/// How the options of ``CipherFormatOptions`` are spelled: as they are for the file a command
/// reads, or with `old-` for the source of a command that also writes a new file (`rekey`,
/// `upgrade`, `keys rotate`).
protocol CipherOptionSpelling {
    static var prefix: String { get }
}

/// `--kdf-algorithm`, `--hmac-pgno`…: the file's own names.
enum CurrentFileSpelling: CipherOptionSpelling {
    static let prefix = ""
}

/// `--old-kdf-algorithm`, `--old-hmac-pgno`…: the source's, beside the result's.
enum SourceFileSpelling: CipherOptionSpelling {
    static let prefix = "old-"
}

/// The rarer settings a file may have been made with: SQLCipher 4's KDF and HMAC hashes
/// chosen apart from its defaults, and SQLCipher 2.0's HMAC variants (big-endian page
/// numbers, the 0x00 salt mask, its own HMAC key iterations). `cipherstore settings` prints
/// the ones a file needs. They describe how a file is *read*: a command that writes a file
/// writes SQLCipher's current HMAC, so SQLCipher 2.0's variants are refused for a result.
///
/// All are left out of `--help` (shown by `--help-hidden`), to keep it short: few files need
/// them, and `cipherstore settings` names them when one does.
struct CipherFormatOptions<Spelling: CipherOptionSpelling>: ParsableArguments {
    @Option(name: .customLong(Spelling.prefix + "kdf-algorithm"),
            help: ArgumentHelp("SQLCipher 4 only: the KDF's hash (default: SHA-512 on SQLCipher 4, SHA-1 with --\(Spelling.prefix)sqlcipher3).", valueName: "sha1|sha256|sha512", visibility: .hidden))
    var kdfAlgorithm: HashOption?

    @Option(name: .customLong(Spelling.prefix + "hmac-algorithm"),
            help: ArgumentHelp("SQLCipher 4 only: the page HMAC's hash, set apart from the KDF's (default: SHA-512 on SQLCipher 4, SHA-1 with --\(Spelling.prefix)sqlcipher3).", valueName: "sha1|sha256|sha512", visibility: .hidden))
    var hmacAlgorithm: HashOption?

    @Option(name: .customLong(Spelling.prefix + "hmac-pgno"),
            help: ArgumentHelp("SQLCipher 2.0 on a big-endian processor: `be`, the page numbers' byte order in the HMAC (cipher_hmac_pgno).", valueName: "le|be", visibility: .hidden))
    var hmacPageNumbers: PageNumberOrderOption?

    @Option(name: .customLong(Spelling.prefix + "hmac-salt-mask"),
            help: ArgumentHelp("SQLCipher 2.0.0: the HMAC salt mask, one byte in hexadecimal (`00`; SQLCipher's own is 3a). Such a file is read only: its result goes to --output.", valueName: "hex", visibility: .hidden))
    var hmacSaltMask: SaltMaskOption?

    @Option(name: .customLong(Spelling.prefix + "hmac-kdf-iterations"),
            help: ArgumentHelp("SQLCipher 2.0.0: PBKDF2 iterations of the HMAC key (fast_kdf_iter; SQLCipher's own is 2).", valueName: "count", visibility: .hidden))
    var hmacKDFIterations: Int?

    func validate() throws {
        if let hmacKDFIterations, !(1...Int(Int32.max)).contains(hmacKDFIterations) {
            throw ValidationError("--\(Spelling.prefix)hmac-kdf-iterations must be from 1 to 2147483647.")
        }
    }

    /// Refuses HMAC settings beside `--no-hmac`: a file without HMAC has none to describe.
    func refuseHMACOptions(withoutHMAC: Bool) throws {
        guard withoutHMAC, hmacAlgorithm != nil || namesSQLCipher2Variant else { return }
        let noHMAC = "--\(Spelling.prefix)no-hmac"
        throw ValidationError("\(noHMAC) says the file has no HMAC: --\(Spelling.prefix)hmac-algorithm, --\(Spelling.prefix)hmac-pgno, --\(Spelling.prefix)hmac-salt-mask and --\(Spelling.prefix)hmac-kdf-iterations describe an HMAC, so they cannot go with it. Leave out \(noHMAC) or them (`cipherstore settings` prints the ones a file needs).")
    }

    /// Whether a SQLCipher 2.0 HMAC variant is given: settings a file is read with, never written with.
    var namesSQLCipher2Variant: Bool {
        hmacPageNumbers == .bigEndian || hmacSaltMask != nil || hmacKDFIterations != nil
    }

    /// `settings` with the options given.
    func applied(to settings: CipherSettings) -> CipherSettings {
        var settings = settings
        if let kdfAlgorithm { settings.kdfAlgorithm = kdfAlgorithm.algorithm }
        if let hmacAlgorithm { settings.hmacAlgorithm = hmacAlgorithm.algorithm }
        if let hmacPageNumbers { settings.hmacPageNumberByteOrder = hmacPageNumbers == .bigEndian ? .bigEndian : nil }
        if let hmacSaltMask { settings.hmacSaltMask = hmacSaltMask.byte }
        if let hmacKDFIterations { settings.hmacKDFIterations = hmacKDFIterations }
        return settings
    }

    /// Refuses SQLCipher 2.0's variants where they would describe a file to write.
    func refuseForResult() throws {
        guard namesSQLCipher2Variant else { return }
        throw ValidationError("--hmac-pgno, --hmac-salt-mask and --hmac-kdf-iterations describe a SQLCipher 2.0 file to read; a result is always written with SQLCipher's current HMAC. Nothing was changed. Give them for the source (rekey: --old-hmac-pgno…), and leave them out for the result.")
    }
}

/// `sha1`, `sha256`, `sha512`: a hash of `CipherSettings.HashAlgorithm`.
enum HashOption: String, ExpressibleByArgument, CaseIterable {
    case sha1, sha256, sha512

    var algorithm: CipherSettings.HashAlgorithm {
        switch self {
        case .sha1: .sha1
        case .sha256: .sha256
        case .sha512: .sha512
        }
    }

    init(_ algorithm: CipherSettings.HashAlgorithm) {
        switch algorithm {
        case .sha1: self = .sha1
        case .sha256: self = .sha256
        case .sha512: self = .sha512
        }
    }
}

/// `le` or `be`, as `cipher_hmac_pgno` takes them.
enum PageNumberOrderOption: String, ExpressibleByArgument, CaseIterable {
    case littleEndian = "le"
    case bigEndian = "be"
}

/// One byte in hexadecimal: `00`, `0x00`, `3a`.
struct SaltMaskOption: ExpressibleByArgument, Equatable {
    let byte: UInt8

    init?(argument: String) {
        let digits = argument.lowercased().hasPrefix("0x") ? String(argument.dropFirst(2)) : argument
        guard (1...2).contains(digits.count), let byte = UInt8(digits, radix: 16) else { return nil }
        self.byte = byte
    }
}

extension CipherSettings {
    /// Refuses, before any key is asked for, to rewrite in place (or write to) a file with
    /// SQLCipher 2.0.0's HMAC salt mask: it opens read-only only (see
    /// `CipherSettings.hmacSaltMask`). `what` says what was asked ("replaced in place").
    func refuseWriting(_ what: String, option: String) throws {
        guard let mask = hmacSaltMask, mask != 0x3a else { return }
        throw CLIError(exitCode: 64, message: "A file with SQLCipher 2.0.0's HMAC salt mask (\(option)) opens read-only only: it cannot be \(what). Nothing was changed. Write today's format to a new file with `cipherstore rekey FILE --output NEW` (the same options, spelled --old-…; `upgrade` on SQLCipher 4), check it, then use NEW in its place.")
    }
}
