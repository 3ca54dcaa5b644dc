package load

import (
	"strconv"
	"strings"
)

// Bar is one row of a ratio chart: a label, the measured ratio (candidate ÷
// reference throughput) and the target ratio (0 when there is none).
type Bar struct {
	Label  string
	Ratio  float64
	Target float64
}

var svgEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;")

// RatioChartSVG draws bars as a horizontal bar chart in SVG 1.1 text: one bar
// per row (green when the ratio meets its target or no target is set, orange
// otherwise), a dashed line at 1.0 (parity with the reference), a tick at
// each row's target, and the ratio printed after the bar. The x axis runs
// from 0 to the larger of 1.2 and the largest ratio or target plus 10 %.
// title heads the chart.
func RatioChartSVG(title string, bars []Bar) string {
	const (
		left, right = 250.0, 70.0
		top, rowH   = 46.0, 30.0
		plotW       = 480.0
	)
	max := 1.2
	for _, b := range bars {
		if b.Ratio*1.1 > max {
			max = b.Ratio * 1.1
		}
		if b.Target*1.1 > max {
			max = b.Target * 1.1
		}
	}
	x := func(v float64) float64 { return left + v/max*plotW }
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }
	h := top + rowH*float64(len(bars)) + 40
	w := left + plotW + right
	var s strings.Builder
	s.WriteString(`<svg xmlns="http://www.w3.org/2000/svg" width="` + f(w) + `" height="` + f(h) + `" viewBox="0 0 ` + f(w) + " " + f(h) + `" font-family="sans-serif" font-size="13">` + "\n")
	s.WriteString(`<rect width="100%" height="100%" fill="white"/>` + "\n")
	s.WriteString(`<text x="` + f(w/2) + `" y="22" text-anchor="middle" font-size="15" font-weight="bold">` + svgEscaper.Replace(title) + "</text>\n")
	// Grid every 0.2.
	bottom := top + rowH*float64(len(bars))
	for g := 0.0; g <= max+1e-9; g += 0.2 {
		s.WriteString(`<line x1="` + f(x(g)) + `" y1="` + f(top-6) + `" x2="` + f(x(g)) + `" y2="` + f(bottom) + `" stroke="#ddd"/>` + "\n")
		s.WriteString(`<text x="` + f(x(g)) + `" y="` + f(bottom+16) + `" text-anchor="middle" fill="#555">` + strconv.FormatFloat(g, 'f', 1, 64) + "×</text>\n")
	}
	for i, b := range bars {
		y := top + rowH*float64(i)
		color := "#4caf50"
		if b.Target > 0 && b.Ratio < b.Target {
			color = "#ff9800"
		}
		s.WriteString(`<text x="` + f(left-8) + `" y="` + f(y+rowH/2+4) + `" text-anchor="end">` + svgEscaper.Replace(b.Label) + "</text>\n")
		s.WriteString(`<rect x="` + f(left) + `" y="` + f(y+5) + `" width="` + f(x(b.Ratio)-left) + `" height="` + f(rowH-10) + `" fill="` + color + `"/>` + "\n")
		s.WriteString(`<text x="` + f(x(b.Ratio)+5) + `" y="` + f(y+rowH/2+4) + `">` + strconv.FormatFloat(b.Ratio, 'f', 2, 64) + "×</text>\n")
		if b.Target > 0 {
			s.WriteString(`<line x1="` + f(x(b.Target)) + `" y1="` + f(y+2) + `" x2="` + f(x(b.Target)) + `" y2="` + f(y+rowH-2) + `" stroke="black" stroke-width="2"/>` + "\n")
		}
	}
	s.WriteString(`<line x1="` + f(x(1)) + `" y1="` + f(top-6) + `" x2="` + f(x(1)) + `" y2="` + f(bottom) + `" stroke="#333" stroke-dasharray="4 3"/>` + "\n")
	s.WriteString(`<text x="` + f(left) + `" y="` + f(h-6) + `" fill="#555">throughput ratio (median of interleaved rounds); black tick = target, dashed = parity</text>` + "\n")
	s.WriteString("</svg>\n")
	return s.String()
}
