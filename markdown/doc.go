// Package markdown holds Parley's one markdown pipeline and the text tools
// the page editor needs:
//
//   - Render: markdown → safe HTML (goldmark GFM, chroma classes, bluemonday);
//     ChromaCSS gives the matching stylesheet.
//   - Split and the section operations (ReplaceSection, RemoveSection,
//     AppendToSection, InsertSection, AppendSection, RenameSection): a
//     CommonMark-aware outline of a page and byte-exact edits to it.
//   - ContentHash: Galaxy's djb2 staleness hash over Unicode code points.
//   - LineDiff and Unified: line diffs for proposals and revisions.
//
// Everything here is pure (no I/O) and safe for concurrent use.
package markdown
