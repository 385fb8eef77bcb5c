import CoreStack
import Foundation

final class Recipe: ManagedObject {
    @Attribute("name") var name: String
    @Attribute("minutes") var minutes: Int64
    @Attribute("created") var created: Date?
}
