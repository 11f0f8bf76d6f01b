package imports

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"parley/db"
	"parley/fault"
)

// Store is what an import needs from the database.
type Store interface {
	InsertImported(ctx context.Context, userID int64, x db.ImportedExchange) (int64, error)
	SetImportProgress(ctx context.Context, im db.Import) error
	FinishImport(ctx context.Context, im db.Import, errMessage string) error
}

// progressEvery is how often a running import writes its progress.
const progressEvery = 200 * time.Millisecond

// Run imports the export in file for im.UserID in two passes over the file: checking reads every
// conversation and stores nothing, so a bad or foreign file fails before anything is written;
// storing then writes each conversation in its own transaction (searchable as soon as it commits),
// skipping those the user already has. Progress goes to im's row at most every progressEvery; the
// row is finished (done, or failed with a message for the person) before Run returns the final
// state. The error is the failure (a fault.Invalid for a bad file); ctx ending stops the import.
func Run(ctx context.Context, store Store, im db.Import, file string) (db.Import, error) {
	last := time.Now()
	report := func(force bool) {
		if force || time.Since(last) >= progressEvery {
			last = time.Now()
			_ = store.SetImportProgress(context.WithoutCancel(ctx), im)
		}
	}
	pass := func(phase string, each func(x db.ImportedExchange) error) error {
		rc, size, err := Open(file)
		if err != nil {
			return err
		}
		defer rc.Close()
		im.Phase, im.BytesTotal, im.BytesRead = phase, size, 0
		report(true)
		cr := &countingReader{r: rc}
		format, err := Read(cr, func(x db.ImportedExchange) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			im.Format, im.BytesRead = x.Source, cr.n
			if err := each(x); err != nil {
				return err
			}
			report(false)
			return nil
		})
		if format != "" {
			im.Format = format
		}
		im.BytesRead = cr.n
		return err
	}
	err := pass(db.ImportChecking, func(x db.ImportedExchange) error {
		im.Conversations++
		return nil
	})
	if err == nil {
		err = pass(db.ImportStoring, func(x db.ImportedExchange) error {
			id, err := store.InsertImported(ctx, im.UserID, x)
			if err != nil {
				return err
			}
			if id == 0 {
				im.Skipped++
			} else {
				im.Imported++
				im.Messages += len(x.Messages)
			}
			return nil
		})
	}
	msg := ""
	switch f := fault.As(err); {
	case err == nil:
	case f != nil:
		msg = f.Message
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		msg = "The import was stopped (the server is shutting down). Import the file again: conversations already stored are not added twice."
	default:
		msg = fmt.Sprintf("The import failed after %d conversations: the database refused a write. Import the file again: conversations already stored are not added twice.", im.Imported+im.Skipped)
	}
	if ferr := store.FinishImport(context.WithoutCancel(ctx), im, msg); ferr != nil && err == nil {
		err = ferr
	}
	if err == nil {
		im.Status = db.ImportDone
	} else {
		im.Status, im.Error = db.ImportFailed, msg
	}
	return im, err
}

// Runner runs imports in background goroutines, like answers: the upload's request returns at
// once and the page follows the progress in the import's row. Shutdown stops them.
type Runner struct {
	Store Store
	Log   *slog.Logger

	once   sync.Once
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

func (r *Runner) init() {
	r.once.Do(func() { r.ctx, r.cancel = context.WithCancel(context.Background()) })
}

// Start imports file for im in the background and removes file when done.
func (r *Runner) Start(im db.Import, file string) {
	r.init()
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		defer os.Remove(file)
		done, err := Run(r.ctx, r.Store, im, file)
		if err != nil && fault.As(err) == nil && r.Log != nil {
			r.Log.Error("import failed", "import", im.ID, "user", im.UserID, "err", err)
		}
		if r.Log != nil {
			r.Log.Info("import finished", "import", im.ID, "user", im.UserID, "format", done.Format,
				"imported", done.Imported, "skipped", done.Skipped, "status", done.Status)
		}
	}()
}

// Shutdown stops running imports (each is stored as failed, saying to import the file again) and
// waits for them until ctx ends.
func (r *Runner) Shutdown(ctx context.Context) {
	r.init()
	r.cancel()
	done := make(chan struct{})
	go func() { r.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
	}
}
