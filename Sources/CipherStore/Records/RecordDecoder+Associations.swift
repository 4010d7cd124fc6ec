/// Decoding the rows of a request with associations: a property whose key is an included
/// association decodes from that association's columns (a record, or `nil` for an optional
/// one that matched no row) or rows (an array); a record-typed property whose key is no column
/// decodes from the base table's columns (`var book: Book` in `struct BookInfo`), as in GRDB.
extension RecordDecoder {
    /// What a coding key names in a row split by association. The same for every row of one
    /// request, so it is worked out once per decoder.
    enum AssociationKey {
        /// An included to-one association, reached through these child scopes.
        case scope(path: [Int])
        /// An included to-many association, under this lowercased key.
        case prefetched(String)
        /// Neither, and no column: a record-typed property decodes from the row's own columns.
        case noColumn
        /// A column of the row.
        case column
    }

    /// What `name` names in rows split as `scoped` is.
    func associationKey(_ name: String, in scoped: ScopedRow) -> AssociationKey {
        if let known = associationKeys[name] { return known }
        let found: AssociationKey
        if let path = scoped.plan.path(to: name) {
            found = .scope(path: path)
        } else if scoped.prefetchedRows(name) != nil {
            found = .prefetched(scoped.prefetched[name] != nil ? name : name.lowercased())
        } else if columnIndex(named: name) == nil {
            found = .noColumn
        } else {
            found = .column
        }
        associationKeys[name] = found
        return found
    }

    /// The decoder of the record nested under `name`, made for the first row and kept.
    func nestedDecoder(_ name: String, first row: ScopedRow) -> RecordDecoder {
        if let decoder = nestedDecoders[name] { return decoder }
        let decoder = RecordDecoder(scoped: row)
        nestedDecoders[name] = decoder
        return decoder
    }

    /// A record-typed property of a one-table row that no column names, decoded from the same
    /// row's columns by a decoder kept for that key.
    func sameRowRecord<T: Decodable>(_ type: T.Type, forKey key: some CodingKey) throws -> T {
        try claimRowRecordKey(key)
        let name = key.stringValue
        let decoder = nestedDecoders[name] ?? RecordDecoder(source: source, nestingDepth: nestingDepth + 1)
        nestedDecoders[name] = decoder
        return try decoder.decode(T.self, from: source)
    }

    /// Notes that the record-typed property `key`, named by no column or association, reads
    /// the row's own columns. One property of a record may, as in GRDB (`var book: Book` beside
    /// `var author: Author` from the association).
    /// - Throws: ``RecordDecodingError/Problem/secondRecordFromRow(first:associations:)`` for a
    ///   second one: `{ employee, boss }` over an association keyed `manager` would otherwise
    ///   read every employee as their own boss.
    func claimRowRecordKey(_ key: some CodingKey) throws {
        let name = key.stringValue
        if let first = rowRecordKey, first != name {
            throw error(.secondRecordFromRow(first: first, associations: associationKeysForMessages), key: key)
        }
        rowRecordKey = name
    }

    /// The keys of the request's associations at this decoder's scope, for error messages.
    var associationKeysForMessages: [String] {
        scoped.map { $0.plan.children.map(\.key) + $0.prefetched.keys.sorted() } ?? []
    }

    /// What the n-th property of a record decoded through ``associated(_:_:forKey:)`` found.
    struct AssociationStep {
        enum Target {
            /// A to-one association's record, decoded by this decoder from these child scopes.
            case scope(path: [Int], decoder: RecordDecoder)
            /// A to-many association's records, under this lowercased key.
            case prefetched(String)
            /// A record from the row's own columns, decoded by this decoder.
            case nested(RecordDecoder)
            /// A column.
            case column
        }

        let name: String
        let type: ObjectIdentifier
        let target: Target
    }

    /// The value of `key` from the associations, where ``associationTarget(_:_:)`` found one
    /// (not `.column`). It returns `T`, not `T?`: unspecialized, an optional of the property's
    /// type costs a metadata lookup per property per row.
    func associated<T: Decodable>(_ type: T.Type, _ target: AssociationStep.Target, forKey key: some CodingKey) throws -> T {
        switch target {
        case .scope(let path, let decoder):
            // A record cursor's nested decoder still holds this row's scope: the same statement,
            // split the same way. Other rows are split again.
            if decoder.readsStatementInPlace {
                guard !decoder.isMissingScope else { throw error(.null(propertyType: "\(T.self)"), key: key) }
                return try decoder.decode(T.self)
            }
            let scope = currentScoped.scope(at: path)
            guard !scope.isMissing else {
                throw error(.null(propertyType: "\(T.self)"), key: key)
            }
            return try decoder.decode(T.self, scoped: scope)
        case .prefetched(let lowercased):
            let scoped = currentScoped
            let name = key.stringValue
            let rows = scoped.prefetchedRows(lowercased) ?? []
            return try T(from: PrefetchedRows(rows: rows, key: key, decoder: rows.first.map { nestedDecoder(name, first: $0) }))
        case .nested(let decoder):
            return try decoder.readsStatementInPlace ? decoder.decode(T.self) : decoder.decode(T.self, scoped: currentScoped)
        case .column:
            preconditionFailure("a column is read by the keyed container, not through the associations")
        }
    }

    /// Whether a to-one association's record is absent from the current row: `target` is its
    /// scope and, being optional, it matched no row.
    func isMissing(_ target: AssociationStep.Target) -> Bool {
        guard case .scope(let path, let decoder) = target else { return false }
        return decoder.readsStatementInPlace ? decoder.isMissingScope : currentScoped.scope(at: path).isMissing
    }

    /// The row split by association being decoded; only a scoped decoder asks.
    private var currentScoped: ScopedRow {
        guard let scoped else { preconditionFailure("only a decoder of rows split by association reads associations") }
        return scoped
    }

    /// What `name`, read as a `T`, finds: the step at this position when it is the same name
    /// and type as on the previous row, else worked out and kept.
    func associationTarget<T>(_ name: String, _ type: T.Type) -> AssociationStep.Target {
        let index = associationPosition
        associationPosition += 1
        if index < associationSteps.count, associationSteps[index].name == name, associationSteps[index].type == ObjectIdentifier(T.self) {
            return associationSteps[index].target
        }
        let scoped = currentScoped
        let target: AssociationStep.Target
        // A value type reads a column of that name first, as in GRDB: an association whose key
        // is also a column's name (`belongsTo(User.self)` beside a `user` column) does not hide it.
        let associationKey = T.self is any DatabaseValueConvertible.Type && columnIndex(named: name) != nil
            ? .column : self.associationKey(name, in: scoped)
        switch associationKey {
        case .scope(let path):
            target = .scope(path: path, decoder: nestedDecoder(name, first: scoped.scope(at: path)))
        case .prefetched(let lowercased):
            target = .prefetched(lowercased)
        case .noColumn where !(T.self is any DatabaseValueConvertible.Type):
            target = .nested(nestedDecoder(name, first: scoped))
        case .noColumn, .column:
            target = .column
        }
        let step = AssociationStep(name: name, type: ObjectIdentifier(T.self), target: target)
        if index < associationSteps.count {
            associationSteps[index] = step
        } else {
            associationSteps.append(step)
        }
        return target
    }

    /// The rows of a to-many association, as an array (or set) of records.
    struct PrefetchedRows: Decoder {
        let rows: [ScopedRow]
        let key: any CodingKey
        /// Decodes each row; `nil` when there are none.
        let decoder: RecordDecoder?
        var codingPath: [any CodingKey] { [key] }
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func container<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
            throw RecordDecodingError(recordType: "\(NestedKey.self)", column: key.stringValue,
                                      problem: .unsupportedShape("it is a to-many association: decode it as an array of records"))
        }

        func unkeyedContainer() throws -> any UnkeyedDecodingContainer { Elements(rows: rows, key: key, decoder: decoder) }

        func singleValueContainer() throws -> any SingleValueDecodingContainer {
            throw RecordDecodingError(recordType: "?", column: key.stringValue,
                                      problem: .unsupportedShape("it is a to-many association: decode it as an array of records"))
        }
    }

    struct Elements: UnkeyedDecodingContainer {
        let rows: [ScopedRow]
        let key: any CodingKey
        let decoder: RecordDecoder?
        var currentIndex = 0
        var codingPath: [any CodingKey] { [key] }
        var count: Int? { rows.count }
        var isAtEnd: Bool { currentIndex >= rows.count }

        mutating func decodeNil() throws -> Bool { false }

        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
            guard !isAtEnd, let decoder else {
                throw DecodingError.valueNotFound(T.self, .init(codingPath: codingPath, debugDescription: "no more rows"))
            }
            defer { currentIndex += 1 }
            return try decoder.decode(T.self, scoped: rows[currentIndex])
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
            throw RecordDecodingError(recordType: "?", column: key.stringValue, problem: .unsupportedShape("each row of a to-many association decodes as a record"))
        }

        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            throw RecordDecodingError(recordType: "?", column: key.stringValue, problem: .unsupportedShape("each row of a to-many association decodes as a record"))
        }

        mutating func superDecoder() throws -> any Decoder {
            throw RecordDecodingError(recordType: "?", column: key.stringValue, problem: .unsupportedShape("each row of a to-many association decodes as a record"))
        }
    }
}
