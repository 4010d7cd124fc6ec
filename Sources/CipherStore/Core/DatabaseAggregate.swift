/// The computation of an aggregate SQL function written in Swift, for
/// ``DatabaseFunction/init(_:argumentCount:pure:aggregate:)``.
///
/// SQLite makes a new value with `init()` for each group of rows, calls ``step(_:)`` once
/// per row with that row's arguments, then ``finalize()`` once for the result.
///
/// ```swift
/// struct Product: DatabaseAggregate {
///     var product: Int64 = 1
///     mutating func step(_ values: [DatabaseValue]) throws {
///         guard case .integer(let factor)? = values.first else { return }
///         product *= factor
///     }
///     func finalize() -> (any DatabaseValueConvertible)? { product }
/// }
/// ```
///
/// An error thrown by ``step(_:)`` or ``finalize()`` fails the statement, as an error thrown by
/// a scalar function does; after a failed step, neither more steps nor `finalize()` run.
///
/// The type (not its values) is shared with the connections that call it, hence
/// `SendableMetatype`; each value lives on the connection's thread.
public protocol DatabaseAggregate: SendableMetatype {
    /// A fresh computation, for one group of rows.
    init()

    /// Takes one row's arguments into the computation.
    mutating func step(_ dbValues: [DatabaseValue]) throws

    /// The result for the rows seen; `nil` is NULL.
    func finalize() throws -> (any DatabaseValueConvertible)?
}
