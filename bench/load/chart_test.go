package load

import (
	"bytes"
	"encoding/xml"
	"io"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	xfont "golang.org/x/image/font"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
)

// svgText is one <text> element of a rendered chart: its position in the
// SVG's flipped coordinates, its font and its content.
type svgText struct {
	x, y  float64
	size  float64
	bold  bool
	value string
}

// parseChart checks that svg is well-formed XML and returns its width and
// height (points), its <text> elements and the fill colours of its paths.
func parseChart(t *testing.T, svg []byte) (w, h float64, texts []svgText, fills []string) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(svg))
	var cur *svgText
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		switch el := tok.(type) {
		case xml.StartElement:
			attr := map[string]string{}
			for _, a := range el.Attr {
				attr[a.Name.Local] = a.Value
			}
			style := map[string]string{}
			for _, kv := range strings.Split(attr["style"], ";") {
				if k, v, ok := strings.Cut(kv, ":"); ok {
					style[k] = v
				}
			}
			switch el.Name.Local {
			case "svg":
				var err error
				w, err = strconv.ParseFloat(strings.TrimSuffix(attr["width"], "pt"), 64)
				require.NoError(t, err)
				h, err = strconv.ParseFloat(strings.TrimSuffix(attr["height"], "pt"), 64)
				require.NoError(t, err)
			case "text":
				cur = &svgText{bold: style["font-weight"] == "bold"}
				var err error
				cur.x, err = strconv.ParseFloat(attr["x"], 64)
				require.NoError(t, err)
				cur.y, err = strconv.ParseFloat(attr["y"], 64)
				require.NoError(t, err)
				cur.size, err = strconv.ParseFloat(strings.TrimSuffix(style["font-size"], "px"), 64)
				require.NoError(t, err)
				require.Equal(t, "'Liberation Sans',Arial,Helvetica,sans-serif", style["font-family"])
			case "path":
				if f := style["fill"]; f != "" && f != "none" {
					fills = append(fills, f)
				}
			}
		case xml.CharData:
			if cur != nil {
				cur.value += string(el)
			}
		case xml.EndElement:
			if el.Name.Local == "text" && cur != nil {
				texts = append(texts, *cur)
				cur = nil
			}
		}
	}
	return w, h, texts, fills
}

func TestRatioChartSVG(t *testing.T) {
	for _, tc := range []struct {
		name   string
		title  string
		bars   []Bar
		ticks  []string // x tick labels, left to right
		orange int      // bars that missed their target
		wide   bool     // a label longer than 200 points widens the canvas
	}{
		{
			name:  "escaping and both colours",
			title: "a <b> & c",
			bars:  []Bar{{Label: "x&y <z>", Ratio: 0.5, Target: 0.9}, {Label: "z", Ratio: 1.5}},
			ticks: []string{"0.0×", "0.2×", "0.4×", "0.6×", "0.8×", "1.0×", "1.2×", "1.4×", "1.6×", "1.8×"},
			// 1.5 × 1.1 = 1.65, rounded up to 1.8
			orange: 1,
		},
		{
			name:  "one bar, axis at least 1.2",
			title: "t",
			bars:  []Bar{{Label: "only", Ratio: 0, Target: 0.5}},
			ticks: []string{"0.0×", "0.2×", "0.4×", "0.6×", "0.8×", "1.0×", "1.2×"},
			// a ratio of 0 misses its target
			orange: 1,
		},
		{
			name:   "target on the ratio meets it; a far target widens the axis",
			title:  "t",
			bars:   []Bar{{Label: "met", Ratio: 0.9, Target: 0.9}, {Label: "far", Ratio: 0.1, Target: 2}},
			ticks:  []string{"0.0×", "0.2×", "0.4×", "0.6×", "0.8×", "1.0×", "1.2×", "1.4×", "1.6×", "1.8×", "2.0×", "2.2×"},
			orange: 1,
		},
		{
			name:  "a ratio above 2.18 coarsens the grid",
			title: "t",
			bars:  []Bar{{Label: "fast", Ratio: 3}},
			ticks: []string{"0.0×", "0.5×", "1.0×", "1.5×", "2.0×", "2.5×", "3.0×", "3.5×"},
		},
		{
			name:  "up to 1000",
			title: "t",
			bars:  []Bar{{Label: "much faster", Ratio: 1000, Target: 1}},
			ticks: []string{"0×", "100×", "200×", "300×", "400×", "500×", "600×", "700×", "800×", "900×", "1000×", "1100×"},
		},
		{
			name:  "a long label",
			title: "t",
			bars:  []Bar{{Label: strings.Repeat("long label ", 10), Ratio: 0.5}},
			ticks: []string{"0.0×", "0.2×", "0.4×", "0.6×", "0.8×", "1.0×", "1.2×"},
			wide:  true,
		},
		{
			name:  "the benchmark page's rows",
			title: "shardgen throughput ÷ direct MariaDB (2 CPUs, medians)",
			bars: []Bar{
				{Label: "embedded point_select", Ratio: 1.74, Target: 0.97},
				{Label: "embedded read_write", Ratio: 0.79, Target: 0.95},
				{Label: "embedded insert", Ratio: 1.66},
				{Label: "sysbench oltp_point_select proxy÷haproxy", Ratio: 0.62, Target: 0.9},
				{Label: "sysbench oltp_read_write proxy÷direct", Ratio: 0.29},
			},
			ticks:  []string{"0.0×", "0.2×", "0.4×", "0.6×", "0.8×", "1.0×", "1.2×", "1.4×", "1.6×", "1.8×", "2.0×"},
			orange: 2,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svg, err := RatioChartSVG(tc.title, tc.bars)
			require.NoError(t, err)
			again, err := RatioChartSVG(tc.title, tc.bars)
			require.NoError(t, err)
			require.Equal(t, svg, again, "two renders of the same input differ")

			w, h, texts, fills := parseChart(t, svg)
			if tc.wide {
				require.Greater(t, w, 600.0)
			} else {
				require.Equal(t, 600.0, w)
			}
			require.Equal(t, 100+24*float64(len(tc.bars)), h)

			var values []string
			for _, tx := range texts {
				values = append(values, tx.value)
			}
			want := []string{tc.title}
			for _, b := range tc.bars {
				want = append(want, b.Label, strconv.FormatFloat(b.Ratio, 'f', 2, 64)+"×")
			}
			want = append(want, tc.ticks...)
			want = append(want, strings.Split(chartCaption, "\n")...)
			require.ElementsMatch(t, want, values)

			orange := 0
			for _, f := range fills {
				if f == "#FF9800" {
					orange++
				}
			}
			require.Equal(t, tc.orange, orange)
			require.Contains(t, fills, "#FFFFFF") // background

			// No text is clipped: each lies inside the canvas, measured
			// with the font gonum laid it out in. y is flipped (baseline at -y).
			for _, tx := range texts {
				f := font.From(chartSans, vg.Points(tx.size))
				if tx.bold {
					f.Weight = xfont.WeightBold
				}
				sty := text.Style{Font: f, Handler: plot.DefaultTextHandler}
				width := float64(sty.Width(tx.value).Points())
				require.GreaterOrEqual(t, tx.x, 0.0, tx.value)
				require.LessOrEqual(t, tx.x+width, w, tx.value)
				require.Greater(t, -tx.y-tx.size, 0.0, tx.value)
				require.Less(t, -tx.y, h, tx.value)
			}
		})
	}
}

// TestRatioChartSVGLabelAfterTick checks where a ratio is printed: right
// after its bar, unless its target tick would cross the text, then after
// the tick.
func TestRatioChartSVGLabelAfterTick(t *testing.T) {
	svg, err := RatioChartSVG("t", []Bar{
		{Label: "near", Ratio: 0.79, Target: 0.85},
		{Label: "far", Ratio: 0.79, Target: 1.9},
		{Label: "none", Ratio: 0.79},
	})
	require.NoError(t, err)
	_, _, texts, _ := parseChart(t, svg)
	var xs []float64
	at := map[string]float64{} // x tick label -> x of the tick
	for _, tx := range texts {
		switch tx.value {
		case "0.79×":
			xs = append(xs, tx.x)
		case "0.8×", "1.0×":
			sty := text.Style{Font: font.From(chartSans, vg.Points(tx.size)), Handler: plot.DefaultTextHandler}
			at[tx.value] = tx.x + float64(sty.Width(tx.value).Points())/2 // tick labels are centred
		}
	}
	require.Len(t, xs, 3)
	require.Len(t, at, 2)
	// "far" and "none" are printed at the same place, right after the bar;
	// "near" after its tick at 0.85.
	require.Equal(t, xs[1], xs[2])
	require.Less(t, xs[1], at["0.8×"]+(at["1.0×"]-at["0.8×"])/4)
	require.Greater(t, xs[0], at["0.8×"]+(at["1.0×"]-at["0.8×"])/4)
}

func TestRatioChartSVGErrors(t *testing.T) {
	for _, tc := range []struct {
		bars []Bar
		err  string
	}{
		{nil, "load: ratio chart needs at least one bar"},
		{[]Bar{{Label: "a", Ratio: -1}}, `load: bar "a": ratio -1 is not a number in [0, 1000]`},
		{[]Bar{{Label: "a", Ratio: math.NaN()}}, `load: bar "a": ratio NaN is not a number in [0, 1000]`},
		{[]Bar{{Label: "ok", Ratio: 1}, {Label: "b", Ratio: 1, Target: math.Inf(1)}}, `load: bar "b": target +Inf is not a number in [0, 1000]`},
	} {
		_, err := RatioChartSVG("t", tc.bars)
		require.EqualError(t, err, tc.err)
	}
}
