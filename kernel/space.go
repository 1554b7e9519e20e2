package kernel

// ConstantMemory is the constant memory of a device in bytes, on every
// compute capability: "Total amount of constant memory 64 KB" (PG42
// Table F-2). The constant arrays of a launch must fit in it together.
const ConstantMemory = 64 << 10
