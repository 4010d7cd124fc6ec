import ArgumentParser
import CipherStore
import Foundation

extension CipherStoreCommand {
    /// `cipherstore query DATABASE [SQL]`: one statement, with the key kept out of SQL and history.
    struct Query: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run one SQL statement on a database and print its rows.",
            discussion: """
                The key is given like every other command's (never in SQL, so it does not land in \
                a shell's history file). The SQL comes from the argument, or from standard input \
                when the argument is left out (then the key cannot come from standard input).

                Read-only by default: a statement that would change the database is refused. \
                With --write it runs in a transaction, committed when it succeeds. Rows are printed \
                as they are read, so a large table does not load into memory.

                Output: an aligned table (default; widths from the first \(QueryOutput.widthSampleRows) rows), \
                CSV (RFC 4180, with a header line) or JSON (an array of objects). In a table and \
                in CSV, NULL prints as NULL and a blob as x'…' hex; in JSON they are null and a \
                base64 string.

                Examples:
                  cipherstore query app.db "SELECT name, city FROM user" --key-file app.key
                  echo "SELECT count(*) FROM status" | cipherstore query app.db --key-env APP_DB_KEY --format json
                  cipherstore query app.db "DELETE FROM session" --write --key-file app.key

                \(SlotDatabase.help)

                Exit codes: 0 success, 1 the statement failed (invalid SQL, a constraint, a write \
                without --write), 64 usage error, \(ExitCodes.summary).
                """
        )

        @Argument(help: "The database.", completion: .file())
        var database: String

        @Argument(help: "One SQL statement; read from standard input when left out.")
        var sql: String?

        @OptionGroup var key: KeyOptions
        @OptionGroup(title: "Cipher settings the database was made with") var cipher: CipherOptions

        @Option(help: "Output format: table, csv or json.")
        var format: QueryOutput.Format = .table

        @Flag(help: "Allow a statement that changes the database; it runs in a transaction.")
        var write = false

        @Flag(help: "Print one JSON object on standard output, on failure too: {\"ok\": true, \"columns\": [names], \"rows\": [[values in column order]], \"rowCount\": n, \"changes\": n} (the rows are collected first; --format json streams them instead).")
        var json = false

        func validate() throws {
            if json && format != .table {
                throw ValidationError("--json prints one object of its own: leave out --format (or use --format \(format.rawValue) without --json).")
            }
            if sql == nil && key.standardInput {
                throw ValidationError("The SQL and the key cannot both come from standard input: give the SQL as an argument, or the key with --key-file or --key-env.")
            }
        }

        func run() throws {
            let json = self.json ? JSONOutput(command: "query", path: database) : nil
            try CommandRunner.run(json: json) {
                let text = try sql ?? Self.readStandardInput()
                guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
                    throw CLIError(exitCode: 64, message: "No SQL was given. Pass a statement as the second argument or on standard input.")
                }
                if write { try cipher.settings.refuseWriting("written to (--write)", option: "--hmac-salt-mask") }
                // As verify: no key is asked for a plaintext file, nor for one that is not there to open.
                let kind = DatabaseFileInfo.inspect(path: database).kind
                let plaintext = !key.isGiven && [.plaintext, .missing, .directory, .empty, .notARegularFile].contains(kind)
                let databaseKey = plaintext ? nil : try SlotDatabase.openingKey(for: database, from: key.source(confirm: false))
                let settings = plaintext ? CipherSettings.libraryDefaults : cipher.settings
                let db = try DatabaseFile.openExisting(path: database, key: databaseKey, cipher: settings, writable: write)
                defer { try? db.close() }
                let output = QueryOutput(format: format, collecting: json != nil)
                let changes = try Self.execute(text, on: db, writing: write, output: output, quiet: json != nil)
                (try? PlaceholderCollations(db)).flatMap { Summary.placeholderWarning($0, .read) }.map(warn)
                // A write keeps the schema copy current, as every writing command does.
                if write { DatabaseFile.writeSchemaCopy(of: db, key: databaseKey, cipher: settings) }
                json?.succeed(["columns": output.columnNames, "rows": output.collected ?? [], "rowCount": output.collected?.count ?? 0,
                               "changes": changes])
            }
        }

        /// Prepares the one statement, refuses a write without `--write`, and streams its rows.
        /// - Parameter quiet: no "N rows changed" line on standard error (`--json` has `changes`).
        /// - Returns: the rows the statement changed.
        @discardableResult
        static func execute(_ sql: String, on db: Connection, writing: Bool, output: QueryOutput, quiet: Bool = false) throws -> Int {
            let statement: Statement
            do {
                statement = try db.makeStatement(sql: sql)
            } catch let error as DatabaseError {
                if let module = error.message?.components(separatedBy: "no such module: ").dropFirst().first {
                    throw Self.missingModule(module, in: db)
                }
                // Only a writing connection lacks a collation: a reading one has stand-ins.
                if let collation = error.missingCollationName {
                    throw Self.missingCollation(collation)
                }
                throw CLIError(exitCode: ExitCodes.statementFailed, message: "The SQL was refused: \(error.sqliteMessage(spelling: ErrorText.Remedies.conversions.spelling) ?? ErrorText.message(for: error)). Nothing was changed.")
            } catch CipherStoreError.invalidArguments {
                throw CLIError(exitCode: ExitCodes.statementFailed, message: "The SQL was refused: it holds no statement, or more than one. Run one statement per query. Nothing was changed.")
            }
            // SQLite does not mark a PRAGMA that only reads a setting (`PRAGMA journal_mode`) as
            // read-only. Such a PRAGMA has no value to set and is not one that acts when read;
            // the connection is read-only (or query-only) besides.
            let pragma = sql.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
            let readingPragma = pragma.hasPrefix("pragma") && !pragma.contains("=") && !pragma.contains("(")
                && !["wal_checkpoint", "optimize", "incremental_vacuum", "shrink_memory"].contains { pragma.contains($0) }
            if !writing && !statement.isReadOnly && !readingPragma {
                throw CLIError(exitCode: ExitCodes.statementFailed, message: "This statement would change the database. Nothing was changed. Add --write to run it (in a transaction).")
            }
            do {
                if writing { try db.beginTransaction(.immediate) }
                output.begin(columns: statement.columnNames)
                while try statement.step() { output.add((0..<statement.columnCount).map(statement.databaseValue(at:))) }
                if writing { try db.commit() }
                output.finish()
            } catch let error as DatabaseError {
                if db.isInTransaction { try? db.rollback() }
                output.abandon()
                if [.SQLITE_CORRUPT, .SQLITE_NOTADB].contains(error.resultCode.primaryResultCode) {
                    throw DatabaseFileError.damaged(path: Self.path(of: db), detail: "reading it failed (\(error.message ?? error.description)); the rows above, if any, are only part of the result")
                }
                if writing, let problem = Self.writePermissionProblem(error, path: Self.path(of: db)) {
                    throw CLIError(exitCode: ExitCodes.ioFailure, message: "The statement failed: \(problem). It was rolled back: nothing was changed. Give this user write access (see `ls -l` on the file and `ls -ld` on its folder), or run as a user who has it.", kind: "permissionDenied")
                }
                // A full disk or a failed write is the file system's, exit 74 as for every command.
                let io = [.SQLITE_FULL, .SQLITE_IOERR].contains(error.resultCode.primaryResultCode)
                throw CLIError(exitCode: io ? ExitCodes.ioFailure : 1,
                               message: "The statement failed: \(error.message ?? error.description).\(writing ? " It was rolled back: nothing was changed." : "")\(io ? " Free some space (or check the disk), then run it again." : "")")
            }
            let changes = writing ? db.changesCount : 0
            if writing && statement.columnCount == 0 && !quiet {
                StandardStreams.writeError("\(changes) row\(changes == 1 ? "" : "s") changed.\n")
            }
            return changes
        }

        /// Why a write failed with `SQLITE_READONLY` or `SQLITE_CANTOPEN`, from the file system:
        /// the database file is not writable by this user, or its folder is not, where the
        /// journal (rollback mode) or the log (WAL) must be created. `nil` for other causes.
        static func writePermissionProblem(_ error: DatabaseError, path: String) -> String? {
            guard [.SQLITE_READONLY, .SQLITE_CANTOPEN].contains(error.resultCode.primaryResultCode), !path.isEmpty else { return nil }
            let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
            if access(path, W_OK) != 0 {
                return "permission denied: this user may not write '\(path)'"
            }
            let sideFile = FileManager.default.fileExists(atPath: path + "-wal") ? path + "-wal" : path + "-journal"
            if access(folder, W_OK) != 0, !FileManager.default.fileExists(atPath: sideFile) {
                return "'\(sideFile)' cannot be created: the folder '\(folder)' is not writable by this user, and a write creates it beside the database"
            }
            return nil
        }

        /// The error for SQL on a virtual table whose module the linked SQLite lacks, naming
        /// the table when the schema tells which one it is.
        static func missingModule(_ module: String, in db: Connection) -> DatabaseFileError {
            let table = (try? db.fetchScalar(String.self, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%USING ' || ? || '%'", arguments: [module])) ?? nil
            return DatabaseFileError.missingModule(path: Self.path(of: db), table: table ?? "?", module: module)
        }

        /// The error for a write that needs a collation the tool does not have: under a stand-in
        /// it would put index entries where the app's order does not expect them.
        static func missingCollation(_ name: String) -> CLIError {
            CLIError(exitCode: ExitCodes.statementFailed, message: "The statement needs the collation \(name), which this tool does not have (the app that made the database defines it). A write under a stand-in would put rows in its indexes in byte order, where the app would not find them, so it is refused. Nothing was changed. Make this change in the app, or run a statement that does not use \(name) (without --write, the tool reads such columns through a stand-in in byte order).")
        }

        /// The file the connection has open, for messages.
        static func path(of db: Connection) -> String {
            if case .file(let path) = db.location { return path }
            return "\(db.location)"
        }

        static func readStandardInput() throws -> String {
            String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
        }
    }
}
