// Package certificate renders learngate's certificate PDFs with gopdf and
// embedded TrueType fonts that cover Latin (with Māori and Samoan
// diacritics), Devanagari and CJK names. It knows nothing of HTTP, the
// database or the job queue: the worker gives it the Data and stores the bytes.
package certificate

import (
	"fmt"
	"strings"
	"time"
	"unicode"

	"github.com/signintech/gopdf"
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
	Kind    Kind
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
	// Uncompressed leaves the page content streams uncompressed, so tests
	// can read the text back.
	Uncompressed bool
}

// A4 landscape, in points.
const (
	pageW  = 841.89
	pageH  = 595.28
	margin = 56.0
)

// Render returns the PDF of d.
func Render(d Data, opts Options) ([]byte, error) {
	faces, err := LoadFaces()
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(d.Learner) == "" || strings.TrimSpace(d.Title) == "" || d.CertificateID == "" {
		return nil, fmt.Errorf("certificate: learner name, title and certificate id are required")
	}
	loc := d.Location
	if loc == nil {
		loc = time.UTC
	}
	doc := &document{pdf: &gopdf.GoPdf{}, faces: faces, added: map[*Face]bool{}}
	doc.pdf.Start(gopdf.Config{PageSize: gopdf.Rect{W: pageW, H: pageH}, Unit: gopdf.UnitPT})
	if opts.Uncompressed {
		doc.pdf.SetNoCompression()
	}
	doc.pdf.SetInfo(gopdf.PdfInfo{
		Title:        infoText("Certificate " + d.CertificateID),
		Subject:      infoText(d.Learner + ": " + d.Title),
		Author:       infoText(d.Organisation),
		Creator:      "learngate",
		Producer:     "learngate",
		CreationDate: d.Issued,
	})
	doc.pdf.AddPage()
	doc.frame()

	conquered := "has conquered the topic"
	if d.Kind == Pathway {
		conquered = "has conquered the pathway"
	}
	lines := []line{
		{y: 128, text: "CERTIFICATE OF ACHIEVEMENT", size: 30, bold: true, color: navy},
		{y: 190, text: "This certifies that", size: 15, color: grey},
		{y: 240, text: d.Learner, size: 30, bold: true, color: ink},
		{y: 285, text: conquered, size: 15, color: grey},
		{y: 330, text: d.Title, size: 24, bold: true, color: navy},
		{y: 380, text: "Conquered on " + formatDate(d.Conquered, loc), size: 14, color: ink},
	}
	if d.CertifiedUntil != nil {
		lines = append(lines, line{y: 404, text: "Certified until " + formatDate(*d.CertifiedUntil, loc), size: 14, color: ink})
	}
	lines = append(lines,
		line{y: 470, text: d.Organisation, size: 18, bold: true, color: navy},
		line{y: 520, text: "Certificate ID " + d.CertificateID, size: 10, color: grey},
	)
	for _, l := range lines {
		if err := doc.centered(l); err != nil {
			return nil, fmt.Errorf("certificate: %w", err)
		}
	}
	out, err := doc.pdf.GetBytesPdfReturnErr()
	if err != nil {
		return nil, fmt.Errorf("certificate: write pdf: %w", err)
	}
	return out, nil
}

// rgb is a colour.
type rgb struct{ r, g, b uint8 }

var (
	navy = rgb{0x1f, 0x3a, 0x5f}
	ink  = rgb{0x22, 0x22, 0x22}
	grey = rgb{0x5f, 0x63, 0x68}
	gold = rgb{0xb8, 0x8a, 0x2e}
)

// line is one centred line of text; y is its baseline.
type line struct {
	y     float64
	text  string
	size  float64
	bold  bool
	color rgb
}

// document is a certificate being drawn.
type document struct {
	pdf   *gopdf.GoPdf
	faces *Faces
	// added holds the faces already embedded in pdf: each is embedded
	// once, and only when some text needs it.
	added map[*Face]bool
}

// frame draws the double border.
func (d *document) frame() {
	d.pdf.SetStrokeColor(gold.r, gold.g, gold.b)
	d.pdf.SetLineWidth(3)
	d.pdf.RectFromUpperLeft(28, 28, pageW-56, pageH-56)
	d.pdf.SetLineWidth(0.8)
	d.pdf.RectFromUpperLeft(38, 38, pageW-76, pageH-76)
}

// centered draws l centred on the page, font by font, shrinking it until
// it fits between the margins.
func (d *document) centered(l line) error {
	faces := d.faces.Regular
	if l.bold {
		faces = d.faces.Bold
	}
	runs := Runs(faces, strings.TrimSpace(l.text))
	width, err := d.measure(runs, l.size)
	if err != nil {
		return err
	}
	if max := pageW - 2*margin; width > max {
		l.size = l.size * max / width
		if width, err = d.measure(runs, l.size); err != nil {
			return err
		}
	}
	d.pdf.SetTextColor(l.color.r, l.color.g, l.color.b)
	x := (pageW - width) / 2
	for _, r := range runs {
		if err := d.use(r.Face, l.size); err != nil {
			return err
		}
		w, err := d.pdf.MeasureTextWidth(r.Text)
		if err != nil {
			return err
		}
		d.pdf.SetXY(x, l.y)
		if err := d.pdf.Text(r.Text); err != nil {
			return fmt.Errorf("draw %q in %s: %w", r.Text, r.Face.Family, err)
		}
		x += w
	}
	return nil
}

// measure returns the width of runs at size.
func (d *document) measure(runs []Run, size float64) (float64, error) {
	var width float64
	for _, r := range runs {
		if err := d.use(r.Face, size); err != nil {
			return 0, err
		}
		w, err := d.pdf.MeasureTextWidth(r.Text)
		if err != nil {
			return 0, fmt.Errorf("measure %q in %s: %w", r.Text, r.Face.Family, err)
		}
		width += w
	}
	return width, nil
}

// use selects face at size, embedding it first if needed.
func (d *document) use(face *Face, size float64) error {
	if !d.added[face] {
		opt := gopdf.TtfOption{OnGlyphNotFoundSubstitute: func(rune) rune { return Replacement }}
		if err := d.pdf.AddTTFFontDataWithOption(face.Family, face.data, opt); err != nil {
			return fmt.Errorf("embed font %s: %w", face.Family, err)
		}
		d.added[face] = true
	}
	return d.pdf.SetFont(face.Family, "", size)
}

// formatDate writes t as a day in loc, such as 1 June 2025.
func formatDate(t time.Time, loc *time.Location) string {
	return t.In(loc).Format("2 January 2006")
}

// infoText prepares a string for the document information dictionary:
// gopdf writes each character as four hex digits, so characters outside
// the Basic Multilingual Plane and control characters are replaced.
func infoText(s string) string {
	return strings.Map(func(r rune) rune {
		if r > 0xFFFF {
			return unicode.ReplacementChar
		}
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
}
