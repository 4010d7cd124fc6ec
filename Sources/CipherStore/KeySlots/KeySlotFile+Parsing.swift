extension KeySlotFile {
    /// Parses a slot file strictly: magic, version, checksum, every length and every KDF
    /// parameter are checked, and nothing may follow the checksum. Runs no KDF.
    ///
    /// - Parameter path: named in the errors.
    /// - Throws: ``KeySlotError/notASlotFile(path:)``, ``KeySlotError/unsupportedVersion(path:version:)``,
    ///   ``KeySlotError/damaged(path:detail:)``, ``KeySlotError/kdfParametersOutOfRange(path:slot:detail:)``.
    init(parsing bytes: [UInt8], path: String) throws {
        var reader = ByteReader(bytes: bytes, path: path)
        guard bytes.count >= Self.magic.count, Array(bytes[0..<Self.magic.count]) == Self.magic else {
            throw KeySlotError.notASlotFile(path: path)
        }
        reader.offset = Self.magic.count
        let version = Int(try reader.uint16("the version"))
        guard version == Self.formatVersion else {
            throw KeySlotError.unsupportedVersion(path: path, version: version)
        }
        guard bytes.count >= 32 + 36 else {
            throw KeySlotError.damaged(path: path, detail: "it is cut short (\(bytes.count) bytes)")
        }
        let body = bytes[0..<(bytes.count - 32)]
        guard Self.checksum(body) == Array(bytes[(bytes.count - 32)...]) else {
            throw KeySlotError.damaged(path: path, detail: "its checksum does not match: bytes were changed, cut or appended")
        }
        reader.end = bytes.count - 32
        let count = Int(try reader.uint16("the slot count"))
        guard (1...Self.maximumSlots).contains(count) else {
            throw KeySlotError.damaged(path: path, detail: "it claims \(count) slots (1 to \(Self.maximumSlots) are possible)")
        }
        let fileID = try reader.bytes(16, "the file id")
        var slots: [Slot] = []
        for index in 0..<count {
            let slot = try Self.parseSlot(&reader, index: index)
            if let problem = slot.derivation.problem() {
                throw KeySlotError.kdfParametersOutOfRange(path: path, slot: slot.id, detail: problem)
            }
            guard !slots.contains(where: { $0.id == slot.id }) else {
                throw KeySlotError.damaged(path: path, detail: "two slots have the number \(slot.id)")
            }
            slots.append(slot)
        }
        // Each slot is within the caps; together they must be too, or a file of many slots at
        // the caps would make one wrong passphrase cost minutes.
        let work = slots.reduce(0) { $0 + $1.derivation.shareOfMaximumWork }
        guard work <= KeyDerivation.maximumWorkPerFile else {
            throw KeySlotError.kdfParametersOutOfRange(
                path: path, slot: slots.last?.id ?? 0,
                detail: String(format: "its slots together ask for %.1f times the key-derivation work one slot may ask for (at most %.0f)",
                               work, KeyDerivation.maximumWorkPerFile))
        }
        guard reader.offset == reader.end else {
            throw KeySlotError.damaged(path: path, detail: "\(reader.end - reader.offset) bytes follow the last slot")
        }
        self.init(fileID: fileID, slots: slots)
    }

    private static func parseSlot(_ reader: inout ByteReader, index: Int) throws -> Slot {
        let what = "slot \(index + 1)"
        let id = Int(try reader.uint32("the number of \(what)"))
        guard let kind = Slot.Kind(rawValue: try reader.uint8("the kind of \(what)")) else {
            throw KeySlotError.damaged(path: reader.path, detail: "\(what) has an unknown kind")
        }
        guard let algorithm = KeyDerivation.Algorithm(rawValue: try reader.uint8("the KDF of \(what)")) else {
            throw KeySlotError.damaged(path: reader.path, detail: "\(what) names an unknown KDF")
        }
        let parameters = (Int(try reader.uint32(what)), Int(try reader.uint32(what)), Int(try reader.uint32(what)))
        let kdfSalt = try reader.bytes(32, "the KDF salt of \(what)")
        let databaseSalt = try reader.bytes(16, "the database salt of \(what)")
        let created = Int64(bitPattern: try reader.uint64("the date of \(what)"))
        let labelLength = Int(try reader.uint16("the label length of \(what)"))
        guard labelLength <= maximumLabelBytes else {
            throw KeySlotError.damaged(path: reader.path, detail: "the label of \(what) claims \(labelLength) bytes")
        }
        guard let label = String(validating: try reader.bytes(labelLength, "the label of \(what)"), as: UTF8.self) else {
            throw KeySlotError.damaged(path: reader.path, detail: "the label of \(what) is not UTF-8")
        }
        // The rule labels are written under: no control characters (a crafted label could
        // otherwise send terminal escapes or fake lines to whoever lists the slots).
        guard KeySlots.labelProblem(label) == nil else {
            throw KeySlotError.damaged(path: reader.path, detail: "the label of \(what) has control characters or invisible formatting characters, which CipherStore never writes")
        }
        return Slot(id: id, kind: kind, derivation: KeyDerivation(algorithm: algorithm, parameters: parameters),
                    kdfSalt: kdfSalt, databaseSalt: databaseSalt, created: created, label: label,
                    nonce: try reader.bytes(12, "the nonce of \(what)"), sealedKey: try reader.bytes(48, "the wrapped key of \(what)"))
    }
}

/// Reads big-endian integers and bytes; running past the end is a damaged file.
struct ByteReader {
    let bytes: [UInt8]
    let path: String
    var offset = 0
    var end: Int

    init(bytes: [UInt8], path: String) {
        self.bytes = bytes
        self.path = path
        self.end = bytes.count
    }

    mutating func bytes(_ count: Int, _ what: String) throws -> [UInt8] {
        guard count <= end - offset else {
            throw KeySlotError.damaged(path: path, detail: "it is cut short in \(what)")
        }
        defer { offset += count }
        return Array(bytes[offset..<(offset + count)])
    }

    mutating func uint8(_ what: String) throws -> UInt8 { try bytes(1, what)[0] }
    mutating func uint16(_ what: String) throws -> UInt16 { try bytes(2, what).reduce(0) { $0 << 8 | UInt16($1) } }
    mutating func uint32(_ what: String) throws -> UInt32 { try bytes(4, what).reduce(0) { $0 << 8 | UInt32($1) } }
    mutating func uint64(_ what: String) throws -> UInt64 { try bytes(8, what).reduce(0) { $0 << 8 | UInt64($1) } }
}
