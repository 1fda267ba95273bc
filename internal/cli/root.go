// Package cli is dynago's command line: a cobra root command with one file
// per subcommand. Errors map to exit codes: 0 success, 1 runtime failure,
// 2 usage error.
package cli

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"
)

// usageError marks errors in the command line itself (exit code 2).
type usageError struct{ error }

// checkFormat checks a --format flag: text or json.
func checkFormat(format string) error {
	if format != "text" && format != "json" {
		return usageError{fmt.Errorf("--format must be text or json, not %q", format)}
	}
	return nil
}

// Main runs the command line with args and returns the process exit code.
func Main(args []string, stdout, stderr io.Writer) int {
	root := &cobra.Command{
		Use:           "dynago",
		Short:         "A DynamoDB-compatible database and single-table-design workbench",
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version(),
	}
	root.SetVersionTemplate("{{.Version}}\n")
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetArgs(args)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return usageError{err} })
	root.AddCommand(newServeCommand(stdout, stderr))
	root.AddCommand(newInsightsCommand(stdout))
	root.AddCommand(newDesignCommand(stdout, stderr))
	root.AddCommand(newLoadCommand(stdout, stderr))
	root.AddCommand(newDumpCommand(stderr))
	root.AddCommand(newVersionCommand(stdout))
	if err := root.Execute(); err != nil {
		var fe errFindings
		if errors.As(err, &fe) {
			return 1 // the findings are the output
		}
		fmt.Fprintln(stderr, "dynago:", err)
		var ue usageError
		if errors.As(err, &ue) {
			return 2
		}
		return 1
	}
	return 0
}
