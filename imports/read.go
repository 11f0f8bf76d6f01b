// Package imports brings conversation history into Parley from other chat tools' exports —
// ChatGPT's data export, Open WebUI's chat export, LibreChat's conversation export — and from
// Parley's own JSON export. Read streams an export one conversation at a time (a 200 MB file needs
// memory for one conversation, not for the file) and turns each into a db.ImportedExchange with its
// branches; Run checks a whole file first (a bad file stores nothing), then stores it, writing its
// progress to the import's row.
package imports

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"parley/db"
	"parley/fault"
)

// The export formats Read understands (db.ImportedExchange.Source).
const (
	ChatGPT   = "chatgpt"
	OpenWebUI = "openwebui"
	LibreChat = "librechat"
	Parley    = "parley"
)

// FormatName is a format's name as people know it.
func FormatName(format string) string {
	switch format {
	case ChatGPT:
		return "ChatGPT"
	case OpenWebUI:
		return "Open WebUI"
	case LibreChat:
		return "LibreChat"
	case Parley:
		return "Parley"
	}
	return format
}

// Read decodes the export in r — a JSON array of conversations, or one conversation object — and
// calls fn with each conversation in file order. It returns the format of the last conversation
// read. A file that is not JSON, is cut short, or holds something that is not a conversation of a
// known format is a fault.Invalid error naming the conversation (by number, from 1) and what is
// wrong; an error from fn is returned as it is.
func Read(r io.Reader, fn func(db.ImportedExchange) error) (string, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	first, err := firstByte(br)
	if err != nil {
		return "", err
	}
	dec := json.NewDecoder(br)
	var format string
	one := func(n int) error {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return syntaxError(err, n, dec.InputOffset())
		}
		x, f, err := convert(raw, n)
		if err != nil {
			return err
		}
		format = f
		return fn(x)
	}
	switch first {
	case '{':
		if err := one(1); err != nil {
			return format, err
		}
	case '[':
		if _, err := dec.Token(); err != nil {
			return "", syntaxError(err, 0, dec.InputOffset())
		}
		n := 0
		for dec.More() {
			n++
			if err := one(n); err != nil {
				return format, err
			}
		}
		if _, err := dec.Token(); err != nil {
			return format, syntaxError(err, n, dec.InputOffset())
		}
		if n == 0 {
			return "", fault.New(fault.Invalid, "The file holds an empty list: there are no conversations in it.")
		}
	default:
		return "", fault.New(fault.Invalid, "This is not a JSON export: it starts with %q, where a list ([) or an object ({) of conversations was expected.", string(first))
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return format, fault.New(fault.Invalid, "The file goes on after its conversations end (near byte %d): it is not one JSON export.", dec.InputOffset())
	}
	return format, nil
}

// firstByte returns the first byte of the file that is not white space (or a UTF-8 byte order mark).
func firstByte(br *bufio.Reader) (byte, error) {
	for i := 0; ; i++ {
		b, err := br.ReadByte()
		if errors.Is(err, io.EOF) {
			return 0, fault.New(fault.Invalid, "The file is empty.")
		}
		if err != nil {
			return 0, err
		}
		if b == 0xEF && i == 0 {
			if bom, _ := br.Peek(2); string(bom) == "\xBB\xBF" {
				_, _ = br.Discard(2)
				continue
			}
		}
		switch b {
		case ' ', '\t', '\r', '\n':
			continue
		}
		return b, br.UnreadByte()
	}
}

// syntaxError describes a decoding error of conversation n for a person.
func syntaxError(err error, n int, offset int64) error {
	var syn *json.SyntaxError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return fault.New(fault.Invalid, "The file ends in the middle of conversation %d: it was cut short (download the export again).", n)
	case errors.As(err, &syn):
		return fault.New(fault.Invalid, "The file is not valid JSON near byte %d (conversation %d): %s.", syn.Offset, n, syn.Error())
	}
	return fault.New(fault.Invalid, "Conversation %d could not be read (near byte %d): %s.", n, offset, err.Error())
}

// convert detects conversation n's format from its fields and converts it.
func convert(raw json.RawMessage, n int) (db.ImportedExchange, string, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return db.ImportedExchange{}, "", fault.New(fault.Invalid, "Item %d of the file is not a conversation object.", n)
	}
	var x db.ImportedExchange
	var format string
	var err error
	switch {
	case has(fields, "mapping"):
		format = ChatGPT
		x, err = convertChatGPT(raw)
	case has(fields, "chat"):
		format = OpenWebUI
		x, err = convertOpenWebUI(raw)
	case has(fields, "conversationId") && has(fields, "messages"):
		format = LibreChat
		x, err = convertLibreChat(raw)
	case has(fields, "messages") && has(fields, "exported_at"):
		format = Parley
		x, err = convertParley(raw)
	default:
		keys := make([]string, 0, len(fields))
		for k := range fields {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		if len(keys) > 8 {
			keys = append(keys[:8], "…")
		}
		return x, "", fault.New(fault.Invalid, "Conversation %d is not from ChatGPT, Open WebUI, LibreChat or Parley: it has the fields %s "+
			"(a ChatGPT conversation has \"mapping\", an Open WebUI one \"chat\", a LibreChat one \"conversationId\" and \"messages\", "+
			"a Parley one \"messages\" and \"exported_at\").", n, strings.Join(keys, ", "))
	}
	if err != nil {
		title := x.Title
		if title == "" {
			title = "untitled"
		}
		return x, format, fault.New(fault.Invalid, "%s conversation %d (%q): %s.", FormatName(format), n, title, strings.TrimSuffix(err.Error(), "."))
	}
	x.Source = format
	x.Title = clean(strings.TrimSpace(x.Title))
	fillTimes(&x, time.Now().UTC())
	if x.Key == "" { // no id in the export: the content itself identifies the conversation
		sum := sha256.Sum256(raw)
		x.Key = "sha256:" + hex.EncodeToString(sum[:])
	}
	return x, format, nil
}

func has(fields map[string]json.RawMessage, key string) bool {
	v, ok := fields[key]
	return ok && string(v) != "null"
}

// errorf is a conversion error; convert adds the format and conversation to its message.
func errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }

// jsonReason is a decoding error's reason without Go type names where it can be helped.
func jsonReason(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("field %q should not be a JSON %s", te.Field, te.Value)
	}
	return err.Error()
}

// fillTimes gives times the export left out: the conversation's creation for its messages, its
// newest message for its update, now for a conversation without any.
func fillTimes(x *db.ImportedExchange, now time.Time) {
	if x.CreatedAt.IsZero() {
		for _, m := range x.Messages {
			if !m.CreatedAt.IsZero() && (x.CreatedAt.IsZero() || m.CreatedAt.Before(x.CreatedAt)) {
				x.CreatedAt = m.CreatedAt
			}
		}
	}
	if x.CreatedAt.IsZero() {
		x.CreatedAt = now
	}
	noUpdate := x.UpdatedAt.IsZero()
	for i := range x.Messages {
		if x.Messages[i].CreatedAt.IsZero() {
			x.Messages[i].CreatedAt = x.CreatedAt
		}
		if noUpdate && x.Messages[i].CreatedAt.After(x.UpdatedAt) {
			x.UpdatedAt = x.Messages[i].CreatedAt
		}
	}
	if x.UpdatedAt.Before(x.CreatedAt) {
		x.UpdatedAt = x.CreatedAt
	}
}
