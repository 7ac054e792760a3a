// Command ferretdb-embedded runs FerretDB (MongoDB wire protocol) in-process over PostgreSQL or SQLite.
// It exists because FerretDB's own `ferretdb` command panics at start in this version; the embeddable
// package works. Used only for local development and tests; production points MONGODB_URI at MongoDB.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/FerretDB/FerretDB/ferretdb"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:27017", "TCP address to listen on; empty for none")
	unix := flag.String("unix", "", "Unix socket path to listen on (the sqlite handler has no authentication: use this alone)")
	handler := flag.String("handler", "postgresql", "backend: postgresql or sqlite")
	pgURL := flag.String("postgresql-url", "", "PostgreSQL URL for the postgresql handler")
	sqliteURL := flag.String("sqlite-url", "", "SQLite directory URI (file:<dir>/) for the sqlite handler")
	logLevel := flag.String("log-level", "warn", "debug, info, warn or error")
	flag.Parse()

	// The SQLite files and the socket are created for their owner only; the caller keeps their directories 0700.
	syscall.Umask(0o077)

	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		level = slog.LevelWarn
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))

	f, err := ferretdb.New(&ferretdb.Config{
		Listener:      ferretdb.ListenerConfig{TCP: *listen, Unix: *unix},
		Logger:        logger,
		Handler:       *handler,
		PostgreSQLURL: *pgURL,
		SQLiteURL:     *sqliteURL,
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "ferretdb:", err)
		os.Exit(1)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	done := make(chan struct{})
	go func() { _ = f.Run(ctx); close(done) }()
	fmt.Println("ready", f.MongoDBURI())
	<-done
}
