/// One remembered wrapper key: the word of its ``WrapperKey`` and the slot it names.
@usableFromInline
struct WrapperSlotEntry {
    @usableFromInline var bits: UInt64
    @usableFromInline var slot: Int64

    @usableFromInline init(bits: UInt64, slot: Int64) {
        self.bits = bits
        self.slot = slot
    }
}
