package papi

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"

	"learngate"
	"learngate/handlers/handlertest"
	"learngate/handlers/httpx"
)

// The bounded decoding of request bodies (docs/decisions.md, "Bodies and hostile input";
// docs/reliability.md, "Hostile and careless clients").

// referenceBounds counts body's values and nesting with encoding/json's
// tokenizer, by the rule httpx.WithinJSONBounds applies: every scalar, array,
// object and object key is one value. ok is false when body is not a
// sequence of JSON values.
func referenceBounds(body []byte) (values, depth int, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	cur := 0
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return values, depth, true
		}
		if err != nil {
			return values, depth, false
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			values++
			cur++
			depth = max(depth, cur)
		case json.Delim('}'), json.Delim(']'):
			cur--
		default:
			values++
		}
	}
}

func TestWithinJSONBounds(t *testing.T) {
	for _, tt := range []struct {
		name string
		body string
		ok   bool
	}{
		{"empty", "", true},
		{"small object", `{"name":"x","n":[1,true,null,{"a":-1.5e+3}]}`, true},
		{"100,000 values", handlertest.Array(99_999), true},
		{"100,001 values", handlertest.Array(100_000), false},
		{"100,001 values under a field", `{"user_name":` + handlertest.Array(99_998) + `}`, false},
		{"100,000 values under a field", `{"user_name":` + handlertest.Array(99_997) + `}`, true},
		{"100,001 keys and values", "{" + strings.Repeat(`"k":1,`, 49_999) + `"k":1,"k":1}`, false},
		{"depth 64", handlertest.Nested(64, true), true},
		{"depth 65", handlertest.Nested(65, true), false},
		{"depth 65 unclosed", handlertest.Nested(65, false), false},
		{"depth 64 of objects", strings.Repeat(`{"a":`, 64) + "1" + strings.Repeat("}", 64), true},
		{"depth 65 of objects", strings.Repeat(`{"a":`, 65) + "1" + strings.Repeat("}", 65), false},
		{"brackets inside strings do not nest", `{"a":"` + handlertest.Nested(1000, false) + `"}`, true},
		{"escaped quotes stay inside the string", `{"a":"\"[[[[` + handlertest.Nested(100, false) + `\\\""}`, true},
		{"many closing brackets do not go below zero", strings.Repeat("]", 1000) + handlertest.Nested(65, true), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := httpx.WithinJSONBounds([]byte(tt.body)); got != tt.ok {
				t.Fatalf("httpx.WithinJSONBounds = %v, want %v", got, tt.ok)
			}
			if values, depth, valid := referenceBounds([]byte(tt.body)); valid {
				if want := values <= httpx.MaxJSONValues && depth <= httpx.MaxJSONDepth; want != tt.ok {
					t.Fatalf("test case disagrees with encoding/json: %d values, depth %d", values, depth)
				}
			}
		})
	}
}

// decodeOutcome runs both body decoders on body through a gin context, as
// a route reads it, and returns their errors.
func decodeOutcome(body string) (strictErr, userErr error) {
	for i, decode := range []func(*gin.Context) error{
		func(c *gin.Context) error { var v map[string]any; return httpx.DecodeStrict(c, &v) },
		func(c *gin.Context) error { _, err := decodeUserBody(c); return err },
	} {
		c, _ := gin.CreateTestContext(httptest.NewRecorder())
		c.Request = httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
		err := decode(c)
		if i == 0 {
			strictErr = err
		} else {
			userErr = err
		}
	}
	return strictErr, userErr
}

// FuzzBoundedDecode sends the decoders a fuzzed body, and the body built
// by repeating unit count times inside depth arrays under a field: no
// panic, and TooLarge exactly when a valid body passes a bound (a body
// that is not JSON may be either, but never anything but Invalid or
// TooLarge).
func FuzzBoundedDecode(f *testing.F) {
	for _, s := range []struct {
		body, unit string
		count      uint32
		depth      uint8
	}{
		{`{"name":"x"}`, "1", 99_997, 0},
		{`{"name":"x"}`, "1", 99_998, 0},
		{`{"a":"\u0000"}`, `"a\"]["`, 50_000, 10},
		{handlertest.Nested(65, true), "[]", 3, 63},
		{handlertest.Nested(64, true), "{}", 3, 64},
		{`{"a":[1,2,` + handlertest.Nested(70, false), `{"k":[1,2]}`, 25_000, 1},
		{"\xff\x00[", "tru", 100_000, 2},
	} {
		f.Add(s.body, s.unit, s.count, s.depth)
	}
	f.Fuzz(func(t *testing.T, body, unit string, count uint32, depth uint8) {
		n := int(count % 2_000_000)
		if unit == "" || len(unit)*n > httpx.MaxBodyBytes {
			n = 0
		}
		built := `{"f":` + strings.Repeat("[", int(depth)) + strings.Repeat(unit+",", n) + unit +
			strings.Repeat("]", int(depth)) + "}"
		for _, b := range []string{body, built} {
			values, d, valid := referenceBounds([]byte(b))
			over := values > httpx.MaxJSONValues || d > httpx.MaxJSONDepth
			valid = valid && json.Valid([]byte(b))
			strictErr, userErr := decodeOutcome(b)
			for _, err := range []error{strictErr, userErr} {
				code := learngate.ErrorCode(err)
				if err != nil && code != learngate.Invalid && code != learngate.TooLarge {
					t.Fatalf("body %q: error %v", handlertest.Truncate(b, 200), err)
				}
				if valid && over != (code == learngate.TooLarge) {
					t.Fatalf("body %q (%d values, depth %d): error %v", handlertest.Truncate(b, 200), values, d, err)
				}
				var e *learngate.Error
				if code == learngate.TooLarge && (!errors.As(err, &e) || e.Message != "request body too large") {
					t.Fatalf("TooLarge error %v", err)
				}
			}
		}
	})
}
