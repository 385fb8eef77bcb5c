import CoreStack
import Foundation
import StackScope
import Testing

/// The command line on stores an Apple app wrote, and on wrong input, through the real binary:
/// what the help promises is what the commands accept, and a refusal says what to pass instead.
@Suite("stackscope CLI on foreign stores", .enabled(if: StackScopeBinary.url != nil, "the stackscope binary was not built"))
struct ForeignStoreCLITests {
    static let store = "alemar11-CoreDataPlus/SampleModel2_V1.sqlite"

    @Test("--limit 0 is a usage error that says 1 or more, as the help says (not '0 or more', then refused)")
    func limitZero() throws {
        let url = try StoreOwnModelTests.copy([Self.store])
        let help = try StackScopeBinary.run(["dump", "--help"])
        #expect(help.stdout.contains("(1 or more)"), "\(help.stdout)")
        let r = try StackScopeBinary.run(["dump", url.path, "--entity", "Book", "--limit", "0"])
        #expect(r.status == 64, "\(r.status) \(r.stderr)")
        #expect(r.stderr.contains("--limit must be 1 or more, not 0"), "\(r.stderr)")
    }

    @Test("the help and the errors about --model name every kind of model the commands read (.momd and .mom too)")
    func modelKinds() throws {
        let url = try StoreOwnModelTests.copy([Self.store])
        for command in ["info", "dump"] {
            let help = try StackScopeBinary.run([command, "--help"])
            #expect(help.stdout.contains(".momd") && help.stdout.contains(".mom"), "\(command): \(help.stdout)")
        }
        let r = try StackScopeBinary.run(["info", url.path, "--model", "/tmp/model.json"])
        #expect(r.status == 1)
        #expect(r.stderr.contains(".momd") && r.stderr.contains(".mom"), "\(r.stderr)")
        // And a compiled model is indeed read: the store's own version of SampleModel.momd is chosen.
        let other = try StoreOwnModelTests.copy(["alemar11-CoreDataPlus/SampleModel_V2.sqlite"])
        let momd = TestSupport.fixture("compiled/alemar11-CoreDataPlus/SampleModel.momd").path
        let info = try StackScopeBinary.run(["info", other.path, "--model", momd])
        #expect(info.status == 0 && info.stdout.contains("file SampleModel.momd version SampleModel2"), "\(info.stdout)\(info.stderr)")
    }

    @Test("history --after with a negative number is refused as not a token (exit 1), not as a missing value")
    func historyNegativeAfter() throws {
        let url = try StoreOwnModelTests.copy([Self.store])
        let r = try StackScopeBinary.run(["history", url.path, "--after", "-3"])
        #expect(r.status == 1, "\(r.status) \(r.stderr)")
        #expect(r.stderr == "stackscope: error: invalid --after: \"-3\" is not a history token (STORE-UUID:NUMBER, or a transaction number)\n", "\(r.stderr)")
    }

    @Test("info --schema lists each entity's properties from the command line")
    func infoSchema() throws {
        let url = try StoreOwnModelTests.copy([Self.store])
        let r = try StackScopeBinary.run(["info", url.path, "--schema"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("\nAuthor : Writer\n  age      Integer 16  from Writer\n"), "\(r.stdout)")
    }

    @Test("--sort through a to-one relationship works from the command line, and a to-many path is refused with exit 1")
    func sortKeyPath() throws {
        let url = try StoreOwnModelTests.copy([Self.store])
        let ok = try StackScopeBinary.run(["dump", url.path, "--entity", "Page", "--sort", "-book.author.age,number", "--limit", "1"])
        #expect(ok.status == 0, "\(ok.stderr)")
        #expect(ok.stdout.hasSuffix("1 object of Page, sorted by book.author.age descending, number, limit 1\n"), "\(ok.stdout)")
        let bad = try StackScopeBinary.run(["dump", url.path, "--entity", "Book", "--sort", "pages.number"])
        #expect(bad.status == 1)
        #expect(bad.stderr == "stackscope: error: invalid --sort key \"pages.number\": Book.pages is a to-many relationship; a sort key can go only through to-one relationships\n", "\(bad.stderr)")
    }
}
