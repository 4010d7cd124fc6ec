/// One decrypted b-tree page, read without trusting it: every offset and length is checked
/// against the page, and a page that does not parse is `nil`, never a crash.
///
/// The layout is SQLite's file format: a header (8 bytes on leaves, 12 on interior pages; on
/// page 1 after the 100-byte database header), an array of 2-byte cell offsets, and the cells.
struct BTreePage {
    enum Kind: UInt8 {
        case indexInterior = 2, tableInterior = 5, indexLeaf = 10, tableLeaf = 13
    }

    /// A row of a table leaf: its rowid, the payload's full size, the part stored on the page,
    /// and the first overflow page holding the rest (0 when none).
    struct Cell {
        let rowID: Int64
        let payloadSize: Int
        let local: ArraySlice<UInt8>
        let firstOverflowPage: UInt32
        /// Where the cell is: its page number (high bits) and its index on the page.
        var slot: UInt64 = 0
    }

    let kind: Kind
    /// Interior pages: the child pages, the right-most last.
    let children: [UInt32]
    /// Table leaves: the rows.
    let cells: [Cell]

    /// - Parameters:
    ///   - page: the usable part of the page (the page size minus the reserve).
    ///   - number: the page number (page 1 starts after the database header).
    init?(_ page: [UInt8], number: UInt32) {
        let start = number == 1 ? 100 : 0
        guard page.count >= start + 12, let kind = Kind(rawValue: page[start]) else { return nil }
        self.kind = kind
        let isLeaf = kind == .tableLeaf || kind == .indexLeaf
        let cellCount = Int(page[start + 3]) << 8 | Int(page[start + 4])
        let pointers = start + (isLeaf ? 8 : 12)
        guard pointers + 2 * cellCount <= page.count else { return nil }
        var children: [UInt32] = []
        var cells: [Cell] = []
        for index in 0..<cellCount {
            let offset = Int(page[pointers + 2 * index]) << 8 | Int(page[pointers + 2 * index + 1])
            guard offset >= pointers + 2 * cellCount, offset < page.count else { return nil }
            switch kind {
            case .tableInterior, .indexInterior:
                guard offset + 4 <= page.count else { return nil }
                children.append(Self.uint32(page, at: offset))
            case .tableLeaf:
                guard var cell = Self.tableLeafCell(page, at: offset) else { return nil }
                cell.slot = UInt64(number) << 16 | UInt64(index)
                cells.append(cell)
            case .indexLeaf:
                break
            }
        }
        if !isLeaf { children.append(Self.uint32(page, at: start + 8)) }
        self.children = children
        self.cells = cells
    }

    /// A table leaf's cell: payload size and rowid (varints), the local payload, and the first
    /// overflow page when the payload does not fit (the sizes are SQLite's: see its file format).
    private static func tableLeafCell(_ page: [UInt8], at offset: Int) -> Cell? {
        var position = offset
        guard let size = varint(page, &position), let rowID = varint(page, &position),
              size >= 0, size <= 1 << 31 else { return nil }
        let payloadSize = Int(size)
        let usable = page.count
        let maxLocal = usable - 35
        var local = payloadSize
        if payloadSize > maxLocal {
            let minLocal = (usable - 12) * 32 / 255 - 23
            let candidate = minLocal + (payloadSize - minLocal) % (usable - 4)
            local = candidate <= maxLocal ? candidate : minLocal
        }
        guard position + local <= page.count else { return nil }
        let overflow = local < payloadSize ? (position + local + 4 <= page.count ? uint32(page, at: position + local) : nil) : 0
        guard let overflow else { return nil }
        return Cell(rowID: rowID, payloadSize: payloadSize, local: page[position..<(position + local)], firstOverflowPage: overflow)
    }

    static func uint32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8 | UInt32(bytes[offset + 3])
    }

    /// SQLite's variable-length integer (1 to 9 bytes, big-endian), advancing `position`.
    static func varint<C: RandomAccessCollection<UInt8>>(_ bytes: C, _ position: inout C.Index) -> Int64? where C.Index == Int {
        var value: UInt64 = 0
        for index in 0..<9 {
            guard position < bytes.endIndex else { return nil }
            let byte = bytes[position]
            position += 1
            if index == 8 { return Int64(bitPattern: value << 8 | UInt64(byte)) }
            value = value << 7 | UInt64(byte & 0x7f)
            if byte & 0x80 == 0 { return Int64(bitPattern: value) }
        }
        return nil
    }
}
