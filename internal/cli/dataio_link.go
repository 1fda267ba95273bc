//go:build dataiolink

// This file wires load and dump to internal/dataio's Open and Create.
// It builds only with -tags dataiolink until dataio's readers and writers
// land on main (branch dataio-formats); then its build line goes.

package cli

import "github.com/dynago/dynago/internal/dataio"

func init() {
	openSource = func(path string, o sourceOptions) (dataio.Reader, error) {
		return dataio.Open(path, dataio.ReadOptions{Format: o.format, Sets: o.sets, CSVTypes: o.csvTypes})
	}
	createSink = func(dest string, o sinkOptions) (dataio.Writer, error) {
		return dataio.Create(dest, dataio.WriteOptions{Format: o.format, TableArn: o.tableArn, TableID: o.tableID})
	}
}
