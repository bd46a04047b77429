#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// How the server listens and what it will put up with.
public struct HTTPServerConfiguration: Sendable {
    /// A numeric address (IPv4 or IPv6) to bind: loopback unless told otherwise.
    public var host = "127.0.0.1"
    /// 0 picks a free port (``HTTPServer/port`` says which).
    public var port: UInt16 = 5000
    /// Worker threads answering requests, each with its own handler.
    public var threads = max(1, ProcessInfo.processInfo.activeProcessorCount)
    /// Open connections at most; more are answered 503 and closed.
    public var maxConnections = 512
    /// Requests waiting for a worker at most; more are answered 503.
    public var maxQueued = 256
    public var limits = HTTPLimits()
    /// Methods passed to the handler; others are answered 405 (GET, HEAD and OPTIONS unless told:
    /// the viewer adds PUT for its editor).
    public var methods: Set<String> = ["GET", "HEAD", "OPTIONS"]
    /// Seconds a kept-alive connection may wait between requests.
    public var idleTimeout = 5.0
    /// Seconds a client has to send the whole of a request it has begun (slow clients get 408).
    public var requestTimeout = 10.0
    /// Seconds a client has to take a response.
    public var writeTimeout = 30.0
    /// Seconds in-flight requests get to finish after ``HTTPServer/stop()``.
    public var drainTimeout = 30.0
    /// Header fields added to every response (e.g. CORS).
    public var extraHeaders: [(name: String, value: String)] = []

    public init() {}
}

public struct HTTPServerError: Error, Sendable, CustomStringConvertible {
    public var description: String
}

/// Answers one request. Each worker thread makes its own (``HTTPServer/init(configuration:log:makeHandler:)``)
/// and calls only that one, so a handler may keep per-query scratch without locks.
public typealias HTTPHandler = (HTTPRequest) -> HTTPResponse

/// A small HTTP/1.1 server: one thread multiplexes every connection with `poll` (reading,
/// parsing, writing, timeouts), and a fixed pool of worker threads runs the handlers. Keep-alive
/// and pipelining (one request at a time per connection, in order); bounded connections and
/// queue (503 beyond them); timeouts for idle, slow and stalled clients; nothing but the handler
/// ever sees a request, and no request reaches the file system.
public final class HTTPServer: @unchecked Sendable {
    public let configuration: HTTPServerConfiguration
    /// The port bound (the one asked for, or the one the system chose for 0).
    public let port: UInt16

    private let listener: Int32
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let makeHandler: @Sendable () -> HTTPHandler
    private let log: @Sendable (String) -> Void
    private let jobs: JobQueue
    private let lock = NSLock()
    /// Guarded by `lock`.
    private var stopRequested = false
    private var finished: [Finished] = []

    /// Binds and listens at once (so a taken port fails here); ``run()`` serves.
    public init(configuration: HTTPServerConfiguration, log: @escaping @Sendable (String) -> Void,
                makeHandler: @escaping @Sendable () -> HTTPHandler) throws(HTTPServerError) {
        self.configuration = configuration
        self.log = log
        self.makeHandler = makeHandler
        jobs = JobQueue(limit: max(1, configuration.maxQueued))
        (listener, port) = try HTTPServer.openListener(host: configuration.host, port: configuration.port)
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else {
            close(listener)
            throw HTTPServerError(description: "cannot make a pipe: \(String(cString: strerror(errno)))")
        }
        wakeRead = ends[0]
        wakeWrite = ends[1]
        for fd in ends { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
    }

    deinit {
        close(wakeRead)
        close(wakeWrite)
    }

    /// Asks a running server to stop: it stops accepting, lets in-flight requests finish (up to
    /// ``HTTPServerConfiguration/drainTimeout``), closes every connection, and ``run()`` returns.
    /// Any thread may call it, any number of times.
    public func stop() {
        lock.withLock { stopRequested = true }
        wake()
    }

    private var isStopping: Bool { lock.withLock { stopRequested } }

    private func wake() {
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    // MARK: - Serving

    /// Serves until ``stop()``: runs the workers and the connection loop on the calling thread.
    public func run() {
        let workers = DispatchGroup()
        for n in 0..<max(1, configuration.threads) {
            workers.enter()
            let thread = Thread { [self] in
                work()
                workers.leave()
            }
            thread.name = "waymark-http-\(n)"
            thread.stackSize = 8 << 20
            thread.start()
        }
        loop()
        jobs.close()
        workers.wait()
    }

    /// A worker: takes requests from the queue, answers them with its own handler, hands the
    /// bytes back to the loop.
    private func work() {
        let handler = makeHandler()
        while let job = jobs.pop() {
            let response = handler(job.request)
            let keepAlive = job.request.keepAlive
            let bytes = response.serialized(keepAlive: keepAlive, headOnly: job.request.method == "HEAD",
                                            extraHeaders: configuration.extraHeaders)
            // The loop leaves a connection alone while its request is with a worker, so the worker
            // sends what the socket takes at once (a thread hand-off less per request); the loop
            // sends the rest.
            var written = 0
            while written < bytes.count {
                let n = bytes.withUnsafeBytes { send(job.fd, $0.baseAddress! + written, $0.count - written,
                                                     Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
                if n > 0 {
                    written += n
                } else if n < 0 && errno == EINTR {
                    continue
                } else {
                    break // full for now, or failed: the loop finds out which
                }
            }
            let line = logLine(peer: job.peer, request: job.request.method + " " + job.request.target,
                               status: response.status.code,
                               bytes: response.body.count, since: job.received)
            lock.withLock {
                finished.append(Finished(connection: job.connection, bytes: bytes, written: written,
                                         keepAlive: keepAlive, logLine: line))
            }
            wake()
        }
    }

    private struct Finished {
        var connection: Int
        var bytes: [UInt8]
        /// How many of the bytes the worker sent itself.
        var written: Int
        var keepAlive: Bool
        var logLine: String
    }

    private final class Connection {
        enum State { case reading, busy, writing }
        let id: Int
        let fd: Int32
        let peer: String
        var state = State.reading
        var input: [UInt8] = []
        var output: [UInt8] = []
        var written = 0
        var closeAfterWrite = false
        var inputClosed = false
        var lastActivity: UInt64
        /// When the first byte of the request being received arrived.
        var requestStarted: UInt64?
        var writeStarted: UInt64 = 0
        /// What must arrive before parsing again can say more: a line end (`parseAt` 0), or
        /// `parseAt` bytes in all (a body). Parsing on every byte would let a client that sends
        /// one byte at a time make each parse reread everything it sent.
        var parseAt = 0

        init(id: Int, fd: Int32, peer: String, now: UInt64) {
            self.id = id
            self.fd = fd
            self.peer = peer
            lastActivity = now
        }
    }

    private static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }
    private static func nanoseconds(_ seconds: Double) -> UInt64 { UInt64(max(0, seconds) * 1e9) }

    /// The connection loop on the calling thread, until a stop and the drain after it.
    private func loop() {
        let loop = EventLoop(server: self)
        while loop.turn() {}
        loop.closeAll()
    }

    /// The connection loop's state and steps: connections by id, reading requests, handing them
    /// to the workers, writing the answers back, and the timeouts. Only the loop's thread uses it.
    private final class EventLoop {
        unowned let server: HTTPServer
        let configuration: HTTPServerConfiguration
        var connections: [Int: Connection] = [:]
        var nextID = 0
        var listening = true
        var drainDeadline: UInt64 = 0
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        let requestTimeout: UInt64, idleTimeout: UInt64, writeTimeout: UInt64
        let headLimit: Int
        /// Connections that finished writing and may hold a pipelined request: parsed by the
        /// loop, not from inside `flush` (a long pipeline would otherwise nest one call per request).
        var ready: [Connection] = []

        init(server: HTTPServer) {
            self.server = server
            configuration = server.configuration
            requestTimeout = HTTPServer.nanoseconds(configuration.requestTimeout)
            idleTimeout = HTTPServer.nanoseconds(configuration.idleTimeout)
            writeTimeout = HTTPServer.nanoseconds(configuration.writeTimeout)
            headLimit = configuration.limits.requestLine + configuration.limits.headers + 8
        }

        func shut(_ c: Connection) {
            // What the client sent and we did not read (a little of it) is taken first, so that
            // closing does not answer with a reset that could destroy the response in flight.
            _ = shutdown(c.fd, Int32(SHUT_WR))
            for _ in 0..<4 {
                if buffer.withUnsafeMutableBytes({ recv(c.fd, $0.baseAddress,
                                                        $0.count, Int32(MSG_DONTWAIT)) }) <= 0 { break }
            }
            close(c.fd)
            connections[c.id] = nil
        }

        func flush(_ c: Connection) {
            while c.written < c.output.count {
                let n = c.output.withUnsafeBytes { send(c.fd, $0.baseAddress! + c.written,
                                                        $0.count - c.written, Int32(MSG_NOSIGNAL)) }
                if n > 0 {
                    c.written += n
                } else if n < 0 && errno == EINTR {
                    continue
                } else if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                    return
                } else {
                    close(c.fd)
                    connections[c.id] = nil
                    return
                }
            }
            c.output = []
            c.written = 0
            if c.closeAfterWrite || !listening {
                shut(c)
                return
            }
            c.state = .reading
            c.lastActivity = HTTPServer.now()
            ready.append(c) // a pipelined request may be waiting
        }

        /// Answers from the loop itself (errors, refusals), without a worker.
        func respond(_ c: Connection, _ response: HTTPResponse, keepAlive: Bool, request: String, received: UInt64) {
            let bytes = response.serialized(keepAlive: keepAlive, headOnly: request.hasPrefix("HEAD "),
                                            extraHeaders: configuration.extraHeaders)
            startWriting(c, bytes, written: 0, keepAlive: keepAlive,
                         logLine: server.logLine(peer: c.peer, request: request, status: response.status.code,
                                                 bytes: response.body.count, since: received))
        }

        /// Sends a response's bytes (the first `written` already sent by a worker), logging it.
        func startWriting(_ c: Connection, _ bytes: [UInt8], written: Int, keepAlive: Bool, logLine: String) {
            c.output = bytes
            c.written = written
            c.closeAfterWrite = !keepAlive
            c.state = .writing
            c.writeStarted = HTTPServer.now()
            server.log(logLine)
            flush(c)
        }

        /// Parses what a reading connection holds: a whole request goes to the workers.
        func take(_ c: Connection) {
            guard c.state == .reading else { return }
            guard !c.input.isEmpty else {
                c.requestStarted = nil
                if c.inputClosed { shut(c) }
                return
            }
            let now = HTTPServer.now()
            if c.requestStarted == nil { c.requestStarted = now }
            c.parseAt = 0
            switch HTTPRequestParser.parse(c.input, limits: configuration.limits) {
            case .incomplete:
                if c.inputClosed { shut(c) } // half a request and no more coming
            case let .needs(total):
                c.parseAt = total
                if c.inputClosed { shut(c) }
            case let .failure(status, message):
                respond(c, HTTPServer.errorResponse(status, message), keepAlive: false, request: "-",
                        received: c.requestStarted ?? now)
            case let .request(request, consumed):
                c.input.removeFirst(consumed)
                let received = c.requestStarted ?? now
                c.requestStarted = c.input.isEmpty ? nil : now
                dispatch(request, from: c, received: received)
            }
        }

        /// A whole request: to a worker, or refused here (stopping, a method not served, a full queue).
        func dispatch(_ request: HTTPRequest, from c: Connection, received: UInt64) {
            let line = request.method + " " + request.target
            if !listening {
                respond(c, HTTPServer.errorResponse(.serviceUnavailable, "the server is stopping"),
                        keepAlive: false, request: line, received: received)
            } else if !configuration.methods.contains(request.method) {
                var response = HTTPServer.errorResponse(.methodNotAllowed, "\(request.method) is not served: use GET")
                response.headers.append(("Allow", configuration.methods.sorted().joined(separator: ", ")))
                respond(c, response, keepAlive: request.keepAlive && request.body.isEmpty,
                        request: line, received: received)
            } else if server.jobs.push(Job(connection: c.id, fd: c.fd, peer: c.peer,
                                           request: request, received: received)) {
                c.state = .busy
            } else {
                respond(c, HTTPServer.errorResponse(.serviceUnavailable, "too many requests waiting; try again"),
                        keepAlive: request.keepAlive, request: line, received: received)
            }
        }

        func readFrom(_ c: Connection) {
            let n = buffer.withUnsafeMutableBytes { recv(c.fd, $0.baseAddress, $0.count, 0) }
            if n > 0 {
                let before = c.input.count
                c.input.append(contentsOf: buffer[0..<n])
                c.lastActivity = HTTPServer.now()
                if c.requestStarted == nil { c.requestStarted = c.lastActivity }
                // Parse when something new can be decided: a line ended, the body is all here,
                // or the head has outgrown the limits.
                let decisive = c.parseAt > 0 ? c.input.count >= c.parseAt
                    : before == 0 || buffer[0..<n].contains(UInt8(ascii: "\n")) || c.input.count > headLimit
                if decisive { take(c) }
            } else if n == 0 {
                c.inputClosed = true
                take(c)
            } else if errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR {
                close(c.fd)
                connections[c.id] = nil
            }
        }

        func acceptAll() {
            while true {
                var address = sockaddr_storage()
                var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
                let fd = withUnsafeMutablePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { accept(server.listener, $0, &length) }
                }
                if fd < 0 { return } // EAGAIN: none left (or a transient error)
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
                var one: Int32 = 1
                _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
                let peer = HTTPServer.describe(&address)
                if connections.count >= configuration.maxConnections {
                    refuse(fd, peer: peer)
                    continue
                }
                connections[nextID] = Connection(id: nextID, fd: fd, peer: peer, now: HTTPServer.now())
                nextID += 1
            }
        }

        /// A connection over the limit: a 503 and closed at once.
        func refuse(_ fd: Int32, peer: String) {
            let refusal = HTTPServer.errorResponse(.serviceUnavailable, "too many connections; try again")
                .serialized(keepAlive: false)
            _ = refusal.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            _ = shutdown(fd, Int32(SHUT_WR))
            close(fd)
            server.log(server.logLine(peer: peer, request: "-", status: 503, bytes: refusal.count,
                                      since: HTTPServer.now()))
        }

        /// One turn: a stop noticed, one poll, answers from the workers written, what arrived
        /// read, the timeouts. False when the loop is over.
        func turn() -> Bool {
            let now = HTTPServer.now()
            if listening && server.isStopping {
                listening = false
                close(server.listener)
                drainDeadline = now + HTTPServer.nanoseconds(configuration.drainTimeout)
            }
            if !listening {
                for c in Array(connections.values) where c.state == .reading { shut(c) }
                if connections.isEmpty || now > drainDeadline { return false }
            }
            var fds = [pollfd(fd: server.wakeRead, events: Int16(POLLIN), revents: 0)]
            if listening { fds.append(pollfd(fd: server.listener, events: Int16(POLLIN), revents: 0)) }
            let first = fds.count
            var polled: [Connection] = []
            for c in connections.values {
                switch c.state {
                case .reading: fds.append(pollfd(fd: c.fd, events: Int16(POLLIN), revents: 0))
                case .writing: fds.append(pollfd(fd: c.fd, events: Int16(POLLOUT), revents: 0))
                case .busy: continue
                }
                polled.append(c)
            }
            if poll(&fds, nfds_t(fds.count), 100) < 0 && errno != EINTR { return false }

            if fds[0].revents != 0 {
                var sink = [UInt8](repeating: 0, count: 256)
                while read(server.wakeRead, &sink, sink.count) > 0 {}
            }
            let done = server.lock.withLock {
                defer { server.finished.removeAll() }
                return server.finished
            }
            for f in done {
                guard let c = connections[f.connection] else { continue }
                startWriting(c, f.bytes, written: f.written, keepAlive: f.keepAlive, logLine: f.logLine)
            }
            while let c = ready.popLast() { if connections[c.id] === c { take(c) } }
            if listening && fds[1].revents != 0 { acceptAll() }
            for (i, c) in polled.enumerated() {
                let events = Int32(fds[first + i].revents)
                guard events != 0, connections[c.id] === c else { continue }
                switch c.state {
                case .reading: readFrom(c)
                case .writing: flush(c)
                case .busy: break
                }
            }
            while let c = ready.popLast() { if connections[c.id] === c { take(c) } }
            expire()
            return true
        }

        /// Requests that did not arrive in time, idle connections, writes that stalled.
        func expire() {
            let later = HTTPServer.now()
            for c in Array(connections.values) {
                switch c.state {
                case .reading:
                    if let started = c.requestStarted, later - started > requestTimeout {
                        respond(c, HTTPServer.errorResponse(.requestTimeout, "the request did not arrive in time"),
                                keepAlive: false, request: "-", received: started)
                    } else if c.input.isEmpty && later - c.lastActivity > idleTimeout {
                        shut(c)
                    }
                case .writing:
                    if later - c.writeStarted > writeTimeout {
                        close(c.fd)
                        connections[c.id] = nil
                    }
                case .busy: break
                }
            }
        }

        func closeAll() {
            if listening { close(server.listener) }
            for c in connections.values { close(c.fd) }
        }
    }

    // MARK: - Helpers

    /// A JSON error body in OSRM's shape, for failures the HTTP layer finds itself.
    static func errorResponse(_ status: HTTPStatus, _ message: String) -> HTTPResponse {
        let code =
            status.code == 503
            ? "ServiceUnavailable"
            : status.code == 408 ? "RequestTimeout" : status.code >= 500 ? "NotImplemented" : "InvalidUrl"
        return .json(["code": .string(code), "message": .string(message)], status: status)
    }

    private func logLine(peer: String, request: String, status: Int, bytes: Int, since: UInt64) -> String {
        var time = Foundation.time(nil)
        var parts = tm()
        gmtime_r(&time, &parts)
        let stamp = String(format: "%04d-%02d-%02dT%02d:%02d:%02dZ", parts.tm_year + 1900,
                           parts.tm_mon + 1, parts.tm_mday,
                           parts.tm_hour, parts.tm_min, parts.tm_sec)
        let milliseconds = Double(HTTPServer.now() &- since) / 1e6
        // (Its first 300 scalars only: a trace's target runs to many kilobytes.)
        var shown = ""
        for (k, scalar) in request.unicodeScalars.enumerated() {
            if k == 300 {
                shown += "…"
                break
            }
            shown.unicodeScalars.append(scalar.value < 0x20 || scalar.value == 0x7F ? "?" : scalar)
        }
        return "\(stamp) \(peer) \"\(shown)\" \(status) \(bytes) " + String(format: "%.2fms", milliseconds)
    }

    private static func describe(_ address: inout sockaddr_storage) -> String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        switch Int32(address.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { a in
                    var ip = a.pointee.sin_addr
                    inet_ntop(AF_INET, &ip, &text, socklen_t(text.count))
                    return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                }
            }
        case AF_INET6:
            return withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { a in
                    var ip = a.pointee.sin6_addr
                    inet_ntop(AF_INET6, &ip, &text, socklen_t(text.count))
                    return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                }
            }
        default: return "?"
        }
    }

    /// A non-blocking listening socket on a numeric host and port, and the port it got.
    private static func openListener(host: String, port: UInt16) throws(HTTPServerError) -> (Int32, UInt16) {
        var hints = addrinfo()
        hints.ai_flags = AI_PASSIVE | AI_NUMERICHOST | AI_NUMERICSERV
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &found)
        guard status == 0, let info = found else {
            throw HTTPServerError(
                description:
                    "cannot listen on \(host): not a numeric IPv4 or IPv6 address "
                        + "(\(String(cString: gai_strerror(status))))"
            )
        }
        defer { freeaddrinfo(info) }
        let fd = socket(info.pointee.ai_family, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else {
            throw HTTPServerError(description: "cannot make a socket: \(String(cString: strerror(errno)))")
        }
        var one: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        guard bind(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0, listen(fd, 1024) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw HTTPServerError(description: "cannot listen on \(host):\(port): \(reason)")
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        var bound = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &bound) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        let actual: UInt16 = withUnsafePointer(to: &bound) {
            $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
        }
        return (fd, actual)
    }
}

/// A request waiting for a worker.
private struct Job {
    var connection: Int
    var fd: Int32
    var peer: String
    var request: HTTPRequest
    var received: UInt64
}

/// The bounded queue between the connection loop and the workers.
private final class JobQueue: @unchecked Sendable {
    private let condition = NSCondition()
    private var items: [Job] = []
    private var head = 0
    private var closed = false
    private let limit: Int

    init(limit: Int) { self.limit = limit }

    /// False when full (or closed): the caller answers 503.
    func push(_ job: Job) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        if closed || items.count - head >= limit { return false }
        items.append(job)
        condition.signal()
        return true
    }

    /// The next job, waiting for one; nil once closed and empty.
    func pop() -> Job? {
        condition.lock()
        defer { condition.unlock() }
        while head == items.count && !closed { condition.wait() }
        guard head < items.count else { return nil }
        let job = items[head]
        head += 1
        // Taken jobs are dropped from the front now and then: under steady load the queue is
        // never empty, and waiting for that would let the array grow for ever (the soak test
        // found it).
        if head == items.count {
            items.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 64 && head * 2 >= items.count {
            items.removeFirst(head)
            head = 0
        }
        return job
    }

    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }
}
