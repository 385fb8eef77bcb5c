import Foundation

/// Writes models as the files Xcode reads: the `contents` XML of a `.xcdatamodel` version, and
/// whole `.xcdatamodeld` bundles (a version folder per model and `.xccurrentversion`).
///
/// What ``XcodeModelReader`` reads, this writes: entities (parent, abstract, class name, renaming
/// identifier, version hash modifier, user info), attributes (type, optional, transient, indexed,
/// default, minimum and maximum, regular expression, value transformer, external storage, preserve
/// after deletion), relationships (destination, inverse, to-many, ordered, counts, delete rule),
/// uniqueness constraints, fetch indexes, fetch request templates, configurations and the version
/// identifier. Reading the written bundle back gives the same model, with the same entity version
/// hashes. Entities are written in name order, as Xcode writes them; properties in the model's order.
///
/// Not written, because the model does not hold them or the format cannot say them: the diagram
/// layout (Xcode lays the entities out when it opens the file), code generation settings (Xcode's
/// default, Manual/None), default values of Binary Data and Transformable attributes, a version's
/// identifiers after the first, and control characters other than tab, newline and return in text.
///
/// ```swift
/// if let model = try SQLiteStore.storedModel(at: URL(fileURLWithPath: "App.sqlite")) {
///     let bundle = try XcodeModelWriter.writeBundle(model, to: URL(fileURLWithPath: "App.xcdatamodeld"))
///     // App.xcdatamodeld/App.xcdatamodel/contents and App.xcdatamodeld/.xccurrentversion
///     try XcodeModelReader.readModel(at: bundle).entityVersionHashes == model.entityVersionHashes // true
/// }
/// ```
public enum XcodeModelWriter {
    /// The `contents` XML of one model version, as UTF-8.
    ///
    /// ```swift
    /// let xml = String(decoding: XcodeModelWriter.contents(of: model), as: UTF8.self)
    /// // <?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<model type="com.apple.IDECoreDataModeler.DataModel" …
    /// ```
    public static func contents(of model: ManagedObjectModel) -> Data {
        var lines = [#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>"#]
        lines.append(
            "<model" + attributes([
                ("type", "com.apple.IDECoreDataModeler.DataModel"), ("documentVersion", "1.0"),
                ("minimumToolsVersion", "Automatic"), ("sourceLanguage", "Swift"),
                ("userDefinedModelVersionIdentifier", model.versionIdentifiers.first ?? ""),
            ]) + ">")
        for entity in model.entities.sorted(by: { $0.name < $1.name }) {
            lines += entityLines(entity)
        }
        for template in model.fetchRequestTemplates.values.sorted(by: { $0.name < $1.name }) {
            var fields = [("name", template.name), ("entity", template.entityName)]
            if let p = template.predicateString { fields.append(("predicateString", p)) }
            if let n = template.fetchLimit { fields.append(("fetchLimit", String(n))) }
            if let n = template.fetchBatchSize { fields.append(("fetchBatchSize", String(n))) }
            if !template.includesSubentities { fields.append(("includeSubentities", "NO")) }
            if !template.returnsObjectsAsFaults { fields.append(("returnObjectsAsFaults", "NO")) }
            lines.append("    <fetchRequest" + attributes(fields) + "/>")
        }
        for (name, members) in model.configurations.sorted(by: { $0.key < $1.key }) {
            lines.append("    <configuration" + attributes([("name", name)]) + ">")
            for member in members { lines.append("        <memberEntity" + attributes([("name", member)]) + "/>") }
            lines.append("    </configuration>")
        }
        lines.append("</model>")
        return Data((lines.joined(separator: "\n") + "\n").utf8)
    }

    /// Writes `model` as a new `.xcdatamodeld` bundle at `url` with one version, which is current.
    /// The version folder is named after the model's version name, else after the bundle. Returns
    /// `url`.
    ///
    /// ```swift
    /// try XcodeModelWriter.writeBundle(model, to: URL(fileURLWithPath: "/tmp/Recovered.xcdatamodeld"))
    /// // /tmp/Recovered.xcdatamodeld/Recovered.xcdatamodel/contents
    /// ```
    /// - Throws: ``CoreStackError/modelNotWritten(path:reason:)`` when `url` does not end in
    ///   `.xcdatamodeld`, something is already there, or a file cannot be written (nothing is left
    ///   half-written).
    @discardableResult
    public static func writeBundle(_ model: ManagedObjectModel, to url: URL) throws -> URL {
        let name = url.deletingPathExtension().lastPathComponent
        try writeBundle(ManagedObjectModelBundle(name: name, versions: [model], currentVersion: model), to: url)
        return url
    }

    /// Writes every version of `bundle` as a new `.xcdatamodeld` bundle at `url`, with
    /// `.xccurrentversion` naming the current one. Versions without a name are named after the
    /// bundle (`Name`, `Name 2`, …); two versions may not share a name.
    ///
    /// ```swift
    /// let bundle = try XcodeModelReader.readBundle(at: URL(fileURLWithPath: "Library.xcdatamodeld"))
    /// try XcodeModelWriter.writeBundle(bundle, to: URL(fileURLWithPath: "/tmp/Copy.xcdatamodeld"))
    /// ```
    /// - Throws: ``CoreStackError/modelNotWritten(path:reason:)``.
    public static func writeBundle(_ bundle: ManagedObjectModelBundle, to url: URL) throws {
        let path = url.path
        guard url.pathExtension == "xcdatamodeld" else {
            throw CoreStackError.modelNotWritten(path: path, reason: "a model bundle's name must end in .xcdatamodeld")
        }
        let fm = FileManager.default
        // `fileExists` follows links: a dangling symbolic link is there too.
        if fm.fileExists(atPath: path) || (try? fm.destinationOfSymbolicLink(atPath: path)) != nil {
            throw CoreStackError.modelNotWritten(path: path, reason: "it already exists; choose another path or remove it first")
        }
        let names = versionFolderNames(bundle, fallback: url.deletingPathExtension().lastPathComponent)
        guard Set(names).count == names.count else {
            throw CoreStackError.modelNotWritten(path: path, reason: "two versions have the same name")
        }
        if let bad = names.first(where: { $0.isEmpty || $0.contains("/") || $0.hasPrefix(".") }) {
            throw CoreStackError.modelNotWritten(path: path, reason: "\"\(bad)\" cannot name a version folder")
        }
        let currentIndex = bundle.versions.firstIndex { $0 === bundle.currentVersion } ?? (bundle.versions.count - 1)
        guard currentIndex >= 0 else {
            throw CoreStackError.modelNotWritten(path: path, reason: "the bundle has no version")
        }
        do {
            try fm.createDirectory(at: url, withIntermediateDirectories: false)
        } catch {
            throw CoreStackError.modelNotWritten(path: path, reason: describe(error))
        }
        do {
            for (model, name) in zip(bundle.versions, names) {
                let folder = url.appendingPathComponent(name + ".xcdatamodel", isDirectory: true)
                try fm.createDirectory(at: folder, withIntermediateDirectories: false)
                try contents(of: model).write(to: folder.appendingPathComponent("contents"), options: .withoutOverwriting)
            }
            try currentVersionPlist(names[currentIndex] + ".xcdatamodel")
                .write(to: url.appendingPathComponent(".xccurrentversion"), options: .withoutOverwriting)
        } catch {
            try? fm.removeItem(at: url)
            throw CoreStackError.modelNotWritten(path: path, reason: describe(error))
        }
    }

    // MARK: - Entities

    private static func entityLines(_ e: EntityDescription) -> [String] {
        var fields = [("name", e.name)]
        if let c = e.representedClassName { fields.append(("representedClassName", c)) }
        if let p = e.superentityName { fields.append(("parentEntity", p)) }
        if e.isAbstract { fields.append(("isAbstract", "YES")) }
        if let id = e.renamingIdentifier { fields.append(("elementID", id)) }
        if let m = e.versionHashModifier { fields.append(("versionHashModifier", m)) }
        fields.append(("syncable", "YES"))
        var body: [String] = []
        for a in e.attributes { body += property("attribute", attributeFields(a), userInfo: a.userInfo) }
        for r in e.relationships { body += property("relationship", relationshipFields(r), userInfo: r.userInfo) }
        for index in e.fetchIndexes {
            body.append("<fetchIndex" + attributes([("name", index.name)]) + ">")
            for element in index.elements {
                body.append(
                    "    <fetchIndexElement" + attributes([
                        ("property", element.property), ("type", "Binary"),
                        ("order", element.ascending ? "ascending" : "descending"),
                    ]) + "/>")
            }
            body.append("</fetchIndex>")
        }
        if !e.uniquenessConstraints.isEmpty {
            body.append("<uniquenessConstraints>")
            for constraint in e.uniquenessConstraints {
                body.append("    <uniquenessConstraint>")
                for key in constraint { body.append("        <constraint" + attributes([("value", key)]) + "/>") }
                body.append("    </uniquenessConstraint>")
            }
            body.append("</uniquenessConstraints>")
        }
        body += userInfoLines(e.userInfo)
        let open = "    <entity" + attributes(fields)
        guard !body.isEmpty else { return [open + "/>"] }
        return [open + ">"] + body.map { "        " + $0 } + ["    </entity>"]
    }

    /// An `<attribute>` or `<relationship>` element, with its `<userInfo>` when it has one.
    private static func property(_ element: String, _ fields: [(String, String)], userInfo: [String: String]) -> [String] {
        let open = "<\(element)" + attributes(fields)
        let info = userInfoLines(userInfo)
        guard !info.isEmpty else { return [open + "/>"] }
        return [open + ">"] + info.map { "    " + $0 } + ["</\(element)>"]
    }

    private static func userInfoLines(_ userInfo: [String: String]) -> [String] {
        guard !userInfo.isEmpty else { return [] }
        return ["<userInfo>"]
            + userInfo.sorted { $0.key < $1.key }.map { "    <entry" + attributes([("key", $0.key), ("value", $0.value)]) + "/>" }
            + ["</userInfo>"]
    }

    private static func attributeFields(_ a: AttributeDescription) -> [(String, String)] {
        var fields = [("name", a.name)]
        if a.isOptional { fields.append(("optional", "YES")) }
        if a.isTransient { fields.append(("transient", "YES")) }
        if a.isIndexed { fields.append(("indexed", "YES")) }
        fields.append(("attributeType", a.type.xcodeName))
        if let t = a.valueTransformerName { fields.append(("valueTransformerName", t)) }
        if let min = a.minValue { fields += bound(min, a.type, dateKey: "minDateTimeInterval", key: "minValueString") }
        if let max = a.maxValue { fields += bound(max, a.type, dateKey: "maxDateTimeInterval", key: "maxValueString") }
        if a.type == .date, case let .date(d) = a.defaultValue {
            fields.append(("defaultDateTimeInterval", number(d.timeIntervalSinceReferenceDate)))
        } else if a.type != .binaryData, a.type != .transformable, let text = text(a.defaultValue) {
            fields.append(("defaultValueString", text))
        }
        if let r = a.regularExpression { fields.append(("regularExpressionString", r)) }
        if a.allowsExternalBinaryDataStorage { fields.append(("allowsExternalBinaryDataStorage", "YES")) }
        if a.preservesValueInHistoryOnDeletion { fields.append(("preserveAfterDeletion", "YES")) }
        if let id = a.renamingIdentifier { fields.append(("elementID", id)) }
        if let m = a.versionHashModifier { fields.append(("versionHashModifier", m)) }
        return fields
    }

    private static func relationshipFields(_ r: RelationshipDescription) -> [(String, String)] {
        var fields = [("name", r.name)]
        if r.isOptional { fields.append(("optional", "YES")) }
        if r.isTransient { fields.append(("transient", "YES")) }
        if r.isToMany { fields.append(("toMany", "YES")) }
        if r.isOrdered { fields.append(("ordered", "YES")) }
        if r.minCount > 0 { fields.append(("minCount", String(r.minCount))) }
        if !r.isToMany || r.maxCount > 0 { fields.append(("maxCount", String(r.isToMany ? r.maxCount : 1))) }
        fields.append(("deletionRule", r.deleteRule.rawValue))
        fields.append(("destinationEntity", r.destinationEntityName))
        if let inverse = r.inverseName {
            fields += [("inverseName", inverse), ("inverseEntity", r.destinationEntityName)]
        }
        if let id = r.renamingIdentifier { fields.append(("elementID", id)) }
        if let m = r.versionHashModifier { fields.append(("versionHashModifier", m)) }
        return fields
    }

    /// A minimum or maximum: seconds since 2001 for dates, a value for numbers, a length otherwise.
    private static func bound(_ value: AttributeValue, _ type: AttributeType, dateKey: String, key: String) -> [(String, String)] {
        if type == .date, case let .date(d) = value {
            return [(dateKey, number(d.timeIntervalSinceReferenceDate))]
        }
        return text(value).map { [(key, $0)] } ?? []
    }

    /// A value as Xcode writes it in `defaultValueString`; nil for nothing, data and values that
    /// have no text form (infinities, NaN).
    private static func text(_ value: AttributeValue) -> String? {
        switch value {
        case .null, .data: nil
        case let .integer(i): String(i)
        case let .double(d): d.isFinite ? number(d) : nil
        case let .string(s): s
        case let .bool(b): b ? "YES" : "NO"
        case let .date(d): number(d.timeIntervalSinceReferenceDate)
        case let .uuid(u): u.uuidString
        case let .decimal(d): d.isNaN ? nil : "\(d)"
        case let .url(u): u.absoluteString
        }
    }

    /// A double in its shortest form that reads back to the same value (`0.5`, `1e+20`, `-3.0`).
    private static func number(_ d: Double) -> String { "\(d)" }

    // MARK: - XML

    /// ` key="value"` for each field, values escaped.
    private static func attributes(_ fields: [(String, String)]) -> String {
        fields.map { " \($0.0)=\"\(escaped($0.1))\"" }.joined()
    }

    /// Text for an XML attribute value: markup characters as entities; tab, newline and return as
    /// character references (the parser would turn them into spaces); other control characters,
    /// which XML 1.0 cannot hold, left out.
    static func escaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "\t": out += "&#9;"
            case "\n": out += "&#10;"
            case "\r": out += "&#13;"
            case let c where c.value < 0x20 || c.value == 0xFFFE || c.value == 0xFFFF: continue
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// Version folder names: each version's name, else the bundle's (`Name`, `Name 2`, …).
    private static func versionFolderNames(_ bundle: ManagedObjectModelBundle, fallback: String) -> [String] {
        var unnamed = 0
        return bundle.versions.map { model in
            if let name = model.versionName, !name.isEmpty { return name }
            unnamed += 1
            return unnamed == 1 ? fallback : "\(fallback) \(unnamed)"
        }
    }

    /// The `.xccurrentversion` property list naming the current version folder.
    private static func currentVersionPlist(_ folderName: String) -> Data {
        let text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
            \t<key>_XCCurrentVersionName</key>
            \t<string>\(escaped(folderName))</string>
            </dict>
            </plist>

            """
        return Data(text.utf8)
    }

    private static func describe(_ error: Error) -> String {
        if let e = error as? CoreStackError { return e.description }
        return (error as NSError).localizedDescription
    }
}
