package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"

	"github.com/spf13/cobra"

	"sertrace/atomicfile"
)

// interrupts is how a command takes SIGINT and SIGTERM (Ctrl-C, Slurm's and
// Kubernetes' stop), from its start to its end:
//   - in a stage (a render, a denoiser: stage's context), the first
//     cancels the stage, which ends at its next boundary and keeps what it
//     did;
//   - while finished work is written (writing), the first only says that
//     the writing goes on (and cancels the window's context, which stops
//     a denoiser, the noisy image still written);
//   - a second one, or the first outside any stage, aborts: the files
//     being written are removed (atomicfile.Abort), nothing half-written
//     is left, and the command exits 1 saying so.
type interrupts struct {
	stderr  io.Writer
	signals chan os.Signal
	exit    func(int)

	mu       sync.Mutex
	cancel   context.CancelFunc // the stage's or the window's
	stopping string             // what a stage's first signal does
	writing  string             // what the window writes, "" outside one
	count    int                // signals in this stage or window
}

type interruptsKey struct{}

// catchInterrupts takes SIGINT and SIGTERM for the command until release.
func catchInterrupts(stderr io.Writer) *interrupts {
	i := &interrupts{stderr: stderr, signals: make(chan os.Signal, 4), exit: os.Exit}
	signal.Notify(i.signals, os.Interrupt, syscall.SIGTERM)
	go func() {
		for sig := range i.signals {
			i.take(sig)
		}
	}()
	return i
}

// release gives the signals back to their default (the process ends).
func (i *interrupts) release() {
	signal.Stop(i.signals)
	close(i.signals)
}

// interruptsOf is the command's interrupts (catchInterrupts in run); a
// command run without them (a test calling its function) gets its own.
func interruptsOf(cmd *cobra.Command) *interrupts {
	if i, ok := cmd.Context().Value(interruptsKey{}).(*interrupts); ok && i != nil {
		return i
	}
	return catchInterrupts(cmd.ErrOrStderr())
}

// stage starts a stage that the next signal cancels, saying what then
// happens (what) where the stage's own end would not say it.
func (i *interrupts) stage(what string) context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	i.mu.Lock()
	defer i.mu.Unlock()
	i.cancel, i.stopping, i.writing, i.count = cancel, what, "", 0
	return ctx
}

// write starts a window in which what (named for the messages) is
// written: a first signal lets it finish, cancelling the context (a
// denoiser's); done ends the window, the command back outside any stage.
func (i *interrupts) write(what string) (ctx context.Context, done func()) {
	ctx, cancel := context.WithCancel(context.Background())
	i.mu.Lock()
	defer i.mu.Unlock()
	i.cancel, i.stopping, i.writing, i.count = cancel, "", what, 0
	return ctx, func() {
		i.mu.Lock()
		defer i.mu.Unlock()
		if i.writing == what {
			i.cancel, i.writing = nil, ""
		}
	}
}

// take acts on one signal.
func (i *interrupts) take(sig os.Signal) {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.count++
	name := signalName(sig)
	switch {
	case i.cancel != nil && i.count == 1:
		i.cancel()
		switch {
		case i.writing != "":
			fmt.Fprintf(i.stderr, "%s: %s: finishing writing %s (interrupt again to abort it)\n", programName, name, i.writing)
		case i.stopping != "":
			fmt.Fprintf(i.stderr, "%s: %s: %s (interrupt again to stop at once)\n", programName, name, i.stopping)
		}
	case i.writing != "":
		fmt.Fprintf(i.stderr, "%s: %s again while writing %s: aborted%s\n", programName, name, i.writing, unfinished(atomicfile.Abort()))
		i.exit(exitFailed)
	default:
		fmt.Fprintf(i.stderr, "%s: %s: stopped%s\n", programName, name, unfinished(atomicfile.Abort()))
		i.exit(exitFailed)
	}
}

// unfinished says which files an abort left unwritten, if any.
func unfinished(paths []string) string {
	if len(paths) == 0 {
		return ""
	}
	return "; not written, as they were not finished: " + strings.Join(paths, ", ")
}

func signalName(sig os.Signal) string {
	if sig == syscall.SIGTERM {
		return "SIGTERM"
	}
	return "interrupted"
}
