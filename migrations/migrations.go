// Package migrations holds Parley's schema as goose SQL migrations, embedded in the binary.
// A landed migration is never edited: change the schema with a new numbered file.
package migrations

import "embed"

// FS holds every NNNNN_name.sql migration in this folder.
//
//go:embed *.sql
var FS embed.FS
