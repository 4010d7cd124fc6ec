import CCJKTokenizer

/// User input split where the `cjk` tokenizer splits it, for the pattern builders: words of
/// indexed characters, each made of runs of CJK characters and of other letters and digits.
///
/// A word holds only characters the tokenizer indexes — never a quote, an operator character
/// (`*`, `^`, `:`, `-`, `+`, parentheses) or a space — so it can be put between double
/// quotes in a query as it is, and FTS then tokenizes it exactly as it tokenized the documents.
struct FullTextInput {
    struct Run {
        var text: String
        var isCJK: Bool
        var characterCount: Int
    }

    /// Runs that touch (`边玩iPhone`) are one word; anything else between runs separates words.
    let words: [[Run]]

    init(_ string: String) {
        var string = string
        var found: [(kind: Int32, start: Int, end: Int, characters: Int)] = []
        let words = string.withUTF8 { bytes -> [[Run]] in
            // Longer input than an Int32 counts is not a search anyone types: no words.
            guard let base = bytes.baseAddress, bytes.count <= Int(Int32.max) else { return [] }
            withUnsafeMutablePointer(to: &found) { pointer in
                cipherstore_cjk_runs(base, Int32(bytes.count), { context, kind, start, end, characters in
                    context?.assumingMemoryBound(to: [(kind: Int32, start: Int, end: Int, characters: Int)].self)
                        .pointee.append((kind, Int(start), Int(end), Int(characters)))
                }, pointer)
            }
            var words: [[Run]] = []
            var previousEnd = -1
            for run in found {
                let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[run.start..<run.end]), as: UTF8.self)
                let item = Run(text: text, isCJK: Int(run.kind) == Int(CIPHERSTORE_CJK_RUN_CJK), characterCount: run.characters)
                if run.start == previousEnd, !words.isEmpty {
                    words[words.count - 1].append(item)
                } else {
                    words.append([item])
                }
                previousEnd = run.end
            }
            return words
        }
        self.words = words
    }
}
