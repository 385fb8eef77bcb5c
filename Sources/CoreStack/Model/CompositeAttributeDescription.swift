import Foundation

/// A composite attribute of an entity (Core Data's `NSCompositeAttributeDescription`, attribute
/// type 2100): a named group of attributes that Core Data flattens into one column per element.
///
/// CoreStack reads it from a model cache and keeps it as metadata
/// (``EntityDescription/compositeAttributes``, shown by `stackscope info --schema`); the objects
/// of a store opened read-only show the flattened columns as raw attributes
/// (``AttributeDescription/rawColumn``).
///
/// ```swift
/// let place = model.entity(named: "Place")?.compositeAttributes.first
/// place?.elements.map(\.name)  // ["latitude", "longitude"]
/// ```
public struct CompositeAttributeDescription: Sendable, Hashable {
    /// The composite attribute's name.
    public var name: String
    /// Its elements, in the archive's order (nested composites are listed by their own elements).
    public var elements: [AttributeDescription]
    /// Free-form user info from the model file.
    public var userInfo: [String: String]

    /// A composite attribute named `name` made of `elements`.
    ///
    /// ```swift
    /// let location = CompositeAttributeDescription(name: "location", elements: [
    ///     AttributeDescription("latitude", .double), AttributeDescription("longitude", .double),
    /// ])
    /// ```
    public init(name: String, elements: [AttributeDescription], userInfo: [String: String] = [:]) {
        self.name = name
        self.elements = elements
        self.userInfo = userInfo
    }
}
