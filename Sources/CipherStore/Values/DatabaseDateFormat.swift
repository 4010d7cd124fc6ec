import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one date format CipherStore stores: UTC `yyyy-MM-dd HH:mm:ss.SSS`.
@usableFromInline
enum DatabaseDateFormat {
    static func string(from date: Date) -> String {
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
        var seconds = time_t((milliseconds / 1000).rounded(.down))
        let millis = Int(milliseconds - Double(seconds) * 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return pad(Int(parts.tm_year) + 1900, 4) + "-" + pad(Int(parts.tm_mon) + 1, 2) + "-" + pad(Int(parts.tm_mday), 2)
            + " " + pad(Int(parts.tm_hour), 2) + ":" + pad(Int(parts.tm_min), 2) + ":" + pad(Int(parts.tm_sec), 2)
            + "." + pad(millis, 3)
    }

    static func date(from text: String) -> Date? {
        var text = text
        return text.withUTF8 { date(utf8: $0) }
    }

    /// The date a column's UTF-8 text spells: `yyyy-MM-dd`, optionally followed by ` HH:mm`,
    /// `:ss` and a fraction (`T` for the space and a final `Z` are accepted too), read as UTC;
    /// `nil` for any other text. A day past its month's end or a 60th second carries over, as
    /// `timegm` does. Reads the bytes where they are, so a statement's text needs no `String`.
    @usableFromInline
    static func date(utf8 bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        if bytes.count == 23, let date = storedLayoutDate(bytes) { return date }
        var position = 0
        func number(_ digits: Int) -> Int? {
            guard position + digits <= bytes.count else { return nil }
            var value = 0
            for offset in position..<position + digits {
                let digit = bytes[offset] &- 48
                guard digit <= 9 else { return nil }
                value = value * 10 + Int(digit)
            }
            position += digits
            return value
        }
        func skip(_ allowed: UInt8, or other: UInt8? = nil) -> Bool {
            guard position < bytes.count, bytes[position] == allowed || bytes[position] == other else { return false }
            position += 1
            return true
        }
        guard let year = number(4), skip(UInt8(ascii: "-")), let month = number(2), skip(UInt8(ascii: "-")),
              let day = number(2) else { return nil }
        var hour = 0, minute = 0, second = 0
        var fraction = 0.0
        if position < bytes.count {
            guard skip(UInt8(ascii: "T"), or: UInt8(ascii: " ")), let h = number(2), skip(UInt8(ascii: ":")), let m = number(2) else { return nil }
            hour = h; minute = m
            if skip(UInt8(ascii: ":")) {
                guard let s = number(2) else { return nil }
                second = s
                if skip(UInt8(ascii: ".")) {
                    var scale = 0.1
                    let start = position
                    while position < bytes.count, bytes[position] &- 48 <= 9 {
                        fraction += Double(bytes[position] - 48) * scale
                        scale /= 10
                        position += 1
                    }
                    guard position > start else { return nil }
                }
            }
            _ = skip(UInt8(ascii: "Z"))
        }
        guard position == bytes.count, (1...12).contains(month), (1...31).contains(day),
              hour < 24, minute < 60, second < 61 else { return nil }
        let seconds = daysSinceEpoch(year: year, month: month, day: day) * 86_400 + hour * 3_600 + minute * 60 + second
        return Date(timeIntervalSince1970: TimeInterval(seconds) + (fraction * 1000).rounded() / 1000)
    }

    /// The date of text in the layout ``string(from:)`` writes, `yyyy-MM-dd HH:mm:ss.SSS`, read
    /// at fixed places: `nil` when a byte is not where that layout puts it (the general reading
    /// then decides) or a field is out of range. The same date as the general reading.
    private static func storedLayoutDate(_ bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        guard bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"), bytes[10] == UInt8(ascii: " "),
              bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"), bytes[19] == UInt8(ascii: ".") else { return nil }
        var digitsOK = true
        func number(_ start: Int, _ count: Int) -> Int {
            var value = 0
            for offset in start..<start + count {
                let digit = bytes[offset] &- 48
                digitsOK = digitsOK && digit <= 9
                value = value * 10 + Int(digit)
            }
            return value
        }
        let year = number(0, 4), month = number(5, 2), day = number(8, 2)
        let hour = number(11, 2), minute = number(14, 2), second = number(17, 2), milliseconds = number(20, 3)
        guard digitsOK, (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61 else { return nil }
        let seconds = daysSinceEpoch(year: year, month: month, day: day) * 86_400 + hour * 3_600 + minute * 60 + second
        return Date(timeIntervalSince1970: TimeInterval(seconds) + TimeInterval(milliseconds) / 1000)
    }

    /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar (days past the month's
    /// end carry over): `timegm`'s count, in integer arithmetic, without its normalizing pass.
    static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let marchYear = month <= 2 ? year - 1 : year        // years start in March: leap days come last
        let era = (marchYear >= 0 ? marchYear : marchYear - 399) / 400
        let yearOfEra = marchYear - era * 400
        let dayOfYear = (153 * ((month + 9) % 12) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
