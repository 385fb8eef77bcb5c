import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The peak resident memory of one stretch of work inside this process, on Linux: free heap
/// memory is handed back to the system (`malloc_trim`), the process's high-water mark is reset
/// to its current resident set (`5` written to `/proc/self/clear_refs`, Linux 4.0 and later), and
/// after the work the growth is `VmHWM` minus the resident set at the reset.
///
/// ```swift
/// let mark = PeakMemory.start()
/// try work()
/// let grewKiB = mark?.growthKiB() // nil where the mark cannot be reset
/// ```
///
/// What stays resident from earlier work (the benchmark's item arrays, the runtime) is left out,
/// so a figure is what the work itself added at its peak. Memory a previous run freed but the
/// allocator kept is trimmed first; what it cannot trim can be reused without showing.
struct PeakMemory {
    /// The resident set when the mark was reset, in KiB.
    let baselineKiB: Int

    /// Resets the high-water mark; nil when `/proc/self/clear_refs` cannot be written.
    static func start() -> PeakMemory? {
        _ = trim?(0)
        guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return nil }
        defer { try? handle.close() }
        do { try handle.write(contentsOf: Data("5".utf8)) } catch { return nil }
        guard let rss = statusKiB("VmRSS:") else { return nil }
        return PeakMemory(baselineKiB: rss)
    }

    /// How far the high-water mark rose above the baseline since ``start()``, in KiB.
    func growthKiB() -> Int? {
        PeakMemory.statusKiB("VmHWM:").map { max(0, $0 - baselineKiB) }
    }

    /// glibc's `malloc_trim` (not in the Swift overlay), looked up once; nil elsewhere.
    private static let trim: (@convention(c) (Int) -> Int32)? = {
        #if canImport(Glibc)
            guard let symbol = dlsym(nil, "malloc_trim") else { return nil }
            return unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
        #else
            return nil
        #endif
    }()

    /// A `kB` field of `/proc/self/status`.
    static func statusKiB(_ field: String) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix(field) {
            return line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first.flatMap { Int($0) }
        }
        return nil
    }
}
