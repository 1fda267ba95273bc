package console

import "testing"

// The TTL buttons follow DescribeTimeToLive's TimeToLiveStatus (API
// reference, TimeToLiveDescription:
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TimeToLiveDescription.html).
func TestSettings_TTLButtons(t *testing.T) {
	tests := []struct {
		status  string
		on, off bool
	}{
		{"ENABLED", false, true},
		{"ENABLING", false, true},
		{"DISABLED", true, false},
		{"DISABLING", true, false},
		{"", true, true},
		{"SOMETHING", true, true},
	}
	for _, tc := range tests {
		var d settingsData
		d.Table.TTL.TimeToLiveStatus = tc.status
		if d.TTLOn() != tc.on || d.TTLOff() != tc.off {
			t.Errorf("%q: on %v off %v, want %v %v", tc.status, d.TTLOn(), d.TTLOff(), tc.on, tc.off)
		}
	}
}
