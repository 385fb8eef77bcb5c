import Foundation
import Testing
@testable import CoreStack

// A small library model written as the model macro writes classes: computed properties over the
// shared accessors, the class's own entity, and its key path table.

final class SDAuthor: ManagedObject, DeclaredEntity, PropertyKeyPathTable {
    var name: String {
        get { value(ofAttribute: "name") }
        set { setValue(newValue, ofAttribute: "name") }
    }
    var born: Int {
        get { value(ofAttribute: "born") }
        set { setValue(newValue, ofAttribute: "born") }
    }
    var books: Set<SDBook> {
        get { objects(ofToMany: "books") }
        set { setObjects(newValue, ofToMany: "books") }
    }
    static var entityDescription: EntityDescription {
        EntityDescription("Author", class: SDAuthor.self) {
            AttributeDescription("name", .string, isOptional: false)
            AttributeDescription("born", .integer64)
            RelationshipDescription("books", destination: "Book", inverse: "author", toMany: true, deleteRule: .cascade)
        }
    }
    static var propertyKeyPaths: [PartialKeyPath<SDAuthor>: String] {
        [\SDAuthor.name: "name", \SDAuthor.born: "born", \SDAuthor.books: "books"]
    }
}

final class SDBook: ManagedObject, DeclaredEntity, PropertyKeyPathTable {
    var title: String {
        get { value(ofAttribute: "title") }
        set { setValue(newValue, ofAttribute: "title") }
    }
    var pages: Int {
        get { value(ofAttribute: "pages") }
        set { setValue(newValue, ofAttribute: "pages") }
    }
    var author: SDAuthor? {
        get { object(ofToOne: "author") }
        set { setObject(newValue, ofToOne: "author") }
    }
    static var entityDescription: EntityDescription {
        EntityDescription("Book", class: SDBook.self) {
            AttributeDescription("title", .string, isOptional: false)
            AttributeDescription("pages", .integer64)
            RelationshipDescription("author", destination: "Author", inverse: "books")
        }
    }
    static var propertyKeyPaths: [PartialKeyPath<SDBook>: String] {
        [\SDBook.title: "title", \SDBook.pages: "pages", \SDBook.author: "author"]
    }
}

/// Helpers the SwiftData-shape tests share.
enum SwiftDataSupport {
    /// A fresh store file's URL in a temporary folder (the file does not exist yet).
    static func newStoreURL(_ name: String = "Library.store") throws -> URL {
        try Fixtures.temporaryFolder().appendingPathComponent(name)
    }

    /// Three authors and six books (pages 100, 200, … 600), saved.
    static func fill(_ context: ModelContext) throws {
        let names = ["Le Guin", "Herbert", "Austen"]
        for (i, name) in names.enumerated() {
            let author = try context.insert(SDAuthor.self)
            author.name = name
            author.born = 1900 + i
            for j in 0..<2 {
                let book = try context.insert(SDBook.self)
                book.title = "\(name) \(j + 1)"
                book.pages = (2 * i + j + 1) * 100
                book.author = author
            }
        }
        try context.save()
    }

    static var hasSQLite3: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3") }

    /// sqlite3's answer to `sql` on the store at `url`, read-only: one line per row, columns split at `|`.
    static func sqlite3(_ url: URL, _ sql: String) throws -> [[String]] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = ["-readonly", url.path, sql]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "sqlite3 failed on \(url.path): \(sql)")
        return String(decoding: data, as: UTF8.self).split(separator: "\n")
            .map { $0.split(separator: "|", omittingEmptySubsequences: false).map(String.init) }
    }
}
