import CipherStore
import Foundation

/// Texts the commands print about their results.
enum Summary {
    static func conversion(_ report: ConversionReport, verb: String, fullCheck: Bool) -> String {
        let rows = report.verification.tables.reduce(0) { $0 + $1.rowCount }
        let mebibytes = Double(report.outputBytes) / 1_048_576
        let checks = fullCheck ? "integrity check, schema, row counts, every page read back" : "integrity check, schema, row counts"
        return String(format: "%@ %@: %@, %@, %.1f MiB in %.2f s, verified (%@). %@.",
                      verb, report.outputPath, counted(report.verification.tables.count, "table"), counted(rows, "row"),
                      mebibytes, report.seconds, checks, settings(report.verification))
    }

    /// "Page size 4096 bytes, 64000 KDF iterations" (no iterations for a plaintext file).
    static func settings(_ report: VerificationReport) -> String {
        var text = "Page size \(report.pageSize) bytes"
        if let iterations = report.kdfIterations { text += ", \(iterations) KDF iterations" }
        return text
    }

    /// "1 table", "2 tables".
    static func counted(_ count: Int, _ noun: String) -> String {
        "\(count) \(noun)\(count == 1 ? "" : "s")"
    }

    static func text(_ report: VerificationReport) -> String {
        var lines = ["\(report.path): OK (\(report.isEncrypted ? "encrypted" : "PLAINTEXT"), integrity check passed)",
                     "user_version \(report.userVersion), application_id \(report.applicationID), journal mode \(report.journalMode), \(counted(report.schemaObjectCount, "schema object"))",
                     settings(report)]
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
            "pageSize": report.pageSize,
            "kdfIterations": report.kdfIterations as Any,
            "tables": report.tables.map { ["name": $0.name, "rows": $0.rowCount] as [String: Any] },
        ]
        return String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }
}
