/// Why a record could not be updated or deleted by its primary key, or its new id not set.
///
/// Descriptions name the table and the primary key column, never the key's value (which may
/// be personal data, as bound arguments may be).
///
/// ```swift
/// do {
///     try db.update(note, in: "note")
/// } catch RecordError.rowNotFound {
///     // deleted meanwhile: insert it again, or tell the user
/// }
/// ```
public enum RecordError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No row of `table` has the record's primary key: nothing was updated or deleted.
    case rowNotFound(table: String, primaryKey: String)
    /// The record has no property (coding key) named like the primary key column.
    case missingPrimaryKey(table: String, primaryKey: String, recordType: String)
    /// The record's primary key is `nil`: it was never inserted.
    case nilPrimaryKey(table: String, primaryKey: String)
    /// The new row's rowid does not fit the record's `id` type (a rowid above 127 for an `Int8`).
    case rowIDOutOfRange(table: String, rowID: Int64, idType: String)
    /// `find` found no record with this key (GRDB's spelling).
    case recordNotFound(databaseTableName: String, key: [String: DatabaseValue])
    /// `updateChanges(_:from:)` was given an old record of another type than the record (a
    /// superclass instance, in code generic over the superclass): nothing was written.
    case differentRecordTypes(table: String, record: String, old: String)
    /// `updateChanges` was asked to change the primary key: the row is found by its key, so
    /// the new key would find another row, or none. Nothing was written.
    case primaryKeyChanged(table: String, primaryKey: String)
    /// The record's key column (``TableRecord/primaryKeyColumn``, `id` by default) is neither
    /// the table's primary key nor unique in it as `column = ?` compares, and the row cannot
    /// be found by the table's primary key instead (it has none, or the record lacks it): one
    /// value could name several rows. Nothing was run.
    case keyNamesSeveralRows(table: String, column: String)

    public var description: String {
        switch self {
        case .rowNotFound(let table, let primaryKey):
            return "No row of \(table) has the record's \(primaryKey), so nothing was changed. The row may have been deleted: fetch it again, or insert the record instead."
        case .missingPrimaryKey(let table, let primaryKey, let recordType):
            return "\(recordType) has no property named \(primaryKey), so its row of \(table) cannot be found. Name the property that holds the table's primary key (as its coding key spells it): static let primaryKeyColumn in the record type, or primaryKey: where the call takes it. For a primary key of several columns, give the record a property for each of them."
        case .nilPrimaryKey(let table, let primaryKey):
            return "The record's \(primaryKey) is nil, so it has no row of \(table) yet. Insert it first (insert(&record, into:) sets its id), or set its \(primaryKey)."
        case .recordNotFound(let table, let key):
            let described = key.sorted { $0.key < $1.key }.map { "\($0.key) = \($0.value)" }.joined(separator: ", ")
            return "No record of \(table) has \(described). Use fetchOne where a missing record is expected (fetchOne(_:id:), fetchOne(_:key:)), or check the key."
        case .differentRecordTypes(let table, let record, let old):
            return "updateChanges compares a \(record) with a \(old): records of two types may not have the same columns of \(table), so nothing was written. Pass the record as it was read, of the same type."
        case .primaryKeyChanged(let table, let primaryKey):
            return "updateChanges finds the row of \(table) by its \(primaryKey), and the record's \(primaryKey) changed: the new one would update another row, or none, so nothing was written. Change a primary key with updateAll or SQL (UPDATE … SET \(primaryKey) = …), then fetch the record again."
        case .keyNamesSeveralRows(let table, let column):
            return "\(column) can hold one value in several rows of \(table): it is not its primary key, nor unique as \(column) = ? compares (a UNIQUE index without WHERE, under the column's own collation), and the row cannot be found by a primary key instead, so nothing was run. Declare \(column) PRIMARY KEY or give it such a UNIQUE index, or name a unique column with static let primaryKeyColumn (a record without it is found by the table's primary key)."
        case .rowIDOutOfRange(let table, let rowID, let idType):
            return "The new row of \(table) has rowid \(rowID), which does not fit the record's id type \(idType); the row was inserted, the record's id was not set. Declare id as Int64?."
        }
    }
}
