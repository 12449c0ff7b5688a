package main

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"learngate/bench/datagen"
)

// walk is one list read whole by following its Link rel="next" headers.
type walk struct {
	name       string
	path       string
	pages      int
	rows       int
	total      int // total_records of the first page
	duplicates int
	firstPage  time.Duration   // the numbered first page (it counts)
	cursor     []time.Duration // every page read through a cursor, in order
	elapsed    time.Duration
	err        string
	bodies     [sha256.Size]byte // SHA-256 of every page's body in order
}

// Walk targets (docs/performance.md).
const (
	walkPageMillis = 15
	walkLastRatio  = 1.2
	walkEdgePages  = 100 // pages at each end compared
)

// walkQuery is a list the cursor walks read whole.
type walkQuery struct{ name, path string }

// walkQueries are every topic enrolment of a tenant of spec ts and every
// one updated after a time that selects about 1% of them.
func walkQueries(ts datagen.TenantSpec) []walkQuery {
	after := filterTime(datagen.UpdatedAfter(0.01, ts.TopicEnrolments))
	return []walkQuery{
		{"every topic enrolment", "/papi/topic_assignments?per_page=100"},
		{"topic enrolments updated_after (1%)", "/papi/topic_assignments?per_page=100&updated_after=" + after},
	}
}

// cursorWalks walks the walkQueries of the tenant.
func cursorWalks(ctx context.Context, lg target, ts datagen.TenantSpec) []walk {
	var ws []walk
	for _, q := range walkQueries(ts) {
		ws = append(ws, walkList(ctx, lg, q.name, q.path))
	}
	return ws
}

// walkList reads path and then each rel="next" link until there is none,
// timing each page, and checks that it saw total_records distinct records.
func walkList(ctx context.Context, lg target, name, path string) walk {
	w := walk{name: name, path: path}
	client := &http.Client{Timeout: 2 * time.Minute}
	var seen idSet
	bodies := sha256.New()
	began := time.Now()
	next := path
	for next != "" && ctx.Err() == nil {
		req, err := lg.request(http.MethodGet, next, nil)
		if err != nil {
			w.err = err.Error()
			break
		}
		sent := time.Now()
		resp, err := client.Do(req)
		if err != nil {
			w.err = err.Error()
			break
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		took := time.Since(sent)
		if err != nil || resp.StatusCode != http.StatusOK {
			w.err = fmt.Sprintf("page %d: %d %.200s %v", w.pages+1, resp.StatusCode, body, err)
			break
		}
		var env struct {
			Total   int `json:"total_records"`
			Records []struct {
				ID int64 `json:"id"`
			} `json:"records"`
		}
		if err := json.Unmarshal(body, &env); err != nil {
			w.err = fmt.Sprintf("page %d: %v", w.pages+1, err)
			break
		}
		bodies.Write(body)
		if w.pages == 0 {
			w.firstPage, w.total = took, env.Total
		} else {
			w.cursor = append(w.cursor, took)
		}
		w.pages++
		for _, r := range env.Records {
			if !seen.add(r.ID) {
				w.duplicates++
			}
		}
		w.rows += len(env.Records)
		if w.pages%5000 == 0 {
			progress("walk: %s: %d pages, %d records", name, w.pages, w.rows)
		}
		if next, err = nextLink(resp.Header.Values("Link")); err != nil {
			w.err = err.Error()
			break
		}
	}
	w.elapsed = time.Since(began)
	bodies.Sum(w.bodies[:0])
	return w
}

// nextLink is the path and query of the rel="next" link of a Link header
// ("" when there is none): the link is absolute on the host the request
// named, which the harness reaches through its loopback address.
func nextLink(headers []string) (string, error) {
	for _, h := range headers {
		for _, part := range strings.Split(h, ",") {
			part = strings.TrimSpace(part)
			if !strings.HasSuffix(part, `rel="next"`) {
				continue
			}
			open, end := strings.Index(part, "<"), strings.Index(part, ">")
			if open < 0 || end < open {
				return "", fmt.Errorf("malformed link %q", part)
			}
			u, err := url.Parse(part[open+1 : end])
			if err != nil {
				return "", err
			}
			return u.RequestURI(), nil
		}
	}
	return "", nil
}

// edges are the p50 of the first and the last walkEdgePages cursor pages.
func (w walk) edges() (first, last time.Duration) {
	n := min(walkEdgePages, len(w.cursor))
	first, _ = percentiles(w.cursor[:n])
	last, _ = percentiles(w.cursor[len(w.cursor)-n:])
	return first, last
}

// verdict is the walk's result and what missed.
func (w walk) verdict() (bool, string) {
	var miss []string
	if w.err != "" {
		miss = append(miss, w.err)
	}
	if w.rows != w.total || w.duplicates > 0 {
		miss = append(miss, fmt.Sprintf("saw %d records (%d duplicates) of total_records %d", w.rows, w.duplicates, w.total))
	}
	p50, _ := percentiles(w.cursor)
	if p50 >= walkPageMillis*time.Millisecond {
		miss = append(miss, fmt.Sprintf("cursor page p50 ≥ %d ms", walkPageMillis))
	}
	if first, last := w.edges(); first > 0 && float64(last) > walkLastRatio*float64(first) {
		miss = append(miss, fmt.Sprintf("last pages %.2f× the first", float64(last)/float64(first)))
	}
	return len(miss) == 0, strings.Join(miss, "; ")
}

// idSet is a set of positive ids, one bit each (a 3,000,000-row walk takes 375 KB).
type idSet []uint64

// add puts id in the set and reports whether it was new.
func (s *idSet) add(id int64) bool {
	i, bit := int(id/64), uint64(1)<<(id%64)
	for len(*s) <= i {
		*s = append(*s, 0)
	}
	if (*s)[i]&bit != 0 {
		return false
	}
	(*s)[i] |= bit
	return true
}
