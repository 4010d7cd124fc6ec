import CSQLCipher

/// Holds a trace closure where SQLite's C callback can reach it.
final class TraceHandler {
    let body: (String) -> Void
    init(_ body: @escaping (String) -> Void) { self.body = body }
}

extension Connection {
    /// Calls `handler` with the SQL of each statement as it starts, or stops tracing with `nil`.
    ///
    /// The SQL is the text as prepared, with `?` placeholders: bound values (which may be
    /// secrets) are never expanded. Statements run by triggers are reported as comments.
    ///
    /// ```swift
    /// var statements: [String] = []
    /// try db.trace { statements.append($0) }
    /// ```
    ///
    /// - Throws: ``CipherStoreError/connectionClosed`` after ``close()``.
    public func trace(_ handler: ((String) -> Void)?) throws {
        let db = try handle.pointer
        guard let handler else {
            sqlite3_trace_v2(db, 0, nil, nil)
            traceHandler = nil
            return
        }
        let box = TraceHandler(handler)
        traceHandler = box
        sqlite3_trace_v2(db, UInt32(SQLITE_TRACE_STMT), { _, context, _, sqlText in
            guard let context, let sqlText else { return 0 }
            let box = Unmanaged<TraceHandler>.fromOpaque(context).takeUnretainedValue()
            box.body(String(cString: sqlText.assumingMemoryBound(to: CChar.self)))
            return 0
        }, Unmanaged.passUnretained(box).toOpaque())
    }
}
