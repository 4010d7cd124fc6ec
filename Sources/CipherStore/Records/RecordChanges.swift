/// The columns of a record whose values differ from those of the record as it was read, and
/// the `UPDATE` that writes only them (`updateChanges(_:from:)`).
struct RecordChanges {
    let table: String
    /// Every column of the record, as encoded.
    let all: [(name: String, value: DatabaseValue)]
    /// The primary key column and its value.
    let key: (name: String, value: DatabaseValue)
    /// The columns that differ, the primary key excepted.
    let columns: [(name: String, value: DatabaseValue)]

    /// - Throws: ``RecordError/missingPrimaryKey(table:primaryKey:recordType:)`` when the record
    ///   does not encode its primary key, ``RecordError/nilPrimaryKey(table:primaryKey:)`` when
    ///   it is nil, ``RecordError/primaryKeyChanged(table:primaryKey:)`` when it differs from
    ///   the old record's (the row is found by it), `EncodingError`.
    init<Record: TableRecord & Encodable>(_ record: Record, from old: Record) throws {
        table = Record.databaseTableName
        all = try RecordEncoder.columns(of: record)
        let previous = Dictionary(try RecordEncoder.columns(of: old).map { ($0.name, $0.value) }) { first, _ in first }
        let keyName = Record.primaryKeyColumn.lowercased()
        guard let keyColumn = all.first(where: { $0.name.lowercased() == keyName }) else {
            throw RecordError.missingPrimaryKey(table: table, primaryKey: Record.primaryKeyColumn, recordType: "\(Record.self)")
        }
        guard !keyColumn.value.isNull else { throw RecordError.nilPrimaryKey(table: table, primaryKey: keyColumn.name) }
        guard previous[keyColumn.name] == keyColumn.value else {
            throw RecordError.primaryKeyChanged(table: table, primaryKey: keyColumn.name)
        }
        key = keyColumn
        columns = all.filter { $0.name.lowercased() != keyName && previous[$0.name] != $0.value }
    }

    /// `UPDATE` the changed columns of the record's row.
    /// - Throws: ``RecordError/rowNotFound(table:primaryKey:)`` when the row is gone.
    ///
    /// `UPDATE OR …` with `onConflict`; an `UPDATE OR IGNORE` that ignored a conflict is no
    /// error when the row exists (see `Connection.update(columns:in:primaryKey:recordType:onConflict:)`).
    func write(_ db: Connection, onConflict: ConflictResolution?) throws {
        try db.update(columns: [key] + columns, in: table, primaryKey: key.name, recordType: Any.self, onConflict: onConflict)
    }
}
