package db

// SearchConversationsWith is SearchConversations ranking every match when there are at most
// ranked (SearchConversations: searchRankedMatches) or when the newest window messages
// (searchWindow) hold matches in fewer than limit conversations, so tests reach either way with a
// few messages.
var SearchConversationsWith = (*Store).searchConversations

// SearchWorkspaceWith is SearchWorkspace for the query alone (no fallback to any of its words),
// searching conversations as SearchConversationsWith does with ranked and window.
var SearchWorkspaceWith = (*Store).searchWorkspace
