import SwiftDiagnostics

/// The mistakes `@Entity` reports, each saying what is wrong and how to write it.
enum EntityDiagnostic: DiagnosticMessage {
    case notAClass
    case notFinal(String)
    case noSuperclass(String)
    case unsupportedType(property: String, type: String)
    case missingType(String)
    case letProperty(String)
    case oneBindingPerVar
    case noInverse(property: String, destination: String)
    case requiredToOne(property: String, destination: String)
    case inverseNotAKeyPath(String)
    case inverseOfOtherEntity(property: String, root: String, destination: String)
    case relationshipOnAttribute(String)
    case optionsOnRelationship(String)
    case entityNameNotLiteral

    var message: String {
        switch self {
        case .notAClass:
            "@Entity applies to a class that inherits from ManagedObject"
        case let .notFinal(name):
            "@Entity class '\(name)' must be final; a class that other entity classes inherit from is "
                + "declared with @ParentEntity"
        case let .noSuperclass(name):
            "@Entity class '\(name)' must inherit from ManagedObject (or from another @Entity class)"
        case let .unsupportedType(property, type):
            "'\(property)' has type '\(type)', which no attribute type stores: an attribute is String, Int, Int16, "
                + "Int32, Int64, Double, Float, Bool, Date, Data, UUID, URL or Decimal (optional or not); a relationship "
                + "is Entity? (to-one), Set<Entity> (to-many) or [Entity] (ordered to-many)"
        case let .missingType(name):
            "'\(name)' needs a type annotation: the model property's type is read from it"
        case let .letProperty(name):
            "'\(name)' is a let: a model property is a var (its value lives in the object's context)"
        case .oneBindingPerVar:
            "declare one model property per var, with a name and a type"
        case let .noInverse(property, destination):
            "relationship '\(property)' to '\(destination)' names no inverse: add @Relationship(inverse: \\\(destination).<the "
                + "relationship back>) (both sides of a relationship name each other, as in a Core Data model)"
        case let .requiredToOne(property, destination):
            "to-one relationship '\(property)' must be optional: declare it '\(destination)?'"
        case let .inverseNotAKeyPath(property):
            "the inverse of '\(property)' is a key path to the relationship back, such as \\Author.books"
        case let .inverseOfOtherEntity(property, root, destination):
            "the inverse of '\(property)' starts at '\(root)', but the relationship leads to '\(destination)'"
        case let .relationshipOnAttribute(property):
            "@Relationship on '\(property)', which is an attribute"
        case let .optionsOnRelationship(property):
            "@AttributeOptions on '\(property)', which is a relationship (use @Relationship's arguments)"
        case .entityNameNotLiteral:
            "the entity name is a string literal"
        }
    }

    var diagnosticID: MessageID {
        let id: String = switch self {
        case .notAClass: "notAClass"
        case .notFinal: "notFinal"
        case .noSuperclass: "noSuperclass"
        case .unsupportedType: "unsupportedType"
        case .missingType: "missingType"
        case .letProperty: "letProperty"
        case .oneBindingPerVar: "oneBindingPerVar"
        case .noInverse: "noInverse"
        case .requiredToOne: "requiredToOne"
        case .inverseNotAKeyPath: "inverseNotAKeyPath"
        case .inverseOfOtherEntity: "inverseOfOtherEntity"
        case .relationshipOnAttribute: "relationshipOnAttribute"
        case .optionsOnRelationship: "optionsOnRelationship"
        case .entityNameNotLiteral: "entityNameNotLiteral"
        }
        return MessageID(domain: "CoreStackMacros", id: id)
    }

    var severity: DiagnosticSeverity { .error }
}

/// The fix-its offered with ``EntityDiagnostic``.
enum EntityFixIt: FixItMessage {
    case addFinal
    case useVar
    case makeOptional

    var message: String {
        switch self {
        case .addFinal: "make the class final"
        case .useVar: "use var"
        case .makeOptional: "make it optional"
        }
    }

    var fixItID: MessageID { MessageID(domain: "CoreStackMacros", id: "\(self)") }
}
