import CipherStore
import Foundation

/// Texts the commands print about their results, and the same facts as `--json` fields.
enum Summary {
    static func conversion(_ report: DatabaseFileReport, verb: String, fullCheck: Bool) -> String {
        let mebibytes = Double(report.outputBytes) / 1_048_576
        return String(format: "%@ %@: %@, %@, %.1f MiB in %.2f s, verified (%@). %@.",
                      verb, report.outputPath, counted(report.verification.tables.count, "table"), counted(totalRows(report.verification), "row"),
                      mebibytes, report.seconds, checks(report.verification, fullCheck: fullCheck).joined(separator: ", "), settings(report.verification))
            + (report.verification.plaintextHeaderSalt.map { "\n" + saltLine($0) } ?? "")
    }

    /// What a conversion checked before replacing anything.
    static func checks(_ report: VerificationReport, fullCheck: Bool) -> [String] {
        [report.functionsNotChecked.isEmpty ? "integrity check" : "quick check", "schema", "every row with its rowid"]
            + (fullCheck ? ["every page read back"] : [])
    }

    /// "Page size 4096 bytes, 64000 KDF iterations" (no iterations for a plaintext file).
    static func settings(_ report: VerificationReport) -> String {
        var text = "Page size \(report.pageSize) bytes"
        if let iterations = report.kdfIterations { text += ", \(iterations) KDF iterations" }
        return text
    }

    /// The settings that opened a file: "4096-byte pages, 256000 KDF iterations
    /// (PBKDF2_HMAC_SHA512), HMAC_SHA512 per page, no plaintext header".
    static func text(_ settings: CipherSettings) -> String {
        var parts: [String] = []
        if let pageSize = settings.pageSize { parts.append("\(pageSize)-byte pages") }
        if let iterations = settings.kdfIterations {
            parts.append("\(iterations) KDF iterations" + (settings.kdfAlgorithm.map { " (\($0.kdfName))" } ?? ""))
        }
        if let useHMAC = settings.useHMAC {
            parts.append(useHMAC ? (settings.hmacAlgorithm?.rawValue ?? "HMAC") + " per page" : "no HMAC")
        }
        if let header = settings.plaintextHeaderSize {
            parts.append(header == 0 ? "no plaintext header" : "a \(header)-byte plaintext header")
        }
        if settings.hmacPageNumberByteOrder == .bigEndian { parts.append("big-endian page numbers in the HMAC (cipher_hmac_pgno = be)") }
        if let mask = settings.hmacSaltMask { parts.append(String(format: "HMAC salt mask 0x%02x (cipher_hmac_salt_mask)", mask)) }
        if let iterations = settings.hmacKDFIterations { parts.append("\(iterations) HMAC key iterations (fast_kdf_iter)") }
        return parts.joined(separator: ", ")
    }

    /// `info --json`'s `cipher` object; a setting the linked SQLCipher does not report is null.
    static func fields(_ settings: CipherSettings) -> [String: Any] {
        var fields: [String: Any] = [
            "pageSize": settings.pageSize.map { $0 as Any } ?? NSNull(),
            "kdfIterations": settings.kdfIterations.map { $0 as Any } ?? NSNull(),
            "useHMAC": settings.useHMAC.map { $0 as Any } ?? NSNull(),
            "kdfAlgorithm": settings.kdfAlgorithm.map { $0.kdfName as Any } ?? NSNull(),
            "hmacAlgorithm": settings.hmacAlgorithm.map { $0.rawValue as Any } ?? NSNull(),
            "plaintextHeaderSize": settings.plaintextHeaderSize.map { $0 as Any } ?? NSNull(),
        ]
        // SQLCipher 2.0's HMAC variants, only where a file has them (the settings finder's).
        if let order = settings.hmacPageNumberByteOrder { fields["hmacPageNumberByteOrder"] = order.rawValue }
        if let mask = settings.hmacSaltMask { fields["hmacSaltMask"] = Int(mask) }
        if let iterations = settings.hmacKDFIterations { fields["hmacKDFIterations"] = iterations }
        return fields
    }

    /// What to keep for a file with a plaintext header.
    static func saltLine(_ salt: [UInt8]) -> String {
        let hex = salt.map { String(format: "%02x", $0) }.joined()
        return "Salt \(hex): the file has a plaintext header and does not hold it. Keep it with the key; open the file with --plaintext-header --salt \(hex)."
    }

    /// "1 table", "2 tables"; "2 indexes" with `plural`.
    static func counted(_ count: Int, _ noun: String, plural: String? = nil) -> String {
        "\(count) \(count == 1 ? noun : plural ?? noun + "s")"
    }

    static func totalRows(_ report: VerificationReport) -> Int {
        report.tables.reduce(0) { $0 + $1.rowCount }
    }

    static func text(_ report: VerificationReport) -> String {
        let unchecked = report.placeholderCollations.indexes.count
        let passed = !report.functionsNotChecked.isEmpty ? "quick check passed; index contents not checked"
            : unchecked == 0 ? "integrity check passed"
            : "integrity check passed but for \(counted(unchecked, "index", plural: "indexes")) under \(report.placeholderCollations.names.count == 1 ? "a collation" : "collations") of the app, which this tool compares in byte order"
        var lines = ["\(report.path): OK (\(report.isEncrypted ? "encrypted" : "PLAINTEXT"), \(passed))",
                     "user_version \(report.userVersion), application_id \(report.applicationID), journal mode \(report.journalMode), \(counted(report.schemaObjectCount, "schema object"))",
                     settings(report)]
        for table in report.tables { lines.append("  \(table.name): \(counted(table.rowCount, "row"))") }
        return lines.joined(separator: "\n")
    }

    /// `verify --json`'s fields (and a conversion's, for its result).
    static func fields(_ report: VerificationReport) -> [String: Any] {
        [
            "verified": true,
            "encrypted": report.isEncrypted,
            "userVersion": report.userVersion,
            "applicationID": report.applicationID,
            "journalMode": report.journalMode,
            "schemaObjects": report.schemaObjectCount,
            "pageSize": report.pageSize,
            "kdfIterations": report.kdfIterations.map { $0 as Any } ?? NSNull(),
            "tables": report.tables.map { ["name": $0.name, "rows": $0.rowCount] as [String: Any] },
            "rows": totalRows(report),
            "checks": [report.functionsNotChecked.isEmpty ? "integrity check" : "quick check"],
        ].merging(report.plaintextHeaderSalt.map { ["salt": $0.map { String(format: "%02x", $0) }.joined()] } ?? [:]) { $1 }
            .merging(report.placeholderCollations.isEmpty ? [:] : placeholderFields(report.placeholderCollations)) { $1 }
            .merging(report.functionsNotChecked.isEmpty ? [:] : ["functionsNotChecked": report.functionsNotChecked]) { $1 }
            .merging(report.unrecognizedSideFiles.isEmpty ? [:] : ["unrecognizedSideFiles": report.unrecognizedSideFiles]) { $1 }
    }

    /// The warning for files beside a verified database named like its journal or log that
    /// are not SQLite's: they were left alone, and what the journal mode means then.
    static func sideFileWarning(_ report: VerificationReport) -> String? {
        guard !report.unrecognizedSideFiles.isEmpty else { return nil }
        let names = report.unrecognizedSideFiles.map { "'\($0)'" }.joined(separator: " and ")
        let wal = report.unrecognizedSideFiles.contains { $0.hasSuffix("-wal") }
        return "\(names) \(report.unrecognizedSideFiles.count == 1 ? "is" : "are") beside the database, named like its \(wal ? "write-ahead log" : "journal") but not SQLite's (the first bytes are not a \(wal ? "log" : "journal")'s): left as found and not read.\(wal ? " While it is there SQLite reads the database as in WAL mode, which is why the journal mode says wal." : "") Move it away if it is not yours to keep: an app opening the database would have SQLite delete it."
    }

    /// `encrypt`, `decrypt` and `rekey --json`'s fields: the result's, where it is, what was checked.
    static func fields(_ report: DatabaseFileReport, fullCheck: Bool, warnings: [String]) -> [String: Any] {
        var object = fields(report.verification)
        object["output"] = report.outputPath
        object["backup"] = report.backupPath ?? NSNull()
        object["outputBytes"] = Int(report.outputBytes)
        object["seconds"] = (report.seconds * 1000).rounded() / 1000
        object["checks"] = checks(report.verification, fullCheck: fullCheck)
        object["warnings"] = warnings
        return object
    }

    /// The warning for a journal or log removed from beside an output's name before the
    /// result took it.
    static func sideFileRemoved(_ path: String) -> String {
        path.hasSuffix("-shm")
            ? "removed \(path), the index of a log left beside the name by an earlier program."
            : "removed \(path), a journal left beside the name: it held the old file's pages."
    }

    /// The warning for a log or journal moved aside from beside an output's name.
    static func sideFileMovedAside(_ path: String) -> String {
        let original = path.components(separatedBy: ".stale-").first ?? path
        return "moved \(original) aside to \(path): a log or journal left beside the name by an earlier program, which SQLite would have applied to the new file. Delete it once you know no other database needs it."
    }

    /// The warning for a file named like a journal or log beside the database that was not
    /// SQLite's, kept under another name.
    static func unrecognizedSideFileMovedAside(_ path: String) -> String {
        let original = path.components(separatedBy: ".stale-").first ?? path
        return "found \(original) beside the database: it is not a SQLite journal or log (SQLite would have deleted it), so it was kept as \(path), unread. Delete it once you know nothing needs it."
    }

    /// A conversion's result: the summary line (unless quiet) or, with `--json`, the object;
    /// the warnings (leftovers of earlier runs removed first) on standard error either way.
    static func conversionFinished(_ report: DatabaseFileReport, verb: String, output: OutputOptions, json: JSONOutput?, warnings: [String]) {
        conversionFinished(report, verb: verb, quiet: output.quiet, fullCheck: output.fullCheck, json: json, warnings: warnings)
    }

    /// The same, for commands without `OutputOptions` (`backup`, `restore`). A slot file
    /// written beside the result is named (`"slotFile"` in JSON), and the schema copy
    /// (`"schemaCopy"` in JSON only: it is an aid to `repair`, kept up to date by itself).
    static func conversionFinished(_ report: DatabaseFileReport, verb: String, quiet: Bool, fullCheck: Bool, json: JSONOutput?, warnings: [String]) {
        let needed = openingSettings(report.verification)
        let settingsWarning = needed.options.isEmpty ? [] : ["the result opens ONLY with \(needed.options.joined(separator: " ")) (in other SQLCipher tools: \(needed.pragmas.joined(separator: "; "))): with the defaults alone, its key is reported wrong. Give them every time you open it."]
        // The settings warning last: the line nobody misses.
        // A file with a plaintext header keeps its salt outside the file: it has no schema copy.
        let copyWarning = report.verification.isEncrypted && report.schemaCopyPath == nil
                && !DatabaseFileInfo.inspect(path: report.outputPath).hasPlaintextHeader
            ? ["its schema copy '\(report.outputPath).schema' could not be written (check the directory's permissions and free space): a repair of a damaged first page would not know its tables. Any later write through CipherStore writes it."]
            : []
        let warnings = report.removedLeftovers.map { "removed \($0), left by an interrupted earlier run." }
            + report.removedSideFiles.map(sideFileRemoved) + report.sideFilesMovedAside.map(sideFileMovedAside)
            + report.unrecognizedSideFilesMovedAside.map(unrecognizedSideFileMovedAside)
            + report.rowidsNotKept.map { "table \($0) has columns named rowid, _rowid_ and oid: SQL cannot reach its rowids, so its rows have new ones in the result (in the same order), and verification compared them in that order." }
            + warnings + [placeholderWarning(report.verification.placeholderCollations, .copy),
                          functionWarning(report.verification.functionsNotChecked)].compactMap { $0 }
            + copyWarning + settingsWarning
        if let json {
            var object = fields(report, fullCheck: fullCheck, warnings: warnings)
            object["opensOnlyWith"] = needed.options
            object["slotFile"] = report.slotFilePath ?? NSNull()
            object["schemaCopy"] = report.schemaCopyPath ?? NSNull()
            json.succeed(object)
        } else {
            let slotLine = report.slotFilePath.map { "\nIts slot file: \($0) (its passphrases open the database; keep the two together)." } ?? ""
            CommandRunner.say(conversion(report, verb: verb, fullCheck: fullCheck) + slotLine, quiet: quiet)
        }
        for warning in warnings { warn(warning) }
    }

    /// What an encrypted result needs to open beyond its key, where its settings differ from
    /// the linked SQLCipher's defaults: the options, as `settings` prints them (each with its
    /// value), and the pragmas of other SQLCipher tools. Empty for a plaintext result or one
    /// with default settings. A plaintext header and its salt are said apart (``fields(_:)``).
    static func openingSettings(_ report: VerificationReport) -> (options: [String], pragmas: [String]) {
        guard report.isEncrypted, let settings = report.cipherSettings else { return ([], []) }
        let defaults = CipherSettings.linkedDefaults
        var pragmas: [String] = []
        if settings.pageSize != defaults.pageSize { pragmas.append("PRAGMA cipher_page_size = \(settings.pageSize ?? 0)") }
        if settings.kdfIterations != defaults.kdfIterations { pragmas.append("PRAGMA kdf_iter = \(settings.kdfIterations ?? 0)") }
        if let kdf = settings.kdfAlgorithm, kdf != defaults.kdfAlgorithm { pragmas.append("PRAGMA cipher_kdf_algorithm = \(kdf.kdfName)") }
        if settings.useHMAC == false {
            pragmas.append("PRAGMA cipher_use_hmac = OFF")
        } else if let hmac = settings.hmacAlgorithm, hmac != defaults.hmacAlgorithm {
            pragmas.append("PRAGMA cipher_hmac_algorithm = \(hmac.rawValue)")
        }
        guard !pragmas.isEmpty else { return ([], []) }
        var withoutSalt = settings
        withoutSalt.salt = nil
        let options = CipherStoreCommand.Settings.options(for: withoutSalt) ?? []
        // "--page-size", "4096" → "--page-size 4096".
        let grouped = options.reduce(into: [String]()) { grouped, word in
            if word.hasPrefix("--") || grouped.isEmpty { grouped.append(word) } else { grouped[grouped.count - 1] += " " + word }
        }
        return (grouped, pragmas)
    }
}
