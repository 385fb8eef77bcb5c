/// A key of a ``FastMap``: equatable, with a cheap, well-mixed 64-bit hash.
protocol FastHashKey: Equatable {
    var fastHash: UInt64 { get }
}

extension ManagedObjectID: FastHashKey {}

extension ObjectIdentifier: FastHashKey {
    /// The address, mixed (a multiply and two xor-shifts).
    @inline(__always)
    var fastHash: UInt64 {
        var h = UInt64(UInt(bitPattern: self)) &* 0x9E37_79B9_7F4A_7C15
        h ^= h &>> 31
        h = h &* 0xBF58_476D_1CE4_E5B9
        return h ^ (h &>> 29)
    }
}

/// A hash map keyed by ``ManagedObjectID``.
typealias ObjectIDMap<Value> = FastMap<ManagedObjectID, Value>

/// A hash map with open addressing and linear probing, hashed with the key's own cheap mix
/// (``FastHashKey/fastHash``) instead of `Hasher`.
///
/// Contexts register every object they hold in one of these and the coordinator keeps its row
/// cache in one: with 100,000 objects, `Dictionary`'s SipHash and its resizes were a third of a
/// fetch. Probing compares the stored 64-bit hashes first, so a key is read only on a likely hit.
///
/// ```swift
/// var map = ObjectIDMap<Int>()
/// map[id] = 1
/// map[id]            // 1
/// map[id] = nil      // removes
/// ```
struct FastMap<Key: FastHashKey, Value>: Sequence {
    /// Stored hashes; 0 marks an empty bucket (real hashes have their top bit set).
    private var hashes: ContiguousArray<UInt64> = []
    private var keys: ContiguousArray<Key?> = []
    private var storedValues: ContiguousArray<Value?> = []
    /// Number of entries.
    private(set) var count = 0

    init() {}

    init(minimumCapacity: Int) {
        reserveCapacity(minimumCapacity)
    }

    var isEmpty: Bool { count == 0 }

    @inline(__always)
    private static func hash(_ key: Key) -> UInt64 { key.fastHash | (1 << 63) }

    /// The bucket holding `key`, or nil.
    @inline(__always)
    private func find(_ key: Key, hash h: UInt64) -> Int? {
        let n = hashes.count
        if n == 0 { return nil }
        let mask = n - 1
        var i = Int(truncatingIfNeeded: h) & mask
        while true {
            let stored = hashes[i]
            if stored == 0 { return nil }
            if stored == h, keys[i] == key { return i }
            i = (i + 1) & mask
        }
    }

    subscript(key: Key) -> Value? {
        get {
            guard let i = find(key, hash: Self.hash(key)) else { return nil }
            return storedValues[i]
        }
        set {
            if let newValue { updateValue(newValue, forKey: key) } else { removeValue(forKey: key) }
        }
    }

    /// Whether the map holds `key`.
    func contains(_ key: Key) -> Bool { find(key, hash: Self.hash(key)) != nil }

    /// Sets the value of `key`, returning the old one.
    @discardableResult
    mutating func updateValue(_ value: Value, forKey key: Key) -> Value? {
        let h = Self.hash(key)
        if let i = find(key, hash: h) {
            let old = storedValues[i]
            storedValues[i] = value
            return old
        }
        insertNew(key, value, hash: h)
        return nil
    }

    /// The value of `key`, inserting `make()` first when there is none; one probe either way.
    mutating func value(forKey key: Key, orInsert make: () -> Value) -> Value {
        let h = Self.hash(key)
        if let i = find(key, hash: h), let v = storedValues[i] { return v }
        let v = make()
        insertNew(key, v, hash: h)
        return v
    }

    private mutating func insertNew(_ key: Key, _ value: Value, hash h: UInt64) {
        if (count + 1) * 4 > hashes.count * 3 { resize(to: Swift.max(16, hashes.count * 2)) }
        let mask = hashes.count - 1
        var i = Int(truncatingIfNeeded: h) & mask
        while hashes[i] != 0 { i = (i + 1) & mask }
        hashes[i] = h
        keys[i] = key
        storedValues[i] = value
        count += 1
    }

    /// Removes `key`, returning its value. Later entries of the probe run shift back (no tombstones).
    @discardableResult
    mutating func removeValue(forKey key: Key) -> Value? {
        guard var hole = find(key, hash: Self.hash(key)) else { return nil }
        let old = storedValues[hole]
        let mask = hashes.count - 1
        var i = (hole + 1) & mask
        while hashes[i] != 0 {
            let home = Int(truncatingIfNeeded: hashes[i]) & mask
            // Move entry i into the hole if its home is not in (hole, i] cyclically.
            let inRange = hole <= i ? (home > hole && home <= i) : (home > hole || home <= i)
            if !inRange {
                hashes[hole] = hashes[i]
                keys[hole] = keys[i]
                storedValues[hole] = storedValues[i]
                hole = i
            }
            i = (i + 1) & mask
        }
        hashes[hole] = 0
        keys[hole] = nil
        storedValues[hole] = nil
        count -= 1
        return old
    }

    /// Makes room for `capacity` entries without growing again.
    mutating func reserveCapacity(_ capacity: Int) {
        var n = 16
        while n * 3 < capacity * 4 { n *= 2 }
        if n > hashes.count { resize(to: n) }
    }

    private mutating func resize(to n: Int) {
        let oldHashes = hashes
        let oldKeys = keys
        let oldValues = storedValues
        hashes = ContiguousArray(repeating: 0, count: n)
        keys = ContiguousArray(repeating: nil, count: n)
        storedValues = ContiguousArray(repeating: nil, count: n)
        let mask = n - 1
        for j in oldHashes.indices where oldHashes[j] != 0 {
            var i = Int(truncatingIfNeeded: oldHashes[j]) & mask
            while hashes[i] != 0 { i = (i + 1) & mask }
            hashes[i] = oldHashes[j]
            keys[i] = oldKeys[j]
            storedValues[i] = oldValues[j]
        }
    }

    /// Removes every entry (and frees the storage).
    mutating func removeAll() {
        hashes = []
        keys = []
        storedValues = []
        count = 0
    }

    /// The values, in bucket order.
    var values: [Value] {
        var out: [Value] = []
        out.reserveCapacity(count)
        for v in storedValues { if let v { out.append(v) } }
        return out
    }

    /// The keys, in bucket order.
    var keysArray: [Key] {
        var out: [Key] = []
        out.reserveCapacity(count)
        for k in keys { if let k { out.append(k) } }
        return out
    }

    struct Iterator: IteratorProtocol {
        let map: FastMap
        var i = 0

        mutating func next() -> (key: Key, value: Value)? {
            while i < map.hashes.count {
                defer { i += 1 }
                if map.hashes[i] != 0, let k = map.keys[i], let v = map.storedValues[i] { return (k, v) }
            }
            return nil
        }
    }

    func makeIterator() -> Iterator { Iterator(map: self) }
}

extension FastMap: Sendable where Key: Sendable, Value: Sendable {}
