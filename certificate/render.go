// Package certificate renders learngate's certificate PDFs: text shaped by
// go-text/typesetting (a Go port of HarfBuzz, so Devanagari reph and
// conjuncts, Tamil and Telugu vowel signs, Thai marks and Latin combining
// marks come out as their fonts intend) in embedded Noto fonts for every
// script of a learner's language, written by a small PDF writer of its own
// (pdf.go, cff.go) with subset fonts and copyable text. The wording and the
// dates are in the learner's language where a translation exists
// (wording.go). It knows nothing of HTTP, the database or the job queue:
// the worker gives it the Data and stores the bytes.
package certificate

import (
	"fmt"
	"strings"
	"time"
)

// Kind says what was conquered.
type Kind string

// The kinds of certificate.
const (
	// Topic: a topic enrolment's certificate.
	Topic Kind = "topic"
	// Pathway: a pathway enrolment's certificate.
	Pathway Kind = "pathway"
)

// Data is what a certificate shows.
type Data struct {
	// Organisation is the tenant's name.
	Organisation string
	// Learner is the learner's full name.
	Learner string
	// Language is the learner's language, a code of input.Languages in
	// any case; "" or a language without a translation: English.
	Language string
	// Kind says whether a topic or a pathway was conquered.
	Kind Kind
	// Title is the topic's or pathway's title.
	Title string
	// Conquered is when the enrolment was conquered.
	Conquered time.Time
	// CertifiedUntil is when the certification ends; nil: it does not.
	CertifiedUntil *time.Time
	// CertificateID is the certificate's unique id, printed on it and kept
	// in the document's Title.
	CertificateID string
	// Issued is the document's creation date.
	Issued time.Time
	// Location is the time zone the dates are shown in; nil: UTC.
	Location *time.Location
}

// Options tune the output; the zero value is what the worker uses.
type Options struct {
	// Uncompressed leaves the streams uncompressed, so tests can read the
	// text back.
	Uncompressed bool
}

// A4 landscape, in points.
const (
	pageW  = 841.89
	pageH  = 595.28
	margin = 56.0
)

// rgb is a colour.
type rgb struct{ r, g, b uint8 }

var (
	navy = rgb{0x1f, 0x3a, 0x5f}
	ink  = rgb{0x22, 0x22, 0x22}
	grey = rgb{0x5f, 0x63, 0x68}
	gold = rgb{0xb8, 0x8a, 0x2e}
)

// line is one centred line of text; y is its baseline from the top of
// the page, field names it in errors.
type line struct {
	y     float64
	text  string
	field string
	size  float64
	bold  bool
	color rgb
}

// Render returns the PDF of d. A text with characters that no embedded
// font has fails with an Invalid *learngate.Error whose message names the
// text and the characters (its Err is a *MissingCharactersError).
func Render(d Data, opts Options) ([]byte, error) {
	learner, title := strings.TrimSpace(d.Learner), strings.TrimSpace(d.Title)
	if learner == "" || title == "" || d.CertificateID == "" {
		return nil, fmt.Errorf("certificate: learner name, title and certificate id are required")
	}
	loc := d.Location
	if loc == nil {
		loc = time.UTC
	}
	w := wordingFor(d.Language)
	conquered := w.Topic
	if d.Kind == Pathway {
		conquered = w.Pathway
	}
	lines := []line{
		{y: 128, text: w.Heading, field: "heading", size: 30, bold: true, color: navy},
		{y: 190, text: w.Certifies, field: "wording", size: 15, color: grey},
		{y: 240, text: learner, field: "learner name", size: 30, bold: true, color: ink},
		{y: 285, text: conquered, field: "wording", size: 15, color: grey},
		{y: 330, text: title, field: "title", size: 24, bold: true, color: navy},
		{y: 380, text: fmt.Sprintf(w.Conquered, w.date(d.Conquered.In(loc))), field: "date", size: 14, color: ink},
	}
	if d.CertifiedUntil != nil {
		lines = append(lines, line{y: 404, text: fmt.Sprintf(w.Until, w.date(d.CertifiedUntil.In(loc))), field: "date",
			size: 14, color: ink})
	}
	if org := strings.TrimSpace(d.Organisation); org != "" {
		lines = append(lines, line{y: 470, text: org, field: "organisation name", size: 18, bold: true, color: navy})
	}
	lines = append(lines, line{y: 520, text: fmt.Sprintf(w.ID, d.CertificateID), field: "certificate id", size: 10, color: grey})

	s := newShaper(fonts(), d.Language)
	doc := newPDFDoc(s, !opts.Uncompressed)
	doc.strokeRect(28, 28, pageW-56, pageH-56, 3, gold)
	doc.strokeRect(38, 38, pageW-76, pageH-76, 0.8, gold)
	for _, l := range lines {
		shaped, err := s.shape(l.text, l.field, l.bold)
		if err != nil {
			return nil, fmt.Errorf("certificate: %w", err)
		}
		size := l.size
		if width := shaped.width * size / 1000; width > pageW-2*margin {
			size *= (pageW - 2*margin) / width
		}
		doc.drawLine(shaped, (pageW-shaped.width*size/1000)/2, pageH-l.y, size, l.color)
	}
	return doc.bytes(info{
		title:   "Certificate " + d.CertificateID,
		subject: learner + ": " + title,
		author:  strings.TrimSpace(d.Organisation),
		created: d.Issued,
	}), nil
}
