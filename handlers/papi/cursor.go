package papi

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"learngate"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"learngate/handlers/httpx"
	"learngate/input"
	"learngate/store/list"
)

// Walking a list with links (docs/api.md, "Walking a list with links";
// docs/decisions.md, "Lists and paging"). Every list answers a Link header
// (RFC 8288) with rel="first" and, when there is a page after this one,
// rel="next": an absolute URL on the request's own host with the request's
// filters, its per_page and an opaque cursor. The cursor holds the position
// of the page's last record, the next page's number and the walk's totals,
// signed with HMAC-SHA256 over the tenant, the endpoint, the filters and
// per_page, so that it is good for exactly that walk.

// cursorParam is the query parameter of a cursor.
const cursorParam = "cursor"

// cursorVersion starts every cursor's payload.
const cursorVersion = 1

// cursorDomain separates cursor signatures from every other use of the
// signing key (certificate download links sign with a domain of their own).
const cursorDomain = "learngate list cursor\n"

// notFilters are the query parameters that are no filter of a list: they
// are left out of a cursor's binding, and api_key never appears in a link.
var notFilters = []string{"page", "per_page", cursorParam, "api_key"}

// listCursor is what a cursor carries: the page it asks for and the walk's
// totals, and the position of the last record of the page before.
type listCursor struct {
	page  int
	total int64
	after learngate.Key
}

// cursorBinding is what a cursor is signed over besides its payload: the
// tenant, the endpoint (the request's path), the filters (the query without
// page, per_page, cursor and api_key, in canonical form) and per_page in
// effect. Each part is length-prefixed so that no two bindings share bytes.
func cursorBinding(c *gin.Context, perPage int) []byte {
	var b []byte
	part := func(s string) {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	part(strconv.FormatInt(httpx.CurrentTenant(c).ID, 10))
	part(c.Request.URL.Path)
	part(listFilters(c).Encode())
	part(strconv.Itoa(perPage))
	return b
}

// listFilters is the request's query without the parameters that are no filter.
func listFilters(c *gin.Context) url.Values {
	q := c.Request.URL.Query()
	for _, name := range notFilters {
		q.Del(name)
	}
	return q
}

// signCursor is the HMAC-SHA256 of a cursor's payload and binding.
func (a *API) signCursor(payload, binding []byte) []byte {
	mac := hmac.New(sha256.New, a.deps.CursorKey)
	mac.Write([]byte(cursorDomain))
	mac.Write(binding)
	mac.Write(payload)
	return mac.Sum(nil)
}

// encodeCursor writes cur, signed for the request's walk of perPage records a page.
func (a *API) encodeCursor(c *gin.Context, perPage int, cur listCursor) string {
	p := []byte{cursorVersion}
	p = binary.AppendUvarint(p, uint64(cur.page))
	p = binary.AppendUvarint(p, uint64(cur.total))
	p = binary.AppendVarint(p, cur.after.ID)
	if cur.after.CreatedAt.IsZero() {
		p = append(p, 0)
	} else {
		p = append(p, 1)
		p = binary.AppendVarint(p, cur.after.CreatedAt.UnixMicro())
	}
	p = append(p, a.signCursor(p, cursorBinding(c, perPage))...)
	return base64.RawURLEncoding.EncodeToString(p)
}

// errBadCursor is any cursor that is not one this server signed for this walk.
var errBadCursor = errors.New("bad cursor")

// decodeCursor checks raw's signature for the request's walk of perPage
// records a page (in constant time) and reads it.
func (a *API) decodeCursor(c *gin.Context, perPage int, raw string) (listCursor, error) {
	b, err := base64.RawURLEncoding.Strict().DecodeString(raw)
	if err != nil || len(b) < 1+sha256.Size || b[0] != cursorVersion {
		return listCursor{}, errBadCursor
	}
	payload, sig := b[:len(b)-sha256.Size], b[len(b)-sha256.Size:]
	if !hmac.Equal(sig, a.signCursor(payload, cursorBinding(c, perPage))) {
		return listCursor{}, errBadCursor
	}
	r := payload[1:]
	next := func() uint64 {
		v, n := binary.Uvarint(r)
		if n <= 0 {
			err = errBadCursor
			return 0
		}
		r = r[n:]
		return v
	}
	nextSigned := func() int64 {
		v, n := binary.Varint(r)
		if n <= 0 {
			err = errBadCursor
			return 0
		}
		r = r[n:]
		return v
	}
	var cur listCursor
	page, total := next(), next()
	cur.after.ID = nextSigned()
	if err != nil || len(r) == 0 || page < 2 || page > input.MaxPage || total > 1<<62 {
		return listCursor{}, errBadCursor
	}
	hasTime := r[0]
	r = r[1:]
	if hasTime == 1 {
		cur.after.CreatedAt = time.UnixMicro(nextSigned()).UTC()
	}
	if err != nil || hasTime > 1 || len(r) != 0 {
		return listCursor{}, errBadCursor
	}
	cur.page, cur.total = int(page), int64(total)
	return cur, nil
}

// cursorPage is the store page of a request that carries a cursor: the
// page after the cursor's key, one record longer than per_page (the extra
// record only tells respondList that a next page exists).
func (a *API) cursorPage(c *gin.Context, perPage int, raw string) (list.Page, error) {
	cur, err := a.decodeCursor(c, perPage, raw)
	if err != nil {
		return list.Page{}, input.IllegalValue(cursorParam, raw)
	}
	after := cur.after
	return list.Page{Number: cur.page, Size: perPage + 1, After: &after, Total: cur.total}, nil
}

// respondList answers 200 with one page of a list in the envelope and its
// Link header. page is the store page the records were read with: on a
// cursor page it asked for one record more than per_page.
func respondList[T learngate.Keyed](c *gin.Context, a *API, records []T, total int64, page list.Page) {
	size := page.Size
	var more bool
	if page.After != nil {
		size--
		more = len(records) > size
		records = records[:min(len(records), size)]
	} else {
		more = int64(page.Number) < (total+int64(size)-1)/int64(size)
	}
	links := []string{`<` + a.listURL(c, size, "") + `>; rel="first"`}
	if more && len(records) > 0 {
		next := listCursor{page: page.Number + 1, total: total, after: records[len(records)-1].ListKey()}
		links = append([]string{`<` + a.listURL(c, size, a.encodeCursor(c, size, next)) + `>; rel="next"`}, links...)
	}
	c.Header("Link", strings.Join(links, ", "))
	c.JSON(http.StatusOK, newListEnvelope(records, total, list.Page{Number: page.Number, Size: size}))
}

// listURL is the absolute URL of the request's list, on its own host, with
// its filters, per_page and cursor (none when empty).
func (a *API) listURL(c *gin.Context, perPage int, cursor string) string {
	q := listFilters(c)
	q.Set("per_page", strconv.Itoa(perPage))
	if cursor != "" {
		q.Set(cursorParam, cursor)
	}
	scheme := a.deps.PublicScheme
	if scheme == "" {
		scheme = "https"
	}
	u := url.URL{Scheme: scheme, Host: c.Request.Host, Path: c.Request.URL.Path, RawPath: c.Request.URL.RawPath,
		RawQuery: q.Encode()}
	return u.String()
}
