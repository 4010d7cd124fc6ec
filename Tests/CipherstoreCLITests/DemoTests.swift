import Foundation
import Testing

@Suite struct DemoTests {
    @Test func demoTellsTheWholeStoryAndRunsTwice() throws {
        let workspace = try Workspace()
        for _ in 0..<2 {
            let result = try CLI.run(["demo", "--directory", workspace.path("demo")])
            #expect(result.status == 0, "\(result.errorOutput)")
            for expected in ["[1] created plaintext", "[2] encrypted", "上海", "深圳", "丽丽", "no 'SQLite format 3' header",
                             "a wrong key is refused", "the old key is refused"] {
                #expect(result.output.contains(expected), "missing: \(expected)")
            }
            #expect(!result.output.contains("炎月"), "the removed user still shows in the timeline")
        }
    }
}
