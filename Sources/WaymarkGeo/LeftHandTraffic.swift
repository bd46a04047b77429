/// Where traffic keeps to the left: the countries and territories that drive on the left, as
/// coarse outlines of Waymark's own making (tens of kilometres off at land borders, closer where
/// a border town faces one across a river or strait). OSRM answers the same question per way
/// from its own index (`is_left_hand_traffic`, car.lua's `driving_side` handler).
public enum LeftHandTraffic {
    /// Whether traffic keeps to the left at `c`.
    public static func contains(_ c: Coordinate) -> Bool {
        regions.contains { $0.contains(c.longitude, c.latitude) }
    }

    /// A region's outline, (longitude, latitude) corners in order, and its box for a quick no.
    struct Region: Sendable {
        let corners: [(Double, Double)]
        let west: Double, east: Double, south: Double, north: Double

        init(_ corners: [(Double, Double)]) {
            self.corners = corners
            west = corners.map(\.0).min()!
            east = corners.map(\.0).max()!
            south = corners.map(\.1).min()!
            north = corners.map(\.1).max()!
        }

        /// A box from its west-south and east-north corners.
        init(box west: Double, _ south: Double, _ east: Double, _ north: Double) {
            self.init([(west, south), (east, south), (east, north), (west, north)])
        }

        /// Even-odd ray casting eastwards from the point.
        func contains(_ x: Double, _ y: Double) -> Bool {
            guard x >= west, x <= east, y >= south, y <= north else { return false }
            var inside = false
            var (px, py) = corners[corners.count - 1]
            for (qx, qy) in corners {
                if (qy > y) != (py > y) && x < px + (y - py) / (qy - py) * (qx - px) { inside.toggle() }
                (px, py) = (qx, qy)
            }
            return inside
        }
    }

    static let regions: [Region] = europe + asia + oceania + africa + americas

    static let europe: [Region] = [
        // Great Britain, Ireland and the Isle of Man (France and the Faroes outside).
        Region([(-11.0, 51.0), (-6.3, 49.7), (-5.0, 49.8), (-1.5, 50.25), (0.5, 50.65), (1.5, 51.0),
                (2.2, 51.5), (2.5, 53.5), (2.5, 61.0), (-9.0, 61.0), (-11.5, 55.0)]),
        // The Channel Islands.
        Region([(-2.8, 49.1), (-1.92, 49.1), (-1.92, 49.3), (-2.1, 49.6), (-2.08, 49.8), (-2.8, 49.8)]),
        Region(box: 14.1, 35.75, 14.65, 36.12), // Malta
        Region(box: 32.2, 34.5, 34.7, 35.75), // Cyprus
    ]

    static let asia: [Region] = [
        // Pakistan, India, Nepal, Bhutan, Bangladesh, Sri Lanka and the Maldives (Iran,
        // Afghanistan, China and Myanmar outside).
        Region([(61.5, 25.0), (61.8, 26.2), (63.2, 27.2), (62.8, 28.3), (60.9, 29.5), (60.9, 29.9), (66.3, 29.9),
                (66.6, 30.9), (69.3, 31.9), (70.3, 33.4), (71.1, 34.3), (71.6, 35.5), (71.3, 36.1), (74.6, 37.0),
                (75.0, 37.1), (75.9, 36.7), (77.8, 35.5), (78.3, 34.4), (79.0, 33.0), (78.4, 32.5), (79.0, 31.4),
                (80.2, 30.8), (81.0, 30.2), (83.0, 29.5), (85.0, 28.6), (86.9, 28.0), (88.1, 27.9), (88.8, 28.1),
                (89.6, 28.2), (91.6, 27.9), (92.7, 27.9), (93.8, 28.0), (95.4, 29.3), (96.6, 29.0), (97.4, 28.2),
                (97.0, 27.6), (96.2, 27.3), (95.2, 26.6), (94.6, 25.6), (94.4, 24.5), (93.5, 23.9), (93.4, 22.5),
                (92.7, 21.5), (92.3, 20.7), (89.0, 19.0), (82.5, 5.5), (74.0, -1.0), (72.0, -1.0), (72.0, 8.5),
                (66.0, 22.0)]),
        Region(box: 92.1, 6.5, 94.1, 13.8), // the Andaman and Nicobar Islands
        // Japan (Korea, Taiwan and the Russian islands outside).
        Region([(122.5, 23.8), (131.5, 23.8), (143.0, 24.0), (146.0, 30.0), (146.5, 43.0), (145.95, 43.4),
                (145.45, 43.7), (145.4, 44.0), (145.6, 44.5), (142.0, 45.8), (141.0, 45.8), (139.0, 41.5),
                (137.5, 38.7), (133.5, 36.8), (130.6, 35.0), (129.0, 34.85), (128.6, 34.4), (128.0, 32.8),
                (126.5, 30.5), (122.5, 24.8)]),
        Region([(113.82, 22.15), (114.5, 22.15), (114.5, 22.56), (114.23, 22.56), (114.08, 22.52),
                (113.95, 22.52), (113.82, 22.4)]), // Hong Kong
        Region(box: 113.52, 22.1, 113.61, 22.22), // Macau
    ]

    static let oceania: [Region] = [
        // Thailand, Malaysia, Singapore, Brunei, Indonesia, Timor-Leste, Papua New Guinea, the
        // Solomon Islands and Australia with Christmas and Cocos Islands (Myanmar, Laos, Cambodia,
        // Vietnam, the Philippines, Palau, Micronesia, Vanuatu and New Caledonia outside).
        Region([(100.1, 20.45), (100.6, 20.2), (101.2, 19.6), (101.0, 18.4), (101.1, 17.5), (102.1, 18.2),
                (102.7, 17.85), (103.4, 18.4), (104.7, 17.5), (104.8, 16.4), (105.6, 15.7), (105.2, 14.3),
                (103.2, 14.3), (102.5, 13.6), (102.9, 12.0), (102.6, 10.5), (104.0, 7.0), (105.5, 4.0), (108.5, 5.5),
                (116.5, 7.6), (117.5, 7.6), (119.2, 5.6), (119.2, 4.0), (125.0, 4.2), (126.3, 5.0), (127.2, 5.0),
                (129.5, 2.8), (132.0, 0.5), (142.0, -0.5), (150.0, -0.8), (155.0, -2.5), (163.0, -5.0),
                (170.5, -10.5), (170.0, -12.7), (166.0, -12.4), (163.0, -12.5), (160.0, -15.0), (160.0, -25.0),
                (155.0, -40.0), (147.0, -45.0), (143.0, -45.0), (140.0, -40.0), (130.0, -34.0), (115.0, -36.0),
                (112.0, -30.0), (112.5, -22.0), (96.0, -13.0), (94.5, -6.0), (94.5, 6.5), (97.3, 8.5), (98.45, 9.8),
                (98.75, 10.3), (99.1, 11.0), (99.6, 11.8), (99.2, 12.6), (99.2, 13.0), (98.8, 14.0), (98.3, 15.3),
                (98.6, 16.3), (98.53, 16.8), (97.75, 17.9), (97.8, 18.9), (98.3, 19.7), (99.0, 20.1), (99.5, 20.35)]),
        Region([(165.5, -48.0), (179.5, -48.0), (179.5, -34.0), (172.0, -33.8), (165.5, -45.0)]), // New Zealand
        Region(box: -177.0, -44.6, -175.8, -43.5), // the Chatham Islands
        Region(box: 158.9, -31.8, 159.3, -31.4), // Lord Howe Island
        Region(box: 167.8, -29.2, 168.1, -28.9), // Norfolk Island
        Region(box: 176.8, -21.0, 180.0, -12.4), // Fiji, west of 180°
        Region(box: -180.0, -21.0, -178.2, -15.7), // Fiji, east of 180°
        Region(box: -176.3, -22.5, -173.5, -15.5), // Tonga
        Region(box: -172.85, -14.1, -171.35, -13.4), // Samoa (American Samoa outside)
        Region(box: 176.0, -10.9, 179.95, -5.6), // Tuvalu
        Region(box: 166.85, -0.6, 167.0, -0.48), // Nauru
        Region(box: 172.5, -2.8, 177.0, 3.6), // Kiribati: the Gilbert Islands
        Region(box: -175.0, -5.0, -170.5, -2.5), // Kiribati: the Phoenix Islands
        Region(box: -162.0, -11.5, -150.0, 4.8), // Kiribati: the Line Islands
        Region(box: -166.0, -22.1, -157.3, -8.9), // the Cook Islands
        Region(box: -170.0, -19.2, -169.7, -18.9), // Niue
    ]

    static let africa: [Region] = [
        // South Africa, Lesotho, Eswatini, Namibia, Botswana, Zimbabwe, Zambia, Malawi,
        // Mozambique, Tanzania, Kenya and Uganda (Angola, the Congo, Rwanda, Burundi, South Sudan,
        // Ethiopia, Somalia, the Comoros and Madagascar outside).
        Region([(11.7, -17.2), (13.5, -17.4), (18.5, -17.4), (21.0, -18.0), (23.4, -17.6), (22.0, -16.2),
                (22.0, -13.0), (24.0, -13.0), (24.0, -11.3), (25.3, -11.3), (26.9, -11.9), (28.5, -12.8),
                (29.6, -13.3), (29.8, -12.2), (28.4, -11.0), (28.7, -8.5), (30.8, -8.2), (29.9, -6.5), (29.55, -4.5),
                (30.6, -3.8), (30.85, -3.0), (30.85, -2.3), (30.5, -1.05), (29.6, -1.4), (29.9, 0.0), (29.95, 1.2),
                (30.6, 2.4), (30.75, 3.6), (31.5, 3.7), (33.5, 3.8), (34.1, 4.3), (35.9, 4.6), (38.0, 3.6),
                (39.5, 3.5), (41.0, 4.0), (41.9, 4.0), (41.0, 2.8), (41.0, -0.9), (41.6, -1.7), (43.0, -4.0),
                (41.5, -9.5), (41.2, -12.0), (41.0, -15.0), (42.0, -17.5), (40.0, -22.0), (36.0, -25.5),
                (33.5, -27.5), (32.0, -30.5), (28.0, -34.5), (20.0, -35.5), (17.0, -34.5), (14.5, -27.0)]),
        Region(box: 55.2, -4.9, 56.0, -3.7), // the Seychelles' main islands
        Region(box: 57.2, -20.6, 57.9, -19.9), // Mauritius
        Region(box: 63.2, -19.9, 63.6, -19.6), // Rodrigues
        Region(box: -5.9, -16.1, -5.6, -15.85), // Saint Helena
        Region(box: -14.5, -8.05, -14.25, -7.85), // Ascension
    ]

    static let americas: [Region] = [
        Region(box: -78.5, 17.6, -76.1, 18.6), // Jamaica
        Region(box: -81.5, 19.2, -79.6, 19.8), // the Cayman Islands
        // The Bahamas and the Turks and Caicos Islands (Florida and Cuba outside).
        Region([(-79.6, 27.3), (-76.0, 27.3), (-71.0, 22.0), (-71.0, 20.9), (-73.8, 20.5), (-75.8, 22.0),
                (-77.8, 22.9), (-79.4, 23.4), (-79.6, 24.0)]),
        Region(box: -65.15, 17.6, -64.2, 18.8), // the Virgin Islands (Puerto Rico outside)
        Region(box: -63.45, 18.14, -62.9, 18.6), // Anguilla (Saint Martin outside)
        Region(box: -62.9, 17.05, -62.5, 17.45), // Saint Kitts and Nevis
        Region(box: -62.0, 16.9, -61.6, 17.8), // Antigua and Barbuda
        Region(box: -62.3, 16.65, -62.1, 16.85), // Montserrat
        Region(box: -61.55, 15.18, -61.2, 15.65), // Dominica
        Region(box: -61.1, 13.68, -60.85, 14.12), // Saint Lucia
        Region(box: -61.9, 11.95, -61.05, 13.42), // Saint Vincent and the Grenadines, Grenada
        Region(box: -59.7, 13.0, -59.38, 13.36), // Barbados
        // Trinidad and Tobago (Venezuela's Paria peninsula outside).
        Region([(-62.0, 10.0), (-60.4, 10.0), (-60.4, 11.4), (-61.83, 11.4), (-61.83, 10.6), (-62.0, 10.3)]),
        // Guyana and Suriname (Venezuela, Brazil and French Guiana outside).
        Region([(-60.0, 8.6), (-61.4, 6.0), (-60.7, 5.2), (-59.6, 3.9), (-59.85, 3.4), (-59.8, 2.3), (-59.5, 1.5),
                (-58.7, 1.3), (-56.5, 1.9), (-54.6, 2.3), (-54.0, 3.8), (-54.45, 5.0), (-54.05, 5.8), (-55.5, 6.5),
                (-58.0, 7.5)]),
        Region(box: -61.5, -52.5, -57.5, -50.9), // the Falkland Islands
        Region(box: -64.95, 32.2, -64.6, 32.45), // Bermuda
    ]
}
