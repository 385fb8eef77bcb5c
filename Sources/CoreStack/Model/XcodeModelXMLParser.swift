import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// The `XMLParser` delegate behind ``XcodeModelReader``: walks the `contents` XML of one
/// `.xcdatamodel` version and collects entities, fetch request templates and configurations.
///
/// Values are converted by ``XcodeModelValues`` as each element closes; the first error stops the
/// parse. The model itself is checked afterwards by ``ManagedObjectModel``.
///
/// ```swift
/// let parser = XcodeModelXMLParser(path: "Library.xcdatamodel/contents")
/// let document = try parser.parse(data)
/// document.entities.map(\.name) // ["Author", "Book"]
/// ```
final class XcodeModelXMLParser: NSObject, XMLParserDelegate {
    /// What one `contents` file declares.
    struct Document {
        var entities: [EntityDescription] = []
        var versionIdentifier: String?
        var fetchRequestTemplates: [FetchRequestTemplate] = []
        /// Configuration name → member entity names, in file order.
        var configurations: [String: [String]] = [:]
        /// Names of fetched properties, which CoreStack does not support (`Entity.property`).
        var skippedFetchedProperties: [String] = []
    }

    /// An `<attribute>` or `<relationship>` whose element is still open (it may hold `<userInfo>`).
    private struct PendingProperty {
        var isRelationship: Bool
        var xmlAttributes: [String: String]
        var userInfo: [String: String] = [:]
    }

    /// An `<entity>` whose element is still open.
    private struct PendingEntity {
        var xmlAttributes: [String: String]
        var attributes: [AttributeDescription] = []
        var relationships: [RelationshipDescription] = []
        var uniquenessConstraints: [[String]] = []
        var fetchIndexes: [FetchIndexDescription] = []
        var compoundIndexCount = 0
        var userInfo: [String: String] = [:]
        var name: String { xmlAttributes["name"] ?? "" }
        /// The entity's children, as ``XcodeModelValues/entity(_:_:)`` takes them.
        var parts: XcodeModelValues.EntityParts {
            XcodeModelValues.EntityParts(
                attributes: attributes, relationships: relationships,
                uniquenessConstraints: uniquenessConstraints, fetchIndexes: fetchIndexes, userInfo: userInfo)
        }
    }

    private let path: String
    private var document = Document()
    private var sawModel = false
    /// Open element names, outermost first.
    private var stack: [String] = []
    /// Depth of the element whose whole subtree is ignored (`<elements>`, `<fetchedProperty>`).
    private var skipDepth: Int?
    private var entity: PendingEntity?
    private var property: PendingProperty?
    private var constraint: [String]?
    private var fetchIndex: FetchIndexDescription?
    private var compoundIndex: [FetchIndexDescription.Element]?
    private var configuration: (name: String, members: [String])?
    private var failure: CoreStackError?

    /// - Parameter path: the file the XML comes from, for error messages.
    init(path: String) {
        self.path = path
    }

    /// Parses `data`, returning what it declares or throwing a ``CoreStackError``.
    func parse(_ data: Data) throws -> Document {
        let parser = XMLParser(data: data)
        parser.delegate = self
        parser.shouldProcessNamespaces = false
        parser.shouldResolveExternalEntities = false
        let ok = parser.parse()
        if let failure { throw failure }
        // libxml2 recovers from some errors (parse() still returns true): any reported error fails.
        guard ok, parser.parserError == nil else {
            throw malformed(parser.parserError, line: parser.lineNumber)
        }
        guard sawModel else {
            let blank = data.allSatisfy { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
            throw CoreStackError.modelFile(path: path, reason: blank ? "the file is empty" : "no <model> element")
        }
        return document
    }

    private func malformed(_ error: Error?, line: Int) -> CoreStackError {
        let code = error.map { ($0 as NSError).code }
        let detail = code.map { c in Self.libxmlMessages[c].map { "\($0) (XML error \(c))" } ?? "XML error \(c)" }
        return .modelFile(path: path, reason: "malformed XML at line \(line): \(detail ?? "parse error")")
    }

    /// Messages for the commonest libxml2 error codes (`NSXMLParserErrorCode` uses the same numbers).
    private static let libxmlMessages: [Int: String] = [
        4: "the document is empty", 5: "extra content at the end of the document",
        9: "invalid character", 26: "undeclared entity", 41: "attribute without value",
        68: "a name is required", 73: "\">\" expected", 76: "closing tag does not match the opening tag",
        77: "element not closed at the end of the document",
    ]

    private func fail(_ error: CoreStackError, _ parser: XMLParser) {
        guard failure == nil else { return }
        failure = error
        parser.abortParsing()
    }

    // MARK: - XMLParserDelegate

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: Error) {
        fail(malformed(parseError, line: parser.lineNumber), parser)
    }

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
        qualifiedName qName: String?, attributes: [String: String] = [:]
    ) {
        guard failure == nil else { return }
        stack.append(elementName)
        if skipDepth != nil { return }
        let parent = stack.count >= 2 ? stack[stack.count - 2] : nil
        do {
            try start(elementName, parent: parent, attributes: attributes, parser)
        } catch let error as CoreStackError {
            fail(error, parser)
        } catch {
            fail(.modelFile(path: path, reason: "\(error)"), parser)
        }
    }

    func parser(
        _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?
    ) {
        guard failure == nil else { return }
        defer { stack.removeLast() }
        if let depth = skipDepth {
            if depth == stack.count { skipDepth = nil }
            return
        }
        do {
            try end(elementName)
        } catch let error as CoreStackError {
            fail(error, parser)
        } catch {
            fail(.modelFile(path: path, reason: "\(error)"), parser)
        }
    }

    // MARK: - Elements

    private func start(_ name: String, parent: String?, attributes: [String: String], _ parser: XMLParser) throws {
        if stack.count == 1 {
            guard name == "model" else {
                throw CoreStackError.modelFile(path: path, reason: "the root element is <\(name)>, not <model>")
            }
            sawModel = true
            if let id = attributes["userDefinedModelVersionIdentifier"], !id.isEmpty {
                document.versionIdentifier = id
            }
            return
        }
        switch (name, parent) {
        case ("elements", "model"):
            skipDepth = stack.count
        case ("entity", "model"):
            entity = PendingEntity(xmlAttributes: attributes)
        case ("attribute", "entity"), ("relationship", "entity"):
            property = PendingProperty(isRelationship: name == "relationship", xmlAttributes: attributes)
        case ("fetchedProperty", "entity"):
            // Fetched properties are not supported: skip the property and its inner fetch request.
            let owner = entity?.name ?? ""
            document.skippedFetchedProperties.append("\(owner).\(attributes["name"] ?? "")")
            skipDepth = stack.count
        case ("entry", "userInfo"):
            guard let key = attributes["key"] else { return }
            let value = attributes["value"] ?? ""
            let owner = stack.count >= 3 ? stack[stack.count - 3] : nil
            if owner == "entity" {
                entity?.userInfo[key] = value
            } else if owner == "attribute" || owner == "relationship" {
                property?.userInfo[key] = value
            }
        case ("uniquenessConstraint", "uniquenessConstraints"):
            constraint = []
        case ("constraint", "uniquenessConstraint"):
            if let value = attributes["value"] { constraint?.append(value) }
        case ("fetchIndex", "entity"):
            fetchIndex = FetchIndexDescription(name: attributes["name"] ?? "", elements: [])
        case ("fetchIndexElement", "fetchIndex"):
            // Expression-based elements (no `property`) cannot be expressed: skipped.
            guard let property = attributes["property"] else { return }
            let ascending = attributes["order"].map { $0.lowercased() != "descending" } ?? true
            fetchIndex?.elements.append(.init(property: property, ascending: ascending))
        case ("compoundIndex", "compoundIndexes"):
            compoundIndex = []
        case ("index", "compoundIndex"):
            if let value = attributes["value"] { compoundIndex?.append(.init(property: value)) }
        case ("fetchRequest", "model"):
            document.fetchRequestTemplates.append(try XcodeModelValues.fetchRequestTemplate(attributes))
        case ("configuration", "model"):
            configuration = (attributes["name"] ?? "", [])
        case ("memberEntity", "configuration"):
            if let member = attributes["name"] { configuration?.members.append(member) }
        default:
            break  // Unknown or ignored element.
        }
    }

    private func end(_ name: String) throws {
        let parent = stack.count >= 2 ? stack[stack.count - 2] : nil
        switch (name, parent) {
        case ("attribute", "entity"), ("relationship", "entity"):
            guard let pending = property else { return }
            property = nil
            let entityName = entity?.name ?? ""
            if pending.isRelationship {
                entity?.relationships.append(
                    try XcodeModelValues.relationship(pending.xmlAttributes, userInfo: pending.userInfo, entity: entityName))
            } else {
                entity?.attributes.append(
                    try XcodeModelValues.attribute(pending.xmlAttributes, userInfo: pending.userInfo, entity: entityName))
            }
        case ("uniquenessConstraint", "uniquenessConstraints"):
            if let c = constraint, !c.isEmpty { entity?.uniquenessConstraints.append(c) }
            constraint = nil
        case ("fetchIndex", "entity"):
            if let index = fetchIndex { entity?.fetchIndexes.append(index) }
            fetchIndex = nil
        case ("compoundIndex", "compoundIndexes"):
            if let elements = compoundIndex, !elements.isEmpty, entity != nil {
                entity?.compoundIndexCount += 1
                let number = entity?.compoundIndexCount ?? 1
                entity?.fetchIndexes.append(FetchIndexDescription(name: "compoundIndex\(number)", elements: elements))
            }
            compoundIndex = nil
        case ("entity", "model"):
            guard let pending = entity else { return }
            entity = nil
            document.entities.append(try XcodeModelValues.entity(pending.xmlAttributes, pending.parts))
        case ("configuration", "model"):
            if let (name, members) = configuration {
                document.configurations[name, default: []].append(contentsOf: members)
            }
            configuration = nil
        default:
            break
        }
    }
}
