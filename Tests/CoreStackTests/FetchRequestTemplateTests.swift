import Foundation
import Testing
@testable import CoreStack

@Suite("Fetch request templates from model files")
struct FetchRequestTemplateTests {
    @Test("every template predicate in the fixture models parses")
    func allTemplatesParse() throws {
        let root = Fixtures.url("models")
        let bundles = try FileManager.default.subpathsOfDirectory(atPath: root.path).filter { $0.hasSuffix(".xcdatamodeld") }
        var parsed = 0
        for path in bundles {
            let bundle = try XcodeModelReader.readBundle(at: root.appendingPathComponent(path))
            for model in bundle.versions {
                for template in model.fetchRequestTemplates.values {
                    if try template.predicate() != nil { parsed += 1 }
                }
            }
        }
        // momcom: one template in version 1, three in version 2.
        #expect(parsed == 4)
    }

    @Test("a template becomes a fetch request that runs")
    func templateRuns() throws {
        let model = try XcodeModelReader.readModel(
            at: Fixtures.url("models/atomicbird-momcom/momcomTests.xcdatamodeld/momcTests 2.xcdatamodel"))
        let request: FetchRequest<ManagedObject> = try model.fetchRequest(fromTemplateNamed: "FetchRequestObjects")
        #expect(request.entityName == "Entity")
        #expect(request.fetchLimit == 100)
        #expect(request.fetchBatchSize == 10)
        #expect(request.predicate == (try Predicate(format: "booleanAttribute == 1 AND floatAttribute > 5")))
        let stack = try TestStack(.inMemory, model: model)
        let ctx = stack.context
        try ctx.performAndWait {
            for (flag, value) in [(true, 6.0), (true, 1.0), (false, 9.0)] {
                let o = try ctx.insertObject(forEntityName: "Entity")
                try o.setValue(flag, forKey: "booleanAttribute")
                try o.setAttributeValue(.double(value), forKey: "floatAttribute")
            }
            // floatAttribute has a max of 2.5 in this model, so nothing saves; the fetch sees pending changes.
            let found = try ctx.fetch(request)
            #expect(found.count == 1)
            #expect(try found.first?.attributeValue(forKey: "floatAttribute") == .double(6))
        }
        #expect(throws: CoreStackError.invalidFetchRequest("the model has no fetch request template named \"Nope\"")) {
            let _: FetchRequest<ManagedObject> = try model.fetchRequest(fromTemplateNamed: "Nope")
        }
    }
}
