import CipherStore
import Foundation

/// A one-line progress bar with percentage and time left, drawn on standard error.
final class ProgressBar: Sendable {
    private let verb: String
    private let started = Date()

    init(verb: String) { self.verb = verb }

    func update(_ progress: ConversionProgress) {
        let fraction = min(max(progress.fractionCompleted, 0), 1)
        let width = 30
        let filled = Int(fraction * Double(width))
        let elapsed = Date().timeIntervalSince(started)
        var eta = ""
        if fraction > 0.02, fraction < 1 {
            eta = String(format: " ETA %.0fs", elapsed / fraction - elapsed)
        }
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        let line = String(format: "\r%@ [%@] %3.0f%% %@%@\u{1B}[K", verb, bar, fraction * 100, progress.phase.rawValue, eta)
        FileHandle.standardError.write(Data(line.utf8))
        if progress.phase == .done { FileHandle.standardError.write(Data("\n".utf8)) }
    }
}
