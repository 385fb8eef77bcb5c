import CoreStack
import Foundation
import StackScope
import Testing

/// `info --schema` on Apple-written stores opened with the model they carry: what a developer with
/// no model file needs to know about the store's entities.
@Suite("info --schema")
struct InfoSchemaTests {
    @Test("types, inheritance, abstract entities, transformers, to-one and to-many with inverses and delete rules")
    func coreDataPlus() throws {
        let url = try StoreOwnModelTests.copy(["alemar11-CoreDataPlus/SampleModel2_V1.sqlite"])
        let info = try InfoCommand.info(storePath: url.path, modelPath: nil)
        let text = InfoCommand.renderText(info, schema: true)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        func block(_ heading: String) -> [String] {
            guard let start = lines.firstIndex(of: heading) else { return [] }
            return Array(lines[(start + 1)...].prefix { !$0.isEmpty })
        }
        let squeezed = { (s: String) in s.split(separator: " ").joined(separator: " ") }
        // The model's metadata CoreStack keeps but does not apply (derivations, validation rules,
        // fetched properties, constraints) is listed too.
        let title = #"title String validation (length >= 3) AND (length <= 50); SELF CONTAINS "title""#
        #expect(block("Book").map(squeezed) == [
            "uniqueID UUID", "price Decimal", "pagesCount Integer 64 optional, derived count:(pages)", "publishedAt Date", title,
            "cover Transformable transformer CoverTransformer",
            "author → Author to-one, inverse books, Nullify", "pages ⇉ Page to-many, inverse book, Cascade",
            "· uniqueness constraint (uniqueID)",
        ])
        #expect(block("GraphicNovel : Book").map(squeezed).contains("isBlackAndWhite Boolean"))
        #expect(block("GraphicNovel : Book").map(squeezed).contains(title + ", from Book"))
        #expect(block("Writer (abstract)").map(squeezed) == ["age Integer 16"])
        #expect(block("Author : Writer").map(squeezed) == [
            "age Integer 16 from Writer", "alias String", "siteURL URI optional",
            "books ⇉ Book to-many, optional, inverse author, Cascade",
            "· fetched property favFeedbacks → Feedback where (authorAlias == $FETCH_SOURCE.alias) AND (comment CONTAINS $FETCHED_PROPERTY.userInfo.search)",
            "· fetched property feedbacks → Feedback where authorAlias == $FETCH_SOURCE.alias",
            "· uniqueness constraint (alias)",
        ])
        // Without --schema the output is as before.
        #expect(!InfoCommand.renderText(info).contains("Author : Writer"))

        let json = try #require(try TestSupport.parseJSON(InfoCommand.renderJSON(info, schema: true)) as? [String: Any])
        let schema = try #require(json["schema"] as? [[String: Any]])
        let page = try #require(schema.first { $0["name"] as? String == "Page" })
        let book = try #require((page["relationships"] as? [[String: Any]])?.first)
        #expect(book["destination"] as? String == "Book" && book["cardinality"] as? String == "to-one" && book["inverse"] as? String == "pages")
    }

    @Test("a join table's relationship is many-to-many; an ordered one says ordered")
    func manyToManyAndOrdered() throws {
        let url = try StoreOwnModelTests.copy(["bnr-CoreDataStack/TestModel.sqlite"])
        let bnr = try InfoCommand.info(storePath: url.path, modelPath: nil)
        let authors = try #require(bnr.schemas.first { $0.name == "Book" }?.relationships.first { $0.name == "authors" })
        #expect(authors.isManyToMany && authors.destination == "Author" && authors.inverse == "books")
        #expect(InfoCommand.renderText(bnr, schema: true).contains("⇉ Author  many-to-many, optional, inverse books, Nullify"))

        let (demo, _) = try TestSupport.demoStore(size: 20)
        let info = try InfoCommand.info(storePath: demo.path, modelPath: nil)
        let chapters = try #require(info.schemas.first { $0.name == "Book" }?.relationships.first { $0.name == "chapters" })
        #expect(chapters.isOrdered && !chapters.isManyToMany)
        #expect(InfoCommand.renderText(info, schema: true).contains("⇉ Chapter  ordered to-many"))
    }
}
