package tune

// WithFenceSlots is withFenceSlots, for the tests.
var WithFenceSlots = withFenceSlots
