import Foundation
import Testing
@testable import WaymarkGeo

@Suite struct LocalRulerTests {
    /// The ellipsoid's degree lengths, as geodesy tables give them (WGS 84: a degree of latitude is
    /// 110,574 m at the equator and 111,132 m at 45°; of longitude 111,319 m and 78,847 m).
    @Test func degreesAsTheEllipsoidHasThem() {
        let equator = LocalRuler(latitude: 0), middle = LocalRuler(latitude: 45)
        #expect(abs(equator.north - 110_574) < 1 && abs(equator.east - 111_319) < 1)
        #expect(abs(middle.north - 111_132) < 1 && abs(middle.east - 78_847) < 1)
    }

    /// OSRM's bands: 0.05° wide, the ruler of a band's middle for every place in it, north or south.
    @Test func bandsAsOSRMs() {
        #expect(LocalRuler.osrm(latitude: 42.554) == LocalRuler(latitude: 42.575))
        #expect(LocalRuler.osrm(latitude: 42.550001) == LocalRuler(latitude: 42.575))
        #expect(LocalRuler.osrm(latitude: 42.55) == LocalRuler(latitude: 42.525))
        #expect(LocalRuler.osrm(latitude: -42.554) == LocalRuler(latitude: 42.575))
        #expect(LocalRuler.osrm(latitude: 0) == LocalRuler(latitude: 0.025))
        #expect(LocalRuler.osrm(latitude: 90) == LocalRuler(latitude: 89.975))
        #expect(LocalRuler.osrm(latitude: 1e300) == LocalRuler(latitude: 89.975))
        #expect(LocalRuler.osrm(latitude: .nan) == LocalRuler(latitude: 0.025))
    }

    /// A road off the small ring at 42.5540,1.5067 (Andorra): OSRM's bearing class for it is 330
    /// (under 337.5); on the sphere it measures just over 337.5, one class off.
    @Test func bearingOnTheEllipsoid() {
        let a = Coordinate(latitude: 42.554007, longitude: 1.506771)
        let b = Coordinate(latitude: 42.554048, longitude: 1.506748)
        #expect(LocalRuler.osrm(latitude: a.latitude).bearing(from: a, to: b) < 337.5)
        #expect(a.direction(to: b) > 337.5)
        #expect(LocalRuler.osrm(latitude: 0).bearing(from: a, to: a) == 0)
    }

    /// Lengths along a line: across 180° the short way round, as on the same line moved west; the
    /// sphere for pieces over a degree long.
    @Test func distancesAlongALine() {
        var rulers = LocalRuler.Bands()
        let across = rulers.distance(from: Coordinate(latitude: -17, longitude: 179.999),
                                     to: Coordinate(latitude: -17, longitude: -179.999))
        let west = rulers.distance(from: Coordinate(latitude: -17, longitude: 159.999),
                                   to: Coordinate(latitude: -17, longitude: 160.001))
        #expect(abs(across - west) < 1e-6 && abs(across - 212.9) < 0.1)
        let far = Coordinate(latitude: 10, longitude: 10), farther = Coordinate(latitude: 12, longitude: 10)
        #expect(rulers.distance(from: far, to: farther) == far.distance(to: farther))
    }
}
