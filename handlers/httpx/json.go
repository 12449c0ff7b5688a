package httpx

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"

	"github.com/gin-gonic/gin"

	"learngate"
	"learngate/input"
)

// DecodeStrict reads the request body as one JSON object into v, refusing
// unknown fields, trailing data, wrong types and strings holding a NUL
// character (nulString) with a clear Invalid error,
// and bodies over MaxBodyBytes or the JSON bounds (readBody) with
// TooLarge. An empty body, and JSON that
// is not an object (null, [], "x", 1), is Invalid.
func DecodeStrict(c *gin.Context, v any) error {
	body, err := ReadBody(c)
	if err != nil {
		return err
	}
	return DecodeStrictBytes(body, v)
}

// DecodeStrictBytes is decodeStrict on a body already read by readBody.
func DecodeStrictBytes(body []byte, v any) error {
	// Only an object: encoding/json would take null as "no change" and
	// leave v as it was (docs/reliability.md, B1).
	if trimmed := bytes.TrimSpace(body); len(trimmed) == 0 || trimmed[0] != '{' {
		if len(trimmed) > 0 && !json.Valid(trimmed) {
			return learngate.Errorf(learngate.Invalid, "malformed JSON")
		}
		return learngate.Errorf(learngate.Invalid, "request body must be a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return learngate.Errorf(learngate.Invalid, "%s", describeJSONError(err))
	}
	if dec.More() {
		return learngate.Errorf(learngate.Invalid, "request body must hold one JSON object")
	}
	if field, value, found := nulString(reflect.ValueOf(v), ""); found {
		return input.IllegalValue(field, value)
	}
	return nil
}

// nulString finds a string holding a NUL character (JSON "\u0000") in a
// decoded body, which PostgreSQL text cannot hold: it returns the string
// and its field as JSON names it ("name", "options", "a.b"; array items
// take their array's name). Every body decodeStrict reads is checked here,
// so no handler needs its own check (docs/decisions.md, "Bodies and hostile input").
func nulString(v reflect.Value, field string) (string, string, bool) {
	switch v.Kind() {
	case reflect.String:
		if strings.IndexByte(v.String(), 0) >= 0 {
			return field, v.String(), true
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			return nulString(v.Elem(), field)
		}
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return "", "", false // raw bytes, not text
		}
		for i := range v.Len() {
			if f, s, ok := nulString(v.Index(i), field); ok {
				return f, s, true
			}
		}
	case reflect.Map:
		for iter := v.MapRange(); iter.Next(); {
			key := joinField(field, fmt.Sprint(iter.Key().Interface()))
			if f, s, ok := nulString(iter.Key(), key); ok {
				return f, s, true
			}
			if f, s, ok := nulString(iter.Value(), key); ok {
				return f, s, true
			}
		}
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			sf := t.Field(i)
			if !sf.IsExported() {
				continue
			}
			name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
			switch {
			case name == "-":
				continue
			case name == "" && sf.Anonymous:
				name = field // embedded: its fields are the parent's
			case name == "":
				name = joinField(field, sf.Name)
			default:
				name = joinField(field, name)
			}
			if f, s, ok := nulString(v.Field(i), name); ok {
				return f, s, true
			}
		}
	}
	return "", "", false
}

// joinField names a nested field: "a" and "b" give "a.b".
func joinField(parent, name string) string {
	if parent == "" {
		return name
	}
	return parent + "." + name
}

// describeJSONError says what is wrong with a body, without internals.
func describeJSONError(err error) string {
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	switch {
	case errors.As(err, &typeErr):
		if typeErr.Field == "" {
			return "request body must be a JSON object"
		}
		return fmt.Sprintf("invalid value for %q: expected %s", typeErr.Field, typeErr.Type)
	case errors.As(err, &syntaxErr), errors.Is(err, io.ErrUnexpectedEOF):
		return "malformed JSON"
	}
	if msg := err.Error(); len(msg) > 20 && msg[:20] == "json: unknown field " {
		return "unknown field " + msg[20:]
	}
	return "malformed JSON"
}

// DecodeNoBody reads the body of a POST that takes none (a webhook's
// rotate_secret, test and retry): it may be empty or {}, anything else is
// Invalid and a body over MaxBodyBytes TooLarge, as decodeStrict answers
// (docs/reliability.md, B3).
func DecodeNoBody(c *gin.Context) error {
	body, err := ReadBody(c)
	if err != nil {
		return err
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return nil
	}
	return DecodeStrictBytes(body, &struct{}{})
}

// The bounds of a JSON body (docs/decisions.md, "Bodies and hostile input"): past them a body
// answers 413 before it is decoded into a tree, so no request can turn its
// 10 MiB into hundreds of MiB of maps, slices and interfaces.
const (
	// MaxJSONValues is the most values a body may hold: every scalar,
	// array, object and object key counts one.
	MaxJSONValues = 100_000
	// MaxJSONDepth is the deepest nesting of arrays and objects.
	MaxJSONDepth = 64
)

// ReadBody is the one reader of request bodies: it reads the body (over
// MaxBodyBytes: TooLarge), then checks it against MaxJSONValues and
// MaxJSONDepth (over: TooLarge). A body that cannot be read is Invalid.
//
// A body a step of the chain read already (holdBody) is taken as it is.
func ReadBody(c *gin.Context) ([]byte, error) {
	if held, ok := c.Request.Body.(*heldBody); ok {
		c.Request.Body = http.NoBody
		return held.body, nil
	}
	body, err := readAtMost(c.Request.Body, c.Request.ContentLength)
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return nil, learngate.Errorf(learngate.TooLarge, "request body too large")
		}
		return nil, learngate.Errorf(learngate.Invalid, "could not read the request body")
	}
	if !WithinJSONBounds(body) {
		return nil, learngate.Errorf(learngate.TooLarge, "request body too large")
	}
	if err := holdDecodeBudget(c, len(body)); err != nil {
		return nil, err
	}
	return body, nil
}

// readAtMost reads r to its end like io.ReadAll, its buffer doubling as
// bytes arrive but never past declared (the request's Content-Length, at
// most MaxBodyBytes: limitBody), so a 10 MiB body ends in a buffer of its
// size rather than of the next power of two, and a client that declares
// 10 MiB but sends little makes it allocate little.
func readAtMost(r io.Reader, declared int64) ([]byte, error) {
	buf := make([]byte, 0, 512)
	for {
		if len(buf) == cap(buf) {
			size := 2 * cap(buf)
			if int64(len(buf)) < declared && int64(size) > declared {
				size = int(declared) + 1 // room to read the end
			}
			grown := make([]byte, len(buf), size)
			copy(grown, buf)
			buf = grown
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if errors.Is(err, io.EOF) {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// WithinJSONBounds scans body without decoding or allocating and reports
// whether it holds at most MaxJSONValues values nested at most
// MaxJSONDepth deep. It stops at the first bound passed. It does not
// validate: on malformed input its count is an estimate (a run of bytes
// that is not a string, a bracket or a separator counts one value), and the
// decoder that follows reports the syntax error.
func WithinJSONBounds(body []byte) bool {
	values, depth := 0, 0
	for i := 0; i < len(body); i++ {
		switch body[i] {
		case ' ', '\t', '\r', '\n', ',', ':':
			continue
		case '{', '[':
			if depth++; depth > MaxJSONDepth {
				return false
			}
		case '}', ']':
			if depth > 0 {
				depth--
			}
			continue
		case '"':
			for i++; i < len(body) && body[i] != '"'; i++ {
				if body[i] == '\\' {
					i++
				}
			}
		default: // a number or a literal: up to the next delimiter
			for i+1 < len(body) && !isJSONDelimiter(body[i+1]) {
				i++
			}
		}
		if values++; values > MaxJSONValues {
			return false
		}
	}
	return true
}

// isJSONDelimiter reports whether b ends a number or a literal.
func isJSONDelimiter(b byte) bool {
	switch b {
	case ' ', '\t', '\r', '\n', ',', ':', '{', '}', '[', ']', '"':
		return true
	}
	return false
}

// JSONSpace is the white space JSON allows between tokens.
const JSONSpace = " \t\r\n"

// DecodeTree decodes the next JSON value of dec as encoding/json decodes it
// into an any (objects as map[string]any, the last of duplicate keys
// winning; arrays as []any, never nil; numbers as dec gives them), token by
// token: the decoder then buffers one token at a time rather than the whole
// value, which saves a growing copy of a 10 MiB body. Its nesting is
// bounded by readBody (MaxJSONDepth), so the recursion is too.
func DecodeTree(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		obj := make(map[string]any)
		for dec.More() {
			tok, err := dec.Token()
			if err != nil {
				return nil, err
			}
			key, ok := tok.(string)
			if !ok {
				return nil, errors.New("object key is not a string")
			}
			v, err := DecodeTree(dec)
			if err != nil {
				return nil, err
			}
			obj[key] = v
		}
		if _, err := dec.Token(); err != nil {
			return nil, err
		}
		return obj, nil
	case json.Delim('['):
		arr := make([]any, 0)
		for dec.More() {
			v, err := DecodeTree(dec)
			if err != nil {
				return nil, err
			}
			arr = append(arr, v)
		}
		if _, err := dec.Token(); err != nil {
			return nil, err
		}
		return arr, nil
	}
	return tok, nil
}

// heldBody is a request body read already (holdBody): readBody takes its
// bytes as they are (read, bounded and counted against the decode budget
// once), anything else reads it as a stream.
type heldBody struct {
	*bytes.Reader
	body []byte
}

// Close does nothing: the body was read to its end.
func (*heldBody) Close() error { return nil }

// HoldBody is the request body to put back after a step of the chain read
// body with readBody (the idempotency step, for the request's
// fingerprint): the handler's readBody takes it without reading again.
func HoldBody(body []byte) io.ReadCloser {
	return &heldBody{Reader: bytes.NewReader(body), body: body}
}
