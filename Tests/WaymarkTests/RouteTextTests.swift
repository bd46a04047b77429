import Testing
@testable import Waymark

/// The distances and times of `--format text` directions.
@Suite struct RouteTextTests {
    /// Rounded to 10 m below a kilometre; what rounds up to 1,000 m is told in kilometres.
    @Test func distances() {
        #expect(Route.distanceText(4) == "0 m")
        #expect(Route.distanceText(994.9) == "990 m")
        #expect(Route.distanceText(995) == "1.0 km")
        #expect(Route.distanceText(999.9) == "1.0 km")
        #expect(Route.distanceText(12_345) == "12.3 km")
    }

    @Test func durations() {
        #expect(Route.durationText(29) == "29 s")
        #expect(Route.durationText(90) == "2 min")
        #expect(Route.durationText(3_599) == "1 h 0 min")
        #expect(Route.durationText(5_400) == "1 h 30 min")
    }
}
