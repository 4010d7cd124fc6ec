/// The columns of a record whose values differ from those of the record as it was read, and
/// the `UPDATE` that writes only them (`updateChanges(_:from:)`).
struct RecordChanges {
    let table: String
    /// Every column of the record, as encoded.
    let all: [(name: String, value: DatabaseValue)]
    /// The columns that find the row, and their values (``Connection/recordKey(of:table:primaryKey:recordType:)``).
    let key: [(name: String, value: DatabaseValue)]
    /// The columns that differ, the primary key excepted.
    let columns: [(name: String, value: DatabaseValue)]

    /// - Throws: ``RecordError/missingPrimaryKey(table:primaryKey:recordType:)`` when the record
    ///   does not encode its primary key, ``RecordError/nilPrimaryKey(table:primaryKey:)`` when
    ///   it is nil, ``RecordError/primaryKeyChanged(table:primaryKey:)`` when it differs from
    ///   the old record's (the row is found by it), `EncodingError`.
    init<Record: TableRecord & Encodable>(_ record: Record, from old: Record, in db: Connection) throws {
        table = Record.databaseTableName
        all = try RecordEncoder.columns(of: record)
        let previous = Dictionary(try RecordEncoder.columns(of: old).map { ($0.name, $0.value) }) { first, _ in first }
        key = try db.recordKey(of: all, table: table, primaryKey: Record.primaryKeyColumn, recordType: Record.self)
        guard key.allSatisfy({ previous[$0.name] == $0.value }) else {
            throw RecordError.primaryKeyChanged(table: table, primaryKey: Connection.keyDescription(key))
        }
        let keyNames = Set(key.map { $0.name.lowercased() })
        columns = all.filter { !keyNames.contains($0.name.lowercased()) && previous[$0.name] != $0.value }
    }

    /// `UPDATE` the changed columns of the record's row.
    /// - Throws: ``RecordError/rowNotFound(table:primaryKey:)`` when the row is gone.
    ///
    /// `UPDATE OR …` with `onConflict`; an `UPDATE OR IGNORE` that ignored a conflict is no
    /// error when the row exists (see `Connection.update(columns:in:primaryKey:recordType:onConflict:)`).
    func write(_ db: Connection, onConflict: ConflictResolution?) throws {
        try db.update(columns: columns, in: table, key: key, onConflict: onConflict)
    }
}
