import Foundation
import StatusFeed

/// The timeline as a text table, aligned for CJK text (wide characters take two columns).
enum TimelineTable {
    static func render(_ entries: [TimelineEntry]) -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = "HH:mm"
        formatter.timeZone = SampleData.timeZone
        let rows = entries.map { entry in
            [formatter.string(from: entry.status.createdAt), entry.user.screenName, entry.user.city, clip(entry.status.text, 40)]
        }
        let header = ["time", "user", "city", "text"]
        let widths = (0..<header.count).map { column in ([header] + rows).map { width($0[column]) }.max() ?? 0 }
        func line(_ cells: [String]) -> String {
            "  " + zip(cells, widths).map { $0 + String(repeating: " ", count: $1 - width($0)) }.joined(separator: "  ")
        }
        return ([line(header), line(widths.map { String(repeating: "-", count: $0) })] + rows.map(line)).joined(separator: "\n")
    }

    private static func width(_ text: String) -> Int {
        text.unicodeScalars.reduce(0) { $0 + ($1.value >= 0x1100 && $1.properties.isEmojiPresentation == false && isWide($1) ? 2 : 1) }
    }

    private static func isWide(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x1100...0x115F, 0x2E80...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6: return true
        default: return false
        }
    }

    private static func clip(_ text: String, _ columns: Int) -> String {
        var result = ""
        for character in text {
            if width(result + String(character)) > columns - 1 { return result + "…" }
            result.append(character)
        }
        return result
    }
}
