package agents

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// agreesWithEncodingJSON fails t when decodeChunk accepts data but encoding/json refuses it or
// reads something else. It reports whether decodeChunk accepted it.
func agreesWithEncodingJSON(t *testing.T, data []byte) bool {
	t.Helper()
	var fast chunkWire
	if !decodeChunk(data, &fast) {
		return false
	}
	var want chunkWire
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatalf("decodeChunk accepted %q, which encoding/json refuses: %v", data, err)
	}
	if !reflect.DeepEqual(fast, want) {
		t.Fatalf("decodeChunk read %q as\n%#v\nencoding/json as\n%#v", data, fast, want)
	}
	return true
}

// recordedChunks is every data payload of the OpenAI-compatible recordings (not the end marker).
func recordedChunks(t *testing.T) map[string][][]byte {
	t.Helper()
	files, err := filepath.Glob("testdata/streams/*.sse")
	if err != nil || len(files) == 0 {
		t.Fatalf("no recordings: %v", err)
	}
	out := map[string][][]byte{}
	for _, f := range files {
		body, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(f, "anthropic") {
			continue
		}
		d := newSSEDecoder(bytes.NewReader(body))
		for {
			ev, err := d.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if ev.Type == "message" && string(bytes.TrimSpace(ev.Data)) != "[DONE]" {
				out[filepath.Base(f)] = append(out[filepath.Base(f)], append([]byte(nil), ev.Data...))
			}
		}
	}
	return out
}

func TestChunkDecoderReadsRecordedTextChunksAsEncodingJSONDoes(t *testing.T) {
	fast := 0
	for name, chunks := range recordedChunks(t) {
		for _, c := range chunks {
			accepted := agreesWithEncodingJSON(t, c)
			if accepted {
				fast++
			}
			// Text chunks must take the fast path, or the relay silently gets slow again.
			if !accepted && name == "01-plain-text.sse" {
				t.Errorf("%s: decodeChunk left a plain text chunk to encoding/json: %s", name, c)
			}
		}
	}
	if fast == 0 {
		t.Fatal("decodeChunk accepted no recorded chunk")
	}
}

// chunkEdges are documents where a shortcut would read something other than encoding/json.
var chunkEdges = []string{
	`{"choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":null}]}`,
	`{"choices":[]}`,
	`{"choices":null}`,
	`{"choices":[null]}`,
	`{"choices":[{"index":0,"delta":null}]}`,
	`{"choices":[{"index":1,"delta":{"content":"second"}}]}`,
	`{"choices":[{"index":-0,"delta":{"content":"x"}}]}`,
	`{"choices":[{"index":0.0,"delta":{"content":"x"}}]}`,
	`{"choices":[{"index":1e0,"delta":{"content":"x"}}]}`,
	`{"choices":[{"index":01,"delta":{"content":"x"}}]}`,
	`{"choices":[{"index":"0","delta":{"content":"x"}}]}`,
	`{"choices":[{"index":99999999999999999999,"delta":{"content":"x"}}]}`,
	`{"choices":[{"Index":0,"DELTA":{"Content":"folded keys"}}]}`,
	`{"Choices":[{"index":0,"delta":{"content":"x"}}]}`,
	`{"choices":[{"index":0,"delta":{"content":"a","content":"b"}}]}`,
	`{"choices":[{"index":0,"delta":{"content":"a"}}],"choices":[{"index":0,"delta":{"content":"b"}}]}`,
	`{"choices":[{"index":0,"delta":{"content":"esc \"q\" \u00e9 \ud83e\uddec \n"}}]}`,
	`{"choices":[{"index":0,"delta":{"cont\u0065nt":"escaped key"}}]}`,
	"{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"caf\xc3\"}}]}",
	"{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"tab\there\"}}]}",
	`{"choices":[{"index":0,"delta":{"content":null,"reasoning_content":"think","reasoning":"think"}}]}`,
	`{"choices":[{"index":0,"delta":{"content":1}}]}`,
	`{"choices":[{"index":0,"delta":{"refusal":"no"},"finish_reason":"stop"}]}`,
	`{"choices":[{"index":0,"delta":{},"finish_reason":"caf\u00e9"}]}`,
	"{\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"bad\xff\"}]}",
	`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"f","arguments":"{}"}}]}}]}`,
	`{"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":4,"total_tokens":7}}`,
	`{"choices":[],"usage":null}`,
	`{"choices":[],"usage":{}}`,
	`{"choices":[],"usage":{"prompt_tokens":3.5}}`,
	`{"error":{"message":"overloaded","code":503}}`,
	`{"error":null,"choices":[]}`,
	`{"error":"plain"}`,
	`{"id":"x","object":"chat.completion.chunk","created":1,"model":"m","logprobs":{"a":[1,2.5e-3,true,false,null,{"b":"c"}]},"choices":[]}`,
	`{"choices":[]} `,
	`{"choices":[]} x`,
	`{"choices":[]`,
	`{"choices":[{"index":0,"delta":{"content":"unterminated}}]}`,
	`{"choices":[{"index":0,"delta":{"content":"x"},}]}`,
	`{"choices":[1,]}`,
	`{"a":tru}`,
	`{"a":-}`,
	`{"a":1.}`,
	`{"a":1e}`,
	`{"a":"\x"}`,
	`{"a":"\u12"}`,
	`null`,
	`[]`,
	``,
	` {"choices" : [ { "index" : 0 , "delta" : { "content" : "spaced" } } ] } `,
}

func TestChunkDecoderEdgesAgreeWithEncodingJSON(t *testing.T) {
	accepted := 0
	for _, doc := range chunkEdges {
		if agreesWithEncodingJSON(t, []byte(doc)) {
			accepted++
		}
	}
	if accepted < 10 {
		t.Fatalf("decodeChunk accepted only %d of the edge documents: the fast path is hardly used", accepted)
	}
}

// FuzzChunkDecoderAgreesWithEncodingJSON: whatever the bytes, a document decodeChunk accepts is
// one encoding/json reads the same way (go test -fuzz FuzzChunkDecoder ./agents/ explores more).
func FuzzChunkDecoderAgreesWithEncodingJSON(f *testing.F) {
	for _, doc := range chunkEdges {
		f.Add([]byte(doc))
	}
	f.Fuzz(func(t *testing.T, data []byte) { agreesWithEncodingJSON(t, data) })
}

func BenchmarkDecodeChunk(b *testing.B) {
	data := []byte(`{"id":"chatcmpl-relay","object":"chat.completion.chunk","created":1,"model":"fake-model","choices":[{"index":0,"delta":{"content":"w123 "},"finish_reason":null}]}`)
	b.Run("decodeChunk", func(b *testing.B) {
		for b.Loop() {
			var c chunkWire
			if !decodeChunk(data, &c) {
				b.Fatal("refused")
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		for b.Loop() {
			var c chunkWire
			if err := json.Unmarshal(data, &c); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// echoAgreesWithEncodingJSON decodes prev then data through one chunkEcho and fails t when the
// echo accepts data but encoding/json refuses it or reads something else. It reports whether the
// echo took its shortcut (data repeated prev's envelope).
func echoAgreesWithEncodingJSON(t *testing.T, prev, data []byte) bool {
	t.Helper()
	var e chunkEcho
	var c chunkWire
	e.decode(prev, &c)
	shortcut := e.ok && bytes.HasPrefix(data, e.prefix) && bytes.HasSuffix(data, e.suffix)
	if !e.decode(data, &c) {
		return false
	}
	var want chunkWire
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatalf("after %q, the echo accepted %q, which encoding/json refuses: %v", prev, data, err)
	}
	if !reflect.DeepEqual(c, want) {
		t.Fatalf("after %q, the echo read %q as\n%#v\nencoding/json as\n%#v", prev, data, c, want)
	}
	return shortcut
}

// echoPairs are chunks that follow a text chunk: the same envelope with other text (which the
// echo reads by its shortcut) and documents that only look like it.
var echoPairs = [][2]string{
	{`{"id":"c","choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}]}`, `{"id":"c","choices":[{"index":0,"delta":{"content":"bcd"},"finish_reason":null}]}`},
	{`{"id":"c","choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}]}`, `{"id":"c","choices":[{"index":0,"delta":{"content":""},"finish_reason":null}]}`},
	{`{"id":"c","choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}]}`, `{"id":"c","choices":[{"index":0,"delta":{"content":"esc \"q\" \u00e9 \ud83e\uddec \n"},"finish_reason":null}]}`},
	{`{"id":"c","choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}]}`, `{"id":"c","choices":[{"index":0,"delta":{"content":"x","content":"y"},"finish_reason":null}]}`},
	{`{"id":"c","choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}]}`, `{"id":"c","choices":[{"index":0,"delta":{"content":"x"},"refusal":"no"},"finish_reason":null}]}`},
	{`{"id":"c","choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}]}`, `{"id":"c","choices":[{"index":0,"delta":{"content":null},"finish_reason":null}]}`},
	{`{"id":"c","choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}]}`, `{"id":"c","choices":[{"index":0,"delta":{"content":1},"finish_reason":null}]}`},
	{`{"id":"c","choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}]}`, `{"id":"c","choices":[{"index":0,"delta":{"content":"tab` + "\t" + `"},"finish_reason":null}]}`},
	{`{"id":"c","choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}]}`, `{"id":"c","choices":[{"index":0,"delta":{"content":"a"},"finish_reason":"stop"}]}`},
	{`{"id":"c","choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}]}`, `{"id":"c","choices":[{"index":0,"delta":{"content":"\x"},"finish_reason":null}]}`},
	{`{"choices":[{"index":0,"delta":{"reasoning_content":"r","content":"a"}}]}`, `{"choices":[{"index":0,"delta":{"reasoning_content":"r","content":"b"}}]}`},
	{`{"choices":[{"index":0,"delta":{"content":"a"}}],"usage":null}`, `{"choices":[{"index":0,"delta":{"content":"b"}}],"usage":null}`},
	{`{"choices":[{"index":0,"delta":{"content":"a"}}]}`, `{"choices":[{"index":0,"delta":{"content":"a"}}]}{"choices":[{"index":0,"delta":{"content":"b"}}]}`},
	{`{"choices":[{"index":0,"delta":{"content":"a"}}]}`, `{"choices":[{"index":0,"delta":{"content":"a"}}]}`},
	{"{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"caf\xc3\"}}]}", "{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\xa9 ok\"}}]}"},
	{`{"choices":[],"usage":{"prompt_tokens":1}}`, `{"choices":[],"usage":{"prompt_tokens":2}}`},
}

func TestChunkEchoReadsRepeatedEnvelopesAsEncodingJSONDoes(t *testing.T) {
	shortcuts := 0
	for _, p := range echoPairs {
		if echoAgreesWithEncodingJSON(t, []byte(p[0]), []byte(p[1])) {
			shortcuts++
		}
	}
	for name, chunks := range recordedChunks(t) {
		taken := 0
		for i := 1; i < len(chunks); i++ {
			if echoAgreesWithEncodingJSON(t, chunks[i-1], chunks[i]) {
				taken++
			}
		}
		// A local server's text answer repeats its envelope: its chunks must take the shortcut,
		// or the relay silently gets slow again. (OpenAI's own chunks end in an "obfuscation"
		// field that differs in each, so they are decoded in full.)
		if name == "02-utf8-split.sse" && taken < 5 {
			t.Errorf("%s: no chunk took the echo's shortcut", name)
		}
		shortcuts += taken
	}
	if shortcuts < 6 {
		t.Fatalf("the echo took its shortcut %d times: it is hardly used", shortcuts)
	}
}

// FuzzChunkEchoAgreesWithEncodingJSON: whatever the two documents, the second as the echo reads it
// after the first is what encoding/json reads (go test -fuzz FuzzChunkEcho ./agents/ explores more).
func FuzzChunkEchoAgreesWithEncodingJSON(f *testing.F) {
	for _, p := range echoPairs {
		f.Add([]byte(p[0]), []byte(p[1]))
	}
	f.Fuzz(func(t *testing.T, prev, data []byte) { echoAgreesWithEncodingJSON(t, prev, data) })
}
