package cacheline

// Size is the number of bytes that separates two padded fields.
const Size = 128

// Pad is placed between hot fields: `_ cacheline.Pad`.
type Pad [Size]byte
