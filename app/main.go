// Command sertrace is a path tracer for glTF scenes with hair and particles.
// This file wires the command line; the work lives in the packages it calls.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"

	"sertrace/atomicfile"
	"sertrace/render"
)

// version is set at build time with -ldflags "-X main.version=…"; without
// it, the commit Go recorded in the binary (with "+dirty" for uncommitted
// changes), so benchmark results always say what measured them.
var version = "dev"

func init() {
	if version != "dev" {
		return
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return
	}
	var rev, dirty string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if len(rev) >= 12 {
		version = "dev-" + rev[:12] + dirty
	}
}

// Exit statuses (docs/design/02-command-line.md).
const (
	exitOK      = 0
	exitFailed  = 1
	exitUsage   = 2
	exitBusy    = 3 // batch: nothing failed, but units are another live run's
	envPrefix   = "SERTRACE"
	programName = "sertrace"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// usageError marks a mistake in how the command was called (exit status 2).
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// busyError is a batch that failed nothing but left units to another live
// run that holds them (exit status 3).
type busyError struct{ err error }

func (e busyError) Error() string { return e.err.Error() }
func (e busyError) Unwrap() error { return e.err }

// run executes one command line and returns its exit status; every failure
// is one line on stderr.
func run(args []string, stdout, stderr io.Writer) int {
	root := newRootCommand(viper.New())
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	intr := catchInterrupts(stderr)
	defer intr.release()
	atomicfile.Removed = func(path string, size int64) {
		fmt.Fprintf(stderr, "%s: removed %s (%s), left unfinished by a sertrace that was killed while writing it\n", programName, path, render.GiB(uint64(size)))
	}
	defer func() { atomicfile.Removed = nil }()
	err := root.ExecuteContext(context.WithValue(context.Background(), interruptsKey{}, intr))
	if err == nil {
		return exitOK
	}
	fmt.Fprintf(stderr, "%s: %s\n", programName, oneLine(err))
	if errors.As(err, new(busyError)) {
		return exitBusy
	}
	var ue usageError
	if errors.As(err, &ue) || isCobraUsageError(err) {
		fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", programName)
		return exitUsage
	}
	return exitFailed
}

// isCobraUsageError recognises cobra's own errors for unknown commands.
func isCobraUsageError(err error) bool {
	return strings.HasPrefix(err.Error(), "unknown command") || strings.HasPrefix(err.Error(), "unknown flag")
}

func newRootCommand(v *viper.Viper) *cobra.Command {
	root := &cobra.Command{
		Use:   programName,
		Short: "A path tracer for glTF scenes with hair and particles, on Vulkan (with SER) or the CPU",
		Long: `sertrace is a path tracer for glTF 2.0 scenes, hair (linear swept spheres)
and particles (spheres) included. Every option can also come from
--config FILE.yaml (keys named like the flags) or from a SERTRACE_<FLAG>
environment variable.`,
		Version:       version,
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.CompletionOptions.DisableDefaultCmd = true
	root.PersistentFlags().String("config", "", "read options from this YAML file (keys named like the flags)")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error {
		return loadOptions(v, cmd)
	}
	root.AddCommand(newInspectCommand(v), newGenCommand(v), newRenderCommand(v), newMergeCommand(v), newBatchCommand(v), newDenoiseCommand(v), newBenchCommand(v), newDevicesCommand(v), newWeightsCommand(v))
	return root
}

// loadOptions makes v answer every flag of cmd, in order of precedence: the
// flag on the command line, SERTRACE_<FLAG>, the config file, the default.
func loadOptions(v *viper.Viper, cmd *cobra.Command) error {
	v.SetEnvPrefix(envPrefix)
	v.SetEnvKeyReplacer(strings.NewReplacer("-", "_"))
	v.AutomaticEnv()
	if err := v.BindPFlags(cmd.Flags()); err != nil {
		return err
	}
	path, _ := cmd.Flags().GetString("config")
	if path == "" {
		path = os.Getenv(envPrefix + "_CONFIG")
	}
	if path == "" {
		return nil
	}
	v.SetConfigFile(path)
	v.SetConfigType("yaml")
	if err := v.ReadInConfig(); err != nil {
		return fmt.Errorf("config %s: %v", path, err)
	}
	known := map[string]bool{}
	cmd.Flags().VisitAll(func(f *pflag.Flag) { known[f.Name] = true })
	for _, k := range v.AllKeys() {
		top := strings.SplitN(k, ".", 2)[0]
		if !known[top] && v.InConfig(top) {
			return usagef("config %s: unknown key %q for '%s %s'", path, top, programName, cmd.Name())
		}
	}
	return nil
}

// maxArgs is cobra.MaximumNArgs with a usage error naming the optional
// argument.
func maxArgs(name string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) > 1 {
			return usagef("expected at most 1 argument (%s), got %d", name, len(args))
		}
		return nil
	}
}

// exactArgs is cobra.ExactArgs with a usage error and names for the arguments.
func exactArgs(names ...string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) != len(names) {
			return usagef("expected %d argument(s) (%s), got %d", len(names), strings.Join(names, " "), len(args))
		}
		return nil
	}
}
