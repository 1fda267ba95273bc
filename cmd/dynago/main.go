// Command dynago is a DynamoDB-compatible database and single-table-design
// workbench. See README.md; "dynago serve" starts the server.
package main

import (
	"os"

	"github.com/dynago/dynago/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr))
}
