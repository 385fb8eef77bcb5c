import CoreStackModel

/// A private-queue root context on a coordinator of `model` with `store` added.
func storeContext(_ model: ManagedObjectModel, _ store: any PersistentStore, name: String) throws -> ManagedObjectContext {
    let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
    try coordinator.addPersistentStore(store)
    return ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator, name: name)
}
