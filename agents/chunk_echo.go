package agents

import "bytes"

// chunkEcho decodes the chunks of one stream that repeat the previous chunk byte for byte except
// for the text of its delta's content. Servers render every chunk of an answer from the same
// envelope (id, created, model, index and finish_reason do not change while text streams), so a
// fast answer's thousands of chunks differ only there. A chunk that begins with the bytes before
// the last chunk's content string and ends with the bytes after it, with one whole JSON string
// token between, is that chunk with another content string: JSON's grammar reads the same bytes
// the same way whatever string token sits between them, so it decodes to the last chunk's result
// with the new text (what decodeChunk, and encoding/json, would read), checking only the new
// string. Any other chunk is decoded in full, and its envelope is remembered for the next.
type chunkEcho struct {
	prefix, suffix []byte      // the remembered chunk's bytes before and after its content string
	choice         chunkChoice // its one choice, decoded
	choices        [1]chunkChoice
	ok             bool // prefix, suffix and choice hold a chunk
}

// decode fills c from data as decodeChunk does, and reports false (c unspecified) where
// decodeChunk would. c.Choices may share memory with e until the next decode.
func (e *chunkEcho) decode(data []byte, c *chunkWire) bool {
	if e.ok && len(data) >= len(e.prefix)+len(e.suffix)+2 && bytes.HasPrefix(data, e.prefix) && bytes.HasSuffix(data, e.suffix) {
		body := data[:len(data)-len(e.suffix)]
		s := jsonScan{b: body, i: len(e.prefix)}
		var text wireText
		if body[s.i] == '"' && s.text(&text) && s.i == len(body) {
			e.choices[0] = e.choice
			e.choices[0].Delta.Content = text
			*c = chunkWire{Choices: e.choices[:]}
			return true
		}
	}
	at, ok := decodeChunkAt(data, c)
	e.ok = ok && at[1] > 0 && len(c.Choices) == 1 && c.Usage == nil && c.Error == nil
	if e.ok {
		e.prefix = append(e.prefix[:0], data[:at[0]]...)
		e.suffix = append(e.suffix[:0], data[at[1]:]...)
		e.choice = c.Choices[0]
		e.choice.Delta.Content = ""
	}
	return ok
}
