// The names the whole-file types had when only conversions used them; backups, restores and
// repairs share them now.

@available(*, deprecated, renamed: "DatabaseFileError")
public typealias ConversionError = DatabaseFileError

@available(*, deprecated, renamed: "DatabaseFileReport")
public typealias ConversionReport = DatabaseFileReport

@available(*, deprecated, renamed: "DatabaseFileOptions")
public typealias ConversionOptions = DatabaseFileOptions

@available(*, deprecated, renamed: "DatabaseFileProgress")
public typealias ConversionProgress = DatabaseFileProgress

@available(*, deprecated, renamed: "DatabaseFileCancellation")
public typealias ConversionCancellation = DatabaseFileCancellation
