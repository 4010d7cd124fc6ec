/// GRDB's reading subscripts, for code that moves over as it is: `let name: String = row["name"]`.
///
/// They trap where GRDB's trap: a value that does not convert (a NULL read as a non-optional
/// type), a column index out of range, or a missing column read as a non-optional type. An
/// optional type reads a NULL or a missing column as `nil`. The trap's message names the
/// column and the reason, never the value. Prefer the throwing reads (``Row/value(_:named:)``,
/// ``RowView/decode(_:forColumn:)``) in new code: they report the same problem as an error.
///
/// Where the type asked for is ``DatabaseValue`` (or none is), the untyped subscripts answer,
/// as before: `row[0] == .null` compares the stored value.
extension Row {
    /// The value at a column index, converted to `Value`; traps when it does not convert.
    @inlinable @_disfavoredOverload
    public subscript<Value: DatabaseValueConvertible>(_ index: Int) -> Value {
        do { return try value(Value.self, at: index) } catch { Row.trap(error) }
    }

    /// The value of the named column (case-insensitive), converted to `Value`; `nil` for a
    /// missing column read as an optional type; traps when it does not convert.
    @inlinable @_disfavoredOverload
    public subscript<Value: DatabaseValueConvertible>(_ name: String) -> Value {
        if let missing = Row.nilForMissingColumn(Value.self, isMissing: !hasColumn(name)) { return missing }
        do { return try value(Value.self, named: name) } catch { Row.trap(error) }
    }

    /// The value of the column, converted to `Value`, as by its name.
    @inlinable @_disfavoredOverload
    public subscript<Value: DatabaseValueConvertible>(_ column: Column) -> Value { self[column.name] }

    /// `nil` as `Value` when the column is missing and `Value` is optional.
    @usableFromInline
    static func nilForMissingColumn<Value>(_ type: Value.Type, isMissing: @autoclosure () -> Bool) -> Value? {
        // The type first: the column is looked up only for an optional type.
        guard let optional = Value.self as? any ExpressibleByNilLiteral.Type, isMissing() else { return nil }
        return optional.init(nilLiteral: ()) as? Value
    }

    @usableFromInline
    static func trap(_ error: any Error) -> Never {
        preconditionFailure("\(error) (the subscript traps; read with value(_:at:) or value(_:named:) to get an error instead)")
    }
}

extension RowView {
    /// The value at a column index, converted to `Value`; traps when it does not convert
    /// (see ``Row``'s subscripts).
    @inlinable @_disfavoredOverload
    public subscript<Value: DatabaseValueConvertible>(_ index: Int) -> Value {
        do { return try value(Value.self, at: index) } catch { Row.trap(error) }
    }

    /// The value of the named column (case-insensitive), converted to `Value`; `nil` for a
    /// missing column read as an optional type; traps when it does not convert.
    @inlinable @_disfavoredOverload
    public subscript<Value: DatabaseValueConvertible>(_ name: String) -> Value {
        if let missing = Row.nilForMissingColumn(Value.self, isMissing: !hasColumn(name)) { return missing }
        do { return try value(Value.self, named: name) } catch { Row.trap(error) }
    }

    /// The value of the column, converted to `Value`.
    @inlinable @_disfavoredOverload
    public subscript<Value: DatabaseValueConvertible>(_ column: Column) -> Value { self[column.name] }
}
