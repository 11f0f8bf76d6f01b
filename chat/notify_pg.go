package chat

import (
	"context"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/lib/pq"
)

// NoticeChannel is the PostgreSQL channel that carries change notices between instances.
const NoticeChannel = "parley_changes"

// noticeLinger is how long the sender gathers notices before it sends them to the other
// instances: their streams see a change at most this much later, and a turn's several writes cost
// one or two NOTIFY statements instead of one each. Local subscribers are never delayed.
const noticeLinger = 20 * time.Millisecond

// maxNoticePayload keeps one NOTIFY payload under PostgreSQL's 8,000-byte limit.
const maxNoticePayload = 7900

// NoticeSender sends NOTIFY payloads (db.Store.Notify).
type NoticeSender interface {
	Notify(ctx context.Context, channel string, payloads []string) error
}

// notice is "message MessageID of exchange ExchangeID changed".
type notice struct{ exchangeID, messageID int64 }

// PostgresNotifier is the Notifier of an instance that shares its database with others. A Publish
// reaches this instance's subscribers at once (the in-process Broker, no round trip through
// PostgreSQL), and is sent to the other instances by NOTIFY on NoticeChannel: pending notices are
// batched (deduplicated, several "exchange:message" pairs per payload, one statement per batch) by
// one sender goroutine, so Publish never blocks. A pq.Listener (on its own connection, which must
// not go through a transaction-pooling proxy) receives the others' notices; once it first listens,
// and after it reconnects, every subscription is told to resync, since notices sent before are
// lost.
//
// Payload: "<instance id> <exchange>:<message> <exchange>:<message> …" (ids only).
type PostgresNotifier struct {
	local    *Broker
	sender   NoticeSender
	listener *pq.Listener
	instance string
	log      *slog.Logger

	mu        sync.Mutex
	outbox    []notice
	queued    map[notice]bool
	wake      chan struct{}
	done      chan struct{}
	closeOnce sync.Once
	wg        sync.WaitGroup
}

// NewPostgresNotifier starts listening on NoticeChannel through a new connection to dsn and
// sending this instance's notices through sender. instance names this instance (its own notices
// come back and are ignored). Close stops it.
func NewPostgresNotifier(dsn string, sender NoticeSender, instance string, log *slog.Logger) *PostgresNotifier {
	n := &PostgresNotifier{local: NewBroker(), sender: sender, instance: instance, log: log,
		queued: map[notice]bool{}, wake: make(chan struct{}, 1), done: make(chan struct{})}
	n.listener = pq.NewListener(dsn, 100*time.Millisecond, 2*time.Second, func(ev pq.ListenerEventType, err error) {
		if err != nil && ev != pq.ListenerEventConnectionAttemptFailed {
			log.Warn("change listener", "event", ev.String(), "error", err)
		}
	})
	n.wg.Add(2)
	go n.listen()
	go n.send()
	return n
}

// Publish implements Notifier: local subscribers at once, other instances through NOTIFY.
func (n *PostgresNotifier) Publish(exchangeID, messageID int64) {
	n.local.Publish(exchangeID, messageID)
	k := notice{exchangeID, messageID}
	n.mu.Lock()
	if !n.queued[k] {
		n.queued[k] = true
		n.outbox = append(n.outbox, k)
	}
	n.mu.Unlock()
	select {
	case n.wake <- struct{}{}:
	default:
	}
}

// Subscribe implements Notifier.
func (n *PostgresNotifier) Subscribe(exchangeID int64) *Subscription {
	return n.local.Subscribe(exchangeID)
}

// Close stops listening and sending; notices still queued are sent first (within 2 s).
func (n *PostgresNotifier) Close() {
	n.closeOnce.Do(func() {
		close(n.done)
		n.wg.Wait()
		_ = n.listener.Close()
	})
}

// listen delivers the other instances' notices to local subscribers.
func (n *PostgresNotifier) listen() {
	defer n.wg.Done()
	go func() {
		if err := n.listener.Listen(NoticeChannel); err != nil { // blocks until connected
			n.log.Error("listening for change notices", "error", err)
			return
		}
		// Notices sent before this instance listened are lost: a stream that subscribed meanwhile
		// (an instance serves while its listener connects) reads its state again.
		n.local.Resync()
	}()
	ping := time.NewTicker(5 * time.Second) // a silent connection that died is noticed and replaced
	defer ping.Stop()
	for {
		select {
		case <-n.done:
			return
		case <-ping.C:
			go n.listener.Ping()
		case nt := <-n.listener.Notify:
			if nt == nil { // reconnected: whatever was sent meanwhile is lost
				n.local.Resync()
				continue
			}
			from, pairs, _ := strings.Cut(nt.Extra, " ")
			if from == n.instance {
				continue
			}
			for _, p := range strings.Fields(pairs) {
				e, m, ok := strings.Cut(p, ":")
				ex, err1 := strconv.ParseInt(e, 10, 64)
				msg, err2 := strconv.ParseInt(m, 10, 64)
				if ok && err1 == nil && err2 == nil {
					n.local.Publish(ex, msg)
				}
			}
		}
	}
}

// send NOTIFYs queued notices in batches; a batch that fails (database unreachable) is kept and
// sent again, newer notices for the same message merging into it.
func (n *PostgresNotifier) send() {
	defer n.wg.Done()
	for {
		select {
		case <-n.wake:
		case <-n.done:
			n.flush(2 * time.Second)
			return
		}
		select { // gather what else changes meanwhile: one NOTIFY statement for a turn's few writes
		case <-time.After(noticeLinger):
		case <-n.done:
		}
		if err := n.flush(5 * time.Second); err != nil {
			n.log.Warn("sending change notices", "error", err)
			select {
			case <-time.After(200 * time.Millisecond):
			case <-n.done:
			}
			select {
			case n.wake <- struct{}{}:
			default:
			}
		}
	}
}

// flush sends everything queued; on failure the notices are queued again (once each).
func (n *PostgresNotifier) flush(timeout time.Duration) error {
	n.mu.Lock()
	batch := n.outbox
	n.outbox = nil
	for _, k := range batch {
		delete(n.queued, k) // a publish from now on queues the notice again
	}
	n.mu.Unlock()
	if len(batch) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	err := n.sender.Notify(ctx, NoticeChannel, payloads(n.instance, batch))
	if err != nil {
		n.mu.Lock()
		for _, k := range batch {
			if !n.queued[k] {
				n.queued[k] = true
				n.outbox = append(n.outbox, k)
			}
		}
		n.mu.Unlock()
	}
	return err
}

// payloads packs notices into NOTIFY payloads of at most maxNoticePayload bytes.
func payloads(instance string, batch []notice) []string {
	var out []string
	var b strings.Builder
	for _, k := range batch {
		pair := strconv.FormatInt(k.exchangeID, 10) + ":" + strconv.FormatInt(k.messageID, 10)
		if b.Len() > 0 && b.Len()+1+len(pair) > maxNoticePayload {
			out = append(out, b.String())
			b.Reset()
		}
		if b.Len() == 0 {
			b.WriteString(instance)
		}
		b.WriteByte(' ')
		b.WriteString(pair)
	}
	if b.Len() > 0 {
		out = append(out, b.String())
	}
	return out
}
