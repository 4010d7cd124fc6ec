import CipherStore
import Dispatch
import Synchronization
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// SIGINT (Ctrl-C), SIGTERM, SIGHUP and SIGQUIT (Ctrl-\), handled alike from the first moment of
/// the process.
///
/// While a conversion runs, a signal cancels it: the conversion removes its temporary file,
/// leaves the source as it was, and the command exits with 128 + the signal's number (130,
/// 143, 129, 131). A conversion that has already moved its result into place finishes normally.
/// At any other moment the terminal is put back as it was (echo returns when the key prompt is
/// interrupted) and the process exits with that code at once.
enum Interruption {
    static let handledSignals: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]

    private struct State {
        var cancellation: DatabaseFileCancellation?
        /// A terminal whose settings were changed, with the settings to put back.
        var terminal: (descriptor: Int32, settings: termios)?
    }

    private static let state = Mutex(State())
    /// The first signal received (0: none yet). An atomic of its own, not a field of `state`:
    /// read back from the mutex, the release build got 0 for it (exit 128 instead of 130).
    private static let firstSignal = Atomic<Int32>(0)
    /// Kept alive for the life of the process; set once, before any signal can be handled.
    nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []

    /// Routes the handled signals to ``received(_:)``, and makes a write to a closed pipe an
    /// error the command reports (exit 74) instead of a signal that ends it mid-way: a
    /// recovery key piped to a reader that is gone must have its slot removed again. Call
    /// once, before anything else.
    static func install() {
        signal(SIGPIPE, SIG_IGN)
        sources = handledSignals.map { number -> any DispatchSourceSignal in
            // The default action would end the process at once, leaving temporaries and the terminal as they are.
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { received(number) }
            source.resume()
            return source
        }
    }

    /// From now on a signal cancels this conversion instead of ending the process.
    static func cancelOnSignal(_ cancellation: DatabaseFileCancellation) {
        state.withLock { $0.cancellation = cancellation }
    }

    /// Runs `body` with the terminal's settings changed by it, and puts `settings` back on
    /// every way out: a normal return, a thrown error, or a signal.
    static func withTerminalRestored<R>(_ descriptor: Int32, to settings: termios, _ body: () throws -> R) rethrows -> R {
        state.withLock { $0.terminal = (descriptor, settings) }
        defer {
            var saved = settings
            tcsetattr(descriptor, TCSANOW, &saved)
            state.withLock { $0.terminal = nil }
        }
        return try body()
    }

    /// The exit code of a conversion cancelled by a signal: 128 + its number.
    static var exitCode: Int32 {
        let number = firstSignal.load(ordering: .acquiring)
        return 128 + (number == 0 ? SIGINT : number)
    }

    private static func received(_ number: Int32) {
        _ = firstSignal.compareExchange(expected: 0, desired: number, ordering: .acquiringAndReleasing)
        let (cancellation, terminal) = state.withLock { state in (state.cancellation, state.terminal) }
        if let cancellation {
            cancellation.cancel()
            return
        }
        if var terminal {
            tcsetattr(terminal.descriptor, TCSANOW, &terminal.settings)
            _ = write(terminal.descriptor, "\n", 1)
        }
        let message = "cipherstore: interrupted by \(name(of: number)).\n"
        _ = message.withCString { write(STDERR_FILENO, $0, strlen($0)) }
        _exit(128 + number)
    }

    private static func name(of number: Int32) -> String {
        switch number {
        case SIGINT: return "SIGINT"
        case SIGTERM: return "SIGTERM"
        case SIGHUP: return "SIGHUP"
        case SIGQUIT: return "SIGQUIT"
        default: return "signal \(number)"
        }
    }
}
