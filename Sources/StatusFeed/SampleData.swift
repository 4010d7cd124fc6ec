import Foundation

/// The five users and ten statuses of the seed article, for the demo and the tests.
public enum SampleData {
    /// The seed app's users, in order (ids 1 to 5 when added to an empty database).
    public static let users: [User] = [
        User(name: "Binger", screenName: "冰儿", profileImageUrl: "binger.jpg", mbtype: "mbtype.png", city: "北京"),
        User(name: "Xiaona", screenName: "小娜", profileImageUrl: "xiaona.jpg", mbtype: "mbtype.png", city: "北京"),
        User(name: "Lily", screenName: "丽丽", profileImageUrl: "lily.jpg", mbtype: "mbtype.png", city: "北京"),
        User(name: "Qianmo", screenName: "阡陌", profileImageUrl: "qianmo.jpg", mbtype: "mbtype.png", city: "北京"),
        User(name: "Yanyue", screenName: "炎月", profileImageUrl: "yanyue.jpg", mbtype: "mbtype.png", city: "北京"),
    ]

    /// The article gives times of day only; they are placed on 14 November 2014, Beijing time.
    public static let timeZone = TimeZone(secondsFromGMT: 8 * 3600)!

    /// The seed app's statuses: (time of day, user index starting at 1, text).
    static let statusData: [(time: String, user: Int64, text: String)] = [
        ("09:00", 1, "一只雪猴在日本边泡温泉边玩iPhone的照片，获得了\"2014年野生动物摄影师\"大赛特等奖。一起来为猴子配个词"),
        ("09:00", 1, "一只雪猴在日本边泡温泉边玩iPhone的照片，获得了\"2014年野生动物摄影师\"大赛特等奖。一起来为猴子配个词"),
        ("09:30", 2, "【我们送iPhone6了 要求很简单】真心回馈粉丝，小编觉得现在最好的奖品就是iPhone6了。今起到12月31日，关注我们，转发微博，就有机会获iPhone6(奖品可能需要等待)！每月抽一台[鼓掌]。不费事，还是试试吧，万一中了呢"),
        ("09:45", 3, "重大新闻：蒂姆库克宣布出柜后，ISIS战士怒扔iPhone，沙特神职人员呼吁人们换回iPhone 4。[via Pan-Arabia Enquirer]"),
        ("10:05", 4, "小伙伴们，有谁知道怎么往Iphone4S里倒东西？倒入的东西又该在哪里找？用了Iphone这么长时间，还真的不知道怎么弄！有谁知道啊？谢谢！"),
        ("10:07", 1, "在音悦台iPhone客户端里发现一个悦单《Infinite 金明洙》，推荐给大家! "),
        ("11:20", 2, "如果sony吧mp3播放器产品发展下去，不贪图手头节目源的现实利益，就木有苹果的ipod，也就木有iphone。柯达类似的现实利益，不自我革命的案例也是一种巨头的宿命。"),
        ("13:00", 2, "【iPhone 7 Plus】新买的iPhone 7 Plus ，如何？够酷炫么？"),
        ("13:24", 3, "自拍神器#卡西欧TR500#，tr350S～价格美丽，行货，全国联保～iPhone6 iPhone6Plus卡西欧TR150 TR200 TR350 TR350S全面到货 招收各种代理！[给力]微信：39017366"),
        ("13:26", 3, "猜到猴哥玩手机时所思所想者，再奖iPhone一部。（奖品由“2014年野生动物摄影师”评委会颁发）"),
    ]

    /// The seed app's statuses, for users with ids 1 to 5.
    public static var statuses: [Status] {
        statusData.map { Status(source: "iPhone 6", createdAt: date(at: $0.time), text: $0.text, user: $0.user) }
    }

    /// 14 November 2014 at a Beijing time of day "HH:mm".
    public static func date(at time: String) -> Date {
        let parts = time.split(separator: ":").compactMap { Int($0) }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return calendar.date(from: DateComponents(year: 2014, month: 11, day: 14, hour: parts[0], minute: parts[1]))!
    }
}
