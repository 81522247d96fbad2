package tune

import "testing"

func TestSiteMatches(t *testing.T) {
	const pos = "protocols/dlsym/dlsym.oc:68:11"
	for arg, want := range map[string]bool{
		pos:                                true,
		"./protocols/dlsym/dlsym.oc:68:11": true,
		"dlsym/dlsym.oc:68:11":             true,
		"dlsym.oc:68:11":                   true,
		"68:11":                            true,
		"68":                               false,
		"8:11":                             false,
		"ym.oc:68:11":                      false,
		"protocols/dlsym/dlsym.oc:68:1":    false,
		"other.oc:68:11":                   false,
	} {
		if got := siteMatches(pos, arg); got != want {
			t.Errorf("siteMatches(%q, %q) = %v, want %v", pos, arg, got, want)
		}
	}
}
