import CSQLCipher
import Foundation

/// Decodes `Decodable` records straight from a statement's current row, without copying the
/// row first.
///
/// Columns are matched to coding keys by name once per statement, not once per row: a
/// synthesized `init(from:)` asks for its keys in the same order for every row, so the plan
/// records the column index of the n-th key asked for, and later rows only confirm that the
/// n-th key is the same one.
final class StatementDecoder {
    private let statement: Statement
    @exclusivity(unchecked) private var plannedKeys: [String] = []
    @exclusivity(unchecked) private var plannedColumns: [Int] = []
    @exclusivity(unchecked) private var position = 0

    init(statement: Statement) {
        self.statement = statement
    }

    /// Decodes the statement's current row.
    func decode<Record: Decodable>(_ type: Record.Type) throws -> Record {
        position = 0
        return try Record(from: Adapter(decoder: self))
    }

    /// The column of the next key asked for.
    fileprivate func column(for key: some CodingKey) throws -> Int {
        defer { position += 1 }
        let name = key.stringValue
        if position < plannedKeys.count, plannedKeys[position] == name {
            return plannedColumns[position]
        }
        guard let column = statement.columnIndex(named: name) else {
            throw DecodingError.keyNotFound(key, .init(codingPath: [key], debugDescription: "no column \(name) in \(statement.columnNames)"))
        }
        if position == plannedKeys.count {
            plannedKeys.append(name)
            plannedColumns.append(column)
        } else if position < plannedKeys.count {
            plannedKeys[position] = name
            plannedColumns[position] = column
        }
        return column
    }

    fileprivate func lookUp(_ key: some CodingKey) -> Int? {
        statement.columnIndex(named: key.stringValue)
    }

    fileprivate var row: Statement { statement }

    /// The `Decoder` the record sees.
    private struct Adapter: Decoder {
        let decoder: StatementDecoder
        var codingPath: [any CodingKey] { [] }
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
            KeyedDecodingContainer(Container<Key>(decoder: decoder))
        }

        func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
            throw DecodingError.typeMismatch([Any].self, .init(codingPath: [], debugDescription: "rows decode as keyed containers only"))
        }

        func singleValueContainer() throws -> any SingleValueDecodingContainer {
            throw DecodingError.typeMismatch(Any.self, .init(codingPath: [], debugDescription: "rows decode as keyed containers only"))
        }
    }

    private struct Container<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let decoder: StatementDecoder
        var codingPath: [any CodingKey] { [] }
        var allKeys: [Key] { decoder.row.columnNames.compactMap { Key(stringValue: $0) } }

        func contains(_ key: Key) -> Bool { decoder.lookUp(key) != nil }

        func decodeNil(forKey key: Key) throws -> Bool {
            guard let column = decoder.lookUp(key) else { return true }
            return decoder.row.isNull(at: column)
        }

        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 {
            try integer(key)
        }

        func decode(_ type: Int.Type, forKey key: Key) throws -> Int {
            Int(try integer(key))
        }

        func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
            let column = try decoder.column(for: key)
            switch sqlite3_column_type(decoder.row.pointer, Int32(column)) {
            case SQLITE_FLOAT, SQLITE_INTEGER: return decoder.row.double(at: column)
            default: throw mismatch(key, column, Double.self)
            }
        }

        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
            try integer(key) != 0
        }

        func decode(_ type: String.Type, forKey key: Key) throws -> String {
            let column = try decoder.column(for: key)
            guard sqlite3_column_type(decoder.row.pointer, Int32(column)) == SQLITE_TEXT, let text = decoder.row.string(at: column) else {
                throw mismatch(key, column, String.self)
            }
            return text
        }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            let column = try decoder.column(for: key)
            let value = decoder.row.databaseValue(at: column)
            if let convertible = T.self as? any DatabaseValueConvertible.Type {
                guard let result = convertible.fromDatabaseValue(value) as? T else { throw mismatch(key, column, T.self) }
                return result
            }
            return try RowDecoder.decodeSingleValue(T.self, from: value, key: key)
        }

        private func integer(_ key: Key) throws -> Int64 {
            let column = try decoder.column(for: key)
            switch sqlite3_column_type(decoder.row.pointer, Int32(column)) {
            case SQLITE_INTEGER: return decoder.row.int64(at: column)
            case SQLITE_FLOAT:
                guard let exact = Int64(exactly: decoder.row.double(at: column)) else { throw mismatch(key, column, Int64.self) }
                return exact
            default: throw mismatch(key, column, Int64.self)
            }
        }

        private func mismatch(_ key: Key, _ column: Int, _ type: Any.Type) -> DecodingError {
            let value = decoder.row.databaseValue(at: column)
            let reason = value.isNull ? "it is NULL; declare the property optional" : "a \(value.storageClass) value does not convert to \(type)"
            return DecodingError.typeMismatch(type, .init(codingPath: [key], debugDescription: "column \(key.stringValue): \(reason)"))
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
            throw DecodingError.typeMismatch(type, .init(codingPath: [key], debugDescription: "nested containers are not stored in rows"))
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            throw DecodingError.typeMismatch([Any].self, .init(codingPath: [key], debugDescription: "arrays are not stored in rows"))
        }

        func superDecoder() throws -> any Decoder { Adapter(decoder: decoder) }
        func superDecoder(forKey key: Key) throws -> any Decoder { Adapter(decoder: decoder) }
    }
}
