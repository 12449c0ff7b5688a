package certificate

import (
	"bytes"
	"encoding/binary"
	"math"

	"github.com/go-text/typesetting/font"
	ot "github.com/go-text/typesetting/font/opentype"
)

// The subset font program of a PDF font is a bare CID-keyed CFF font made
// here from the outlines go-text reads (TrueType quadratic curves become
// cubic ones, which is exact; CFF outlines are copied point for point).
// It holds only the glyphs the certificate draws, numbered 0 (.notdef),
// 1, 2... in the order given; hints are dropped, which matters only to
// screens at small sizes. One path for TrueType and CFF sources keeps the
// writer small: no table subsetting, no subroutines to follow.

// cffFont is a built subset font program.
type cffFont struct {
	data []byte
	// bbox is the union of the glyphs' boxes, in thousandths of an em.
	bbox [4]int
}

// buildCFF returns the CFF font program named name whose glyph i is glyph
// gids[i] of face (gids[0] should be 0, .notdef).
func buildCFF(name string, face *font.Face, gids []font.GID) cffFont {
	scale := 1000 / float64(face.Upem())
	var out cffFont
	out.bbox = [4]int{math.MaxInt32, math.MaxInt32, math.MinInt32, math.MinInt32}
	charstrings := make([][]byte, len(gids))
	for i, gid := range gids {
		charstrings[i] = charstring(face, gid, scale, &out.bbox)
	}
	if out.bbox[0] > out.bbox[2] {
		out.bbox = [4]int{}
	}
	n := len(gids)

	// Strings beyond the standard ones start at SID 391.
	strIndex := index([][]byte{[]byte("Adobe"), []byte("Identity")})
	header := []byte{1, 0, 4, 4}
	nameIndex := index([][]byte{[]byte(name)})
	gsubrs := index(nil)
	charset := []byte{0} // format 0, empty: .notdef alone
	if n > 1 {
		// Format 2, one range: CIDs 1..n-1 for glyphs 1..n-1.
		charset = binary.BigEndian.AppendUint16([]byte{2, 0, 1}, uint16(n-2))
	}
	fdselect := []byte{3, 0, 1, 0, 0, 0}
	fdselect = binary.BigEndian.AppendUint16(fdselect, uint16(n))
	csIndex := index(charstrings)
	private := append(dictInt(nil, 0), 20) // defaultWidthX 0
	private = append(dictInt(private, 0), 21)

	top := func(charsetOff, csOff, fdArrayOff, fdSelectOff int) []byte {
		var d []byte
		d = dictInt(dictInt(dictInt(d, 391), 392), 0)
		d = append(d, 12, 30) // ROS
		d = append(dictInt(d, n), 12, 34)
		for _, v := range out.bbox {
			d = dictInt(d, v)
		}
		d = append(d, 5) // FontBBox
		d = append(dictOffset(d, charsetOff), 15)
		d = append(dictOffset(d, csOff), 17)
		d = append(dictOffset(d, fdArrayOff), 12, 36)
		d = append(dictOffset(d, fdSelectOff), 12, 37)
		return d
	}
	fontDict := func(privateOff int) []byte {
		return append(dictOffset(dictOffset(nil, len(private)), privateOff), 18)
	}
	// The offsets are written in 5 bytes, so sizes do not depend on them.
	topLen := len(index([][]byte{top(0, 0, 0, 0)}))
	fdArrayLen := len(index([][]byte{fontDict(0)}))
	charsetOff := len(header) + len(nameIndex) + topLen + len(strIndex) + len(gsubrs)
	fdSelectOff := charsetOff + len(charset)
	csOff := fdSelectOff + len(fdselect)
	fdArrayOff := csOff + len(csIndex)
	privateOff := fdArrayOff + fdArrayLen

	var b bytes.Buffer
	for _, part := range [][]byte{header, nameIndex, index([][]byte{top(charsetOff, csOff, fdArrayOff, fdSelectOff)}),
		strIndex, gsubrs, charset, fdselect, csIndex, index([][]byte{fontDict(privateOff)}), private} {
		b.Write(part)
	}
	out.data = b.Bytes()
	return out
}

// charstring encodes the outline of glyph gid as a Type 2 charstring, in
// thousandths of an em, and widens bbox by its points.
func charstring(face *font.Face, gid font.GID, scale float64, bbox *[4]int) []byte {
	var cs []byte
	outline, ok := face.GlyphDataOutline(gid)
	if !ok {
		return []byte{14} // endchar
	}
	var curX, curY int       // the pen, rounded
	var lastX, lastY float32 // the unrounded current point (for quadratic curves)
	point := func(x, y float32) (int, int) {
		px, py := int(math.Round(float64(x)*scale)), int(math.Round(float64(y)*scale))
		bbox[0], bbox[1] = min(bbox[0], px), min(bbox[1], py)
		bbox[2], bbox[3] = max(bbox[2], px), max(bbox[3], py)
		return px, py
	}
	to := func(x, y float32) {
		px, py := point(x, y)
		cs = csInt(csInt(cs, px-curX), py-curY)
		curX, curY = px, py
	}
	for _, seg := range outline.Segments {
		a := seg.Args
		switch seg.Op {
		case ot.SegmentOpMoveTo:
			to(a[0].X, a[0].Y)
			cs = append(cs, 21) // rmoveto
			lastX, lastY = a[0].X, a[0].Y
		case ot.SegmentOpLineTo:
			to(a[0].X, a[0].Y)
			cs = append(cs, 5) // rlineto
			lastX, lastY = a[0].X, a[0].Y
		case ot.SegmentOpQuadTo:
			c1x, c1y := lastX+2*(a[0].X-lastX)/3, lastY+2*(a[0].Y-lastY)/3
			c2x, c2y := a[1].X+2*(a[0].X-a[1].X)/3, a[1].Y+2*(a[0].Y-a[1].Y)/3
			to(c1x, c1y)
			to(c2x, c2y)
			to(a[1].X, a[1].Y)
			cs = append(cs, 8) // rrcurveto
			lastX, lastY = a[1].X, a[1].Y
		case ot.SegmentOpCubeTo:
			to(a[0].X, a[0].Y)
			to(a[1].X, a[1].Y)
			to(a[2].X, a[2].Y)
			cs = append(cs, 8)
			lastX, lastY = a[2].X, a[2].Y
		}
	}
	return append(cs, 14) // endchar; contours close themselves in CFF
}

// csInt appends v as a charstring number.
func csInt(b []byte, v int) []byte {
	switch {
	case v >= -107 && v <= 107:
		return append(b, byte(v+139))
	case v >= 108 && v <= 1131:
		v -= 108
		return append(b, byte(v>>8+247), byte(v))
	case v >= -1131 && v <= -108:
		v = -v - 108
		return append(b, byte(v>>8+251), byte(v))
	}
	return append(b, 28, byte(v>>8), byte(v))
}

// dictInt appends v as a DICT integer operand.
func dictInt(b []byte, v int) []byte {
	switch {
	case v >= -107 && v <= 107:
		return append(b, byte(v+139))
	case v >= -32768 && v <= 32767:
		return append(b, 28, byte(v>>8), byte(v))
	}
	return dictOffset(b, v)
}

// dictOffset appends v as a 5-byte DICT integer operand.
func dictOffset(b []byte, v int) []byte {
	return binary.BigEndian.AppendUint32(append(b, 29), uint32(int32(v)))
}

// index encodes items as a CFF INDEX.
func index(items [][]byte) []byte {
	if len(items) == 0 {
		return []byte{0, 0}
	}
	total := 1
	for _, it := range items {
		total += len(it)
	}
	offSize := 1
	for total >= 1<<(8*offSize) {
		offSize++
	}
	b := binary.BigEndian.AppendUint16(nil, uint16(len(items)))
	b = append(b, byte(offSize))
	off := 1
	put := func(v int) {
		for i := offSize - 1; i >= 0; i-- {
			b = append(b, byte(v>>(8*i)))
		}
	}
	put(off)
	for _, it := range items {
		off += len(it)
		put(off)
	}
	for _, it := range items {
		b = append(b, it...)
	}
	return b
}
