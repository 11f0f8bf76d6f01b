package db

import "context"

// TurnHistory returns what a model may be sent of an exchange before its answer answerID: of the
// questions and answers (role user or assistant; reasoning and tool items are never sent back) on
// the branch on screen, the first and the last recent ones up to the answer (included), in display
// order, and whether that is all of them up to the answer. It reads newest first on
// chat_message_branch_idx and stops after recent rows, so a turn of a long conversation reads what
// its history budget can hold, not the whole conversation.
func (s *Store) TurnHistory(ctx context.Context, exchangeID, answerID int64, recent int) ([]Message, bool, error) {
	var out []Message
	err := s.hotSelect(ctx, &out, `WITH ans AS (SELECT position FROM chat_message WHERE id = $2 AND exchange_id = $1)
		(SELECT `+messageColumns+` FROM chat_message m WHERE m.exchange_id = $1 AND m.on_branch AND m.role IN ('user', 'assistant')
			AND m.position <= (SELECT position FROM ans) ORDER BY m.position DESC, m.id DESC LIMIT $3 + 1)
		UNION
		(SELECT `+messageColumns+` FROM chat_message m WHERE m.exchange_id = $1 AND m.on_branch AND m.role IN ('user', 'assistant')
			ORDER BY m.position, m.id LIMIT 1)
		ORDER BY position, id`, exchangeID, answerID, recent)
	if err != nil {
		return nil, false, notFound(err, "turn history")
	}
	// recent+1 newest rows tell whether older ones exist beyond the first; the oldest of them is dropped.
	if len(out) <= recent+1 {
		return out, true, nil
	}
	return append(out[:1], out[2:]...), false, nil
}
