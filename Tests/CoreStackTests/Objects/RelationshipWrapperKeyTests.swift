import Foundation
import Testing
@testable import CoreStack

private final class Deck: ManagedObject {
    @Attribute("name") var name: String
    @ToMany("cards") var cards: Set<Card>
    @OrderedToMany("pile") var pile: [Card]
    @ToOne(RelationshipKeys.owner) var owner: Card?   // a key known only at run time
}

private final class Card: ManagedObject {
    @ToOne("deck") var deck: Deck?
    @ToOne("pileOf") var pileOf: Deck?
    @ToOne("nowhere") var nowhere: Deck?   // names no relationship of the entity
    var deckThroughAccessor: Deck? {
        get { object(ofToOne: "deck") }
        set { setObject(newValue, ofToOne: "deck") }
    }
    var cardsAsToOne: Deck? { object(ofToOne: "ownerOf") }
}

private enum RelationshipKeys {
    static var owner: String { ["ow", "ner"].joined() }
}

@Suite("Relationship wrappers and accessors find their slot by their key's word")
struct RelationshipWrapperKeyTests {
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(versionName: "Decks") {
            EntityDescription("Deck", class: Deck.self) {
                AttributeDescription("name", .string)
                RelationshipDescription("cards", destination: "Card", inverse: "deck", toMany: true)
                RelationshipDescription("pile", destination: "Card", inverse: "pileOf", toMany: true, isOrdered: true)
                RelationshipDescription("owner", destination: "Card", inverse: "ownerOf")
            }
            EntityDescription("Card", class: Card.self) {
                RelationshipDescription("deck", destination: "Deck", inverse: "cards")
                RelationshipDescription("pileOf", destination: "Deck", inverse: "pile")
                RelationshipDescription("ownerOf", destination: "Deck", inverse: "owner", toMany: true)
            }
        }
    }

    @Test("a literal key is one word, a run-time key is interned, and both name their relationship")
    func keys() {
        #expect(MemoryLayout<ToOne<Deck>>.size == 8)
        #expect(MemoryLayout<ToMany<Deck>>.size == 8)
        #expect(MemoryLayout<OrderedToMany<Deck>>.size == 8)
        let literal = ToOne<Deck>("deck")
        #expect(literal.wrapperKey.bits & WrapperKey.internedFlag == 0)
        #expect(literal.key == "deck")
        let runtime = ToOne<Deck>(RelationshipKeys.owner)
        #expect(runtime.wrapperKey.bits & WrapperKey.internedFlag != 0)
        #expect(runtime.key == "owner")
        #expect(ToMany<Deck>("cards").key == "cards" && OrderedToMany<Deck>("pile").key == "pile")
    }

    @Test("reads and writes go to the right slots, and each key's slot is remembered once per entity")
    func slotsRemembered() throws {
        let model = try Self.model()
        let deckEntity = try #require(model.entity(named: "Deck"))
        let cardEntity = try #require(model.entity(named: "Card"))
        let stack = try TestStack(.inMemory, model: model)
        try stack.context.performAndWait {
            let deck = try stack.context.insert(Deck.self)
            let a = try stack.context.insert(Card.self)
            let b = try stack.context.insert(Card.self)
            a.deck = deck
            b.deckThroughAccessor = deck
            #expect(deck.cards == [a, b])
            deck.pile = [b, a]
            #expect(a.pileOf === deck && b.pileOf === deck)
            #expect(deck.pile.map(\.objectID) == [b.objectID, a.objectID])
            deck.owner = b
            #expect(deck.owner === b)
            #expect(try b.objects(forKey: "ownerOf").map(\.objectID) == [deck.objectID])
            deck.cards.remove(a)
            #expect(a.deck == nil && a.deckThroughAccessor == nil)
            #expect(b.deckThroughAccessor === deck)
            #expect(deck.lastAccessorError == nil && a.lastAccessorError == nil && b.lastAccessorError == nil)
            try stack.context.save()
        }
        // Deck: cards, pile, owner; Card: deck (wrapper and accessor share the literal's text,
        // maybe not its address), pileOf.
        #expect(deckEntity.relationshipWrapperSlots.count.load(ordering: .relaxed) == 3)
        let cardKeys = cardEntity.relationshipWrapperSlots.count.load(ordering: .relaxed)
        #expect(cardKeys == 2 || cardKeys == 3)
        #expect(deckEntity.relationshipWrapperSlots.slot(forBits: WrapperKey(interning: "owner").bits) == deckEntity.relationshipSlots["owner"])
        // Attributes keep their own table: no relationship key went into it.
        #expect(deckEntity.attributeWrapperSlots.count.load(ordering: .relaxed) == 0)
    }

    @Test("an unknown key and a to-many read as a to-one are reported, naming the key")
    func errorsNameTheKey() throws {
        let stack = try TestStack(.inMemory, model: try Self.model())
        try stack.context.performAndWait {
            let card = try stack.context.insert(Card.self)
            #expect(card.nowhere == nil)
            guard case let .unknownKey(entity, key)? = card.lastAccessorError as? CoreStackError else {
                Issue.record("expected unknownKey, got \(String(describing: card.lastAccessorError))")
                return
            }
            #expect(entity == "Card" && key == "nowhere")
            card.lastAccessorError = nil
            #expect(card.cardsAsToOne == nil)
            guard case let .typeMismatch(_, key, _, _)? = card.lastAccessorError as? CoreStackError else {
                Issue.record("expected typeMismatch, got \(String(describing: card.lastAccessorError))")
                return
            }
            #expect(key == "ownerOf")
        }
    }
}
