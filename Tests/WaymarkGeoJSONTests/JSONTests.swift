import Testing
import Foundation
import WaymarkGeo
@testable import WaymarkGeoJSON

@Suite struct JSONTests {
    @Test func parsesValuesAndKeepsMemberOrder() throws {
        let value = try JSONValue(
            parsing: #"{"b": [1, -2.5, 3e2, 0.1], "a": {"x": null, "y": true}, "s": "q\"\\\/\n\u00e9\ud83d\ude00"}"#)
        let object = try #require(value.objectValue)
        #expect(object.keys == ["b", "a", "s"])
        #expect(value["b"] == [1, -2.5, 300, 0.1])
        #expect(value["a"]?["y"] == true)
        #expect(value["a"]?["x"] == .null)
        #expect(value["s"] == .string("q\"\\/\né😀"))
        #expect(value.jsonText() == #"{"b":[1,-2.5,300,0.1],"a":{"x":null,"y":true},"s":"q\"\\/\né😀"}"#)
    }

    @Test func numbersAreCorrectlyRounded() throws {
        for text in ["0.1", "1.7976931348623157e308", "5e-324", "123456789012345678901234567890", "-0.000001",
                     "41.14961", "2.2250738585072014e-308"] {
            #expect(try JSONValue(parsing: text) == .number(Double(text)!), "\(text)")
        }
        // Shortest round-trip output.
        for v in [0.1, 1e21, 41.14961, -8.611039, 1.5e-7] {
            #expect(Double(JSONValue.number(v).jsonText()) == v)
        }
        #expect(JSONValue.number(.nan).jsonText() == "null")
    }

    @Test func syntaxErrorsNameLineAndColumn() {
        func failure(_ text: String) -> JSONSyntaxError? {
            do { _ = try JSONValue(parsing: text); return nil } catch { return error }
        }
        #expect(failure("{\n  \"a\": 1,\n  \"b\": tru\n}")?.location == SourceLocation(line: 3, column: 8))
        #expect(failure("[1, 2,]")?.location == SourceLocation(line: 1, column: 7))
        #expect(failure("[01]")?.message == "invalid number: leading zero")
        #expect(failure("\"abc")?.message == "unterminated string")
        #expect(failure("{\"a\" 1}")?.message.contains("expected ':'") == true)
        #expect(failure("[1] x")?.message.contains("after the JSON value") == true)
        #expect(failure("\"\u{01}\"")?.message.contains("control character") == true)
        #expect(failure("1e999")?.message.contains("too large") == true)
        #expect(failure("")?.message.contains("end of input") == true)
        #expect(failure(String(repeating: "[", count: 10_000))?.message.contains("nesting deeper") == true)
        #expect(failure("\"\\ud800\"")?.message.contains("surrogate") == true)
    }

    @Test func fixedDecimals() {
        func text(_ v: Double, _ d: Int) -> String {
            var w = JSONWriter()
            w.writeNumber(v, decimals: d)
            return w.text
        }
        #expect(text(7.5, 6) == "7.5")
        #expect(text(-8.6110394, 6) == "-8.611039")
        #expect(text(41.1496105, 6) == "41.149611")
        #expect(text(-0.0000001, 6) == "0")
        #expect(text(180, 6) == "180")
        #expect(text(0.000001, 6) == "0.000001")
        #expect(text(-12.0000504, 5) == "-12.00005")
        #expect(text(1.23456789, 2) == "1.23")
    }

    /// Fixed decimals against the library's rounding (`rounded()`, half away from zero) and plain
    /// integer printing: random values of every size, and values lying exactly on a half (fixed seed).
    @Test func fixedDecimalsRoundAsTheLibraryRounds() {
        var state: UInt64 = 0x5EED_0071
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 11
        }
        func expected(_ v: Double, _ d: Int) -> String {
            let factor = (0..<d).reduce(1.0) { p, _ in p * 10 }
            let r = (v * factor).rounded()
            let magnitude = Int64(r).magnitude
            if magnitude == 0 { return "0" }
            let whole = magnitude / UInt64(factor), fraction = magnitude % UInt64(factor)
            var text = (r < 0 ? "-" : "") + String(whole)
            if fraction != 0 {
                var digits = String(fraction)
                digits = String(repeating: "0", count: d - digits.count) + digits
                while digits.hasSuffix("0") { digits.removeLast() }
                text += "." + digits
            }
            return text
        }
        for k in 0..<40_000 {
            let d = k % 9
            let factor = (0..<d).reduce(1.0) { p, _ in p * 10 }
            let unit = Double(next()) / Double(1 << 53)
            let sign: Double = next() & 1 == 0 ? 1 : -1
            let v = k % 3 == 0 ? sign * (Double(next() % 2_000_000_000) + 0.5) / factor
                : sign * unit * pow(10, Double(Int(next() % 20)) - 8)
            guard (v * factor).magnitude < 9e15 else { continue } // (beyond: the plain writer's)
            var w = JSONWriter()
            w.writeNumber(v, decimals: d)
            #expect(w.text == expected(v, d), "\(v) at \(d)")
        }
    }
}

extension JSONTests {
    @Test func writerIsAValueAndGrows() throws {
        var a = JSONWriter()
        a.writeRaw("[" as StaticString)
        var b = a // shares the buffer until one of them writes
        let long = String(repeating: "x", count: 5_000) // past the first buffer
        a.writeString(long)
        b.writeInteger(-42)
        b.writeByte(UInt8(ascii: ","))
        b.writeInteger(0)
        b.writeByte(UInt8(ascii: ","))
        b.writeInteger(9_007_199_254_740_991)
        a.endArray()
        b.endArray()
        #expect(a.text == "[\"" + long + "\"]")
        #expect(b.text == "[-42,0,9007199254740991]")
        var c = JSONWriter(indent: 2)
        c.writeByte(UInt8(ascii: "{"))
        c.newline(1)
        c.writeKey("name" as StaticString)
        c.writeString("a \"quoted\" \\ name")
        c.newline(0)
        c.writeByte(UInt8(ascii: "}"))
        #expect(try JSONValue(parsing: c.bytes) == ["name": "a \"quoted\" \\ name"])
        #expect(c.text.contains("\n  \"name\": "))
    }

    /// Every character that needs an escape, at every offset of strings longer than the sixteen
    /// bytes looked at together, read back by the parser (and by Foundation's) as written.
    @Test func stringsEscapedAtEveryOffset() throws {
        for special in ["\"", "\\", "\n", "\r", "\t", "\u{1}", "\u{1F}", "é"] {
            for length in [15, 16, 17, 33, 40] {
                for at in 0..<length {
                    let text = String(repeating: "a", count: at) + special + String(repeating: "b", count: length - at)
                    var w = JSONWriter()
                    w.writeString(text)
                    let label = "\(special.unicodeScalars.first!.value) at \(at)"
                    #expect(try JSONValue(parsing: w.bytes) == .string(text), "\(label)")
                    let foundation = try JSONSerialization.jsonObject(with: Data(w.bytes), options: .fragmentsAllowed)
                    #expect(foundation as? String == text)
                }
            }
        }
    }

    @Test func polylinesAreStreamedWithTheirBackslashesEscaped() throws {
        // A southward step of 15 × 10⁻⁵° encodes as a backslash, which JSON must escape.
        let line = [Coordinate(latitude: 41.15, longitude: -8.61), Coordinate(latitude: 41.14985, longitude: -8.61),
                    Coordinate(latitude: 41.1497, longitude: -8.6101)]
        for precision in [5, 6] {
            let encoded = Polyline.encode(line, precision: precision)
            var w = JSONWriter()
            w.writePolyline(line, precision: precision)
            #expect(try JSONValue(parsing: w.bytes) == .string(encoded))
            var bytes: [UInt8] = [1, 2]
            Polyline.encode(line, precision: precision, appendingTo: &bytes)
            #expect(bytes == [1, 2] + Array(encoded.utf8))
        }
        #expect(Polyline.encode(line, precision: 5).contains("\\"))
        var empty = JSONWriter()
        empty.writePolyline([], precision: 5)
        #expect(empty.text == "\"\"")
    }
}

@Suite struct SourceLocationTests {
    @Test func onePassAgreesWithSingleLookups() {
        let text = "{\n  \"a\": [1,\n 2],\r\n\n\"b\": \"x\"}\nlast"
        let bytes = Array(text.utf8)
        bytes.withUnsafeBufferPointer { buffer in
            let offsets = Array(0...bytes.count)
            let many = SourceLocation.locations(ofAscending: offsets, in: buffer)
            #expect(many == offsets.map { SourceLocation(offset: $0, in: buffer) })
            #expect(many[bytes.count] == SourceLocation(line: 6, column: 5))
        }
    }
}
