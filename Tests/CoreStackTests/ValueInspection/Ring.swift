import Foundation

/// An app's class whose objects can point at each other, for a real archive with a cycle.
final class Ring: NSObject, NSCoding {
    let name: String
    var next: Ring?

    init(name: String) { self.name = name }

    init?(coder: NSCoder) {
        name = coder.decodeObject(forKey: "name") as? String ?? ""
        next = coder.decodeObject(forKey: "next") as? Ring
    }

    func encode(with coder: NSCoder) {
        coder.encode(name as NSString, forKey: "name")
        coder.encode(next, forKey: "next")
    }
}
