extension MutableCollection where Self: BidirectionalCollection {
    /// Sorts in place by insertion, keeping elements that compare equal in their order: for the
    /// handful of items a junction's roads or a fix's candidates are, where the standard sort's
    /// setup costs more than the sorting.
    @inlinable
    public mutating func insertionSort(by areInIncreasingOrder: (Element, Element) -> Bool) {
        guard !isEmpty else { return }
        var i = index(after: startIndex)
        while i != endIndex {
            let item = self[i]
            var k = i
            while k != startIndex {
                let before = index(before: k)
                guard areInIncreasingOrder(item, self[before]) else { break }
                self[k] = self[before]
                k = before
            }
            self[k] = item
            formIndex(after: &i)
        }
    }
}
