extension TableRecord {
    /// The association to the record this one's foreign key refers to (a book to its author).
    /// - Parameters:
    ///   - destination: the associated record type.
    ///   - key: the key the associated record decodes under; the destination's table name by default.
    ///   - foreignKey: the linking columns, when the schema's `REFERENCES` does not say them.
    public static func belongsTo<Destination: TableRecord>(_ destination: Destination.Type, key: String? = nil,
                                                          using foreignKey: ForeignKey? = nil) -> BelongsToAssociation<Self, Destination> {
        BelongsToAssociation(_sqlAssociation: association(to: Destination.self, key: key, defaultKey: Destination.databaseTableName,
                                                           direction: .belongsTo, isToMany: false, foreignKey: foreignKey))
    }

    /// The association to the records whose foreign key refers to this one (an author to their
    /// books). Its default key is the destination's table name in the plural (`book` → `books`).
    public static func hasMany<Destination: TableRecord>(_ destination: Destination.Type, key: String? = nil,
                                                        using foreignKey: ForeignKey? = nil) -> HasManyAssociation<Self, Destination> {
        HasManyAssociation(_sqlAssociation: association(to: Destination.self, key: key, defaultKey: AssociationKeyName.plural(Destination.databaseTableName),
                                                        direction: .has, isToMany: true, foreignKey: foreignKey))
    }

    /// The association to the one record whose foreign key refers to this one.
    public static func hasOne<Destination: TableRecord>(_ destination: Destination.Type, key: String? = nil,
                                                       using foreignKey: ForeignKey? = nil) -> HasOneAssociation<Self, Destination> {
        HasOneAssociation(_sqlAssociation: association(to: Destination.self, key: key, defaultKey: Destination.databaseTableName,
                                                       direction: .has, isToMany: false, foreignKey: foreignKey))
    }

    /// The association to the records an association of this record's associated records
    /// reaches (a library to the books of its authors): the records of `target`, reached
    /// through `pivot`. Either may be to many, or itself through others.
    /// - Parameters:
    ///   - destination: the associated record type.
    ///   - pivot: the association from this record to the intermediate one.
    ///   - target: the association from the intermediate record to the destination.
    ///   - key: the key the associated records decode under; by default the target's key, in
    ///     the plural when the target is to one record (`BookTag.tag` → `tags`), as in GRDB.
    public static func hasMany<Pivot: Association, Target: Association>(
        _ destination: Target.RowDecoder.Type, through pivot: Pivot, using target: Target, key: String? = nil
    ) -> HasManyThroughAssociation<Self, Target.RowDecoder> where Pivot.OriginRowDecoder == Self, Pivot.RowDecoder == Target.OriginRowDecoder {
        var association = target.sqlAssociation.through(pivot.sqlAssociation)
        // The key of a target to one record becomes plural, as in GRDB (`BookTag.tag` → `tags`).
        if !association.isToMany { association.key = AssociationKeyName.plural(association.key) }
        association.isToMany = true
        if let key { association.key = key }
        return HasManyThroughAssociation(_sqlAssociation: SQLAssociationBox(association: association))
    }

    /// The association to the one record that an association to one record of this record's
    /// associated record reaches (a book to its author's country).
    /// - Parameters:
    ///   - destination: the associated record type.
    ///   - pivot: the association from this record to the intermediate one, to one record.
    ///   - target: the association from the intermediate record to the destination, to one record.
    ///   - key: the key the associated record decodes under; the target's key by default.
    public static func hasOne<Pivot: AssociationToOne, Target: AssociationToOne>(
        _ destination: Target.RowDecoder.Type, through pivot: Pivot, using target: Target, key: String? = nil
    ) -> HasOneThroughAssociation<Self, Target.RowDecoder> where Pivot.OriginRowDecoder == Self, Pivot.RowDecoder == Target.OriginRowDecoder {
        var association = target.sqlAssociation.through(pivot.sqlAssociation)
        if let key { association.key = key }
        return HasOneThroughAssociation(_sqlAssociation: SQLAssociationBox(association: association))
    }

    private static func association<Destination: TableRecord>(to destination: Destination.Type, key: String?, defaultKey: String,
                                                               direction: SQLAssociation.Direction, isToMany: Bool, foreignKey: ForeignKey?) -> SQLAssociationBox {
        SQLAssociationBox(association: SQLAssociation(key: key ?? defaultKey, isToMany: isToMany, direction: direction,
                                                      originTable: databaseTableName, foreignKey: foreignKey,
                                                      relation: SQLRelation(table: Destination.databaseTableName)))
    }

    /// Every record, each with an associated record that must exist. See ``QueryInterfaceRequest/including(required:)``.
    public static func including<A: AssociationToOne>(required association: A) -> QueryInterfaceRequest<Self> where A.OriginRowDecoder == Self {
        all().including(required: association)
    }

    /// Every record with the columns an associated record must have, flat. See ``QueryInterfaceRequest/annotated(withRequired:)``.
    public static func annotated<A: AssociationToOne>(withRequired association: A) -> QueryInterfaceRequest<Self> where A.OriginRowDecoder == Self {
        all().annotated(withRequired: association)
    }

    /// Every record with the columns of an associated record, flat, NULL when there is none.
    public static func annotated<A: AssociationToOne>(withOptional association: A) -> QueryInterfaceRequest<Self> where A.OriginRowDecoder == Self {
        all().annotated(withOptional: association)
    }

    /// Every record, each with an associated record or `nil`.
    public static func including<A: AssociationToOne>(optional association: A) -> QueryInterfaceRequest<Self> where A.OriginRowDecoder == Self {
        all().including(optional: association)
    }

    /// Every record, each with all its associated records.
    public static func including<A: AssociationToMany>(all association: A) -> QueryInterfaceRequest<Self> where A.OriginRowDecoder == Self {
        all().including(all: association)
    }

    /// The records that have an associated record (matching the association's filters).
    public static func joining<A: Association>(required association: A) -> QueryInterfaceRequest<Self> where A.OriginRowDecoder == Self {
        all().joining(required: association)
    }

    /// Every record, joined with an associated record when there is one (to order or filter by it).
    public static func joining<A: Association>(optional association: A) -> QueryInterfaceRequest<Self> where A.OriginRowDecoder == Self {
        all().joining(optional: association)
    }

    /// A request for the records this record is associated with: `author.request(for: Author.books)`.
    /// - Throws: `EncodingError` when the record does not encode.
    public func request<A: Association>(for association: A) throws -> QueryInterfaceRequest<A.RowDecoder> where A.OriginRowDecoder == Self, Self: Encodable {
        var relation = association.sqlAssociation.relation
        relation.origin = SQLRelation.Origin(association: association.sqlAssociation, values: try RecordEncoder.columns(of: self))
        return QueryInterfaceRequest(relation: relation)
    }
}

extension QueryInterfaceRequest {
    /// Each row with an associated record that must exist (`JOIN`): rows without one are left
    /// out. Decode with a record that has a property named by the association's key.
    public func including<A: AssociationToOne>(required association: A) -> Self where A.OriginRowDecoder == RowDecoder {
        adding(SQLJoin(kind: .required, isSelected: true, association: association.sqlAssociation))
    }

    /// Each row with an associated record, or `nil` when there is none (`LEFT JOIN`).
    public func including<A: AssociationToOne>(optional association: A) -> Self where A.OriginRowDecoder == RowDecoder {
        adding(SQLJoin(kind: .optional, isSelected: true, association: association.sqlAssociation))
    }

    /// Each row with all its associated records, fetched by a second query (as GRDB does):
    /// decode with a record that has an array property named by the association's key.
    public func including<A: AssociationToMany>(all association: A) -> Self where A.OriginRowDecoder == RowDecoder {
        adding(SQLJoin(kind: .prefetch, isSelected: true, association: association.sqlAssociation))
    }

    /// Only the rows that have an associated record (matching the association's filters),
    /// without selecting it: to filter or order by it.
    public func joining<A: Association>(required association: A) -> Self where A.OriginRowDecoder == RowDecoder {
        adding(SQLJoin(kind: .required, isSelected: false, association: association.sqlAssociation))
    }

    /// Every row, joined with an associated record when there is one, without selecting it.
    public func joining<A: Association>(optional association: A) -> Self where A.OriginRowDecoder == RowDecoder {
        adding(SQLJoin(kind: .optional, isSelected: false, association: association.sqlAssociation))
    }

    /// The columns the association selects, added flat to each row (`JOIN`): rows without an
    /// associated record are left out. Give the columns names with `forKey`:
    /// `Book.annotated(withRequired: Book.author.select(Column("name").forKey("authorName")))`.
    public func annotated<A: AssociationToOne>(withRequired association: A) -> Self where A.OriginRowDecoder == RowDecoder {
        adding(SQLJoin(kind: .required, isSelected: true, isAnnotation: true, association: association.sqlAssociation))
    }

    /// The columns the association selects, added flat to each row, NULL when there is no
    /// associated record (`LEFT JOIN`).
    public func annotated<A: AssociationToOne>(withOptional association: A) -> Self where A.OriginRowDecoder == RowDecoder {
        adding(SQLJoin(kind: .optional, isSelected: true, isAnnotation: true, association: association.sqlAssociation))
    }

    private func adding(_ join: SQLJoin) -> Self {
        var request = self
        request.relation.add(join)
        return request
    }
}
