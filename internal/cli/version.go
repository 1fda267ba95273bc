package cli

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version describes this binary from the build information Go embeds:
// "dynago VERSION (commit REV[, modified], built DATE) go1.x os/arch
// storage: pebble[, tikv]" (tikv in a build with -tags tikv). A
// binary built from a checkout ("go build ./cmd/dynago") has version
// (devel) and the commit of the checkout; one installed with "go install
// ...@v1.2.3" has that version and no commit.
func version() string {
	v, commit, date, modified := "(devel)", "", "", false
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Version != "" {
			v = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				commit = s.Value
			case "vcs.time":
				date = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	out := "dynago " + v
	if commit != "" {
		out += " (commit " + commit
		if modified {
			out += ", modified"
		}
		if date != "" {
			out += ", " + date
		}
		out += ")"
	} else {
		out += " (commit unknown)"
	}
	out += " " + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH + " storage: pebble"
	if withTiKV {
		out += ", tikv"
	}
	return out
}

func newVersionCommand(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version and commit of this binary",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			fmt.Fprintln(stdout, version())
			return nil
		},
	}
}
