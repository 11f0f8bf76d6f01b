package accounts

import (
	"context"
	"sync"
	"time"
)

// PurgeSessionsEvery is how often each instance deletes expired sessions.
const PurgeSessionsEvery = time.Hour

// PurgeSessions deletes expired sessions (db.Store.DeleteExpiredSessions) at once and then every
// every, each purge bounded by a minute, until stop is called; stop waits for a purge under way.
// onError hears a purge that failed (the next one tries again). Any number of instances may run it
// on one database: a purge is one idempotent statement.
func (s *Service) PurgeSessions(every time.Duration, onError func(error)) (stop func()) {
	done, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			if _, _, err := s.Store.DeleteExpiredSessions(ctx); err != nil {
				onError(err)
			}
			cancel()
			select {
			case <-tick.C:
			case <-done:
				return
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() { close(done) })
		<-stopped
	}
}
