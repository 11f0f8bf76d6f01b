// Package pages holds the page editor's domain logic (SPEC.md §5): the edits a page assistant
// proposes (full replacements and section patches), how each one reads against the page as it is
// now (the per-section rows, staleness and its reason, the three-way merge of a full replacement
// whose base changed) and the content that accepting it writes. It computes; the db package
// stores, inside one transaction, what it computed.
package pages
