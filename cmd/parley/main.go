// Command parley is the whole of Parley in one binary:
//
//	parley serve                  migrate, then serve HTTP until SIGINT/SIGTERM
//	parley migrate up|down|status manage the schema
//	parley import --user EMAIL FILE import an export into an account
//	parley --help
//
// Configuration comes from the environment; see the README's table.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"parley/config"
	"parley/db"
	"parley/fault"
	"parley/handlers"
	"parley/imports"
)

const usage = `Parley — a self-hosted AI chat workspace.

Usage:
  parley serve                    apply pending migrations, then serve HTTP on PARLEY_ADDR
  parley migrate up               apply pending migrations
  parley migrate down             roll back the newest migration
  parley migrate status           list migrations and whether each is applied
  parley import --user EMAIL FILE import conversations (ChatGPT zip or conversations.json,
                                  Open WebUI, LibreChat or Parley JSON) into EMAIL's account
  parley --help                   show this help

Configuration is read from the environment (DATABASE_URL, PARLEY_ADDR, PARLEY_SESSION_KEY, …);
the README lists every variable. 'make run' sets up a private PostgreSQL and runs 'parley serve'.
`

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "parley:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("parley", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil || fs.NArg() == 0 {
		fmt.Fprint(stdout, usage)
		if errors.Is(err, flag.ErrHelp) || (err == nil && fs.NArg() == 0) {
			return nil
		}
		return err
	}
	switch fs.Arg(0) {
	case "serve":
		return serve()
	case "migrate":
		return migrate(fs.Arg(1), stdout)
	case "import":
		return importFile(fs.Args()[1:], stdout)
	case "help":
		fmt.Fprint(stdout, usage)
		return nil
	default:
		fmt.Fprint(stdout, usage)
		return fmt.Errorf("unknown command %q", fs.Arg(0))
	}
}

// setup loads the configuration, builds the logger and opens the database.
func setup(ctx context.Context) (config.Config, *slog.Logger, *db.Store, error) {
	cfg, err := config.Load()
	if err != nil {
		return cfg, nil, nil, fmt.Errorf("configuration: %w", err)
	}
	logger := newLogger(cfg)
	store, err := db.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		return cfg, nil, nil, err
	}
	store.SearchTimeout = cfg.SearchTimeout
	store.SetPrepared(cfg.DBPrepared)
	return cfg, logger, store, nil
}

func newLogger(cfg config.Config) *slog.Logger {
	var level slog.Level
	_ = level.UnmarshalText([]byte(cfg.LogLevel))
	opts := &slog.HandlerOptions{Level: level}
	if cfg.LogFormat == "json" {
		return slog.New(slog.NewJSONHandler(os.Stderr, opts))
	}
	return slog.New(slog.NewTextHandler(os.Stderr, opts))
}

func migrate(direction string, stdout io.Writer) error {
	if direction != "up" && direction != "down" && direction != "status" {
		return fmt.Errorf("migrate needs up, down or status, not %q", direction)
	}
	ctx := context.Background()
	_, logger, store, err := setup(ctx)
	if err != nil {
		return err
	}
	defer store.Close()
	switch direction {
	case "up":
		n, err := store.MigrateUp(ctx, logger)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "applied %d migration(s)\n", n)
	case "down":
		if err := store.MigrateDown(ctx, logger); err != nil {
			return err
		}
		fmt.Fprintln(stdout, "rolled back one migration")
	case "status":
		all, err := store.MigrateStatus(ctx)
		if err != nil {
			return err
		}
		for _, m := range all {
			state := "pending"
			if m.Applied {
				state = "applied"
			}
			fmt.Fprintf(stdout, "%05d  %-8s %s\n", m.Version, state, m.Source)
		}
	}
	return nil
}

func serve() error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cfg, logger, store, err := setup(ctx)
	if err != nil {
		return err
	}
	defer store.Close()
	if n, err := store.MigrateUp(ctx, logger); err != nil {
		return err
	} else if n > 0 {
		logger.Info("migrated", "applied", n)
	}
	if n, err := store.FailUnfinishedImports(ctx); err != nil {
		return err
	} else if n > 0 {
		logger.Warn("imports left unfinished by a previous run marked failed", "count", n)
	}
	e, err := handlers.New(ctx, handlers.Deps{Config: cfg, Store: store, Logger: logger})
	if err != nil {
		return fmt.Errorf("configuration: %w", err)
	}
	srv := &http.Server{
		Addr:              cfg.Addr,
		Handler:           e,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
	}
	srv.RegisterOnShutdown(e.CloseStreams) // Shutdown waits for handlers; streams would never end
	errc := make(chan error, 1)
	go func() { errc <- srv.ListenAndServe() }()
	logger.Info("Parley is serving", "url", cfg.PublicURL, "addr", cfg.Addr)
	invite := "open it and sign up (the first account is the admin)"
	if exists, err := store.HasUsers(ctx); err != nil || exists {
		invite = "open it and sign in"
	}
	fmt.Printf("\n  Parley is running at %s — %s.\n  Press Ctrl-C to stop.\n\n", cfg.PublicURL, invite)

	select {
	case err := <-errc:
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return fmt.Errorf("listen on %s: %w (is another program using the port? set PARLEY_ADDR)", cfg.Addr, err)
	case <-ctx.Done():
	}
	stop() // from now on a second SIGINT/SIGTERM forces the exit
	forced := make(chan os.Signal, 1)
	signal.Notify(forced, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-forced
		logger.Warn("second signal: exiting without finishing the shutdown")
		os.Exit(1)
	}()
	logger.Info("shutting down")
	return shutdown(srv, e, cfg.ShutdownTimeout, logger)
}

// shutdown drains the server: it stops listening and closes open streams, lets running answers
// finish until timeout (then stores them interrupted), so requests waiting for an answer (a
// no-JavaScript chat POST) return, and waits for every request to end. Requests still running a
// few seconds after that are cut; the shutdown itself never fails.
func shutdown(srv *http.Server, e *handlers.Server, timeout time.Duration, logger *slog.Logger) error {
	answers, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	generating := make(chan struct{})
	go func() {
		e.StopGenerating(answers) // running answers finish, or are stored interrupted at the deadline
		close(generating)
	}()
	requests, cancelRequests := context.WithTimeout(context.Background(), timeout+5*time.Second)
	defer cancelRequests()
	if err := srv.Shutdown(requests); err != nil { // stops listening; open streams are closed (RegisterOnShutdown)
		logger.Warn("requests still running at the end of the shutdown were cut", "error", err)
		_ = srv.Close()
	}
	<-generating
	return nil
}

// importFile runs `parley import --user EMAIL FILE`: the same import as Account → Import, in the
// foreground, printing what it did. It migrates first, like serve.
func importFile(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("import", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	email := fs.String("user", "", "the account to import into (its email)")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("import: %w (usage: parley import --user EMAIL FILE)", err)
	}
	if *email == "" || fs.NArg() != 1 {
		return errors.New("usage: parley import --user EMAIL FILE")
	}
	file := fs.Arg(0)
	st, err := os.Stat(file)
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	_, logger, store, err := setup(ctx)
	if err != nil {
		return err
	}
	defer store.Close()
	if _, err := store.MigrateUp(ctx, logger); err != nil {
		return err
	}
	user, err := store.UserByEmail(ctx, *email)
	if errors.Is(err, db.ErrNotFound) {
		return fmt.Errorf("import: no account has the email %s (sign up first)", *email)
	}
	if err != nil {
		return err
	}
	im, err := store.CreateImport(ctx, user.ID, filepath.Base(file), st.Size())
	if err != nil {
		return err
	}
	im, err = imports.Run(ctx, store, im, file)
	if f := fault.As(err); f != nil {
		return fmt.Errorf("import of %s: %s", file, f.Message)
	}
	if err != nil { // the message for the page does not say what the database answered: the cause does
		return fmt.Errorf("import of %s: %s (%w)", file, im.Error, err)
	}
	fmt.Fprintf(stdout, "%s export: imported %d conversation(s) with %d message(s) into %s; %d were already there\n",
		imports.FormatName(im.Format), im.Imported, im.Messages, user.Email, im.Skipped)
	return nil
}
