import Testing
import WaymarkGeo

/// The outline of the left-hand-traffic countries, tried on cities and on towns that face a
/// right-hand-traffic neighbour across a border, a river or a strait.
@Suite struct LeftHandTrafficTests {
    static let left: [(String, Double, Double)] = [
        ("London", 51.507, -0.128), ("Dover", 51.125, 1.313), ("St Peter Port", 49.455, -2.536),
        ("Dublin", 53.349, -6.260), ("Valletta", 35.899, 14.514), ("Nicosia", 35.186, 33.382),
        ("Tokyo", 35.690, 139.692), ("Tsushima", 34.203, 129.288), ("Naha", 26.212, 127.681),
        ("Nemuro", 43.330, 145.583), ("Hong Kong", 22.302, 114.177), ("Macau", 22.199, 113.544),
        ("Mumbai", 19.076, 72.878), ("Karachi", 24.861, 67.010), ("Peshawar", 34.016, 71.578),
        ("Kathmandu", 27.717, 85.324), ("Dhaka", 23.810, 90.413), ("Colombo", 6.927, 79.861),
        ("Male", 4.175, 73.509), ("Port Blair", 11.623, 92.726), ("Bangkok", 13.756, 100.502),
        ("Nong Khai", 17.878, 102.742), ("Mae Sot", 16.713, 98.575), ("Kuala Lumpur", 3.139, 101.687),
        ("Singapore", 1.352, 103.820), ("Jakarta", -6.208, 106.846), ("Dili", -8.556, 125.560),
        ("Port Moresby", -9.443, 147.180), ("Honiara", -9.433, 159.950), ("Sydney", -33.869, 151.209),
        ("Perth", -31.950, 115.860), ("Darwin", -12.463, 130.845), ("Hobart", -42.882, 147.327),
        ("Auckland", -36.848, 174.763), ("Suva", -18.124, 178.450), ("Nairobi", -1.292, 36.822),
        ("Kampala", 0.347, 32.582), ("Dar es Salaam", -6.792, 39.208), ("Lusaka", -15.387, 28.323),
        ("Harare", -17.825, 31.034), ("Maputo", -25.969, 32.573), ("Johannesburg", -26.204, 28.047),
        ("Cape Town", -33.925, 18.424), ("Windhoek", -22.560, 17.066), ("Port Louis", -20.161, 57.501),
        ("Kingston", 17.971, -76.793), ("Nassau", 25.048, -77.355), ("Bridgetown", 13.098, -59.618),
        ("Port of Spain", 10.654, -61.502), ("Georgetown", 6.801, -58.155), ("Paramaribo", 5.852, -55.204),
        ("Stanley", -51.697, -57.852), ("Charlotte Amalie", 18.342, -64.931),
    ]
    static let right: [(String, Double, Double)] = [
        ("Calais", 50.951, 1.858), ("Cherbourg", 49.640, -1.616), ("Paris", 48.857, 2.352),
        ("Porto", 41.150, -8.611), ("Andorra la Vella", 42.506, 1.522), ("Tórshavn", 62.009, -6.772),
        ("Busan", 35.180, 129.076), ("Jeju", 33.499, 126.531), ("Taipei", 25.033, 121.565),
        ("Vladivostok", 43.116, 131.882), ("Yuzhno-Kurilsk", 44.031, 145.861), ("Shenzhen", 22.543, 114.058),
        ("Kabul", 34.555, 69.207), ("Zahedan", 29.496, 60.863), ("Lhasa", 29.652, 91.172),
        ("Yangon", 16.841, 96.173), ("Maungdaw", 20.823, 92.367), ("Vientiane", 17.975, 102.633),
        ("Phnom Penh", 11.556, 104.928), ("Ho Chi Minh City", 10.823, 106.630), ("Manila", 14.600, 120.984),
        ("Koror", 7.341, 134.479), ("Nouméa", -22.276, 166.458), ("Port Vila", -17.734, 168.322),
        ("Pago Pago", -14.280, -170.700), ("Kigali", -1.944, 30.062), ("Bujumbura", -3.361, 29.359),
        ("Lubumbashi", -11.664, 27.479), ("Luanda", -8.839, 13.289), ("Antananarivo", -18.880, 47.508),
        ("Mogadishu", 2.047, 45.318), ("Addis Ababa", 9.005, 38.763), ("Juba", 4.859, 31.571),
        ("Saint-Denis", -20.882, 55.450), ("Miami", 25.762, -80.192), ("Havana", 23.113, -82.366),
        ("San Juan", 18.466, -66.106), ("Pointe-à-Pitre", 16.241, -61.533), ("Fort-de-France", 14.617, -61.059),
        ("Caracas", 10.481, -66.904), ("Cayenne", 4.922, -52.313), ("Boa Vista", 2.820, -60.672),
        ("New York", 40.713, -74.006), ("Berlin", 52.520, 13.405), ("Muscat", 23.588, 58.383),
    ]

    @Test func citiesKeepToTheirSide() {
        for (cities, left) in [(Self.left, true), (Self.right, false)] {
            for (name, latitude, longitude) in cities {
                #expect(LeftHandTraffic.contains(Coordinate(latitude: latitude, longitude: longitude)) == left,
                        "\(name)")
            }
        }
    }
}
