import CSQLCipher

/// The `Decoder` and containers a record's `init(from:)` sees. Every read goes to the shared
/// typed reads of ``RecordDecoder``; the concrete overloads spare the common types a dynamic cast.
extension RecordDecoder {
    /// The record's decoder: a keyed container, one coding key per column.
    struct TopLevel: Decoder {
        let decoder: RecordDecoder
        var codingPath: [any CodingKey] { [] }
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
            decoder.keyedContainer(Key.self)
        }

        func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
            throw decoder.error(.unsupportedShape("it decodes as an array, but a record decodes from one row, one property per column"), key: nil)
        }

        func singleValueContainer() throws -> any SingleValueDecodingContainer {
            if decoder.isDecodingWideUnsignedInteger {
                throw decoder.error(.unsupportedShape("UInt64 and UInt are not column types, since SQLite has no integer above Int64.max, so the value was read as a record (fetch Int64, and convert with UInt64(exactly:))"), key: nil)
            }
            throw decoder.error(.unsupportedShape("it decodes as a single value, but a record decodes one property per column (read one value with Row.value(_:at:) or Connection.fetchScalar)"), key: nil)
        }
    }

    struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let decoder: RecordDecoder
        var codingPath: [any CodingKey] { [] }
        var allKeys: [Key] { decoder.columnNames.compactMap { Key(stringValue: $0) } }

        func contains(_ key: Key) -> Bool {
            if let scoped = decoder.scoped {
                switch decoder.associationKey(key.stringValue, in: scoped) {
                case .scope, .prefetched: return true
                case .noColumn, .column: break
                }
            }
            return decoder.lookUp(key) != nil
        }

        func decodeNil(forKey key: Key) throws -> Bool {
            // A column of that name goes first (the optional value types ask here); a record
            // asks through decodeIfPresent, which knows its type.
            if let scoped = decoder.scoped, decoder.lookUp(key) == nil {
                switch decoder.associationKey(key.stringValue, in: scoped) {
                case .scope(let path): return scoped.scope(at: path).isMissing
                case .prefetched: return false
                case .noColumn, .column: break
                }
            }
            guard let column = decoder.lookUp(key) else { return true }
            if !decoder.repeatedNames.isEmpty { try decoder.confirmUnambiguous(key, at: column) }
            return decoder.source.columnType(at: column) == SQLITE_NULL
        }

        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decoder.bool(at: decoder.column(for: key), key: key) }
        func decode(_ type: String.Type, forKey key: Key) throws -> String { try decoder.string(at: decoder.column(for: key), key: key) }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decoder.double(at: decoder.column(for: key), key: key) }
        func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decoder.float(at: decoder.column(for: key), key: key) }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try integer(key) }
        func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try integer(key) }
        func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try integer(key) }
        func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try integer(key) }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try integer(key) }
        func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try integer(key) }
        func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try integer(key) }
        func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try integer(key) }
        func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try integer(key) }
        func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try integer(key) }

        // Optional properties of the common types read their column through the plan, as the
        // others do: the standard library's versions ask `contains` and `decodeNil` first, two
        // lookups by name per row.
        func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try optional(key) { try decoder.bool(at: $0, key: key) } }
        func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try optional(key) { try decoder.string(at: $0, key: key) } }
        func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try optional(key) { try decoder.double(at: $0, key: key) } }
        func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { try optional(key) { try decoder.float(at: $0, key: key) } }
        func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try optionalInteger(key) }
        func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try optionalInteger(key) }
        func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try optionalInteger(key) }
        func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try optionalInteger(key) }
        func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try optionalInteger(key) }
        func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try optionalInteger(key) }
        func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try optionalInteger(key) }
        func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try optionalInteger(key) }
        func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try optionalInteger(key) }
        func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try optionalInteger(key) }

        /// A value-typed optional property: `nil` for a missing column or NULL, else `read` of
        /// its column. Rows split by association keep the general path, which also knows keys
        /// that name associations.
        @inline(__always)
        private func optional<T: Decodable>(_ key: Key, _ read: (Int) throws -> T) throws -> T? {
            guard !decoder.isScoped else {
                guard contains(key), try !decodeNil(forKey: key) else { return nil }
                return try read(decoder.column(for: key))
            }
            guard let column = try decoder.optionalColumn(for: key), decoder.source.columnType(at: column) != SQLITE_NULL else { return nil }
            return try read(column)
        }

        @inline(__always)
        private func optionalInteger<I: FixedWidthInteger & Decodable>(_ key: Key) throws -> I? {
            try optional(key) { try decoder.integer(I.self, at: $0, key: key) }
        }

        func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
            guard decoder.isScoped else {
                guard let column = try decoder.optionalColumn(for: key), decoder.source.columnType(at: column) != SQLITE_NULL else { return nil }
                return try decoder.value(T.self, at: column, key: key)
            }
            // An association's record (`var author: Author?`): `nil` when the optional one
            // matched no row. The step found on the first row serves the others.
            let target = decoder.associationTarget(key.stringValue, T.self)
            switch target {
            case .scope:
                return decoder.isMissing(target) ? nil : try decoder.associated(T.self, target, forKey: key)
            case .prefetched:
                return try decoder.associated(T.self, target, forKey: key)
            case .nested:
                // A record named by no column is `nil` when optional.
                return nil
            case .column:
                guard contains(key), try !decodeNil(forKey: key) else { return nil }
                return try columnValue(T.self, forKey: key)
            }
        }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            if decoder.isScoped {
                let target = decoder.associationTarget(key.stringValue, T.self)
                if case .column = target {} else {
                    if case .nested = target {
                        // An array is a to-many association's rows, never a copy of this row.
                        if T.self is any Collection.Type {
                            throw decoder.error(.noToManyAssociation(associations: decoder.associationKeysForMessages), key: key)
                        }
                        try decoder.claimRowRecordKey(key)
                    }
                    return try decoder.associated(T.self, target, forKey: key)
                }
            }
            return try columnValue(T.self, forKey: key)
        }

        /// The property `key` read from its column.
        private func columnValue<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            guard let column = decoder.plannedColumn(for: key) else {
                // A record-typed property named by no column decodes from the row's own columns
                // (`var author: Author` beside `var bookCount: Int`), as in GRDB.
                if !decoder.isScoped, decoder.nestingDepth < 8, !(T.self is any DatabaseValueConvertible.Type) {
                    return try decoder.sameRowRecord(T.self, forKey: key)
                }
                throw decoder.error(.missingColumn(availableColumns: decoder.columnNames), key: key)
            }
            if !decoder.repeatedNames.isEmpty { try decoder.confirmUnambiguous(key, at: column) }
            return try decoder.value(T.self, at: column, key: key)
        }

        @inline(__always)
        private func integer<I: FixedWidthInteger>(_ key: Key) throws -> I {
            try decoder.integer(I.self, at: decoder.column(for: key), key: key)
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
            throw decoder.error(.unsupportedShape("it asks for a nested keyed container, but a column holds one value (to read a column's JSON, decode the property's type with decode(_:forKey:))"), key: key)
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            throw decoder.error(.unsupportedShape("it asks for an array, but a column holds one value (to read a column's JSON array, decode the property's type with decode(_:forKey:))"), key: key)
        }

        // A subclass's init(from:) passes this to its superclass: the same row, the same columns.
        func superDecoder() throws -> any Decoder { TopLevel(decoder: decoder) }
        func superDecoder(forKey key: Key) throws -> any Decoder { TopLevel(decoder: decoder) }
    }

    /// One column as a single value, for property types that decode themselves from one value
    /// (enums with a raw value, wrappers around one primitive). A type that asks for a keyed or
    /// unkeyed container instead is read from the column's JSON (see ``RecordDecoder/value(_:at:key:)``).
    struct ValueDecoder: Decoder, SingleValueDecodingContainer {
        /// Thrown when the type asks for a container: the column holds it as JSON.
        struct NeedsJSON: Error {}

        let decoder: RecordDecoder
        let column: Int
        let key: any CodingKey
        var codingPath: [any CodingKey] { [key] }
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func container<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
            throw NeedsJSON()
        }

        func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
            throw NeedsJSON()
        }

        func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

        func decodeNil() -> Bool { decoder.source.columnType(at: column) == SQLITE_NULL }

        func decode(_ type: Bool.Type) throws -> Bool { try decoder.bool(at: column, key: key) }
        func decode(_ type: String.Type) throws -> String { try decoder.string(at: column, key: key) }
        func decode(_ type: Double.Type) throws -> Double { try decoder.double(at: column, key: key) }
        func decode(_ type: Float.Type) throws -> Float { try decoder.float(at: column, key: key) }
        func decode(_ type: Int.Type) throws -> Int { try decoder.integer(Int.self, at: column, key: key) }
        func decode(_ type: Int8.Type) throws -> Int8 { try decoder.integer(Int8.self, at: column, key: key) }
        func decode(_ type: Int16.Type) throws -> Int16 { try decoder.integer(Int16.self, at: column, key: key) }
        func decode(_ type: Int32.Type) throws -> Int32 { try decoder.integer(Int32.self, at: column, key: key) }
        func decode(_ type: Int64.Type) throws -> Int64 { try decoder.integer(Int64.self, at: column, key: key) }
        func decode(_ type: UInt.Type) throws -> UInt { try decoder.integer(UInt.self, at: column, key: key) }
        func decode(_ type: UInt8.Type) throws -> UInt8 { try decoder.integer(UInt8.self, at: column, key: key) }
        func decode(_ type: UInt16.Type) throws -> UInt16 { try decoder.integer(UInt16.self, at: column, key: key) }
        func decode(_ type: UInt32.Type) throws -> UInt32 { try decoder.integer(UInt32.self, at: column, key: key) }
        func decode(_ type: UInt64.Type) throws -> UInt64 { try decoder.integer(UInt64.self, at: column, key: key) }

        func decode<T: Decodable>(_ type: T.Type) throws -> T {
            try decoder.value(T.self, at: column, key: key)
        }
    }
}
