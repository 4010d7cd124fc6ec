import ArgumentParser
import CipherStore
import Foundation

extension CipherStoreCommand {
    /// `cipherstore repair DAMAGED --output NEW`.
    struct Repair: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Salvage every readable row of a damaged encrypted database into a new one.",
            discussion: """
                Reads the damaged file page by page: each page is checked against its HMAC and \
                decrypted on its own, so a damaged page loses its own rows and nothing more. \
                Every table is walked from the schema; the rows of every readable page (a row \
                whose overflow page is lost is lost) go into a new database with the original \
                schema, indexes rebuilt, encrypted with the same key and settings (or the key \
                given with --new-key-*), checked and then linked into place. The damaged file is \
                only read.

                When the schema cannot be read whole (the first page lost), the tables it no \
                longer tells are taken from the database's schema copy, DATABASE.schema: \
                encrypted with the database's key, kept up to date by CipherStore's queues and \
                pools and by every cipherstore command that writes a database. Rows are then \
                put back into their own tables, and the report gives each table's row count \
                when the copy was taken. Without a copy, rows go into recovered_N tables, one \
                per number of columns, with their original rowid. Rows of WITHOUT ROWID and \
                virtual tables are not recovered. The report lists pages read and lost, rows per \
                table and a score (the share of pages not lost).

                Examples:
                  cipherstore repair damaged.db --output salvaged.db --key-file app.key
                  cipherstore repair damaged.db -o salvaged.db --key-file app.key --json

                \(SlotDatabase.help)

                \(JSONOutput.help)

                Exit codes: 0 everything recovered, \(ExitCodes.dataLost) repaired but some data was lost (the report says what), \
                64 usage error, \(ExitCodes.summary).
                """
        )

        @Argument(help: "The damaged database.", completion: .file())
        var database: String

        @Option(name: [.short, .long], help: ArgumentHelp("Write the salvaged database to this new file.", valueName: "path"), completion: .file())
        var output: String

        @OptionGroup(title: "Key") var key: KeyOptions
        @OptionGroup(title: "Cipher settings the database was made with") var cipher: CipherOptions
        @OptionGroup(title: "Key of the new database (default: the damaged one's)") var newKey: NewKeyOptions

        @Flag(help: "Replace an existing file at the output.")
        var force = false

        @Flag(help: "Print nothing but errors and warnings; no progress bar.")
        var quiet = false

        @Flag(help: "Print the report as one JSON object on standard output, on failure too (see below).")
        var json = false

        func run() throws {
            let json = self.json ? JSONOutput(command: "repair", path: database) : nil
            try CommandRunner.run(json: json, remedies: .repairing) {
                try DatabaseFile.checkExistingDatabaseFile(database)
                if DatabaseFileInfo.inspect(path: database).kind == .plaintext { throw RepairError.notEncrypted(path: database) }
                let current: DatabaseKey
                var new: DatabaseKey?
                if newKey.source.isGiven {
                    (current, new) = try KeyReader.readPair(current: key.source(confirm: false), as: SlotDatabase.keyMaker(for: database, damagedSalt: true),
                                                            new: newKey.source, as: KeyReader.key(from:_:))
                } else {
                    current = try KeyReader.read(key.source(confirm: false), as: SlotDatabase.keyMaker(for: database, damagedSalt: true))
                }
                let (options, _) = CommandRunner.conversionOptions(quiet: quiet, fullCheck: false, verb: "repairing")
                let report = try DatabaseRepair.salvage(path: database, key: current, cipher: cipher.settings, to: output,
                                                        newKey: new, overwrite: force, options: options)
                if let json {
                    json.succeed(Self.fields(report))
                } else {
                    CommandRunner.say(Self.text(report), quiet: quiet)
                }
                for path in report.removedSideFiles { warn(Summary.sideFileRemoved(path)) }
                for path in report.sideFilesMovedAside { warn(Summary.sideFileMovedAside(path)) }
                for problem in report.problems { warn(problem) }
                Summary.placeholderWarning(report.placeholderCollations, .rebuild).map(warn)
                if !report.isComplete {
                    let what = report.pagesLost.isEmpty && report.pagesMissingAtEnd == 0
                        ? "no page was lost, but not everything could be put back"
                        : "some pages could not be read"
                    warn("\(what): the new database holds what could (\(json == nil ? "see above" : "see the report's pagesLost and problems")). Restore a backup if you have one; keep the original file.")
                    throw ExitCode(ExitCodes.dataLost)
                }
            }
        }

        static func text(_ report: RepairReport) -> String {
            let lost = report.pagesLost.count + report.pagesMissingAtEnd
            var lines = ["Repaired into \(report.outputPath): \(Summary.counted(report.tables.count, "table")), \(Summary.counted(report.recoveredRows, "row")); "
                         + "\(lost) of \(report.pageCount) pages lost (score \(scoreText(report.score)) %)."]
            if report.pagesMissingAtEnd > 0 {
                let known = report.pageCount - report.pagesMissingAtEnd
                let size = report.sizeFromLog ? "the last commit in its log left it \(known)" : "the file holds \(known)"
                lines.append("Page 1's header says the database has \(report.pageCount) pages; \(size): it was cut short, or its header is damaged.")
            }
            if lost == 0 && !report.isComplete {
                lines.append("No page was lost, but not everything could be put back: see the problems below.")
            }
            lines += report.notes
            let copyTaken = report.schemaCopyTaken.map { ISO8601DateFormatter().string(from: $0) }
            if !report.schemaRecovered {
                if report.schemaFromCopy, let copyTaken {
                    lines.append("The schema could not be read whole: what it lacked was taken from its schema copy of \(copyTaken).")
                } else if report.tables.contains(where: { !$0.name.hasPrefix("recovered_") }) {
                    lines.append("The schema could not be read whole: the tables named below were found on its pages cut off from page 1, and no schema copy filled the rest; rows of tables it no longer names are in recovered_N tables, by number of columns.")
                } else {
                    lines.append("The schema could not be read, and no schema copy opened with the key: rows are in recovered_N tables, by number of columns.")
                }
            }
            for table in report.tables {
                // The copy's count says something only where the copy stood in for the schema.
                let expected = report.schemaFromCopy ? table.expectedRows.map { " of \($0) when the schema copy was taken" } ?? "" : ""
                lines.append("  \(table.name): \(Summary.counted(table.recoveredRows, "row"))\(expected)")
            }
            if let slotFile = report.slotFilePath { lines.append("Its slot file: \(slotFile) (the passphrases open the pair; keep them together).") }
            return lines.joined(separator: "\n")
        }

        /// The score in percent, one decimal, rounded down: a loss never shows as 100.0.
        static func scoreText(_ score: Double) -> String {
            String(format: "%.1f", (score * 1000).rounded(.down) / 10)
        }

        static func fields(_ report: RepairReport) -> [String: Any] {
            [
                "output": report.outputPath,
                "complete": report.isComplete,
                "score": (report.score * 10_000).rounded(.down) / 10_000,
                "pageCount": report.pageCount,
                "pagesRead": report.pagesRead,
                "pagesLost": report.pagesLost,
                "pagesMissingAtEnd": report.pagesMissingAtEnd,
                "notes": report.notes,
                "schemaRecovered": report.schemaRecovered,
                "schemaFromCopy": report.schemaFromCopy,
                "schemaCopyTaken": report.schemaCopyTaken.map { ISO8601DateFormatter().string(from: $0) as Any } ?? NSNull(),
                "schemaCopy": report.schemaCopyPath ?? NSNull(),
                "tables": report.tables.map { ["name": $0.name, "rows": $0.recoveredRows, "expectedRows": $0.expectedRows.map { $0 as Any } ?? NSNull()] as [String: Any] },
                "rows": report.recoveredRows,
                "problems": report.problems,
                "placeholderCollations": report.placeholderCollations.names,
                "indexesUnderPlaceholders": report.placeholderCollations.indexes,
                "slotFile": report.slotFilePath ?? NSNull(),
                "seconds": (report.seconds * 1000).rounded() / 1000,
            ]
        }
    }
}
