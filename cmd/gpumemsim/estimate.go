package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"gpumemsim/arch"
	"gpumemsim/traces"
	"gpumemsim/validate"
)

func cmdEstimate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("estimate", "-device D -kernel K [-map ...] [-block ...] [-set ...] [-spaces A=constant,...] [-remap A=KIND,...] [-data NAME=SPEC] [-matrix SPEC] [-cache-config prefer-shared|prefer-l1|prefer-equal] [-format text|json]", stderr)
	lf := addLaunchFlags(fs)
	format := fs.String("format", "text", "output format: text or json")
	if help, err := parseFlags(fs, args, 0); help || err != nil {
		return err
	}
	if err := checkFormat(*format, "text", "json"); err != nil {
		return err
	}
	dev, l, err := lf.load()
	if err != nil {
		return err
	}
	jang, err := validate.NewJangModel(l)
	if err != nil {
		return err
	}
	peng, err := validate.PengEstimate(dev, l)
	if err != nil {
		return err
	}
	exact, exactErr := validate.ExactCounts(dev, l)
	if *format == "json" {
		out := struct {
			Device      string              `json:"device"`
			CacheConfig arch.CacheConfig    `json:"cache_config,omitempty"`
			Kernel      string              `json:"kernel"`
			Launch      launchInfo          `json:"launch"`
			Jang        *validate.JangModel `json:"jang"`
			Peng        validate.PengResult `json:"peng"`
			Exact       []exactJSON         `json:"exact,omitempty"`
			Note        string              `json:"exact_note,omitempty"`
		}{Device: dev.Name, CacheConfig: dev.CacheConfig, Kernel: l.Kernel.Name, Launch: launchOf(l, nil), Jang: jang, Peng: peng}
		if exactErr != nil {
			out.Note = exactErr.Error()
		}
		for _, e := range exact {
			out.Exact = append(out.Exact, exactJSON{e.Text, e.Op.String(), e.Requests, e.Transactions, e.Bytes})
		}
		return writeJSON(stdout, out)
	}
	writeHeader(stdout, dev, l)
	writeJangText(stdout, jang)
	writePengText(stdout, &peng)
	fmt.Fprintln(stdout)
	if exactErr != nil {
		fmt.Fprintf(stdout, "Exact counts: %v\n", exactErr)
		return nil
	}
	fmt.Fprintf(stdout, "Exact counts under the %s coalescing rule (closed form, no simulation):\n", dev.Coalescer.Rule)
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "Reference\tOp\tRequests\tTransactions\tTxn/Req\tBytes\t")
	for _, e := range exact {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%.2f\t%d\t\n", e.Text, e.Op, e.Requests, e.Transactions,
			float64(e.Transactions)/float64(max(e.Requests, 1)), e.Bytes)
	}
	return tw.Flush()
}

type exactJSON struct {
	Ref          string `json:"ref"`
	Op           string `json:"op"`
	Requests     int64  `json:"requests"`
	Transactions int64  `json:"transactions"`
	Bytes        int64  `json:"bytes"`
}

func writeHeader(w io.Writer, dev *arch.Device, l *traces.Launch) {
	writeDeviceLines(w, dev)
	fmt.Fprintln(w, kernelLine(l))
}

// matrixText writes a matrix as J14 prints it: [1 0 0; 0 0 1], with Z
// at the entries z marks (nil: none).
func matrixText(m [][]int64, z [][]bool) string {
	rows := make([]string, len(m))
	for i, r := range m {
		cells := make([]string, len(r))
		for j, c := range r {
			cells[j] = fmt.Sprint(c)
			if z != nil && z[i][j] {
				cells[j] = "Z"
			}
		}
		rows[i] = strings.Join(cells, " ")
	}
	return "[" + strings.Join(rows, "; ") + "]"
}

// offsetText writes an offset vector, with Z at the entries z marks.
func offsetText(o []int64, z []bool) string {
	cells := make([]string, len(o))
	for i, c := range o {
		cells[i] = fmt.Sprint(c)
		if z != nil && z[i] {
			cells[i] = "Z"
		}
	}
	return "[" + strings.Join(cells, " ") + "]"
}

func writeJangText(w io.Writer, m *validate.JangModel) {
	fmt.Fprintf(w, "Jang et al. (J14): access matrices over loops (%s), thread loops %s, work group %s\n",
		strings.Join(m.Loops, ", "), strings.Join(m.InterLoops, ", "), dimText(m.Block))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "Reference\tOp\tM\to\tClass\tSpaces\tCost\tGain")
	for _, r := range m.Refs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%v\t%s\t%s\t%d\t%d\n", r.Text, r.Op, matrixText(r.M, r.Z), offsetText(r.O, r.OZ), r.Class,
			strings.Join(r.Selected, "+"), r.Cost, r.Gain)
	}
	tw.Flush()
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "Array\tAccess\tSelected (priority order)\tMemory space\tCost\tGain")
	for i := range m.Arrays {
		a := &m.Arrays[i]
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\n", a.Name, a.Access, strings.Join(a.Selected, ", "), validate.JangSpaceLabel(a), a.Cost, a.Gain)
	}
	tw.Flush()
	fmt.Fprintf(w, "Total cost %d (uncoalesced accesses per work group), gain %d (prefetchable elements)\n\n", m.Cost, m.Gain)
}

func writePengText(w io.Writer, p *validate.PengResult) {
	fmt.Fprintf(w, "Peng et al. (PEN): weights %s; %d blocks per SM; L1 %v, L2 %v\n", p.Weights.String(), p.BlocksPerSM, p.L1Size, p.L2Size)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "Access\tOp\tStride\tTxn/warp\tN (txns)\tL1 hit\tL2 hit\tCost\tCost vector\t")
	indirect := false
	for _, a := range p.Accesses {
		stride := fmt.Sprint(a.Stride)
		switch {
		case a.DynamicStride:
			stride, indirect = "?", true
		case a.Indirect:
			stride, indirect = stride+"*", true
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%.3f\t%.3f\t%.6g\t%s\t\n", a.Text, a.Op, stride, a.Transactions, a.Requests,
			a.L1HitRatio, a.L2HitRatio, a.Cost, a.CostVector.String())
	}
	tw.Flush()
	if indirect {
		fmt.Fprintf(w, "Stride ? (the data decide it) or * (they decide a base): %s\n", validate.PengIndirectAssumption)
	}
	fmt.Fprintf(w, "Total cost %.6g (reads %.6g, writes %.6g), cost vector %s\n", p.Cost, p.ReadCost, p.WriteCost, p.CostVector.String())
}
