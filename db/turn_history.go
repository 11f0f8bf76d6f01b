package db

import "context"

// TurnHistory reads what a turn may send the model, in display order: the conversation's first
// question and its answer (the first two messages of the branch), and its latest questions and
// answers on the answer's branch up to the answer answerID (included), newest first, at most rows
// of them, ending with the one whose text brings the newer ones' total past budget bytes
// (octet_length of the stored text; budget ≤ 0: no bound).
// Earlier turns' tool items are never sent back, so they are not read. Only what can be sent
// leaves the database: a conversation of long answers costs a few rows, not rows of them.
func (s *Store) TurnHistory(ctx context.Context, exchangeID, answerID int64, rows, budget int) ([]Message, error) {
	var out []Message
	err := s.hotSelect(ctx, &out, `WITH
		ans AS (SELECT position FROM chat_message WHERE id = $2 AND exchange_id = $1),
		latest AS (SELECT m.id, sum(octet_length(m.content)) OVER (ORDER BY m.position DESC, m.id DESC) - octet_length(m.content) AS newer
			FROM chat_message m WHERE m.exchange_id = $1 AND m.on_branch AND m.role IN ('user', 'assistant')
				AND m.position <= (SELECT position FROM ans)
			ORDER BY m.position DESC, m.id DESC LIMIT $3),
		keep AS (SELECT id FROM latest WHERE $4 <= 0 OR newer <= $4
			UNION
			(SELECT f.id FROM chat_message f WHERE f.exchange_id = $1 AND f.on_branch AND f.role IN ('user', 'assistant')
				ORDER BY f.position, f.id LIMIT 2))
		SELECT `+messageColumns+` FROM chat_message JOIN keep USING (id) ORDER BY position, id`,
		exchangeID, answerID, rows, budget)
	if err != nil {
		return nil, notFound(err, "turn history")
	}
	return out, nil
}
