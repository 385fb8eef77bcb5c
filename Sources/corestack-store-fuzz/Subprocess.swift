import Foundation

/// Runs a program with a time limit, its output sent to a file, and says how it ended.
enum Subprocess {
    enum Ending: Equatable {
        case exited(Int32)
        case signalled(Int32)
        case timedOut
        case failedToStart(String)
    }

    static func run(_ executable: String, _ arguments: [String], output: URL, timeout: TimeInterval) -> Ending {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = arguments
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        guard let handle = try? FileHandle(forWritingTo: output) else { return .failedToStart("cannot write \(output.path)") }
        defer { try? handle.close() }
        p.standardOutput = handle
        p.standardError = handle
        p.standardInput = FileHandle.nullDevice
        do {
            try p.run()
        } catch {
            return .failedToStart("\(error)")
        }
        let deadline = Date().addingTimeInterval(timeout)
        while p.isRunning {
            if Date() > deadline {
                kill(p.processIdentifier, SIGKILL)
                p.waitUntilExit()
                return .timedOut
            }
            usleep(2_000)
        }
        p.waitUntilExit()
        return p.terminationReason == .uncaughtSignal ? .signalled(p.terminationStatus) : .exited(p.terminationStatus)
    }
}
