package learngate

import (
	"time"
)

// TimestampLayout is the form of timestamps in responses: ISO 8601 in UTC
// with an explicit offset, whole seconds.
const TimestampLayout = "2006-01-02T15:04:05-07:00"

// timestamp marshals as TimestampLayout in UTC.
type timestamp time.Time

// MarshalJSON writes t as a JSON string in TimestampLayout, in UTC.
func (t timestamp) MarshalJSON() ([]byte, error) {
	return []byte(`"` + time.Time(t).UTC().Format(TimestampLayout) + `"`), nil
}

// nonNil makes an absent list an empty JSON array.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// optionalTimestamp is t as a timestamp, nil (JSON null) when t is nil.
func optionalTimestamp(t *time.Time) *timestamp {
	if t == nil {
		return nil
	}
	ts := timestamp(*t)
	return &ts
}
