/// The parameters that named arguments have bound so far: a name given twice, and a parameter
/// given none, are refused. A bit per parameter for the usual statement, so binding a row
/// allocates nothing.
struct BoundParameters {
    private var bits: UInt64 = 0
    private var others: Set<Int32> = []
    private(set) var count = 0

    /// For a statement with `count` parameters.
    init(count: Int) {
        if count > 64 { others.reserveCapacity(count) }
    }

    /// Marks a 1-based parameter index bound; `false` when it already was.
    mutating func insert(_ index: Int32) -> Bool {
        if index <= 64 {
            let bit = UInt64(1) << UInt64(index - 1)
            guard bits & bit == 0 else { return false }
            bits |= bit
        } else {
            guard others.insert(index).inserted else { return false }
        }
        count += 1
        return true
    }

    func contains(_ index: Int32) -> Bool {
        index <= 64 ? bits & (UInt64(1) << UInt64(index - 1)) != 0 : others.contains(index)
    }
}
