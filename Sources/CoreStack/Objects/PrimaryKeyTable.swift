/// Values by permanent object ID, in pages of 1,024 consecutive primary keys per entity.
///
/// A store numbers each entity tree's rows 1, 2, 3…, so the IDs a fetch or a save brings come in
/// long runs of consecutive keys. A page per run needs no hashing and never rehashes as it
/// grows, and a run fills its page in order: 100,000 rows touch 100 pages of adjacent slots
/// instead of scattering over a hash table four times their size. The page last used is kept
/// at hand (retained, like every page in use: a page stays alive while anything works on it,
/// even if the table drops it meanwhile), so a run of keys costs no page look-up. The
/// coordinator's row cache and a context's registered objects live in these.
///
/// A reference type: copies share their pages, so the owner keeps it in a `let`.
///
/// ```swift
/// let table = PrimaryKeyTable<String>()
/// table[id] = "Dune"
/// table[id]          // "Dune"
/// table[id] = nil    // removes (a page that empties is freed)
/// ```
final class PrimaryKeyTable<Value> {
    static var pageShift: Int64 { 10 }
    static var pageSize: Int { 1 << 10 }

    /// The slots of one run of 1,024 keys.
    final class Page {
        let slots: UnsafeMutablePointer<Value?>
        var count = 0

        init() {
            slots = .allocate(capacity: PrimaryKeyTable.pageSize)
            slots.initialize(repeating: nil, count: PrimaryKeyTable.pageSize)
        }

        deinit {
            slots.deinitialize(count: PrimaryKeyTable.pageSize)
            slots.deallocate()
        }
    }

    private var pages = FastMap<PrimaryKeyPage, Page>()
    /// The page last used (also in `pages`), held strongly: code running on it keeps it alive.
    private var hotKey = PrimaryKeyPage.none
    private var hot: Page?
    /// Number of values.
    private(set) var count = 0

    init() {}

    @inline(__always)
    private static func locate(_ id: ManagedObjectID) -> (PrimaryKeyPage, Int) {
        (PrimaryKeyPage(id), Int(truncatingIfNeeded: id.rawKey & Int64(pageSize - 1)))
    }

    /// Runs `body` on the page of `key` if there is one (nil otherwise). The page is a strong
    /// reference for the whole call, so it outlives `body` even if the table drops it meanwhile.
    @inline(__always)
    private func withExistingPage<R>(_ key: PrimaryKeyPage, _ body: (Page) throws -> R) rethrows -> R? {
        if key == hotKey, let hot { return try body(hot) }
        guard let p = pages[key] else { return nil }
        hotKey = key
        hot = p
        return try body(p)
    }

    /// Runs `body` on the page of `key`, made if missing (a strong reference, as above).
    @inline(__always)
    private func withPage<R>(creating key: PrimaryKeyPage, _ body: (Page) throws -> R) rethrows -> R {
        if key == hotKey, let hot { return try body(hot) }
        let p: Page
        if let existing = pages[key] {
            p = existing
        } else {
            p = Page()
            pages.insertNew(p, forAbsentKey: key)
        }
        hotKey = key
        hot = p
        return try body(p)
    }

    subscript(id: ManagedObjectID) -> Value? {
        get {
            let (key, i) = Self.locate(id)
            return withExistingPage(key) { $0.slots[i] } ?? nil
        }
        set {
            if let newValue { setValue(newValue, forKey: id) } else { removeValue(forKey: id) }
        }
    }

    /// Sets the value of `id`.
    @inline(__always)
    func setValue(_ value: consuming Value, forKey id: ManagedObjectID) {
        let (key, i) = Self.locate(id)
        var moved: Value? = consume value
        let added = withPage(creating: key) { p in
            let old = (p.slots + i).move()
            // Moved in, not copied (a copy retains the value's parts).
            (p.slots + i).initialize(to: moved.take())
            if old == nil { p.count += 1 }
            return old == nil
        }
        if added { count += 1 }
    }

    /// Sets the value of `id` unless `keepOld` says to keep the value there, in one look-up.
    /// `keepOld` may update the value it keeps in place. Returns whether `value` was set.
    @inline(__always)
    func setValue(_ value: consuming Value, forKey id: ManagedObjectID, unless keepOld: (inout Value) -> Bool) -> Bool {
        let (key, i) = Self.locate(id)
        var moved: Value? = consume value
        let (set, added) = withPage(creating: key) { p -> (Bool, Bool) in
            // Moved out and back in, not copied: a copy would retain the value's parts.
            guard var old = (p.slots + i).move() else {
                (p.slots + i).initialize(to: moved.take())
                p.count += 1
                return (true, true)
            }
            if keepOld(&old) {
                (p.slots + i).initialize(to: old)
                return (false, false)
            }
            (p.slots + i).initialize(to: moved.take())
            return (true, false)
        }
        if added { count += 1 }
        return set
    }

    /// Sets the value of `id`, returning the old one.
    @discardableResult
    func updateValue(_ value: Value, forKey id: ManagedObjectID) -> Value? {
        let (key, i) = Self.locate(id)
        let old = withPage(creating: key) { p in
            let old = (p.slots + i).move()
            (p.slots + i).initialize(to: value)
            if old == nil { p.count += 1 }
            return old
        }
        if old == nil { count += 1 }
        return old
    }

    /// The value of `id`, or the one `make` creates, inserted.
    ///
    /// `make` (which may be user code: a context makes objects with their class's `init`) runs
    /// while no page is being worked on, so it may use the table: if it stored a value for `id`
    /// itself, that value stays and is returned.
    @inline(__always)
    func value(forKey id: ManagedObjectID, orInsert make: () throws -> Value) rethrows -> Value {
        let (key, i) = Self.locate(id)
        if let v = withExistingPage(key, { $0.slots[i] }) ?? nil { return v }
        let made = try make()
        var added = false
        let v = withPage(creating: key) { p in
            if let v = p.slots[i] { return v }
            (p.slots + i).pointee = made
            p.count += 1
            added = true
            return made
        }
        if added { count += 1 }
        return v
    }

    /// Removes the value of `id`, returning it; frees its page once empty.
    @discardableResult
    func removeValue(forKey id: ManagedObjectID) -> Value? {
        let (key, i) = Self.locate(id)
        guard let p = pages[key], p.slots[i] != nil else { return nil }
        let old = (p.slots + i).move()
        (p.slots + i).initialize(to: nil)
        p.count -= 1
        count -= 1
        if p.count == 0 {
            hotKey = .none
            hot = nil
            pages.removeValue(forKey: key)
        }
        return old
    }

    /// Runs `body` on the value of `id` in place, if there is one (nil otherwise): one look-up
    /// reads and updates an entry, with no copy of the value.
    @inline(__always)
    func modifyValue<R>(forKey id: ManagedObjectID, _ body: (inout Value) -> R) -> R? {
        let (key, i) = Self.locate(id)
        return withExistingPage(key) { p -> R? in
            guard var v = (p.slots + i).move() else {
                (p.slots + i).initialize(to: nil)
                return nil
            }
            let r = body(&v)
            (p.slots + i).initialize(to: v)
            return r
        } ?? nil
    }

    /// Calls `body` with each value's slot in place, so that it can read a part of the value
    /// without copying the whole (a copy retains the value's parts, touching their memory: a
    /// row-cache eviction that copied each cached row to read its use stamp retained and released
    /// its snapshot's two arrays, 8 % of saving 1,125,000 objects, which evicts 90 times).
    /// `body` must not touch the table nor change the slot.
    func forEachSlot(_ body: (inout Value?) -> Void) {
        for (_, page) in pages where page.count > 0 {
            for i in 0..<Self.pageSize where page.slots[i] != nil { body(&page.slots[i]) }
        }
    }

    /// Removes the values `shouldRemove` picks, given each slot in place (so that it can ask
    /// `isKnownUniquelyReferenced` of the stored reference), freeing the pages that empty;
    /// returns how many. `shouldRemove` must not touch the table.
    @discardableResult
    func removeAll(whereSlot shouldRemove: (inout Value?) -> Bool) -> Int {
        var removed = 0
        var emptied: [PrimaryKeyPage] = []
        for (key, page) in pages {
            for i in 0..<Self.pageSize where page.slots[i] != nil {
                guard shouldRemove(&page.slots[i]) else { continue }
                page.slots[i] = nil
                page.count -= 1
                removed += 1
            }
            if page.count == 0 { emptied.append(key) }
        }
        count -= removed
        if !emptied.isEmpty {
            hotKey = .none
            hot = nil
            for key in emptied { pages.removeValue(forKey: key) }
        }
        return removed
    }

    /// Removes every value.
    func removeAll() {
        hotKey = .none
        hot = nil
        pages.removeAll()
        count = 0
    }

    /// Every value.
    var values: [Value] {
        var out: [Value] = []
        out.reserveCapacity(count)
        for (_, page) in pages {
            for i in 0..<Self.pageSize { if let v = page.slots[i] { out.append(v) } }
        }
        return out
    }
}

/// Which page of a ``PrimaryKeyTable`` an ID's key falls in: its entity, its store and its key
/// divided by the page size. (Temporary IDs carry store token 0, so they never share a page
/// with permanent ones.)
struct PrimaryKeyPage: FastHashKey {
    var entity: UInt
    var store: UInt32
    var number: Int64

    static let none = PrimaryKeyPage(entity: 0, store: 0, number: 0)

    init(entity: UInt, store: UInt32, number: Int64) {
        self.entity = entity
        self.store = store
        self.number = number
    }

    @inline(__always)
    init(_ id: ManagedObjectID) {
        entity = UInt(bitPattern: ObjectIdentifier(id._entity))
        store = id.isTemporary ? 0 : id.storeToken &+ 1
        number = id.rawKey >> PrimaryKeyTable<Int>.pageShift
    }

    var fastHash: UInt64 {
        var h = UInt64(bitPattern: number) &* 0x9E37_79B9_7F4A_7C15
        h ^= UInt64(entity) &+ (UInt64(store) &<< 32)
        h ^= h &>> 29
        h = h &* 0xBF58_476D_1CE4_E5B9
        return h ^ (h &>> 32)
    }
}
