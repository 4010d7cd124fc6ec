/// The prepared statements a connection keeps for reuse: at most ``capacity`` of them, the
/// least recently used one dropped when a new one needs room.
///
/// A hit costs one dictionary lookup and one store, and allocates nothing: each slot keeps the
/// tick of its last use, and only a miss on a full cache scans the slots for the oldest one
/// (a miss prepares a statement, which costs far more than scanning a few dozen ticks).
///
/// Dropping a statement releases only the cache's reference: a cursor still reading it keeps
/// it alive, and it is finalized when the cursor lets go of it.
final class StatementCache {
    /// The most statements kept; 0 keeps none.
    let capacity: Int
    private var slots: [String: Int] = [:]
    private var keys: [String] = []
    private var statements: [Statement] = []
    private var lastUse: [UInt64] = []
    private var clock: UInt64 = 0

    init(capacity: Int) {
        self.capacity = max(0, capacity)
        slots.reserveCapacity(self.capacity)
        keys.reserveCapacity(self.capacity)
        statements.reserveCapacity(self.capacity)
        lastUse.reserveCapacity(self.capacity)
    }

    /// How many statements are kept now.
    var count: Int { statements.count }

    /// The statement kept for `sql`, marked as just used, or `nil`.
    @inline(__always)
    func statement(for sql: String) -> Statement? {
        guard let slot = slots[sql] else { return nil }
        clock &+= 1
        lastUse[slot] = clock
        return statements[slot]
    }

    /// Keeps `statement` for `sql`, dropping the least recently used statement when full.
    func insert(_ statement: Statement, for sql: String) {
        guard capacity > 0 else { return }
        clock &+= 1
        if let slot = slots[sql] {
            statements[slot] = statement
            lastUse[slot] = clock
        } else if statements.count < capacity {
            slots[sql] = statements.count
            keys.append(sql)
            statements.append(statement)
            lastUse.append(clock)
        } else {
            var oldest = 0
            for slot in lastUse.indices where lastUse[slot] < lastUse[oldest] { oldest = slot }
            slots[keys[oldest]] = nil
            slots[sql] = oldest
            keys[oldest] = sql
            statements[oldest] = statement
            lastUse[oldest] = clock
        }
    }

    /// Releases every statement (those not held elsewhere are finalized).
    func removeAll() {
        // Every schema change empties the cache: its storage is kept for the next statements.
        slots.removeAll(keepingCapacity: true)
        keys.removeAll(keepingCapacity: true)
        statements.removeAll(keepingCapacity: true)
        lastUse.removeAll(keepingCapacity: true)
    }
}
