import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one date format CipherStore stores: UTC `yyyy-MM-dd HH:mm:ss.SSS`.
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
        let bytes = Array(text.utf8)
        var position = 0
        func number(_ digits: Int) -> Int? {
            guard position + digits <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[position..<position + digits] {
                guard byte >= 48, byte <= 57 else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            position += digits
            return value
        }
        func skip(_ allowed: String) -> Bool {
            guard position < bytes.count, allowed.utf8.contains(bytes[position]) else { return false }
            position += 1
            return true
        }
        guard let year = number(4), skip("-"), let month = number(2), skip("-"), let day = number(2) else { return nil }
        var hour = 0, minute = 0, second = 0
        var fraction = 0.0
        if position < bytes.count {
            guard skip("T "), let h = number(2), skip(":"), let m = number(2) else { return nil }
            hour = h; minute = m
            if skip(":") {
                guard let s = number(2) else { return nil }
                second = s
                if skip(".") {
                    var scale = 0.1
                    let start = position
                    while position < bytes.count, bytes[position] >= 48, bytes[position] <= 57 {
                        fraction += Double(bytes[position] - 48) * scale
                        scale /= 10
                        position += 1
                    }
                    guard position > start else { return nil }
                }
            }
            _ = skip("Z")
        }
        guard position == bytes.count, (1...12).contains(month), (1...31).contains(day),
              hour < 24, minute < 60, second < 61 else { return nil }
        var parts = tm()
        parts.tm_year = Int32(year - 1900)
        parts.tm_mon = Int32(month - 1)
        parts.tm_mday = Int32(day)
        parts.tm_hour = Int32(hour)
        parts.tm_min = Int32(minute)
        parts.tm_sec = Int32(second)
        let seconds = timegm(&parts)
        return Date(timeIntervalSince1970: TimeInterval(seconds) + (fraction * 1000).rounded() / 1000)
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
