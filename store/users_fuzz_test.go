package store

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"learngate"
)

// FuzzCustomValue feeds every custom field type any value a client may
// send: the result is a stored value the field accepts, a clear, or an
// Invalid error naming the field, never a panic or another error.
func FuzzCustomValue(f *testing.F) {
	for _, s := range []string{`"Auckland"`, `7`, `"7.50"`, `-0`, `1e400`, `"2024-02-29"`, `"31/02/2024"`, `"29/02/24"`,
		`["go","SQL"]`, `"Go;Docker"`, `";"`, `["Go",""]`, `[1,2]`, `{"a":1}`, `true`, `null`, `""`, `"x"`} {
		f.Add(s)
	}
	fields := []learngate.CustomField{
		{ID: 1, Name: "City", FieldType: learngate.FieldString},
		{ID: 2, Name: "Age", FieldType: learngate.FieldNumber},
		{ID: 3, Name: "Start", FieldType: learngate.FieldDate},
		{ID: 4, Name: "Skills", FieldType: learngate.FieldList, Options: []string{"Go", "SQL", "Docker"}},
	}
	f.Fuzz(func(t *testing.T, s string) {
		values := []any{s}
		dec := json.NewDecoder(strings.NewReader(s))
		dec.UseNumber()
		var v any
		if dec.Decode(&v) == nil {
			values = append(values, v)
		}
		for _, field := range fields {
			for _, v := range values {
				label := "X-" + field.Name
				value, set, err := customValue(field, label, v)
				if err != nil {
					var e *learngate.Error
					if !errors.As(err, &e) || e.Code != learngate.Invalid || !strings.Contains(e.Message, label) {
						t.Fatalf("customValue(%s, %#v) = %v, want an Invalid error naming %s", field.FieldType, v, err, label)
					}
					continue
				}
				if !set && value != "" {
					t.Fatalf("customValue(%s, %#v) cleared but gave %q", field.FieldType, v, value)
				}
				if set && field.FieldType == learngate.FieldList {
					for _, item := range strings.Split(value, ";") {
						if _, ok := matchOption(field.Options, item); !ok {
							t.Fatalf("customValue(list, %#v) = %q, holds %q, not an option", v, value, item)
						}
					}
				}
			}
		}
	})
}
