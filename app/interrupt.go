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
	"time"

	"github.com/spf13/cobra"

	"sertrace/atomicfile"
)

// interrupts is how a command takes SIGINT and SIGTERM (Ctrl-C, Slurm's and
// Kubernetes' stop), from its start to its end:
//   - in a stage (a render, a batch's units: stage's context), the first
//     cancels the stage, which ends at its next boundary and keeps what it
//     did, and says what happens;
//   - while finished work is written (a window of write's), the first only
//     says that the writing goes on: a finished render's image, its
//     denoising included, is written whole;
//   - the next one (after a stage's, or a window's, or the first outside
//     both) aborts: the files being written are removed (atomicfile.Abort;
//     a render in bands' file is left for the next run), nothing
//     half-written is left, and the command exits 1 saying so.
//
// Signals within grace of the one before are that one again: wrappers
// (timeout, srun) often deliver one stop twice.
type interrupts struct {
	stderr  io.Writer
	signals chan os.Signal
	exit    func(int)
	abort   func() (removed, kept []string) // atomicfile.Abort

	mu       sync.Mutex
	cancel   context.CancelFunc // the stage's
	stopping string             // what a stage's first signal does
	writing  string             // what the window writes, "" outside one
	count    int                // signals taken
	last     time.Time          // when the last one came
}

// grace is how long after a signal another is taken for the same one.
const grace = 500 * time.Millisecond

type interruptsKey struct{}

// catchInterrupts takes SIGINT and SIGTERM for the command until release.
func catchInterrupts(stderr io.Writer) *interrupts {
	i := &interrupts{stderr: stderr, signals: make(chan os.Signal, 4), exit: os.Exit, abort: atomicfile.Abort}
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
// happens (what).
func (i *interrupts) stage(what string) context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	i.mu.Lock()
	defer i.mu.Unlock()
	i.cancel, i.stopping, i.writing = cancel, what, ""
	return ctx
}

// write starts a window in which what (named for the messages) is
// written; done ends it. A signal before it (a stage's) still counts: the
// next one aborts.
func (i *interrupts) write(what string) (done func()) {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.cancel, i.writing = nil, what
	return func() {
		i.mu.Lock()
		defer i.mu.Unlock()
		if i.writing == what {
			i.writing = ""
		}
	}
}

// take acts on one signal.
func (i *interrupts) take(sig os.Signal) {
	i.mu.Lock()
	defer i.mu.Unlock()
	now := time.Now()
	if now.Sub(i.last) < grace {
		return // the same stop, delivered again
	}
	i.last = now
	i.count++
	name := signalName(sig)
	if isTerminal(i.stderr) {
		fmt.Fprint(i.stderr, "\r\033[K") // the progress bar's line, which its next update draws again
	}
	switch {
	case i.count == 1 && i.writing != "":
		fmt.Fprintf(i.stderr, "%s: %s: finishing writing %s (interrupt again to abort it)\n", programName, name, i.writing)
	case i.count == 1 && i.cancel != nil:
		i.cancel()
		if i.stopping != "" {
			fmt.Fprintf(i.stderr, "%s: %s: %s (interrupt again to stop at once)\n", programName, name, i.stopping)
		}
	case i.writing != "":
		fmt.Fprintf(i.stderr, "%s: %s again while writing %s: aborted%s\n", programName, name, i.writing, unfinished(i.abort))
		i.exit(exitFailed)
	default:
		fmt.Fprintf(i.stderr, "%s: %s: stopped%s\n", programName, name, unfinished(i.abort))
		i.exit(exitFailed)
	}
}

func signalName(sig os.Signal) string {
	if sig == syscall.SIGTERM {
		return "SIGTERM"
	}
	return "interrupted"
}

// unfinished aborts the writes in progress (abort) and says which files
// they leave unwritten, and which the next run continues, if any.
func unfinished(abort func() (removed, kept []string)) string {
	removed, kept := abort()
	var said string
	if len(removed) > 0 {
		said += "; not written, as they were not finished: " + strings.Join(removed, ", ")
	}
	if len(kept) > 0 {
		said += "; left for the next run to continue: " + strings.Join(kept, ", ")
	}
	return said
}
