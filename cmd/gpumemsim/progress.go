package main

import (
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// progress is a progress bar on stderr, shown only when stderr is a
// terminal; its update method is safe to pass as a callback when nothing
// is shown.
type progress struct {
	bar *progressbar.ProgressBar
}

func newProgress(stderr io.Writer, what string) *progress {
	f, ok := stderr.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return &progress{}
	}
	return &progress{bar: progressbar.NewOptions64(-1,
		progressbar.OptionSetWriter(f),
		progressbar.OptionSetDescription(what),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionShowCount(),
		progressbar.OptionClearOnFinish(),
	)}
}

func (p *progress) update(done, total int64) {
	if p.bar == nil {
		return
	}
	if p.bar.GetMax64() != total {
		p.bar.ChangeMax64(total)
	}
	p.bar.Set64(done)
}

func (p *progress) finish() {
	if p.bar != nil {
		p.bar.Finish()
	}
}
