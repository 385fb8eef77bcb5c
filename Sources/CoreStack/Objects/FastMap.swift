#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A key of a ``FastMap``: equatable, with a cheap, well-mixed 64-bit hash.
protocol FastHashKey: Equatable {
    var fastHash: UInt64 { get }
}

extension ManagedObjectID: FastHashKey {}

/// A hash map with open addressing and linear probing, hashed with the key's own cheap mix
/// (``FastHashKey/fastHash``) instead of `Hasher`.
///
/// ``PrimaryKeyTable`` finds its pages in one (contexts and the row cache once kept every object
/// in one: with 100,000 objects, `Dictionary`'s SipHash and its resizes were a third of a fetch;
/// pages by primary key now do better still). Each bucket holds its hash, key and value side by side (one cache line touched per probe,
/// which matters once the table outgrows the caches), and probing compares the stored 64-bit hashes
/// first, so a key is compared only on a likely hit.
///
/// ```swift
/// var map = FastMap<ManagedObjectID, Int>()
/// map[id] = 1
/// map[id]            // 1
/// map[id] = nil      // removes
/// ```
struct FastMap<Key: FastHashKey, Value>: Sequence {
    private var storage: FastMapStorage<Key, Value>?

    init() {}

    init(minimumCapacity: Int) {
        reserveCapacity(minimumCapacity)
    }

    /// Number of entries.
    var count: Int { storage?.count ?? 0 }
    var isEmpty: Bool { count == 0 }

    @inline(__always)
    private static func hash(_ key: Key) -> UInt64 { key.fastHash | (1 << 63) }

    subscript(key: Key) -> Value? {
        get {
            guard let storage, let i = storage.find(key, hash: Self.hash(key)) else { return nil }
            return storage.value(at: i)
        }
        set {
            if let newValue { updateValue(newValue, forKey: key) } else { removeValue(forKey: key) }
        }
    }

    /// Whether the map holds `key`.
    func contains(_ key: Key) -> Bool { storage?.find(key, hash: Self.hash(key)) != nil }

    /// Storage this value alone owns, with room for one more entry.
    private mutating func uniqueStorage(forAdding extra: Int) -> FastMapStorage<Key, Value> {
        let needed = count + extra
        // Checked before binding the storage to a name (a binding is a second reference).
        let unique = isKnownUniquelyReferenced(&storage)
        if unique, let s = storage, needed * 4 <= s.capacity * 3 { return s }
        var n = Swift.max(16, storage?.capacity ?? 16)
        while n * 3 < needed * 4 { n *= 2 }
        let fresh = FastMapStorage<Key, Value>(capacity: n)
        if let old = storage {
            if unique { old.moveAll(into: fresh) } else { old.copyAll(into: fresh) }
        }
        storage = fresh
        return fresh
    }

    /// Sets the value of `key`, returning the old one.
    @discardableResult
    mutating func updateValue(_ value: Value, forKey key: Key) -> Value? {
        let h = Self.hash(key)
        let s = uniqueStorage(forAdding: 1)
        if let i = s.find(key, hash: h) { return s.replaceValue(at: i, with: value) }
        s.insertNew(key, value, hash: h)
        return nil
    }

    /// The value of `key`, or the one `make` creates, inserted.
    ///
    /// `make` runs before the map's storage is made unique or probed for a free bucket, and the
    /// storage takes no closure, so nothing outside the map runs while a probe position is held:
    /// a `make` that reaches the same storage (through a copy of the map) cannot leave it with a
    /// stale bucket. (`make` cannot reach this very variable: that is an overlapping access to a
    /// value, which Swift's exclusivity checks trap.) If the storage gained `key` meanwhile, that
    /// value stays and is returned. A miss costs two probes, one before `make` and one after.
    @inline(__always)
    mutating func value(forKey key: Key, orInsert make: () throws -> Value) rethrows -> Value {
        let h = Self.hash(key)
        if let storage, let i = storage.find(key, hash: h) { return storage.value(at: i) }
        let made = try make()
        return uniqueStorage(forAdding: 1).findOrInsert(key, hash: h, made)
    }

    /// Inserts `value` for a `key` the caller knows is absent (one probe fewer than
    /// ``updateValue(_:forKey:)``).
    mutating func insertNew(_ value: Value, forAbsentKey key: Key) {
        let h = Self.hash(key)
        uniqueStorage(forAdding: 1).insertNew(key, value, hash: h)
    }

    /// Removes `key`, returning its value.
    @discardableResult
    mutating func removeValue(forKey key: Key) -> Value? {
        let h = Self.hash(key)
        guard contains(key) else { return nil }
        let s = uniqueStorage(forAdding: 0)
        guard let i = s.find(key, hash: h) else { return nil }
        return s.remove(at: i)
    }

    /// Makes room for `capacity` entries without growing again.
    mutating func reserveCapacity(_ capacity: Int) {
        _ = uniqueStorage(forAdding: Swift.max(0, capacity - count))
    }

    /// Removes every entry (and frees the storage).
    mutating func removeAll() { storage = nil }

    /// The values, in bucket order.
    var values: [Value] {
        var out: [Value] = []
        out.reserveCapacity(count)
        storage?.forEach { _, v in out.append(v) }
        return out
    }

    struct Iterator: IteratorProtocol {
        let storage: FastMapStorage<Key, Value>?
        var i = 0

        mutating func next() -> (key: Key, value: Value)? {
            guard let storage else { return nil }
            while i < storage.capacity {
                defer { i += 1 }
                if let entry = storage.entry(at: i) { return entry }
            }
            return nil
        }
    }

    /// Iterates a snapshot: the map may change meanwhile (it copies its storage first).
    func makeIterator() -> Iterator { Iterator(storage: storage) }
}

extension FastMap: @unchecked Sendable where Key: Sendable, Value: Sendable {}

/// The buckets of a ``FastMap``: one allocation of `(hash, key, value)` entries; a bucket whose
/// hash is 0 is empty and its key and value are uninitialised.
final class FastMapStorage<Key: FastHashKey, Value> {
    private struct Entry {
        var hash: UInt64
        var key: Key
        var value: Value
    }

    let capacity: Int
    private(set) var count = 0
    private let entries: UnsafeMutablePointer<Entry>
    private let mask: Int
    /// Whether `entries` came from `calloc` (released with `free`) or from Swift's allocator
    /// (released with `deallocate`): each allocator must get its own memory back.
    private let fromCalloc: Bool

    init(capacity: Int) {
        self.capacity = capacity
        mask = capacity - 1
        // Zeroed memory: every bucket starts empty (hash 0). A big table comes straight from the
        // kernel already zeroed, so it is not written twice (and faulted in) before it is used.
        let stride = MemoryLayout<Entry>.stride
        if let zeroed = calloc(capacity, stride) {
            entries = zeroed.bindMemory(to: Entry.self, capacity: capacity)
            fromCalloc = true
        } else {
            entries = .allocate(capacity: capacity)
            fromCalloc = false
            let raw = UnsafeMutableRawPointer(entries)
            for i in 0..<capacity { raw.storeBytes(of: UInt64(0), toByteOffset: i * stride, as: UInt64.self) }
        }
        assert(MemoryLayout<Entry>.alignment <= 16, "calloc aligns to 16 bytes")
    }

    deinit {
        for i in 0..<capacity where hashAt(i) != 0 { (entries + i).deinitialize(count: 1) }
        if fromCalloc { free(entries) } else { entries.deallocate() }
    }

    @inline(__always)
    private func hashAt(_ i: Int) -> UInt64 {
        UnsafeRawPointer(entries).load(fromByteOffset: i * MemoryLayout<Entry>.stride, as: UInt64.self)
    }

    @inline(__always)
    func find(_ key: Key, hash h: UInt64) -> Int? {
        var i = Int(truncatingIfNeeded: h) & mask
        while true {
            let stored = hashAt(i)
            if stored == 0 { return nil }
            if stored == h && entries[i].key == key { return i }
            i = (i + 1) & mask
        }
    }

    @inline(__always)
    func value(at i: Int) -> Value { entries[i].value }

    func entry(at i: Int) -> (key: Key, value: Value)? {
        hashAt(i) == 0 ? nil : (entries[i].key, entries[i].value)
    }

    func replaceValue(at i: Int, with value: Value) -> Value {
        let old = entries[i].value
        entries[i].value = value
        return old
    }

    /// The value of `key`, or `value`, inserted where the probe ended; the caller made room.
    /// (No closure: nothing outside this storage runs while a probe position is held.)
    @inline(__always)
    func findOrInsert(_ key: Key, hash h: UInt64, _ value: Value) -> Value {
        var i = Int(truncatingIfNeeded: h) & mask
        while true {
            let stored = hashAt(i)
            if stored == 0 { break }
            if stored == h && entries[i].key == key { return entries[i].value }
            i = (i + 1) & mask
        }
        (entries + i).initialize(to: Entry(hash: h, key: key, value: value))
        count += 1
        return value
    }

    /// Inserts a key known to be absent; the caller made room.
    func insertNew(_ key: Key, _ value: Value, hash h: UInt64) {
        var i = Int(truncatingIfNeeded: h) & mask
        while hashAt(i) != 0 { i = (i + 1) & mask }
        (entries + i).initialize(to: Entry(hash: h, key: key, value: value))
        count += 1
    }

    /// Removes bucket `i`; later entries of its probe run shift back (no tombstones).
    func remove(at bucket: Int) -> Value {
        let old = (entries + bucket).move().value
        var hole = bucket
        var i = (hole + 1) & mask
        while hashAt(i) != 0 {
            let home = Int(truncatingIfNeeded: hashAt(i)) & mask
            // Entry i may move into the hole unless its home lies cyclically in (hole, i].
            let stays = hole <= i ? (home > hole && home <= i) : (home > hole || home <= i)
            if !stays {
                (entries + hole).moveInitialize(from: entries + i, count: 1)
                hole = i
            }
            i = (i + 1) & mask
        }
        UnsafeMutableRawPointer(entries).storeBytes(of: UInt64(0), toByteOffset: hole * MemoryLayout<Entry>.stride, as: UInt64.self)
        count -= 1
        return old
    }

    /// Moves every entry into `other` (which must have room), leaving this storage empty.
    func moveAll(into other: FastMapStorage) {
        for i in 0..<capacity where hashAt(i) != 0 {
            let e = (entries + i).move()
            UnsafeMutableRawPointer(entries).storeBytes(of: UInt64(0), toByteOffset: i * MemoryLayout<Entry>.stride, as: UInt64.self)
            other.insertNew(e.key, e.value, hash: e.hash)
        }
        count = 0
    }

    /// Copies every entry into `other` (which must have room).
    func copyAll(into other: FastMapStorage) {
        for i in 0..<capacity where hashAt(i) != 0 {
            other.insertNew(entries[i].key, entries[i].value, hash: entries[i].hash)
        }
    }

    func forEach(_ body: (Key, Value) -> Void) {
        for i in 0..<capacity where hashAt(i) != 0 { body(entries[i].key, entries[i].value) }
    }
}
