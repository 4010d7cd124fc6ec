@_spi(Fuzzing) import CipherStore
import Foundation

// The repair on files that look right: the input is not the file but the decisions that build
// one — a valid database header whose fields (page count, freelist, encoding, the counter
// that vouches for the page count) may lie; a schema whose rows name real or hostile root
// pages and tables SQLite can and cannot create (WITHOUT ROWID, an unknown collation, broken
// SQL); table leaves with well-formed cells and records, overflow chains that end, loop or
// are shared; interior pages that point anywhere, themselves included; freelist trunks; and a
// WAL file with valid checksums whose frames and commit sizes may lie. The whole salvage then
// runs over it into an in-memory database. Only thrown errors and rows left out are
// acceptable; `make fuzz` fails the run on a crash, a sanitizer report, an input slower than
// its -timeout or memory above its -rss_limit_mb.

/// Reads decisions from the fuzzer's bytes; zeros once they run out.
struct Decisions {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var position = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    mutating func byte() -> UInt8 {
        guard position < bytes.count else { return 0 }
        defer { position += 1 }
        return bytes[position]
    }

    mutating func int(_ range: ClosedRange<Int>) -> Int {
        let span = UInt64(range.upperBound - range.lowerBound) + 1
        let value = UInt64(byte()) << 8 | UInt64(byte())
        return range.lowerBound + Int(value % span)
    }

    mutating func bool() -> Bool { byte() & 1 == 1 }

    /// A page number: mostly one of the image's, sometimes 0, past the end or the largest.
    mutating func page(of count: Int) -> UInt32 {
        switch byte() % 16 {
        case 0: return 0
        case 1: return UInt32(count + 1 + int(0...3))
        case 2: return UInt32.max
        default: return UInt32(int(1...count))
        }
    }
}

/// A decrypted image, and SQLite's encodings. The image is one buffer, not an array of pages:
/// joining pages element by element, under the fuzzer's comparison tracing, cost more than the
/// salvage itself.
struct ImageBuilder {
    static let pageSize = 1024
    private(set) var image: [UInt8]
    let pageCount: Int

    init(pageCount: Int) {
        self.pageCount = pageCount
        image = [UInt8](repeating: 0, count: pageCount * Self.pageSize)
    }

    /// Page `number` (from 1).
    func page(_ number: Int) -> ArraySlice<UInt8> { image[((number - 1) * Self.pageSize)..<(number * Self.pageSize)] }

    static func varint(_ value: UInt64) -> [UInt8] {
        if value > 0x00FF_FFFF_FFFF_FFFF {
            var bytes = (0..<8).map { index in UInt8((value >> (UInt64(57 - 7 * index))) & 0x7F) | 0x80 }
            bytes.append(UInt8(value & 0xFF))
            return bytes
        }
        var groups: [UInt8] = [UInt8(value & 0x7F)]
        var rest = value >> 7
        while rest > 0 {
            groups.insert(UInt8(rest & 0x7F) | 0x80, at: 0)
            rest >>= 7
        }
        return groups
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    mutating func put(_ bytes: [UInt8], page: Int, at offset: Int) {
        guard !bytes.isEmpty, offset >= 0, offset + bytes.count <= Self.pageSize else { return }
        let start = (page - 1) * Self.pageSize + offset
        image.withUnsafeMutableBytes { target in
            bytes.withUnsafeBytes { target.baseAddress!.advanced(by: start).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        }
    }

    /// A record: header of serial types, then the values.
    static func record(_ decisions: inout Decisions, columns: Int) -> [UInt8] {
        var types: [UInt8] = []
        var body: [UInt8] = []
        for _ in 0..<columns {
            switch decisions.byte() % 7 {
            case 0: types.append(0)
            case 1: types.append(1); body.append(decisions.byte())
            case 2: types.append(6); for _ in 0..<8 { body.append(decisions.byte()) }
            case 3: types.append(7); for _ in 0..<8 { body.append(decisions.byte()) }
            case 4, 5:
                let length = decisions.int(0...40)
                types += varint(UInt64(13 + 2 * length))
                for _ in 0..<length { body.append(0x61 + decisions.byte() % 26) }
            default:
                let length = decisions.int(0...40)
                types += varint(UInt64(12 + 2 * length))
                for _ in 0..<length { body.append(decisions.byte()) }
            }
        }
        return varint(UInt64(types.count + 1)) + types + body
    }

    /// A text record of `sqlite_master`: type, name, table, root page, SQL.
    static func schemaRecord(type: String, name: String, table: String, root: UInt32, sql: String) -> [UInt8] {
        let texts = [type, name, table].map { Array($0.utf8) }
        let sqlBytes = Array(sql.utf8)
        var header: [UInt8] = []
        for text in texts { header += varint(UInt64(13 + 2 * text.count)) }
        header += [4]
        header += varint(UInt64(13 + 2 * sqlBytes.count))
        return varint(UInt64(header.count + 1)) + header + texts[0] + texts[1] + texts[2] + bigEndian(root) + sqlBytes
    }

    /// Writes a table leaf of `cells` (rowid and payload, with an overflow page when the payload
    /// does not fit, whose size may be claimed larger) at `page` (after the header on page 1).
    mutating func tableLeaf(page: Int, cells: [(rowID: Int64, payload: [UInt8], claimed: Int, overflow: UInt32)]) {
        let start = page == 1 ? 100 : 0
        var end = Self.pageSize
        var pointers: [UInt8] = []
        let usable = Self.pageSize
        let maxLocal = usable - 35
        let minLocal = (usable - 12) * 32 / 255 - 23
        var written = 0
        for cell in cells {
            let size = max(cell.claimed, cell.payload.count)
            var local = size
            if size > maxLocal {
                let candidate = minLocal + (size - minLocal) % (usable - 4)
                local = candidate <= maxLocal ? candidate : minLocal
            }
            var bytes = Self.varint(UInt64(size)) + Self.varint(UInt64(bitPattern: cell.rowID))
            bytes += cell.payload.prefix(local)
            if local > cell.payload.count { bytes += repeatElement(0, count: local - cell.payload.count) }
            if local < size { bytes += Self.bigEndian(cell.overflow) }
            guard end - bytes.count > start + 8 + 2 * (written + 1) else { break }
            end -= bytes.count
            put(bytes, page: page, at: end)
            pointers += [UInt8(end >> 8), UInt8(end & 0xFF)]
            written += 1
        }
        put([13, 0, 0, UInt8(written >> 8), UInt8(written & 0xFF), UInt8(end >> 8), UInt8(end & 0xFF), 0] + pointers, page: page, at: start)
    }

    mutating func interior(page: Int, children: [UInt32], right: UInt32) {
        let start = page == 1 ? 100 : 0
        var end = Self.pageSize
        var pointers: [UInt8] = []
        for (index, child) in children.enumerated() {
            let cell = Self.bigEndian(child) + Self.varint(UInt64(index + 1) * 100)
            end -= cell.count
            put(cell, page: page, at: end)
            pointers += [UInt8(end >> 8), UInt8(end & 0xFF)]
        }
        put([5, 0, 0, 0, UInt8(children.count), UInt8(end >> 8), UInt8(end & 0xFF), 0] + Self.bigEndian(right) + pointers, page: page, at: start)
    }
}

/// A log whose frames carry some of the image's pages (or others), with valid checksums.
func structuredLog(_ decisions: inout Decisions, builder: ImageBuilder) -> [UInt8] {
    let pageSize = ImageBuilder.pageSize
    var log = [UInt8](repeating: 0, count: 32)
    func put(_ value: UInt32, at offset: Int) { log.replaceSubrange(offset..<(offset + 4), with: ImageBuilder.bigEndian(value)) }
    put(0x377f_0682, at: 0)
    put(3_007_000, at: 4)
    put(UInt32(pageSize), at: 8)
    put(0x0102_0304, at: 16)
    put(0x0506_0708, at: 20)
    var sums = DatabaseRepair.walChecksum(log[0..<24], from: (0, 0))
    put(sums.0, at: 24)
    put(sums.1, at: 28)
    for _ in 0..<decisions.int(1...4) {
        let page = decisions.page(of: builder.pageCount)
        let commit: UInt32 = decisions.bool() ? 0 : (decisions.bool() ? UInt32(builder.pageCount) : decisions.page(of: builder.pageCount))
        let image = builder.page(decisions.int(1...builder.pageCount))
        var frame = ImageBuilder.bigEndian(page) + ImageBuilder.bigEndian(commit) + ImageBuilder.bigEndian(0x0102_0304) + ImageBuilder.bigEndian(0x0506_0708)
        sums = DatabaseRepair.walChecksum(frame[0..<8][...], from: sums)
        sums = DatabaseRepair.walChecksum(image, from: sums)
        frame += ImageBuilder.bigEndian(sums.0) + ImageBuilder.bigEndian(sums.1) + image
        log += frame
    }
    return log
}

/// The objects a schema row may describe: type, SQL for a name, and the table's column count.
let schemaTemplates: [(type: String, sql: @Sendable (String) -> String, columns: Int)] = [
    ("table", { "CREATE TABLE \($0)(a, b)" }, 2),
    ("table", { "CREATE TABLE \($0)(id INTEGER PRIMARY KEY, v)" }, 2),
    ("table", { "CREATE TABLE \($0)(a, b, c)" }, 3),
    ("table", { "CREATE TABLE \($0)(k TEXT PRIMARY KEY, v) WITHOUT ROWID" }, 2),
    ("table", { "CREATE TABLE \($0)(x TEXT COLLATE fuzzapp)" }, 1),
    ("table", { "CREATE TABLE \($0)(" }, 1),
    ("index", { "CREATE INDEX \($0) ON t0(a)" }, 0),
    ("view", { "CREATE VIEW \($0) AS SELECT 1" }, 0),
]

/// Builds the image the decisions describe.
func structuredImage(_ decisions: inout Decisions) -> ImageBuilder {
    let count = 2 + decisions.int(0...30)
    var builder = ImageBuilder(pageCount: count)
    // The database header: fields that may lie.
    var header = Array("SQLite format 3\u{0}".utf8) + [4, 0, 1, 1, 0, 64, 32, 32]
    let counter = UInt32(decisions.int(1...9))
    header += ImageBuilder.bigEndian(counter)
    header += ImageBuilder.bigEndian(decisions.bool() ? UInt32(count) : decisions.page(of: count))
    header += ImageBuilder.bigEndian(decisions.bool() ? 0 : decisions.page(of: count))
    header += ImageBuilder.bigEndian(UInt32(decisions.int(0...8)))
    header += ImageBuilder.bigEndian(1) + ImageBuilder.bigEndian(4) + [UInt8](repeating: 0, count: 8)
    header += ImageBuilder.bigEndian(decisions.byte() % 8 == 0 ? UInt32(decisions.byte()) : 1)
    header += ImageBuilder.bigEndian(7) + [UInt8](repeating: 0, count: 28)
    header += ImageBuilder.bigEndian(decisions.byte() % 8 == 0 ? counter + 1 : counter) + ImageBuilder.bigEndian(3_015_002)
    builder.put(header, page: 1, at: 0)

    // The schema, on page 1.
    let templates = schemaTemplates
    var schemaCells: [(rowID: Int64, payload: [UInt8], claimed: Int, overflow: UInt32)] = []
    var widths: [Int] = []
    for index in 0..<decisions.int(0...4) {
        let template = templates[decisions.int(0...(templates.count - 1))]
        let name = "t\(index)"
        let root: UInt32 = template.type == "view" ? 0 : decisions.page(of: count)
        schemaCells.append((Int64(index + 1), ImageBuilder.schemaRecord(type: template.type, name: name, table: "t0", root: root, sql: template.sql(name)), 0, 0))
        widths.append(template.columns)
    }
    if decisions.byte() % 8 == 0 {
        builder.interior(page: 1, children: [decisions.page(of: count)], right: decisions.page(of: count))
    } else {
        builder.tableLeaf(page: 1, cells: schemaCells)
    }

    // Every other page: a table leaf, an interior page, an overflow or freelist page, or noise.
    for page in 2...count {
        switch decisions.byte() % 8 {
        case 0, 1, 2:
            let columns = widths.isEmpty ? decisions.int(1...3) : widths[decisions.int(0...(widths.count - 1))]
            var cells: [(rowID: Int64, payload: [UInt8], claimed: Int, overflow: UInt32)] = []
            for _ in 0..<decisions.int(0...6) {
                let rowID: Int64 = decisions.byte() % 16 == 0 ? Int64.min + Int64(decisions.byte()) : Int64(decisions.int(1...5000))
                let payload = ImageBuilder.record(&decisions, columns: columns)
                let claimed = decisions.byte() % 4 == 0 ? payload.count + decisions.int(0...3000) : payload.count
                cells.append((rowID, payload, claimed, decisions.page(of: count)))
            }
            builder.tableLeaf(page: page, cells: cells)
        case 3:
            builder.interior(page: page, children: (0..<decisions.int(0...4)).map { _ in decisions.page(of: count) },
                             right: decisions.page(of: count))
        case 4:
            builder.put(ImageBuilder.bigEndian(decisions.page(of: count)) + (0..<64).map { _ in decisions.byte() }, page: page, at: 0)
        case 5:
            let leaves = (0..<decisions.int(0...6)).map { _ in decisions.page(of: count) }
            builder.put(ImageBuilder.bigEndian(decisions.page(of: count)) + ImageBuilder.bigEndian(UInt32(decisions.byte() % 8 == 0 ? 300 : leaves.count))
                        + leaves.flatMap(ImageBuilder.bigEndian), page: page, at: 0)
        case 6:
            builder.put([10, 0, 0, 0, 0, 4, 0, 0], page: page, at: 0)
        default:
            builder.put((0..<32).map { _ in decisions.byte() }, page: page, at: decisions.int(0...900))
        }
    }
    return builder
}

/// One in-memory database for every run: each salvage is rolled back.
nonisolated(unsafe) let salvageOutput = try! Connection(location: .inMemory, key: nil, configuration: Configuration(foreignKeys: false))

func fuzzStructuredRepair(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data else { return 0 }
    var decisions = Decisions(UnsafeBufferPointer(start: data, count: size))
    let builder = structuredImage(&decisions)
    let log = decisions.bool() ? structuredLog(&decisions, builder: builder) : nil
    _ = try? DatabaseRepair.salvage(image: builder.image, log: log, pageSize: ImageBuilder.pageSize, into: salvageOutput)
    return 0
}
