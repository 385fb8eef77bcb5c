/// The objects a context holds under temporary IDs, in pages indexed by the IDs' counter values.
///
/// Temporary IDs come from one process-wide counter (``TemporaryIDSource``), so a context's
/// inserts have nearly consecutive keys: a page of 1,024 slots per run of keys needs no hashing
/// and never rehashes as it grows. The page being filled is kept out of the dictionary, so an
/// insert touches only that page.
///
/// ```swift
/// var table = TemporaryObjectTable()
/// table[object.objectID] = object
/// table[object.objectID]     // object
/// ```
struct TemporaryObjectTable {
    private static let pageShift: Int64 = 10
    private static let pageSize = 1 << 10

    private var pages: [Int64: [ManagedObject?]] = [:]
    /// The page last written, kept out of `pages`.
    private var hotNumber: Int64 = .min
    private var hot: [ManagedObject?] = []
    /// Number of objects.
    private(set) var count = 0

    @inline(__always)
    private static func split(_ key: Int64) -> (page: Int64, slot: Int) {
        (key >> pageShift, Int(truncatingIfNeeded: key & Int64(pageSize - 1)))
    }

    subscript(id: ManagedObjectID) -> ManagedObject? {
        get {
            let (n, i) = Self.split(id.rawKey)
            let o = n == hotNumber ? hot[i] : pages[n]?[i]
            // Keys are unique across entities (one counter); the check refuses a forged ID.
            guard let o, o.objectID == id else { return nil }
            return o
        }
        set {
            let (n, i) = Self.split(id.rawKey)
            if let newValue {
                if n != hotNumber { makeHot(n) }
                if hot[i] == nil { count += 1 }
                hot[i] = newValue
            } else if n == hotNumber {
                if hot[i] != nil {
                    hot[i] = nil
                    count -= 1
                }
            } else if pages[n]?[i] != nil {
                pages[n]?[i] = nil
                count -= 1
            }
            if count == 0 { removeAll() }
        }
    }

    /// Whether `object` is the one registered under `id` (no object retained for the check).
    func holds(_ object: ManagedObject, for id: ManagedObjectID) -> Bool {
        let (n, i) = Self.split(id.rawKey)
        if n == hotNumber { return hot[i] === object && object.objectID == id }
        return pages[n]?[i] === object && object.objectID == id
    }

    private mutating func makeHot(_ n: Int64) {
        if hotNumber != .min { pages[hotNumber] = hot }
        hot = pages.removeValue(forKey: n) ?? [ManagedObject?](repeating: nil, count: Self.pageSize)
        hotNumber = n
    }

    /// Every object.
    var values: [ManagedObject] {
        var out: [ManagedObject] = []
        out.reserveCapacity(count)
        for o in hot { if let o { out.append(o) } }
        for page in pages.values { for o in page { if let o { out.append(o) } } }
        return out
    }

    /// Forgets every object.
    mutating func removeAll() {
        pages = [:]
        hot = []
        hotNumber = .min
        count = 0
    }
}
