import WaymarkGraph

extension TravelProfile {
    /// The profile that reads OpenStreetMap for this kind of travel (`vehicle`: the car's size).
    public func routingProfile(vehicle: Vehicle = Vehicle()) -> any RoutingProfile {
        switch self {
        case .car: CarProfile(vehicle: vehicle)
        case .bicycle: BicycleProfile()
        case .foot: FootProfile()
        }
    }
}
