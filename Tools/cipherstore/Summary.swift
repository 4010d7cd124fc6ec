import CipherStore
import Foundation

/// Texts the commands print about their results.
enum Summary {
    static func conversion(_ report: ConversionReport, verb: String, fullCheck: Bool) -> String {
        let rows = report.verification.tables.reduce(0) { $0 + $1.rowCount }
        let megabytes = Double(report.outputBytes) / 1_048_576
        let checks = fullCheck ? "integrity check, schema, row counts, every page read back" : "integrity check, schema, row counts"
        return String(format: "%@ %@: %d tables, %d rows, %.1f MB in %.2f s, verified (%@).",
                      verb, report.outputPath, report.verification.tables.count, rows, megabytes, report.seconds, checks)
    }

    static func text(_ report: VerificationReport) -> String {
        var lines = ["\(report.path): OK (\(report.isEncrypted ? "encrypted" : "PLAINTEXT"), integrity check passed)",
                     "user_version \(report.userVersion), application_id \(report.applicationID), journal mode \(report.journalMode), \(report.schemaObjectCount) schema objects"]
        for table in report.tables { lines.append("  \(table.name): \(table.rowCount) rows") }
        return lines.joined(separator: "\n")
    }

    static func json(_ report: VerificationReport) throws -> String {
        let object: [String: Any] = [
            "path": report.path,
            "ok": true,
            "encrypted": report.isEncrypted,
            "userVersion": report.userVersion,
            "applicationID": report.applicationID,
            "journalMode": report.journalMode,
            "schemaObjects": report.schemaObjectCount,
            "tables": report.tables.map { ["name": $0.name, "rows": $0.rowCount] as [String: Any] },
        ]
        return String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }
}
