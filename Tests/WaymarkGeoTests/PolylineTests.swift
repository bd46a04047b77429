import Testing
@testable import WaymarkGeo
import WaymarkSupport

@Suite struct PolylineTests {
    // Google's documented example.
    let points = [Coordinate(latitude: 38.5, longitude: -120.2),
                  Coordinate(latitude: 40.7, longitude: -120.95),
                  Coordinate(latitude: 43.252, longitude: -126.453)]

    @Test func encodesGooglesExample() throws {
        #expect(Polyline.encode(points) == "_p~iF~ps|U_ulLnnqC_mqNvxq`@")
        #expect(try Polyline.decode("_p~iF~ps|U_ulLnnqC_mqNvxq`@") == points)
        #expect(Polyline.encode([]) == "")
        #expect(try Polyline.decode("") == [])
    }

    @Test func precisionSix() throws {
        let encoded = Polyline.encode(points, precision: 6)
        #expect(encoded == "_izlhA~rlgdF_{geC~ywl@_kwzCn`{nI")
        #expect(try Polyline.decode(encoded, precision: 6) == points)
    }

    /// Property: decode(encode(x)) is x rounded to the precision, and encode(decode(s)) == s. Fixed seed.
    @Test(arguments: [5, 6]) func roundTripsExactly(precision: Int) throws {
        var rng = SplitMix64(seed: 7)
        let factor = precision == 5 ? 1e5 : 1e6
        for _ in 0..<200 {
            let line = (0..<Int(rng.next() % 50)).map { _ in
                Coordinate(latitude: rng.uniform(-90, 90), longitude: rng.uniform(-180, 180))
            }
            let encoded = Polyline.encode(line, precision: precision)
            let decoded = try Polyline.decode(encoded, precision: precision)
            #expect(decoded.count == line.count)
            for (a, b) in zip(line, decoded) {
                #expect((a.latitude * factor).rounded() / factor == b.latitude)
                #expect((a.longitude * factor).rounded() / factor == b.longitude)
            }
            #expect(Polyline.encode(decoded, precision: precision) == encoded)
        }
    }

    @Test func rejectsBadInput() {
        #expect(throws: Polyline.DecodingError.invalidCharacter(" ", offset: 2)) { try Polyline.decode("_p iF") }
        #expect(throws: Polyline.DecodingError.truncated(offset: 3)) { try Polyline.decode("_p~") }
        #expect(throws: Polyline.DecodingError.oddValueCount) { try Polyline.decode("_p~iF") }
        // 100° of latitude: out of range once decoded.
        let tooFar =
            Polyline.encode([Coordinate(latitude: 89, longitude: 0)])
            + Polyline.encode([Coordinate(latitude: 11, longitude: 0)])
        #expect(throws: Polyline.DecodingError.self) { try Polyline.decode(tooFar) }
    }
}
