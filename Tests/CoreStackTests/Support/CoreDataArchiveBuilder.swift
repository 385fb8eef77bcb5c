import Foundation

@testable import CoreStack

/// Builds `NSKeyedArchiver` archives of an `NSManagedObjectModel` with the classes and keys of
/// Apple's archives, including what CoreStack's own encoder never writes (fetch indexes with
/// expression elements, composite and derived attributes, fetched properties, validation
/// predicates, unknown kinds): the model caches of stores like Apple's Photos.sqlite, made in a test.
///
/// ```swift
/// var b = CoreDataArchiveBuilder()
/// let title = b.attribute("title", type: 700)
/// let book = b.entity("Book", properties: [("title", title)])
/// let data = b.archive(entities: [("Book", book)])
/// ```
struct CoreDataArchiveBuilder {
    private(set) var objects: [BinaryPropertyList] = [.string("$null")]
    private var classes: [String: Int] = [:]

    /// Appends a value; its object number.
    mutating func add(_ value: BinaryPropertyList) -> Int {
        objects.append(value)
        return objects.count - 1
    }

    /// A reference to a new string object.
    mutating func string(_ s: String) -> BinaryPropertyList { .uid(add(.string(s))) }

    /// An instance of `className` with `fields` (plus `$class`).
    mutating func object(_ className: String, _ fields: [(String, BinaryPropertyList)]) -> Int {
        let cls: Int
        if let c = classes[className] {
            cls = c
        } else {
            cls = add(.dictionary([("$classname", .string(className)), ("$classes", .array([.string(className), .string("NSObject")]))]))
            classes[className] = cls
        }
        return add(.dictionary(fields + [("$class", .uid(cls))]))
    }

    /// Replaces object `index` by an instance (for objects reserved before their fields are known).
    mutating func fill(_ index: Int, _ className: String, _ fields: [(String, BinaryPropertyList)]) {
        let made = object(className, fields)
        objects[index] = objects[made]
    }

    /// Reserves an object number.
    mutating func reserve() -> Int { add(.string("$null")) }

    /// An `NSArray` of the objects.
    mutating func array(_ items: [Int]) -> BinaryPropertyList {
        .uid(object("NSArray", [("NS.objects", .array(items.map { .uid($0) }))]))
    }

    /// An `NSDictionary` of name → object.
    mutating func dictionary(_ pairs: [(String, Int)]) -> BinaryPropertyList {
        var keys: [BinaryPropertyList] = []
        for (k, _) in pairs { keys.append(string(k)) }
        return .uid(object("NSDictionary", [("NS.keys", .array(keys)), ("NS.objects", .array(pairs.map { .uid($0.1) }))]))
    }

    /// An `NSAttributeDescription` (or another class, e.g. `NSDerivedAttributeDescription`).
    mutating func attribute(
        _ name: String, type: Int, className: String = "NSAttributeDescription", extra: [(String, BinaryPropertyList)] = []
    ) -> Int {
        object(className, [("NSPropertyName", string(name)), ("NSAttributeType", .integer(Int64(type))), ("_P", .integer(243)), ("NSIsOptional", .bool(true))] + extra)
    }

    /// A `$KEY.PATH` comparison `left op right` (NSComparisonPredicate with key path expressions).
    mutating func comparison(keyPath: String, operatorType: Int, constant: BinaryPropertyList) -> Int {
        let me = object("NSSelfExpression", [("NSExpressionType", .integer(1))])
        let spec = object("NSKeyPathSpecifierExpression", [("NSExpressionType", .integer(10)), ("NSKeyPath", string(keyPath))])
        let left = object("NSKeyPathExpression", [
            ("NSExpressionType", .integer(3)), ("NSOperand", .uid(me)), ("NSSelectorName", string("valueForKey:")), ("NSArguments", array([spec])),
        ])
        let value = add(constant)
        let right = object("NSConstantValueExpression", [("NSExpressionType", .integer(0)), ("NSConstantValue", .uid(value))])
        let op = object("NSComparisonPredicateOperator", [("NSOperatorType", .integer(Int64(operatorType))), ("NSModifier", .integer(0)), ("NSOptions", .integer(0))])
        return object("NSComparisonPredicate", [("NSLeftExpression", .uid(left)), ("NSRightExpression", .uid(right)), ("NSPredicateOperator", .uid(op))])
    }

    /// A function expression `selector(keyPath)`.
    mutating func function(_ selector: String, keyPath: String) -> Int {
        let me = object("NSSelfExpression", [("NSExpressionType", .integer(1))])
        let spec = object("NSKeyPathSpecifierExpression", [("NSExpressionType", .integer(10)), ("NSKeyPath", string(keyPath))])
        let path = object("NSKeyPathExpression", [
            ("NSExpressionType", .integer(3)), ("NSOperand", .uid(me)), ("NSSelectorName", string("valueForKey:")), ("NSArguments", array([spec])),
        ])
        let operand = object("NSConstantValueExpression", [("NSExpressionType", .integer(0)), ("NSConstantValueClassName", string("_NSPredicateUtilities"))])
        return object("NSFunctionExpression", [
            ("NSExpressionType", .integer(4)), ("NSOperand", .uid(operand)), ("NSSelectorName", string(selector)), ("NSArguments", array([path])),
        ])
    }

    /// An `NSEntityDescription` at a reserved number, with its properties (every one, inherited
    /// ones repeated, as Apple writes them) and extra fields.
    mutating func entity(
        _ name: String, at index: Int, properties: [(String, Int)], superentity: Int? = nil, extra: [(String, BinaryPropertyList)] = []
    ) {
        var fields: [(String, BinaryPropertyList)] = [
            ("NSEntityName", string(name)), ("NSClassNameForEntity", string("NSManagedObject")),
            ("NSProperties", dictionary(properties)), ("NSRenamingIdentifier", string(name)),
        ]
        if let superentity { fields.append(("NSSuperentity", .uid(superentity))) }
        fill(index, "NSEntityDescription", fields + extra)
    }

    /// A fetch index named `name` over `elements` (each an `NSFetchIndexElementDescription`).
    mutating func fetchIndex(_ name: String, elements: [Int], partial: Int? = nil) -> Int {
        object("NSFetchIndexDescription", [
            ("NSIndexName", string(name)), ("NSIndexElements", array(elements)), ("NSPartialIndexPredicate", .uid(partial ?? 0)),
        ])
    }

    /// An element indexing the property `name`.
    mutating func indexElement(property name: String, ascending: Bool = true, type: Int = 0) -> Int {
        object("NSFetchIndexElementDescription", [
            ("NSPropertyName", string(name)), ("NSAscending", .bool(ascending)), ("NSFetchIndexElementType", .integer(Int64(type))),
        ])
    }

    /// An element indexing an expression: an `NSExpressionDescription` named `name`.
    mutating func indexElement(expressionNamed name: String, expression: Int) -> Int {
        let description = object("NSExpressionDescription", [
            ("NSPropertyName", string(name)), ("NSExpression", .uid(expression)), ("NSAttributeType", .integer(700)),
        ])
        return object("NSFetchIndexElementDescription", [
            ("NSPropertyName", .uid(description)), ("NSAscending", .bool(true)), ("NSFetchIndexElementType", .integer(0)),
        ])
    }

    /// The archive of a model whose `NSEntities` are the entities at these numbers, with fetch
    /// request templates (name → `NSFetchRequest` object) when given.
    mutating func archive(entities: [(String, Int)], root: Int, templates: [(String, Int)] = []) -> Data {
        let dict = dictionary(entities)
        var fields: [(String, BinaryPropertyList)] = [("NSEntities", dict), ("NSVersionIdentifiers", array([]))]
        if !templates.isEmpty { fields.append(("NSFetchRequestTemplates", dictionary(templates))) }
        fill(root, "NSManagedObjectModel", fields)
        return BinaryPropertyList.dictionary([
            ("$version", .integer(100000)), ("$archiver", .string("NSKeyedArchiver")),
            ("$top", .dictionary([("root", .uid(root))])), ("$objects", .array(objects)),
        ]).encoded()
    }
}
