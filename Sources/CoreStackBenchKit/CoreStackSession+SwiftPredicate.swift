import CoreStack
import Foundation

extension CoreStackSession {
    /// Workload 6 written with a Swift `#Predicate` and a key-path sort descriptor: the request
    /// (and so the translation of the predicate and the key paths) is made anew for each fetch,
    /// the most it can cost; the SQL and the objects are workload 6's.
    func swiftPredicateFetch(threshold: Int64) throws -> Int64 {
        try context.performAndWait {
            var request = try FetchRequest<BenchItem>(
                entityName: "Item", predicate: #Predicate { $0.quantity < threshold },
                sortDescriptors: [try SortDescriptor(\BenchItem.name)])
            request.returnsObjectsAsFaults = false
            return RawSession.orderedFold(try context.fetch(request).map(\.fold))
        }
    }
}
