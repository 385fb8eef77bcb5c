import Foundation

/// A real store from `Tests/Fixtures/stores` and the model it was written with.
struct FixtureStore: Sendable {
    /// Relative to the fixtures folder.
    var store: String
    var model: String

    /// The stores whose Xcode model is in the fixtures (SampleModel2 is built in code by its project).
    static let all: [FixtureStore] = [
        FixtureStore(store: "stores/bnr-CoreDataStack/TestModel.sqlite", model: "models/bnr-CoreDataStack-2015/TestModel.xcdatamodeld"),
        FixtureStore(store: "stores/apple-iPhoneCoreDataRecipes-2018/Recipes.sqlite", model: "models/apple-iPhoneCoreDataRecipes-2018/Recipes.xcdatamodeld"),
        FixtureStore(store: "stores/wibosco-CoreDataMigration-Example/CoreDataMigration_Example_1.sqlite", model: "models/wibosco-CoreDataMigration-Example/CoreDataMigration_Example.xcdatamodeld"),
        FixtureStore(store: "stores/wibosco-CoreDataMigration-Example/CoreDataMigration_Example_2.sqlite", model: "models/wibosco-CoreDataMigration-Example/CoreDataMigration_Example.xcdatamodeld"),
        FixtureStore(store: "stores/wibosco-CoreDataMigration-Example/CoreDataMigration_Example_3.sqlite", model: "models/wibosco-CoreDataMigration-Example/CoreDataMigration_Example.xcdatamodeld"),
        FixtureStore(store: "stores/wibosco-CoreDataMigration-Example/CoreDataMigration_Example_WAL.sqlite", model: "models/wibosco-CoreDataMigration-Example/CoreDataMigration_Example.xcdatamodeld"),
        FixtureStore(store: "stores/alemar11-CoreDataPlus/SampleModel_V1.sqlite", model: "models/alemar11-CoreDataPlus/SampleModel.xcdatamodeld"),
        FixtureStore(store: "stores/alemar11-CoreDataPlus/SampleModel_V2.sqlite", model: "models/alemar11-CoreDataPlus/SampleModel.xcdatamodeld"),
        FixtureStore(store: "stores/alemar11-CoreDataPlus/SampleModel3_V1.sqlite", model: "models/alemar11-CoreDataPlus/SampleModel3.xcdatamodeld"),
    ]

    var fileName: String { (store as NSString).lastPathComponent }

    /// Copies the store and its `-wal`/`-shm` files into `folder`; returns the copy's URL.
    func copy(from fixtures: URL, into folder: URL) throws -> URL {
        let source = fixtures.appendingPathComponent(store)
        let target = folder.appendingPathComponent(fileName)
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: source.path + suffix) {
            try FileManager.default.copyItem(atPath: source.path + suffix, toPath: target.path + suffix)
        }
        return target
    }
}
