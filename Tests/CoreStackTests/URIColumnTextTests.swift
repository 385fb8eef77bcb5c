import Foundation
import Testing

@testable import CoreStack

/// A URI column holding text that is not a URL reads back as that text, not percent-encoded.
@Suite("URI columns holding text that is not a URL")
struct URIColumnTextTests {
    @Test("text that is not a URL reads back as the text stored; a real URL stays a URL")
    func textStaysText() throws {
        #expect(SQLiteValueCodec.value(string: "my site: ü", type: .uri) == .string("my site: ü"))
        #expect(SQLiteValueCodec.value(string: "a b", type: .uri) == .string("a b"))
        let real = "https://example.com/a/b?q=1#top"
        #expect(SQLiteValueCodec.value(string: real, type: .uri) == .url(try #require(URL(string: real))))
        #expect(SQLiteValueCodec.value(string: "not a url %", type: .uri) == .string("not a url %"))
    }

    @Test("through the store: an Apple store's URI column (Writer.siteURL) edited to plain text is fetched as that text")
    func throughTheStore() throws {
        let url = try Fixtures.copyStore("stores/alemar11-CoreDataPlus/SampleModel2_V1.sqlite")
        try SchemaInferenceRelationshipTests.sqlite(
            url, "UPDATE ZWRITER SET ZSITEURL = 'my site' WHERE Z_PK = 1; UPDATE ZWRITER SET ZSITEURL = 'https://example.com/x' WHERE Z_PK = 2")
        let model = try #require(try SQLiteStore.storedModel(at: url))
        let store = try SQLiteStore(url: url, model: model, readOnly: true)
        let author = try #require(model.entity(named: "Author"))  // both writers are authors
        let slot = try #require(author.attributeSlots["siteURL"])
        let rows = try store.fetch(StoreFetchRequest(entity: author)).sorted { ($0.objectID.primaryKey ?? 0) < ($1.objectID.primaryKey ?? 0) }
        #expect(rows.map { $0.snapshot.values[slot] } == [.string("my site"), .url(try #require(URL(string: "https://example.com/x")))])
    }
}
