// Package sqlschema reads the part of a relational schema a single-table
// design starts from: the CREATE TABLE and CREATE INDEX statements of a
// PostgreSQL or MySQL schema (a pg_dump or mysqldump --no-data file, or
// hand-written DDL), and the SELECT statements of a query log, in the
// subset the design's access patterns can say (WHERE col = ? [AND ...]
// [ORDER BY ...]). It is a hand-written lexer and recursive-descent
// parser, no SQL library: statements it does not read (INSERT, SET,
// CREATE VIEW, ...) are skipped whole and listed, so that a dump reads
// without editing.
package sqlschema

// Schema is what a DDL file declares.
type Schema struct {
	Tables  []*Table
	Indexes []*Index
	// Skipped lists the statements not read (their first words and
	// position), for the caller to report.
	Skipped []Skipped
}

// Skipped is a statement Parse did not read, and why.
type Skipped struct {
	What   string
	Reason string
	Pos    Pos
}

// Table is a CREATE TABLE (with what ALTER TABLE ... ADD CONSTRAINT
// added to it).
type Table struct {
	Name    string
	Columns []*Column
	// PrimaryKey holds the primary key's columns in order (nil: none).
	PrimaryKey  []string
	ForeignKeys []*ForeignKey
	Pos         Pos
}

// Column is one column of a table.
type Column struct {
	Name string
	// Type is the declared type as written, lower-case, without its
	// arguments (varchar, character varying, timestamp with time zone,
	// integer[]).
	Type string
	// NotNull says the column cannot be NULL (NOT NULL, or in the
	// primary key).
	NotNull bool
	// Values are an enumeration's values (MySQL's enum('a','b'), or a
	// PostgreSQL CREATE TYPE ... AS ENUM the column is of).
	Values []string
	Pos    Pos
}

// ForeignKey is FOREIGN KEY (Columns) REFERENCES RefTable (RefColumns),
// or a column's REFERENCES.
type ForeignKey struct {
	Columns    []string
	RefTable   string
	RefColumns []string
	Pos        Pos
}

// Index is a CREATE [UNIQUE] INDEX, or a UNIQUE, KEY or INDEX written in
// a CREATE TABLE (a UNIQUE constraint is a unique index).
type Index struct {
	Name    string
	Table   string
	Columns []string
	Unique  bool
	Pos     Pos
}

// Column returns t's column named name (case-insensitive), or nil.
func (t *Table) Column(name string) *Column {
	for _, c := range t.Columns {
		if equalFold(c.Name, name) {
			return c
		}
	}
	return nil
}

// Table returns the table named name (case-insensitive), or nil.
func (s *Schema) Table(name string) *Table {
	for _, t := range s.Tables {
		if equalFold(t.Name, name) {
			return t
		}
	}
	return nil
}
