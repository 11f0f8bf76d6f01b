package chat

import (
	"testing"
	"time"

	"parley/db"
)

func TestRouteTeam(t *testing.T) {
	now := time.Now()
	chef := db.Agent{ID: 1, Identifier: "chef", Name: "Chef", Description: "Cooking, recipes and baking bread."}
	gardener := db.Agent{ID: 2, Identifier: "gardener", Name: "Gardener", Description: "Plants, soil and pruning roses."}
	off := db.Agent{ID: 3, Identifier: "off", Name: "Off", Description: "Bread bread bread.", DisabledAt: &now}
	members := []db.Agent{chef, gardener, off}
	cases := []struct {
		name     string
		query    string
		pinned   int64
		want     int64
		handoff  bool
		members  []db.Agent
		wantNone bool
	}{
		{"matches a description", "When do I prune my roses?", 0, 2, true, members, false},
		{"plural and case", "Any RECIPES with bread?", 0, 1, true, members, false},
		{"no match: first member", "Hello there", 0, 1, true, members, false},
		{"stop words do not count", "What can you help with?", 0, 1, true, members, false},
		{"a pin wins", "prune my roses", 1, 1, false, members, false},
		{"a disabled member is skipped", "bread bread", 3, 1, true, members, false},
		{"a pin of a non-member is Auto", "roses", 99, 2, true, members, false},
		{"no usable member", "anything", 0, 0, false, []db.Agent{off}, true},
	}
	for _, tc := range cases {
		got, handoff, ok := RouteTeam(tc.members, tc.query, tc.pinned)
		if tc.wantNone {
			if ok {
				t.Errorf("%s: picked %s from no usable member", tc.name, got.Identifier)
			}
			continue
		}
		if !ok || got.ID != tc.want || (handoff != nil) != tc.handoff {
			t.Errorf("%s: got %d (handoff %v, ok %v), want %d (handoff %v)", tc.name, got.ID, handoff, ok, tc.want, tc.handoff)
		}
	}
}
