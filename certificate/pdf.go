package certificate

import (
	"bytes"
	"compress/zlib"
	"crypto/sha256"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"

	"github.com/go-text/typesetting/font"
)

// The PDF writer: one page, text as shaped glyphs of Type 0 fonts
// (CIDFontType0, Identity-H, bare CFF subsets from cff.go), each line in
// an /ActualText span that holds its text, and each font with a ToUnicode
// map from glyph to the text of its cluster. Text extraction (pdftotext,
// copy and paste) reads the spans, so a reordered vowel sign or a
// conjunct copies as the characters that were typed.

// pdfFont is one font of a document: the glyphs it draws, numbered in
// order of first use (CID 0 is .notdef).
type pdfFont struct {
	font     *loadedFont
	face     *font.Face
	resource string
	cids     map[font.GID]int
	gids     []font.GID
	widths   []float64
	text     []string
}

// cid returns the CID of g in f, adding it on first use.
func (f *pdfFont) cid(g glyph) int {
	if c, ok := f.cids[g.id]; ok {
		if f.text[c] == "" {
			f.text[c] = g.text
		}
		return c
	}
	c := len(f.gids)
	f.cids[g.id] = c
	f.gids = append(f.gids, g.id)
	f.widths = append(f.widths, g.advance)
	f.text = append(f.text, g.text)
	return c
}

// pdfDoc is a one-page document being written.
type pdfDoc struct {
	content  bytes.Buffer
	fonts    []*pdfFont
	byFont   map[*loadedFont]*pdfFont
	shaper   *shaper
	compress bool
}

// newPDFDoc starts a document whose text s shaped.
func newPDFDoc(s *shaper, compress bool) *pdfDoc {
	return &pdfDoc{byFont: map[*loadedFont]*pdfFont{}, shaper: s, compress: compress}
}

// fontOf returns the document font of f.
func (d *pdfDoc) fontOf(f *loadedFont) *pdfFont {
	pf, ok := d.byFont[f]
	if !ok {
		pf = &pdfFont{font: f, face: d.shaper.face(f), resource: "F" + strconv.Itoa(len(d.fonts)+1),
			cids: map[font.GID]int{0: 0}, gids: []font.GID{0}, widths: []float64{0}, text: []string{""}}
		d.byFont[f] = pf
		d.fonts = append(d.fonts, pf)
	}
	return pf
}

// drawLine draws line with its origin at x, y (points, y up) at size.
func (d *pdfDoc) drawLine(line shapedLine, x, y, size float64, c rgb) {
	fmt.Fprintf(&d.content, "/Span <</ActualText %s>> BDC\nBT\n%s %s %s rg\n", utf16Hex(line.text),
		num(float64(c.r)/255), num(float64(c.g)/255), num(float64(c.b)/255))
	var cur *pdfFont
	for _, g := range line.glyphs {
		if g.id == font.EmptyGlyph {
			continue
		}
		f := d.fontOf(g.font)
		if f != cur {
			fmt.Fprintf(&d.content, "/%s %s Tf\n", f.resource, num(size))
			cur = f
		}
		fmt.Fprintf(&d.content, "1 0 0 1 %s %s Tm <%04X> Tj\n", num(x+g.x*size/1000), num(y+g.y*size/1000), f.cid(g))
	}
	d.content.WriteString("ET\nEMC\n")
}

// strokeRect strokes a rectangle of width w (points, y up).
func (d *pdfDoc) strokeRect(x, y, wd, ht, w float64, c rgb) {
	fmt.Fprintf(&d.content, "%s %s %s RG %s w %s %s %s %s re S\n", num(float64(c.r)/255), num(float64(c.g)/255),
		num(float64(c.b)/255), num(w), num(x), num(y), num(wd), num(ht))
}

// info is the document information dictionary.
type info struct {
	title, subject, author string
	created                time.Time
}

// bytes writes the document.
func (d *pdfDoc) bytes(in info) []byte {
	w := &pdfWriter{compress: d.compress}
	w.buf.WriteString("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
	// 1 catalog, 2 pages, 3 page, 4 contents, 5 info, then 5 objects a font.
	var fonts strings.Builder
	for i, f := range d.fonts {
		fmt.Fprintf(&fonts, "/%s %d 0 R ", f.resource, 6+5*i)
	}
	w.object(1, "<</Type /Catalog /Pages 2 0 R>>")
	w.object(2, "<</Type /Pages /Kids [3 0 R] /Count 1>>")
	w.object(3, fmt.Sprintf("<</Type /Page /Parent 2 0 R /MediaBox [0 0 %s %s] /Resources <</Font <<%s>>>> /Contents 4 0 R>>",
		num(pageW), num(pageH), fonts.String()))
	w.stream(4, "", d.content.Bytes(), true)
	w.object(5, fmt.Sprintf("<</Title %s /Subject %s /Author %s /Creator %s /Producer %s /CreationDate (D:%s)>>",
		utf16Hex(in.title), utf16Hex(in.subject), utf16Hex(in.author), utf16Hex("learngate"), utf16Hex("learngate"),
		in.created.UTC().Format("20060102150405Z")))
	for i, f := range d.fonts {
		d.writeFont(w, 6+5*i, f)
	}
	return w.finish(6+5*len(d.fonts), 5)
}

// writeFont writes f as objects id..id+4: the Type 0 font, its CIDFont,
// the descriptor, the font program and the ToUnicode map.
func (d *pdfDoc) writeFont(w *pdfWriter, id int, f *pdfFont) {
	sum := sha256.Sum256(fmt.Appendf(nil, "%s%v", f.font.name, f.gids))
	tag := make([]byte, 6)
	for i := range tag {
		tag[i] = 'A' + sum[i]%26
	}
	name := string(tag) + "+" + f.font.name
	program := buildCFF(name, f.face, f.gids)
	var widths strings.Builder
	for _, wd := range f.widths {
		widths.WriteString(num(wd) + " ")
	}
	ext, _ := f.face.FontHExtents()
	scale := 1000 / f.font.upem
	w.object(id, fmt.Sprintf("<</Type /Font /Subtype /Type0 /BaseFont /%s /Encoding /Identity-H /DescendantFonts [%d 0 R] /ToUnicode %d 0 R>>",
		name, id+1, id+4))
	w.object(id+1, fmt.Sprintf("<</Type /Font /Subtype /CIDFontType0 /BaseFont /%s /CIDSystemInfo <</Registry (Adobe) /Ordering (Identity) /Supplement 0>> /FontDescriptor %d 0 R /DW 1000 /W [0 [%s]]>>",
		name, id+2, widths.String()))
	b := program.bbox
	w.object(id+2, fmt.Sprintf("<</Type /FontDescriptor /FontName /%s /Flags 4 /FontBBox [%d %d %d %d] /ItalicAngle 0 /Ascent %s /Descent %s /CapHeight %s /StemV 80 /FontFile3 %d 0 R>>",
		name, b[0], b[1], b[2], b[3], num(float64(ext.Ascender)*scale), num(float64(ext.Descender)*scale),
		num(float64(ext.Ascender)*scale), id+3))
	w.stream(id+3, "/Subtype /CIDFontType0C ", program.data, true)
	w.stream(id+4, "", toUnicode(f.text), true)
}

// toUnicode returns the ToUnicode CMap that maps CID i to text[i].
func toUnicode(text []string) []byte {
	var b strings.Builder
	b.WriteString("/CIDInit /ProcSet findresource begin\n12 dict begin\nbegincmap\n" +
		"/CIDSystemInfo <</Registry (Adobe) /Ordering (UCS) /Supplement 0>> def\n" +
		"/CMapName /Adobe-Identity-UCS def\n/CMapType 2 def\n1 begincodespacerange\n<0000> <FFFF>\nendcodespacerange\n")
	var entries []string
	for cid, t := range text {
		if t != "" {
			entries = append(entries, fmt.Sprintf("<%04X> <%s", cid, utf16Hex(t)[5:]))
		}
	}
	for len(entries) > 0 { // at most 100 entries a block
		n := min(len(entries), 100)
		fmt.Fprintf(&b, "%d beginbfchar\n%s\nendbfchar\n", n, strings.Join(entries[:n], "\n"))
		entries = entries[n:]
	}
	b.WriteString("endcmap\nCMapName currentdict /CMap defineresource pop\nend\nend\n")
	return []byte(b.String())
}

// pdfWriter writes numbered objects and the cross-reference table.
type pdfWriter struct {
	buf      bytes.Buffer
	offsets  map[int]int
	compress bool
	// zw compresses every stream of the document in turn (Reset): a
	// compressor's state is a megabyte to allocate and clear.
	zw *zlib.Writer
}

// object writes object id with body.
func (w *pdfWriter) object(id int, body string) {
	if w.offsets == nil {
		w.offsets = map[int]int{}
	}
	w.offsets[id] = w.buf.Len()
	fmt.Fprintf(&w.buf, "%d 0 obj\n%s\nendobj\n", id, body)
}

// stream writes object id as a stream with the extra dictionary entries
// dict, compressed when the document is and compressible is set.
func (w *pdfWriter) stream(id int, dict string, data []byte, compressible bool) {
	if w.compress && compressible {
		var z bytes.Buffer
		if w.zw == nil {
			w.zw = zlib.NewWriter(&z)
		} else {
			w.zw.Reset(&z)
		}
		_, _ = w.zw.Write(data) // writes to a bytes.Buffer do not fail
		_ = w.zw.Close()
		data, dict = z.Bytes(), dict+"/Filter /FlateDecode "
	}
	if w.offsets == nil {
		w.offsets = map[int]int{}
	}
	w.offsets[id] = w.buf.Len()
	fmt.Fprintf(&w.buf, "%d 0 obj\n<<%s/Length %d>>\nstream\n", id, dict, len(data))
	w.buf.Write(data)
	w.buf.WriteString("\nendstream\nendobj\n")
}

// finish writes the cross-reference table of objects 1..next-1 and the
// trailer, and returns the document.
func (w *pdfWriter) finish(next, infoID int) []byte {
	xref := w.buf.Len()
	fmt.Fprintf(&w.buf, "xref\n0 %d\n0000000000 65535 f \n", next)
	for id := 1; id < next; id++ {
		fmt.Fprintf(&w.buf, "%010d 00000 n \n", w.offsets[id])
	}
	fmt.Fprintf(&w.buf, "trailer\n<</Size %d /Root 1 0 R /Info %d 0 R>>\nstartxref\n%d\n%%%%EOF\n", next, infoID, xref)
	return w.buf.Bytes()
}

// utf16Hex writes s as a PDF hex string of UTF-16BE with a byte order mark.
func utf16Hex(s string) string {
	var b strings.Builder
	b.WriteString("<FEFF")
	for _, u := range utf16.Encode([]rune(s)) {
		fmt.Fprintf(&b, "%04X", u)
	}
	b.WriteString(">")
	return b.String()
}

// num writes v with at most three decimals.
func num(v float64) string {
	s := strconv.FormatFloat(v, 'f', 3, 64)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if s == "-0" || s == "" {
		return "0"
	}
	return s
}
