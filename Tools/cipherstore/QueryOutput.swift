import ArgumentParser
import CipherStore
import Foundation

/// Writes query results to standard output as they are read: an aligned table, CSV or JSON;
/// or, for `--json`, collects them for the one JSON object printed at the end.
///
/// Rows are streamed, never collected (but for `--json`), so a table of any size prints in
/// constant memory. The
/// table's column widths come from the first rows (up to ``QueryOutput/widthSampleRows``);
/// longer values later on widen their cell without realigning what was printed.
final class QueryOutput {
    enum Format: String, CaseIterable, ExpressibleByArgument {
        case table, csv, json
    }

    static let widthSampleRows = 100

    private let format: Format
    private var columns: [String] = []
    private var pending: [[String]] = []
    private var widths: [Int] = []
    private var rowCount = 0
    private var headerWritten = false
    private var buffer = ""
    /// The rows kept for `--json`, each as its JSON values in column order (two columns may
    /// share a name); `nil` when streaming.
    private(set) var collected: [[Any]]?

    init(format: Format, collecting: Bool = false) {
        self.format = format
        collected = collecting ? [] : nil
    }

    /// The column names of the statement.
    var columnNames: [String] { columns }

    func begin(columns: [String]) {
        self.columns = columns
        if collected != nil { return }
        switch format {
        case .table: widths = columns.map(\.count)
        case .csv: write(columns.map(Self.csvField).joined(separator: ",") + "\n")
        case .json: write("[")
        }
    }

    func add(_ values: [DatabaseValue]) {
        rowCount += 1
        if collected != nil {
            collected?.append(values.map(Self.jsonObject))
            return
        }
        switch format {
        case .table:
            let cells = values.map(Self.text)
            if !headerWritten && pending.count < Self.widthSampleRows {
                pending.append(cells)
                for (index, cell) in cells.enumerated() { widths[index] = max(widths[index], cell.count) }
            } else {
                flushPendingTable()
                write(tableLine(cells))
            }
        case .csv:
            write(values.map { Self.csvField(Self.text($0)) }.joined(separator: ",") + "\n")
        case .json:
            var fields: [String] = []
            for (name, value) in zip(columns, values) { fields.append(Self.jsonString(name) + ":" + Self.json(value)) }
            write((rowCount == 1 ? "\n" : ",\n") + "{" + fields.joined(separator: ",") + "}")
        }
        if buffer.utf8.count >= 64 * 1024 { flush() }
    }

    /// Ends the output; returns the number of rows.
    @discardableResult
    func finish() -> Int {
        if collected != nil { return rowCount }
        switch format {
        case .table:
            flushPendingTable()
            if columns.isEmpty { break }
            write("(\(rowCount) row\(rowCount == 1 ? "" : "s"))\n")
        case .csv: break
        case .json: write(rowCount == 0 ? "]\n" : "\n]\n")
        }
        flush()
        return rowCount
    }

    /// Ends output cut short by an error: the rows read so far are written, with no closing
    /// count that would read as a complete result.
    func abandon() {
        if collected != nil { return }
        if format == .table { flushPendingTable() }
        flush()
    }

    private func flushPendingTable() {
        if !headerWritten && !columns.isEmpty {
            headerWritten = true
            write(tableLine(columns))
            write(widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ") + "\n")
        }
        for cells in pending { write(tableLine(cells)) }
        pending.removeAll()
    }

    private func tableLine(_ cells: [String]) -> String {
        var line = ""
        for (index, cell) in cells.enumerated() {
            let width = index < widths.count ? widths[index] : 0
            line += index == cells.count - 1 ? cell : cell + String(repeating: " ", count: max(0, width - cell.count)) + "  "
        }
        return line + "\n"
    }

    private func write(_ text: String) {
        buffer += text
    }

    private func flush() {
        StandardStreams.writeOutput(buffer)
        buffer.removeAll(keepingCapacity: true)
    }

    // MARK: Values

    /// NULL as `NULL`, blobs as `x'…'` hex, text as it is, numbers as SQLite prints them.
    static func text(_ value: DatabaseValue) -> String {
        switch value {
        case .null: return "NULL"
        case .integer(let int): return String(int)
        case .real(let double): return String(double)
        case .text(let text): return text
        case .blob(let data): return "x'" + data.map { String(format: "%02x", $0) }.joined() + "'"
        }
    }

    static func csvField(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// NULL as `null`, blobs as base64 strings.
    static func json(_ value: DatabaseValue) -> String {
        switch value {
        case .null: return "null"
        case .integer(let int): return String(int)
        case .real(let double): return double.isFinite ? String(double) : "null"
        case .text(let text): return jsonString(text)
        case .blob(let data): return jsonString(data.base64EncodedString())
        }
    }

    /// A value for `JSONSerialization`, as ``json(_:)`` writes it.
    static func jsonObject(_ value: DatabaseValue) -> Any {
        switch value {
        case .null: return NSNull()
        case .integer(let int): return int
        case .real(let double): return double.isFinite ? double : NSNull()
        case .text(let text): return text
        case .blob(let data): return data.base64EncodedString()
        }
    }

    static func jsonString(_ text: String) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: text, options: [.fragmentsAllowed])) ?? Data("\"\"".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
