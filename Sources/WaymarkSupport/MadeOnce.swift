import Foundation

/// A value made at its first use, once, by whichever thread asks first (others wait for it):
/// for what a shared, read-only map derives on demand rather than at load. The lock is the
/// value's own, so making one value never waits on another.
public final class MadeOnce<Value: Sendable>: @unchecked Sendable {
    // @unchecked: `made` is read and written only under `lock`.
    // (Inlinable, so that each use is specialized: a generic call copied the value through
    // the runtime's witnesses, several times a query.)
    @usableFromInline let lock = NSLock()
    @usableFromInline var made: Value?

    public init() {}

    /// The value, made by `make` at the first call.
    @inlinable
    public func value(_ make: () -> Value) -> Value {
        lock.withLock {
            if let made { return made }
            let value = make()
            made = value
            return value
        }
    }
}
