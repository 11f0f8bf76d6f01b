package db

// SearchConversationsRankingAtMost is SearchConversations ranking every match only when there are
// at most ranked (SearchConversations: searchRankedMatches), so tests reach the newest-first walk
// with a few messages.
var SearchConversationsRankingAtMost = (*Store).searchConversations
