package graphs

// SetVerifyGrowth has the explorer compare every verdict of a model's
// clocks with its full check's (an internal error when they differ) while
// on, and returns the old setting.
func SetVerifyGrowth(on bool) bool { return verifyGrowth.Swap(on) }
