// The seeded generator lives in its own module (cards-fuzz uses it too, and a program must not depend on
// test support); every test that imports TestSupport still has it.
@_exported import SeededRandom
