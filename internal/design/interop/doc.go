// Package interop writes a single-table design in other notations and
// reads it from them: the design file itself (YAML, which design.Parse
// reads back to the same design), the seeds' worksheet in Markdown
// (Worksheet), NoSQL Workbench data models (ExportWorkbench,
// ImportWorkbench), OneTable schemas (ImportOneTable), the DynamoDB MCP
// server's schema.json (ImportMCP), and the table as infrastructure as
// code (ExportCloudFormation, ExportTerraform). Imports are lenient
// (unknown fields are ignored) and return notes on what they had to
// guess.
package interop
