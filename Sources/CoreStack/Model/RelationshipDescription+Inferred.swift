extension RelationshipDescription {
    /// The ``userInfo`` key that marks a to-many relationship schema inference added as the inverse of
    /// a to-one (a to-many whose inverse is a to-one has no column of its own, so its name is made
    /// up: the source entity's name in the plural). The value is the to-one, as `Entity.NAME`.
    ///
    /// ```swift
    /// let model = try SQLiteStore.inferredModel(at: url)
    /// model.entity(named: "RecipeType")?.relationship(named: "RECIPES")?.userInfo[RelationshipDescription.inferredInverseKey]
    /// // "Recipe.TYPE"
    /// ```
    public static let inferredInverseKey = "CoreStack.inferredInverseOf"

    /// Whether schema inference made this to-many up as the inverse of a to-one (its name is a guess;
    /// see ``inferredInverseKey``).
    ///
    /// ```swift
    /// if relationship.isInferredInverse { print("\(relationship.name) (inferred)") }
    /// ```
    public var isInferredInverse: Bool { userInfo[Self.inferredInverseKey] != nil }
}
