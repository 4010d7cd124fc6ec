import CipherStore
import Foundation
import TestSupport
import Testing

@Suite struct CursorMemoryTests {
    /// Resident memory of this process, from /proc/self/statm.
    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        return (Int(fields.count > 1 ? fields[1] : "0") ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    @Test func cursorOverAMillionRowsKeepsMemoryFlat() throws {
        let directory = try TemporaryDirectory()
        let db = try Connection(path: directory.path("big.sqlite"), key: .rawKey(hex: String(repeating: "ab", count: 32)))
        try db.execute(sql: "CREATE TABLE big(id INTEGER PRIMARY KEY, body TEXT)")
        try db.execute(sql: """
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000000)
            INSERT INTO big SELECT i, printf('%0100d', i) FROM n
            """)
        let baseline = Self.residentBytes()
        var peak = baseline
        var count = 0
        var bodyBytes = 0
        let cursor = try db.fetchCursor(sql: "SELECT id, body FROM big")
        while let row = try cursor.next() {
            count += 1
            bodyBytes += try row.value(String.self, at: 1).utf8.count
            if count % 50_000 == 0 { peak = max(peak, Self.residentBytes()) }
        }
        #expect(count == 1_000_000)
        // Loaded at once, the bodies alone would take 100 MB.
        #expect(bodyBytes == 100_000_000)
        #expect(peak - baseline < 40_000_000, "resident memory grew by \(peak - baseline) bytes")
    }
}
