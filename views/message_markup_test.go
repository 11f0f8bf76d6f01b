package views

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"
)

// Every field of MessageView but Suggestions is part of the memo's key, so a message whose view
// changed in any way is rendered anew: adding a field to MessageView without adding it to
// messageKey (and messageKeyOf) fails here.
func TestMessageKeyHoldsEveryFieldOfTheView(t *testing.T) {
	view := reflect.TypeFor[MessageView]()
	key := reflect.TypeFor[messageKey]()
	for i := range view.NumField() {
		f := view.Field(i)
		if f.Name == "Suggestions" {
			continue
		}
		kf, ok := key.FieldByName(f.Name)
		if !ok || kf.Type != f.Type {
			t.Errorf("messageKey lacks MessageView.%s (%s)", f.Name, f.Type)
			continue
		}
		// Set only this field and check that the key carries it.
		var m MessageView
		v := reflect.ValueOf(&m).Elem().Field(i)
		switch v.Kind() {
		case reflect.String:
			v.SetString("x")
		case reflect.Int, reflect.Int64:
			v.SetInt(7)
		case reflect.Bool:
			v.SetBool(true)
		case reflect.Struct: // time.Time
			v.Set(reflect.ValueOf(time.Unix(1, 0)))
		default:
			t.Fatalf("MessageView.%s: kind %s not handled by this test", f.Name, v.Kind())
		}
		if messageKeyOf(m, 0) == messageKeyOf(MessageView{}, 0) {
			t.Errorf("messageKeyOf ignores MessageView.%s", f.Name)
		}
	}
	if messageKeyOf(MessageView{}, 1) == messageKeyOf(MessageView{}, 2) {
		t.Error("messageKeyOf ignores the exchange")
	}
}

// A memoized message renders exactly as the message itself does, and a change of what it shows
// (here its rating, then its versions) shows at once.
func TestMemoizedMessageMarkupFollowsItsView(t *testing.T) {
	render := func(m MessageView) string {
		var b strings.Builder
		if err := MessageItem(m, 9).Render(context.Background(), &b); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	direct := func(m MessageView) string {
		var b strings.Builder
		if err := messageItem(m, 9).Render(context.Background(), &b); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	m := MessageView{ID: 41, Role: "assistant", Status: "complete", HTML: "<p>an answer</p>", AgentName: "Assistant", At: time.Unix(1_700_000_000, 0), GroupStart: true}
	for _, step := range []func(*MessageView){
		func(*MessageView) {},
		func(m *MessageView) { m.Feedback = "up" },
		func(m *MessageView) { m.Versions, m.Version, m.PrevVersion = 2, 2, 40 },
		func(m *MessageView) { m.OOB = true },
	} {
		step(&m)
		want := direct(m)
		for range 2 { // once rendered, once from the memo
			if got := render(m); got != want {
				t.Fatalf("memoized markup differs from the message's own:\n got %s\nwant %s", got, want)
			}
		}
	}
	if !strings.Contains(render(m), `aria-pressed="true"`) || !strings.Contains(render(m), "2/2") {
		t.Fatalf("the memo kept an older rendering: %s", render(m))
	}
}

// A full memo starts a new generation and keeps the one before, so recently shown markup stays;
// nothing older than two generations is kept.
func TestMarkupCacheKeepsTwoGenerations(t *testing.T) {
	c := newMarkupCache[int](1000)
	for i := range 60 { // 50 bytes each: 20 entries per generation
		c.put(i, markup("0123456789"), 50)
	}
	if _, ok := c.get(59); !ok {
		t.Fatal("the newest entry is gone")
	}
	if _, ok := c.get(25); !ok {
		t.Fatal("an entry of the previous generation is gone")
	}
	if _, ok := c.get(5); ok {
		t.Fatal("an entry three generations old is kept")
	}
	if n := len(c.cur) + len(c.prev); n > 40 {
		t.Fatalf("%d entries kept, want at most 40", n)
	}
	c.put(100, markup("huge"), 1000)
	if _, ok := c.get(100); ok {
		t.Fatal("an entry of more than a sixteenth of the memo is kept")
	}
}
