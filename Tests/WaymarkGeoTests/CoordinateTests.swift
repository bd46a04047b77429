import Testing
@testable import WaymarkGeo

@Suite struct CoordinateTests {
    @Test func validatesRangeAndFiniteness() throws {
        #expect(throws: CoordinateError.notFinite(component: .latitude, value: .infinity)) {
            try Coordinate(validatingLatitude: .infinity, longitude: 0)
        }
        #expect(throws: CoordinateError.outOfRange(component: .latitude, value: 90.5)) {
            try Coordinate(validatingLatitude: 90.5, longitude: 0)
        }
        #expect(throws: CoordinateError.outOfRange(component: .longitude, value: -180.25)) {
            try Coordinate(validatingLatitude: 0, longitude: -180.25)
        }
        do {
            _ = try Coordinate(validatingLatitude: 1, longitude: .nan)
            Issue.record("NaN accepted")
        } catch {
            guard case .notFinite(.longitude, let value) = error else { Issue.record("wrong error \(error)"); return }
            #expect(value.isNaN)
            #expect(error.description.contains("longitude nan"))
        }
        let edge = try Coordinate(validatingLatitude: -90, longitude: 180)
        #expect(edge.isValid)
        #expect(CoordinateError.outOfRange(component: .latitude, value: 91).description
            == "latitude 91.0 is out of range (must be within -90…90)")
    }

    @Test func parsesLatLonText() throws {
        #expect(try Coordinate(parsing: "-33.9,151.2") == Coordinate(latitude: -33.9, longitude: 151.2))
        #expect(try Coordinate(parsing: " 52.5 , 13.4 ") == Coordinate(latitude: 52.5, longitude: 13.4))
        #expect(throws: CoordinateError.malformed("52.5")) { try Coordinate(parsing: "52.5") }
        #expect(throws: CoordinateError.malformed("a,b")) { try Coordinate(parsing: "a,b") }
        #expect(throws: CoordinateError.outOfRange(component: .latitude, value: 95)) { try Coordinate(parsing: "95,0") }
    }

    @Test func haversineDistance() {
        let london = Coordinate(latitude: 51.5074, longitude: -0.1278)
        let paris = Coordinate(latitude: 48.8566, longitude: 2.3522)
        // Reference values computed independently (Python, same sphere R = 6,371,008.8 m).
        #expect(abs(london.distance(to: paris) - 343_556.5348808832) < 1e-6)
        #expect(
            abs(
                Coordinate(latitude: 0, longitude: 0).distance(to: Coordinate(latitude: 0, longitude: 1))
                    - 111_195.0802335329) < 1e-6)
        #expect(london.distance(to: london) == 0)
        // Across the antimeridian the short way: 2° of longitude at the equator.
        let east = Coordinate(latitude: 0, longitude: 179), west = Coordinate(latitude: 0, longitude: -179)
        #expect(abs(east.distance(to: west) - 2 * 111_195.0802335329) < 1e-6)
    }

    @Test func initialBearing() {
        let origin = Coordinate(latitude: 0, longitude: 0)
        #expect(abs(origin.direction(to: Coordinate(latitude: 1, longitude: 0)) - 0) < 1e-12)
        #expect(abs(origin.direction(to: Coordinate(latitude: 0, longitude: 1)) - 90) < 1e-12)
        #expect(abs(origin.direction(to: Coordinate(latitude: -1, longitude: 0)) - 180) < 1e-12)
        #expect(abs(origin.direction(to: Coordinate(latitude: 0, longitude: -1)) - 270) < 1e-12)
        let london = Coordinate(latitude: 51.5074, longitude: -0.1278)
        let paris = Coordinate(latitude: 48.8566, longitude: 2.3522)
        #expect(abs(london.direction(to: paris) - 148.11561687105336) < 1e-9)
        #expect(origin.direction(to: origin) == 0)
    }

    @Test func normalizesLongitudes() {
        #expect(normalizedLongitude(190) == -170)
        #expect(normalizedLongitude(-190) == 170)
        #expect(normalizedLongitude(180) == 180)
        #expect(normalizedLongitude(540) == 180)
        #expect(normalizedLongitude(360) == 0)
        #expect(normalizedLongitude(-540) == -180)
    }
}
