package db

// SearchConversationsWith is SearchConversations ranking every match when there are at most
// ranked (SearchConversations: searchRankedMatches) or when the newest window messages
// (searchWindow) hold matches in fewer than limit conversations, so tests reach either way with a
// few messages.
var SearchConversationsWith = (*Store).searchConversations
