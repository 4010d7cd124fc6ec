/// Options shared by encrypt, decrypt and key change.
public struct ConversionOptions: Sendable {
    /// Called with progress from the converting thread; keep it quick.
    public var progress: (@Sendable (ConversionProgress) -> Void)?
    /// Set it to stop the conversion.
    public var cancellation: ConversionCancellation?
    /// Seconds to wait for other connections' locks on the source before failing.
    public var busyTimeout: Double

    /// Creates options; by default no progress, no cancellation and a 2-second busy timeout.
    public init(progress: (@Sendable (ConversionProgress) -> Void)? = nil,
                cancellation: ConversionCancellation? = nil, busyTimeout: Double = 2) {
        self.progress = progress
        self.cancellation = cancellation
        self.busyTimeout = busyTimeout
    }
}
