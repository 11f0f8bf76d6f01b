package views

import "fmt"

// ImportPage is Account → Import: the upload form and the person's latest imports.
type ImportPage struct {
	Page
	Imports []ImportView
	// Error is why the upload was refused (no file, too large), shown under the form.
	Error string
	// MaxMB is the largest file accepted, in MiB.
	MaxMB int64
}

// ImportView is one import with its progress.
type ImportView struct {
	ID       int64
	FileName string
	// Format is the export's format as people know it ("ChatGPT"), "" until known.
	Format string
	// Running, Done or Failed says which of the three shows.
	Running, Done, Failed bool
	// Checking is true while the file is being checked (nothing stored yet), false while storing.
	Checking bool
	// Percent is how far the current phase is (0–100): bytes checked, then conversations stored.
	Percent                                    int
	Conversations, Imported, Skipped, Messages int
	Error                                      string
}

// Summary says what a finished import did, e.g. "Imported 2 conversations (35 messages); 1 was
// already here."
func (im ImportView) Summary() string {
	s := fmt.Sprintf("Imported %d %s (%d %s)", im.Imported, plural(im.Imported, "conversation", "conversations"),
		im.Messages, plural(im.Messages, "message", "messages"))
	if im.Skipped > 0 {
		s += fmt.Sprintf("; %d %s already here", im.Skipped, plural(im.Skipped, "was", "were"))
	}
	return s + "."
}
