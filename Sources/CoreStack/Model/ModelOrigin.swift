import Foundation

/// Where a ``ManagedObjectModel`` came from: built in code, read from a model file, decoded from
/// the copy a store keeps of its own model, or inferred from a store's tables.
///
/// A model inferred from the schema lacks what tables cannot tell (the case of attribute names,
/// inverses of to-one relationships, delete rules, defaults); tools say so when they use one.
///
/// ```swift
/// let model = try SQLiteStore.storedModel(at: url)
/// model?.origin  // .storeModelCache
/// ```
public enum ModelOrigin: Sendable, Hashable, CustomStringConvertible {
    /// Built in code (the model builder or ``ManagedObjectModel/init(entities:versionName:versionIdentifiers:fetchRequestTemplates:configurations:origin:)``).
    case built
    /// Read from an Xcode `.xcdatamodel` (`contents` XML).
    case xcodeModel
    /// Decoded from a compiled `.mom` file (an `NSKeyedArchiver` archive).
    case compiledModel
    /// Decoded from a store's `Z_MODELCACHE` (the model Core Data saved with the store).
    case storeModelCache
    /// Inferred from a store's tables (`Z_PRIMARYKEY`, columns, join tables): a store with no model cache.
    case inferredFromSchema

    /// Where the model came from, as text.
    public var description: String {
        switch self {
        case .built: "built in code"
        case .xcodeModel: "Xcode model file"
        case .compiledModel: "compiled model (.mom)"
        case .storeModelCache: "stored in the store (Z_MODELCACHE)"
        case .inferredFromSchema: "inferred from the schema"
        }
    }
}
