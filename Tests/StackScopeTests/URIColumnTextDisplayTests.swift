import CoreStack
import Foundation
import StackScope
import Testing

/// `dump` and the browser's formatter show a URI column's text as stored when it is not a URL.
@Suite("URI text shown as stored", .enabled(if: StackScopeBinary.url != nil, "the stackscope binary was not built"))
struct URIColumnTextDisplayTests {
    @Test("dump and dump --json show 'my site' (not my%20site) and a real URL unchanged")
    func dumpShowsTheText() throws {
        let url = try StoreOwnModelTests.copy(["alemar11-CoreDataPlus/SampleModel2_V1.sqlite"])
        _ = try StoreOwnModelTests.sqlite3(
            "UPDATE ZWRITER SET ZSITEURL = 'my site' WHERE Z_PK = 1; UPDATE ZWRITER SET ZSITEURL = 'https://example.com/x' WHERE Z_PK = 2",
            url, readOnly: false)
        for json in [false, true] {
            let r = try StackScopeBinary.run(["dump", url.path, "--entity", "Author"] + (json ? ["--json"] : []))
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout.contains("my site") && !r.stdout.contains("my%20site"), "\(r.stdout)")
            #expect(r.stdout.contains("example.com"), "\(r.stdout)")
        }
    }
}
