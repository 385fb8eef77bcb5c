import CoreStackModel
import Testing

/// Checks that two models declare the same entities: parent, abstractness, attributes (with
/// their defaults, rules and options), relationships and uniqueness constraints, and version hashes.
func expectSameEntities(_ declared: ManagedObjectModel, _ other: ManagedObjectModel, sourceLocation: SourceLocation = #_sourceLocation) throws {
    #expect(declared.entityVersionHashes == other.entityVersionHashes, sourceLocation: sourceLocation)
    #expect(declared.entities.map(\.name) == other.entities.map(\.name), sourceLocation: sourceLocation)
    for entity in declared.entities {
        let twin = try #require(other.entity(named: entity.name), sourceLocation: sourceLocation)
        #expect(entity.superentityName == twin.superentityName, "\(entity.name)", sourceLocation: sourceLocation)
        #expect(entity.isAbstract == twin.isAbstract, "\(entity.name)", sourceLocation: sourceLocation)
        #expect(entity.attributes == twin.attributes, "\(entity.name)", sourceLocation: sourceLocation)
        #expect(entity.relationships == twin.relationships, "\(entity.name)", sourceLocation: sourceLocation)
        #expect(entity.uniquenessConstraints == twin.uniquenessConstraints, "\(entity.name)", sourceLocation: sourceLocation)
    }
}
