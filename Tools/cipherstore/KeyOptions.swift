import ArgumentParser
import CipherStore

/// `--key-file`, `--key-env`, `--key-stdin`, `--raw-key`: the key of the database a command opens or writes.
struct KeyOptions: ParsableArguments {
    @Option(name: .customLong("key-file"), help: ArgumentHelp("Read the key from this file: its whole content minus one trailing line ending (keep it mode 600).", valueName: "path"), completion: .file())
    var file: String?

    @Option(name: .customLong("key-env"), help: ArgumentHelp("Read the key from this environment variable.", valueName: "name"))
    var environment: String?

    @Flag(name: .customLong("key-stdin"), help: "Read the key from standard input, to its end (its first line, when another key is read there too), minus one trailing line ending.")
    var standardInput = false

    @Flag(name: .customLong("raw-key"), help: "The key is a raw 256-bit key, not a passphrase: 64 hexadecimal digits, or 96 with its salt (as `keys export-raw-key` writes).")
    var raw = false

    var isGiven: Bool { file != nil || environment != nil || standardInput }

    func source(role: String = "key", confirm: Bool) -> KeyReader.Source {
        KeyReader.Source(file: file, environment: environment, standardInput: standardInput, raw: raw,
                         role: role, optionPrefix: "--key", confirm: confirm)
    }
}

/// The old key of `rekey`.
struct OldKeyOptions: ParsableArguments {
    @Option(name: .customLong("old-key-file"), help: ArgumentHelp("Read the current key from this file.", valueName: "path"), completion: .file())
    var file: String?
    @Option(name: .customLong("old-key-env"), help: ArgumentHelp("Read the current key from this environment variable.", valueName: "name"))
    var environment: String?
    @Flag(name: .customLong("old-key-stdin"), help: "Read the current key from standard input (with another key read there too, the command's description says which line is which).")
    var standardInput = false
    @Flag(name: .customLong("old-raw-key"), help: "The current key is a raw key: 64 hexadecimal digits, or 96 with its salt.")
    var raw = false

    var source: KeyReader.Source { source(role: "current key") }

    func source(role: String) -> KeyReader.Source {
        KeyReader.Source(file: file, environment: environment, standardInput: standardInput, raw: raw,
                         role: role, optionPrefix: "--old-key", confirm: false)
    }
}

/// `--old-kdf-iterations`, `--old-page-size`, `--old-sqlcipher3`, `--old-no-hmac`…: the settings
/// the source of `rekey`, `upgrade` or `keys rotate` was made with (`CipherOptions` are the
/// result's). Every setting `cipherstore settings` can report has an option here, so any file
/// it finds moves to today's format in one verified step.
struct OldCipherOptions: ParsableArguments {
    @Option(name: .customLong("old-kdf-iterations"), help: "KDF iterations the database was made with (default: the library's; upgrade: 64000).")
    var kdfIterations: Int?
    @Option(name: .customLong("old-page-size"), help: "Page size the database was made with (default: the library's; upgrade: 1024).")
    var pageSize: Int?
    @Flag(name: .customLong("old-sqlcipher3"), help: "The database was made with SQLCipher 3's settings (for a SQLCipher 3 file when the linked SQLCipher is 4; upgrade implies it); --old-page-size and --old-kdf-iterations still apply.")
    var sqlcipher3 = false
    @Flag(name: .customLong("old-no-hmac"), help: "The database has no per-page HMAC (SQLCipher 1, or made with cipher_use_hmac off). The result has one unless --no-hmac is given.")
    var noHMAC = false
    @Flag(name: .customLong("old-plaintext-header"), help: ArgumentHelp("SQLCipher 4 only: the database keeps its first 32 bytes in plaintext (give its salt with --old-salt).", visibility: .hidden))
    var plaintextHeader = false
    @Option(name: .customLong("old-salt"), help: ArgumentHelp("SQLCipher 4 only: the database's 16-byte KDF salt, as 32 hexadecimal digits (for --old-plaintext-header).", valueName: "hex", visibility: .hidden))
    var salt: String?
    @OptionGroup var format: CipherFormatOptions<SourceFileSpelling>

    func validate() throws {
        if let salt, CipherOptions.bytes(hex: salt) == nil {
            throw ValidationError("--old-salt must be 32 hexadecimal digits (16 bytes), as printed when the file was made.")
        }
        if salt != nil && !plaintextHeader {
            throw ValidationError("--old-salt goes with --old-plaintext-header: a file without a plaintext header keeps its salt in its first 16 bytes. Leave --old-salt out.")
        }
        try format.refuseHMACOptions(withoutHMAC: noHMAC)
    }

    /// The source's settings, on top of `base` (SQLCipher 3's with --old-sqlcipher3).
    func settings(base: CipherSettings = .libraryDefaults) -> CipherSettings {
        var settings = CipherOptions.settings(base: sqlcipher3 ? .sqlcipher3 : base, pageSize: pageSize, kdfIterations: kdfIterations)
        if noHMAC { settings.useHMAC = false }
        if plaintextHeader { settings.plaintextHeaderSize = 32 }
        settings.salt = salt.flatMap(CipherOptions.bytes(hex:)) ?? settings.salt
        return format.applied(to: settings)
    }

    /// Refuses an in-place conversion of a file with SQLCipher 2.0.0's salt mask, before a
    /// key is asked for.
    func refuseInPlace(_ inPlace: Bool) throws {
        if inPlace { try settings().refuseWriting("replaced in place", option: "--old-hmac-salt-mask") }
    }

    /// The result's settings in a command that writes a new file from this source: `result`,
    /// with a per-page HMAC where the source had none and `--no-hmac` did not ask to keep it
    /// that way (a file moves to today's format, not a weaker one).
    func resultSettings(_ result: CipherSettings) -> CipherSettings {
        var result = result
        if noHMAC && result.useHMAC == nil { result.useHMAC = true }
        return result
    }
}

/// The new key of `rekey`.
struct NewKeyOptions: ParsableArguments {
    @Option(name: .customLong("new-key-file"), help: ArgumentHelp("Read the new key from this file.", valueName: "path"), completion: .file())
    var file: String?
    @Option(name: .customLong("new-key-env"), help: ArgumentHelp("Read the new key from this environment variable.", valueName: "name"))
    var environment: String?
    @Flag(name: .customLong("new-key-stdin"), help: "Read the new key from standard input (what follows the first line, when the current key is read from standard input too).")
    var standardInput = false
    @Flag(name: .customLong("new-raw-key"), help: "The new key is a raw key: 64 hexadecimal digits, or 96 with its salt.")
    var raw = false

    var source: KeyReader.Source {
        KeyReader.Source(file: file, environment: environment, standardInput: standardInput, raw: raw,
                         role: "new key", optionPrefix: "--new-key", confirm: true)
    }
}

/// `--kdf-iterations`, `--page-size`: cipher settings of the file a command writes (or reads).
struct CipherOptions: ParsableArguments {
    @Option(help: "PBKDF2 iterations for the passphrase (default: rekey keeps the source's; encrypt uses the library's, 64000 in SQLCipher 3).")
    var kdfIterations: Int?

    @Option(help: ArgumentHelp("Page size in bytes, a power of two from 512 to 65536, or `source` for the plaintext source's (default: encrypt and keys init use the linked SQLCipher's, 1024 on SQLCipher 3 and 4096 on SQLCipher 4, so the result opens with its key alone; rekey and decrypt keep the source's).", valueName: "bytes|source"))
    var pageSize: PageSizeOption?

    @Flag(help: "The file has no per-page HMAC (SQLCipher 1, or made with cipher_use_hmac off); `cipherstore settings` says when.")
    var noHMAC = false

    @Flag(help: "SQLCipher 3's settings (1024-byte pages, 64000 PBKDF2-HMAC-SHA1 iterations, HMAC-SHA1), for files made with SQLCipher 3 when the linked SQLCipher is 4; --page-size and --kdf-iterations still apply.")
    var sqlcipher3 = false

    @Flag(help: ArgumentHelp("SQLCipher 4 only: the first 32 bytes of the file stay in plaintext (cipher_plaintext_header_size = 32, for iOS apps with a WAL database in a shared container). Such a file does not hold its salt: a conversion prints it; open the file with --plaintext-header --salt HEX.", visibility: .hidden))
    var plaintextHeader = false

    @Option(help: ArgumentHelp("SQLCipher 4 only: the file's 16-byte KDF salt, as 32 hexadecimal digits (needed to open a file with a plaintext header; not secret).", valueName: "hex", visibility: .hidden))
    var salt: String?

    @OptionGroup var format: CipherFormatOptions<CurrentFileSpelling>

    func validate() throws {
        if let salt, Self.bytes(hex: salt) == nil {
            throw ValidationError("--salt must be 32 hexadecimal digits (16 bytes), as printed when the file was made.")
        }
        try format.refuseHMACOptions(withoutHMAC: noHMAC)
    }

    /// The settings of an encryption of the plaintext `source`: `--page-size source` is its page size.
    func settings(encrypting source: String) -> CipherSettings {
        var settings = self.settings
        if case .source = pageSize { settings.pageSize = DatabaseFileInfo.inspect(path: source).plaintextPageSize }
        return settings
    }

    var settings: CipherSettings {
        var settings = Self.settings(base: sqlcipher3 ? .sqlcipher3 : .libraryDefaults, pageSize: pageSize?.bytes, kdfIterations: kdfIterations)
        if plaintextHeader { settings.plaintextHeaderSize = 32 }
        if noHMAC { settings.useHMAC = false }
        settings.salt = salt.flatMap(Self.bytes(hex:))
        return format.applied(to: settings)
    }

    /// 32 hexadecimal digits as 16 bytes; `nil` for anything else.
    static func bytes(hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count == 32 else { return nil }
        return stride(from: 0, to: 32, by: 2).map { UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16) }
            .reduce(into: [UInt8]?([])) { result, byte in
                if let byte { result?.append(byte) } else { result = nil }
            }
    }

    /// `base` with the page size and KDF iterations given on the command line.
    static func settings(base: CipherSettings, pageSize: Int?, kdfIterations: Int?) -> CipherSettings {
        var settings = base
        settings.pageSize = pageSize ?? settings.pageSize
        settings.kdfIterations = kdfIterations ?? settings.kdfIterations
        return settings
    }
}

/// `--page-size`: a number of bytes, or `source` (the plaintext source's, for an encryption;
/// the other commands keep or read the source's settings without it).
enum PageSizeOption: ExpressibleByArgument, Equatable {
    case bytes(Int)
    case source

    init?(argument: String) {
        if argument == "source" {
            self = .source
        } else if let bytes = Int(argument) {
            self = .bytes(bytes)
        } else {
            return nil
        }
    }

    var bytes: Int? {
        if case .bytes(let bytes) = self { return bytes }
        return nil
    }
}

/// `--output`, `--in-place`, `--force`: where a conversion writes.
struct OutputOptions: ParsableArguments {
    @Option(name: [.short, .long], help: ArgumentHelp("Write the result to this new file.", valueName: "path"), completion: .file())
    var output: String?

    @Flag(help: "Replace the source with the result (written beside it, verified, then renamed over it).")
    var inPlace = false

    @Flag(help: "With --output: replace an existing output file. With --in-place: replace a source that another process has open (that program then fails or loses its writes), or that has other names (hard links), which keep the old contents.")
    var force = false

    @Flag(help: "Print nothing but errors and warnings; no progress bar.")
    var quiet = false

    @Flag(help: "Print the result as one JSON object on standard output, and on failure {\"ok\": false, \"error\": {\"kind\", \"message\", \"exitCode\"}} (see the README); nothing else goes to standard output.")
    var json = false

    @Flag(help: "Before replacing anything, also read back and decrypt every page of the result (a full integrity check on a fresh connection). Takes about as long again.")
    var fullCheck = false

    @Option(help: ArgumentHelp("Memory for the result's pages during the copy, in MiB (default: 1/32 of physical memory, at most 256). Smaller uses less memory and takes longer.", valueName: "MiB", visibility: .hidden))
    var pageCacheMib: Int?

    func validate() throws {
        // With --json the command checks in run() instead, where a refusal is printed as JSON.
        if !json { try check() }
    }

    /// Where the result goes must be said, once.
    func check() throws {
        if output == nil && !inPlace { throw ValidationError("Choose where the result goes: --output PATH or --in-place.") }
        if output != nil && inPlace { throw ValidationError("--output and --in-place exclude each other.") }
        if let pageCacheMib, !(1...65_536).contains(pageCacheMib) {
            throw ValidationError("--page-cache-mib must be between 1 and 65536 (MiB).")
        }
    }

    /// Where `--json` goes, when it is given.
    func jsonOutput(command: String, path: String) -> JSONOutput? {
        json ? JSONOutput(command: command, path: path) : nil
    }

    func destination(backup: String?) -> OutputDestination {
        if let output { return .file(output, overwrite: force) }
        return .inPlace(backup: backup, replacingOtherLinks: force)
    }
}
