import CipherStore
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A one-line progress bar with percentage and time left, redrawn in place on standard error.
///
/// The line always fits the terminal's width (read at every redraw, so a resized window is
/// followed): the bar shrinks first, then goes, so the line never wraps and scrolls. The time
/// left is smoothed and shown only after the first second, once there is a rate to go by.
final class ProgressBar: Sendable {
    private struct State {
        var lastDraw: Date?
        var lastPhase: DatabaseFileProgress.Phase?
        var smoothedRemaining: Double?
        /// When the current phase began, and how far the work was then: a phase's own rate
        /// (a read-back is slower per percent than the copy) gives the time left.
        var phaseStarted = Date()
        var phaseStartFraction = 0.0
    }

    private let verb: String
    private let started = Date()
    private let state = Mutex(State())

    init(verb: String) { self.verb = verb }

    func update(_ progress: DatabaseFileProgress) {
        let now = Date()
        let fraction = min(max(progress.fractionCompleted, 0), 1)
        let elapsed = now.timeIntervalSince(started)
        let line: String? = state.withLock { state in
            // At most ten redraws a second, but every change of phase.
            if let last = state.lastDraw, now.timeIntervalSince(last) < 0.1, state.lastPhase == progress.phase { return nil }
            state.lastDraw = now
            if state.lastPhase != progress.phase {
                state.phaseStarted = now
                state.phaseStartFraction = fraction
            }
            state.lastPhase = progress.phase
            let phaseElapsed = now.timeIntervalSince(state.phaseStarted)
            let phaseDone = fraction - state.phaseStartFraction
            if fraction > 0.02, fraction < 1 {
                // Verifying runs at its own rate up to about 95 %; the swap after it is quick.
                let remaining = progress.phase == .verifying && phaseElapsed >= 0.5 && phaseDone > 0.005
                    ? max(0.95 - fraction, 0) * phaseElapsed / phaseDone
                    : elapsed / fraction - elapsed
                state.smoothedRemaining = state.smoothedRemaining.map { 0.7 * $0 + 0.3 * remaining } ?? remaining
            }
            let eta = (elapsed >= 1 && fraction < 1) ? state.smoothedRemaining.map { String(format: " ETA %.0fs", $0) } ?? "" : ""
            return Self.render(verb: verb, fraction: fraction, phase: progress.phase.rawValue, eta: eta,
                               columns: Self.terminalColumns())
        }
        guard let line else { return }
        Self.openLine.withLock { isOpen in
            StandardStreams.writeError("\r" + line + "\u{1B}[K" + (progress.phase == .done ? "\n" : ""))
            isOpen = progress.phase != .done
        }
    }

    /// Whether a bar was drawn on a line not ended yet: a message printed now would follow it.
    private static let openLine = Mutex(false)

    /// Ends the bar's line, if one is open, so the next message starts a line of its own (an
    /// error, a warning, the cancel message).
    static func endOpenLine() {
        openLine.withLock { isOpen in
            if isOpen { StandardStreams.writeError("\n") }
            isOpen = false
        }
    }

    /// The line for a terminal `columns` wide, one column spare so the cursor never wraps.
    static func render(verb: String, fraction: Double, phase: String, eta: String, columns: Int) -> String {
        let percent = String(format: "%3.0f%%", fraction * 100)
        let tail = " \(percent) \(phase)\(eta)"
        let room = columns - 1 - verb.count - tail.count - 3
        if room >= 5 {
            let width = min(30, room)
            let filled = Int(fraction * Double(width))
            return verb + " [" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled) + "]" + tail
        }
        return String((verb + tail).prefix(max(columns - 1, 1)))
    }

    /// The terminal's width in columns; 80 when standard error is not a terminal.
    static func terminalColumns() -> Int {
        var size = winsize()
        guard ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
        return Int(size.ws_col)
    }
}
