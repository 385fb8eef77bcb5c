import CoreStack

/// Foundation has a `Predicate` too; inside this test module the name means CoreStack's.
typealias Predicate = CoreStack.Predicate
