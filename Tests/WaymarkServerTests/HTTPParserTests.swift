import Testing
@testable import WaymarkServer
import WaymarkSupport

/// The request parser: whole requests, requests in pieces, pipelining, and every refusal.
@Suite struct HTTPParserTests {
    private func parse(_ text: String, limits: HTTPLimits = HTTPLimits()) -> HTTPParseResult {
        HTTPRequestParser.parse(Array(text.utf8), limits: limits)
    }

    private func status(_ text: String, limits: HTTPLimits = HTTPLimits()) -> Int? {
        if case let .failure(status, _) = parse(text, limits: limits) { return status.code }
        return nil
    }

    @Test func wholeRequest() throws {
        let text =
            "GET /route/v1/driving/-8.6,41.1;-8.61,41.15?steps=true&overview=false&x=a%20b+c HTTP/1.1\r\nHost: "
                + "h\r\nX-Thing:  value \r\n\r\n"
        guard case let .request(request, consumed) = parse(text) else {
            Issue.record("not parsed: \(parse(text))"); return
        }
        #expect(consumed == text.utf8.count)
        #expect(request.method == "GET" && request.minorVersion == 1 && request.keepAlive)
        #expect(request.segments == ["route", "v1", "driving", "-8.6,41.1;-8.61,41.15"])
        #expect(request.query.map(\.name) == ["steps", "overview", "x"])
        #expect(request.query.map(\.value) == ["true", "false", "a b c"])
        #expect(request.header("x-thing") == "value")
    }

    @Test func piecesAndPipelining() throws {
        let one = "GET /a HTTP/1.1\r\nHost: h\r\n\r\n",
            two = "GET /b%2Fc HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n"
        let bytes = Array((one + two).utf8)
        // Every prefix short of the first request is incomplete.
        for n in 0..<one.utf8.count {
            #expect(HTTPRequestParser.parse(Array(bytes[..<n])) == .incomplete, "prefix \(n)")
        }
        guard case let .request(first, consumed) = HTTPRequestParser.parse(bytes) else { Issue.record("first"); return }
        #expect(first.segments == ["a"] && consumed == one.utf8.count)
        guard case let .request(second, rest) = HTTPRequestParser.parse(Array(bytes[consumed...])) else {
            Issue.record("second"); return
        }
        #expect(second.segments == ["b/c"] && !second.keepAlive && rest == two.utf8.count)
    }

    @Test func bareLineFeedsAndHTTP10() throws {
        guard case let .request(r, _) = parse("GET /x HTTP/1.0\n\n") else { Issue.record("HTTP/1.0"); return }
        #expect(r.minorVersion == 0 && !r.keepAlive)
        guard case let .request(k, _) = parse("GET /x HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n") else {
            Issue.record("keep-alive"); return
        }
        #expect(k.keepAlive)
    }

    @Test func bodyByContentLength() throws {
        let head = "GET /x HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\n"
        #expect(parse(head + "abc") == .needs(head.utf8.count + 5))
        guard case let .request(r, consumed) = parse(head + "abcdeGET") else { Issue.record("body"); return }
        #expect(r.body == Array("abcde".utf8) && consumed == head.utf8.count + 5)
    }

    @Test func refusals() {
        var small = HTTPLimits()
        small.requestLine = 100
        small.headers = 200
        small.headerCount = 3
        small.body = 10
        #expect(status("GET /\(String(repeating: "a", count: 200)) HTTP/1.1\r\n", limits: small) == 414)
        // no line end yet, already too long
        #expect(status("GET /\(String(repeating: "a", count: 200))", limits: small) == 414)
        #expect(
            status("GET / HTTP/1.1\r\nHost: h\r\nX: \(String(repeating: "b", count: 300))\r\n\r\n", limits: small)
                == 431)
        #expect(status("GET / HTTP/1.1\r\nHost: h\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n", limits: small) == 431)
        #expect(status("GET / HTTP/1.1\r\nHost: h\r\nContent-Length: 11\r\n\r\n", limits: small) == 413)
        #expect(status("GET / HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n") == 400)
        #expect(status("GET / HTTP/1.1\r\nHost: h\r\nContent-Length: -1\r\n\r\n") == 400)
        #expect(status("GET / HTTP/1.1\r\nHost: h\r\nContent-Length: 99999999999999999999\r\n\r\n") == 400)
        #expect(status("GET / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n") == 501)
        #expect(status("GET / HTTP/1.1\r\n\r\n") == 400) // no Host
        #expect(status("GET / HTTP/2.0\r\nHost: h\r\n\r\n") == 505)
        #expect(status("GET / FTP/1.0\r\n\r\n") == 400)
        #expect(status("GET  / HTTP/1.1\r\nHost: h\r\n\r\n") == 400)
        #expect(status("G(T / HTTP/1.1\r\nHost: h\r\n\r\n") == 400)
        #expect(status("GET http://x/ HTTP/1.1\r\nHost: h\r\n\r\n") == 400)
        #expect(status("GET /a%zz HTTP/1.1\r\nHost: h\r\n\r\n") == 400)
        #expect(status("GET /a%ff HTTP/1.1\r\nHost: h\r\n\r\n") == 400) // not UTF-8 once decoded
        #expect(status("GET /a?b=%4 HTTP/1.1\r\nHost: h\r\n\r\n") == 400)
        #expect(status("GET / HTTP/1.1\r\nHost: h\r\n folded\r\n\r\n") == 400)
        #expect(status("GET / HTTP/1.1\r\nHost: h\r\nBad Name: x\r\n\r\n") == 400)
        #expect(status("GET / HTTP/1.1\r\nHost: h\r\nNoColon\r\n\r\n") == 400)
        #expect(status("GET / HTTP/1.1\r\nHost: h\r\nX: a\u{1}b\r\n\r\n") == 400)
        #expect(status("\u{0}\u{1}\u{2}binary\u{ff}\n") == 400)
    }

    /// Random bytes and mutated requests never crash the parser; every answer is one of the three.
    @Test func randomInputIsHandled() {
        var state: UInt64 = 0x5EED
        func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        let request = "GET /table/v1/car/1,2;3,4?sources=0&annotations=duration,distance HTTP/1.1\r\n"
            + "Host: h\r\nContent-Length: 3\r\n\r\nabc"
        let base = Array(request.utf8)
        var parsed = 0
        for _ in 0..<3000 {
            var bytes = base
            for _ in 0..<(1 + Int(next() % 4)) {
                let i = Int(next() % UInt64(bytes.count))
                switch next() % 3 {
                case 0: bytes[i] = UInt8(truncatingIfNeeded: next())
                case 1: bytes.remove(at: i)
                default: bytes.insert(UInt8(truncatingIfNeeded: next()), at: i)
                }
            }
            if case let .request(_, consumed) = HTTPRequestParser.parse(bytes) {
                #expect(consumed <= bytes.count)
                parsed += 1
            }
        }
        #expect(parsed > 100) // the mutations leave many requests whole
    }

    /// A text's pieces between a separator byte (and whether it holds one), against the standard
    /// library's, on texts of separators, empty pieces and characters of several bytes (fixed seed).
    @Test func piecesAgainstSplit() {
        var generator = SplitMix64(seed: 7)
        let alphabet: [Character] = [";", ";", "/", "a", "1", "é", "€", "😀", "%"]
        for _ in 0..<500 {
            let count = Int(generator.next() % 24)
            let text = String((0..<count).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] })
            // (A substring not at the string's start, as the parser hands over.)
            let whole = "x" + text, part = whole.dropFirst()
            for separator in [UInt8(ascii: ";"), UInt8(ascii: "/")] {
                let expected = part.utf8.split(separator: separator, omittingEmptySubsequences: false)
                    .map { String(Substring($0)) }
                #expect(HTTPRequestParser.pieces(of: part, at: separator).map(String.init) == expected, "\(text)")
                #expect(HTTPRequestParser.contains(separator, in: part) == part.utf8.contains(separator), "\(text)")
            }
        }
    }

    /// Numbers read by the short decimals' own way, bit for bit as `Double(_:)` reads them, on
    /// texts of digits, points, signs and exponents of every length up to 40 (fixed seed).
    @Test func numbersAsDoubleReadsThem() {
        var generator = SplitMix64(seed: 11)
        let alphabet: [Character] = ["0", "1", "5", "7", "9", "9", ".", "-", "e", "+", " "]
        var direct = 0
        for _ in 0..<20_000 {
            let count = Int(generator.next() % 41)
            var text = String((0..<count).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] })
            if generator.next() % 2 == 0 { text = text.filter { $0.isNumber || $0 == "." } }
            let part = ("x" + text).dropFirst()
            let expected = Double(part), found = HTTPRequestParser.number(part)
            #expect(expected?.bitPattern == found?.bitPattern, "\(text)")
            if expected != nil && !text.contains("e") { direct += 1 }
        }
        // (Up to 40 digits: more than fit in 64 bits, as a request may send.)
        for text in ["0.1", "-0", "-0.0", "123456789012345", "1234567890123456", "0.000000000000001", "41.1496105",
                     "-8.6109876", "5.", ".5", "-", "", "1.2.3", "99999999999999999999", "-18446744073709551616.5",
                     String(repeating: "9", count: 40), "0." + String(repeating: "7", count: 30)] {
            #expect(Double(text[...])?.bitPattern == HTTPRequestParser.number(text[...])?.bitPattern, "\(text)")
        }
        #expect(direct > 2_000)
    }
}

